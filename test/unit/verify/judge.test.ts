// How `dockside verify` judges a case (src/verify/run.ts): alike when the normalised transcripts agree, deliberate
// when a named rule explains every difference, differs otherwise; and which differences are content, not shape.
import { describe, expect, it } from 'vitest'
import type { Deliberate } from '../../../src/verify/deliberate'
import { alignEmpty, judge } from '../../../src/verify/run'

const same = (lines: string[]) => lines
const serverRule: Deliberate = {
  id: 'server-version',
  kind: 'version',
  reason: 'each names its own Engine',
  cases: /^ping$/,
  apply: (real, fake) => [real, fake.map((l) => (l.startsWith('server: ') ? real.find((r) => r.startsWith('server: '))! : l))],
}

describe('judge', () => {
  it('alike: the normalised lines agree', () => {
    expect(judge('ping', ['HTTP 200', 'OK'], ['HTTP 200', 'OK'], same, [serverRule])).toMatchObject({ verdict: 'alike', deliberate: [] })
  })

  it('deliberate: a rule for this case explains the difference, and is named with its reason', () => {
    const r = judge('ping', ['HTTP 200', 'server: Docker/20.10'], ['HTTP 200', 'server: Docker/28.2.2'], same, [serverRule])
    expect(r).toMatchObject({ verdict: 'deliberate', deliberate: [{ id: 'server-version', reason: 'each names its own Engine' }] })
    // The report keeps both sides as they were, not as the rule rewrote them.
    expect(r.fake).toEqual(['HTTP 200', 'server: Docker/28.2.2'])
  })

  it('differs: a rule for another case does not apply; a rule that leaves a difference does not make it deliberate', () => {
    expect(judge('version', ['HTTP 200', 'server: a'], ['HTTP 200', 'server: b'], same, [serverRule]).verdict).toBe('differs')
    expect(judge('ping', ['HTTP 200', 'server: a', 'OK'], ['HTTP 200', 'server: b', 'KO'], same, [serverRule]).verdict).toBe('differs')
    expect(judge('ping', ['HTTP 404'], ['HTTP 200'], same, []).verdict).toBe('differs')
  })
})

describe('alignEmpty: null against a list or object is content, not shape', () => {
  it('aligns null with a filled list (and drops its elements), and an empty list with a filled one', () => {
    const real = ['.Config.Env: null', '.Config.Cmd: null', '.Args: array', '.Args[]: string', '.Name: string']
    const fake = ['.Config.Env: array', '.Config.Env[]: string', '.Config.Cmd: array', '.Config.Cmd[]: string', '.Args: []', '.Name: string']
    const [r, f] = alignEmpty(real, fake)
    expect(r).toEqual(['.Config.Env: null or empty', '.Config.Cmd: null or empty', '.Args: null or empty', '.Name: string'])
    expect(f).toEqual(r)
    expect(judge('containers/inspect', real, fake, same, []).verdict).toBe('alike')
  })

  it('keeps a key one side lacks, an object against a list, and a type change of a scalar', () => {
    expect(judge('x', ['.A: null', '.B: string'], ['.A: null'], same, []).verdict).toBe('differs')
    expect(judge('x', ['.A: {}'], ['.A: array', '.A[]: string'], same, []).verdict).toBe('differs')
    expect(judge('x', ['.A: string'], ['.A: null'], same, []).verdict).toBe('differs')
    // Order is compared: the same keys in another order differ.
    expect(judge('x', ['.A: string', '.B: number'], ['.B: number', '.A: string'], same, []).verdict).toBe('differs')
  })
})
