// Go's regexp for Docker's name and reference filters (src/protocol/go/regexp.ts): regexp.MatchString semantics
// (unanchored, RE2 syntax), Go's compile errors, and the 1000-instruction budget at its exact edge.
import { describe, expect, it } from 'vitest'
import { compileGoRegexp, GO_REGEXP_MAX_STATES, GoRegexpSyntaxError, GoRegexpTooLargeError, loadGoRegexp } from '../../../../src/protocol/go/regexp'

describe('compileGoRegexp', () => {
  it('matches anywhere in the text unless anchored, with Go syntax', async () => {
    await loadGoRegexp()
    await loadGoRegexp()
    expect(compileGoRegexp('eb').test('web-2')).toBe(true)
    expect(compileGoRegexp('^eb').test('web-2')).toBe(false)
    expect(compileGoRegexp('^web$').test('web-2')).toBe(false)
    expect(compileGoRegexp('(?i)^WEB').test('web')).toBe(true)
    expect(compileGoRegexp('^\\pL+\\d$').test('web2')).toBe(true)
    expect(compileGoRegexp('x').test('web')).toBe(false)
  })

  it("throws GoRegexpSyntaxError with Go's message where Go's regexp.Compile fails", async () => {
    await loadGoRegexp()
    for (const bad of ['(', '\\1', '(?=a)', 'a**', 'a{1001}']) expect(() => compileGoRegexp(bad), bad).toThrow(GoRegexpSyntaxError)
    expect(() => compileGoRegexp('(')).toThrow('error parsing regexp: missing closing ): `(`')
  })

  it('accepts a program of exactly 1000 instructions and refuses 1001, saying how many', async () => {
    await loadGoRegexp()
    expect(GO_REGEXP_MAX_STATES).toBe(1000)
    expect(compileGoRegexp('a'.repeat(998)).test('a'.repeat(998))).toBe(true)
    expect(() => compileGoRegexp('a'.repeat(999))).toThrow(GoRegexpTooLargeError)
    expect(() => compileGoRegexp('a'.repeat(999))).toThrow(new GoRegexpTooLargeError('compiles to 1001 instructions, more than 1000'))
  })

  it('says to load the engine first when it is not loaded (a fresh process)', async () => {
    // A second instance of the module alone (the query makes it another module), never loaded.
    const url = '../../../../src/protocol/go/regexp.ts?fresh'
    const fresh = (await import(/* @vite-ignore */ url)) as typeof import('../../../../src/protocol/go/regexp')
    expect(() => fresh.compileGoRegexp('a')).toThrow(new Error('dockside: loadGoRegexp() must be awaited before compileGoRegexp().'))
    await fresh.loadGoRegexp()
    expect(fresh.compileGoRegexp('a').test('cat')).toBe(true)
  })
})
