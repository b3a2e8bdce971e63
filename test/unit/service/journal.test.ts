// The journal and its ring (src/service/journal.ts, recent.ts), close-code checks and secret masking.
import { describe, expect, it } from 'vitest'
import { createJournal as createTypedJournal, mask } from '../../../src/service/journal'
import { Recent } from '../../../src/service/recent'
import { checkCloseCode } from '../../../src/service/close-code'

// The journal's mechanics (numbers, times, prefixes, listeners, the ring) with made-up types: a view of it that takes
// any type. What the fake writes is typed (journal-entries.ts; test/types/journal.test-d.ts).
interface Entry { seq: number; time: number; type: string; [field: string]: unknown }
interface AnyJournal {
  readonly entries: readonly Entry[]
  readonly omitted: number
  ofType(type: string): Entry[]
  record(type: string, data?: Record<string, unknown>): Entry
  subscribe(listener: (entry: Entry) => void): () => void
  clear(): void
}
const createJournal = (now: () => number, limit?: number) => createTypedJournal(now, limit) as unknown as AnyJournal

describe('the journal', () => {
  it('numbers entries, stamps clock time, filters by type or prefix, and notifies until unsubscribed', () => {
    let now = 5
    const j = createJournal(() => now)
    const seen: string[] = []
    const off = j.subscribe((e) => seen.push(e.type))
    expect(j.record('ws.open', { client: 'a' })).toEqual({ seq: 1, time: 5, type: 'ws.open', client: 'a' })
    now = 9
    j.record('ws.close')
    j.record('ws')
    j.record('push.start')
    expect(j.entries.map((e) => [e.seq, e.time, e.type])).toEqual([
      [1, 5, 'ws.open'],
      [2, 9, 'ws.close'],
      [3, 9, 'ws'],
      [4, 9, 'push.start'],
    ])
    expect(j.ofType('ws.').map((e) => e.type)).toEqual(['ws.open', 'ws.close'])
    expect(j.ofType('ws').map((e) => e.seq)).toEqual([3])
    expect(j.ofType('ws.open').map((e) => e.seq)).toEqual([1])
    expect(off()).toBe(true)
    j.record('after')
    expect(seen).toEqual(['ws.open', 'ws.close', 'ws', 'push.start'])
    j.clear()
    expect(j.entries).toEqual([])
    expect(j.record('next').seq).toBe(6)
  })

  it('a listener unsubscribed by another during an entry does not hear it; one subscribed during it does, once', () => {
    const j = createJournal(() => 0)
    const heard: string[] = []
    let late: (() => void) | undefined
    const offs: (() => void)[] = []
    j.subscribe((e) => {
      heard.push(`first ${e.seq}`)
      offs[0]()
      late ??= j.subscribe((x) => heard.push(`late ${x.seq}`))
    })
    offs.push(j.subscribe((e) => heard.push(`second ${e.seq}`)))
    j.record('a')
    j.record('b')
    expect(heard).toEqual(['first 1', 'late 1', 'first 2', 'late 2'])
  })

  it('keeps the last `limit` entries in order and counts the dropped ones', () => {
    const j = createJournal(() => 0, 3)
    for (let i = 1; i <= 5; i++) j.record(`e${i}`)
    expect(j.entries.map((e) => e.type)).toEqual(['e3', 'e4', 'e5'])
    expect(j.omitted).toBe(2)
    // Reading twice without a change gives the same list; a change gives a fresh one.
    const first = j.entries
    expect(j.entries).toBe(first)
    j.record('e6')
    expect(j.entries.map((e) => e.type)).toEqual(['e4', 'e5', 'e6'])
  })

  it('masks secrets: *** for any value, empty stays empty, none stays none', () => {
    expect([mask('s3cret'), mask(''), mask(undefined)]).toEqual(['***', '', undefined])
  })
})

describe('Recent', () => {
  it('wraps around in order at every fill level; clear keeps the count of omitted items', () => {
    const r = new Recent<number>(3)
    const states: [number[], number, number][] = []
    for (let i = 1; i <= 7; i++) {
      r.push(i)
      states.push([r.toArray(), r.length, r.omitted])
    }
    expect(states).toEqual([
      [[1], 1, 0],
      [[1, 2], 2, 0],
      [[1, 2, 3], 3, 0],
      [[2, 3, 4], 3, 1],
      [[3, 4, 5], 3, 2],
      [[4, 5, 6], 3, 3],
      [[5, 6, 7], 3, 4],
    ])
    r.clear()
    expect([r.toArray(), r.length, r.omitted]).toEqual([[], 0, 4])
    r.push(8)
    r.push(9)
    r.push(10)
    r.push(11)
    expect(r.toArray()).toEqual([9, 10, 11])
  })
})

describe('close codes a server may send (RFC 6455 §7.4)', () => {
  const ok = (code: unknown, reason?: unknown) => {
    try {
      checkCloseCode(code, reason, 'socket close')
      return 'ok'
    } catch (error) {
      return (error as Error).message
    }
  }
  it.each([999, 1004, 1005, 1006, 1015, 2999, 5000, 1000.5, '1000', null])('%s is refused', (code) => {
    expect(ok(code)).toBe(`Invalid socket close code ${JSON.stringify(code)}: expected 1000-1003, 1007-1014 or 3000-4999.`)
  })
  it.each([1000, 1001, 1003, 1007, 1014, 3000, 4999])('%s is allowed', (code) => {
    expect(ok(code)).toBe('ok')
  })
  it('a reason of at most 123 bytes (UTF-8), a string', () => {
    expect(ok(4000, 'é'.repeat(61) + 'x')).toBe('ok')
    expect(ok(4000, 'é'.repeat(62))).toBe('Invalid socket close reason: expected a string of at most 123 bytes.')
    expect(ok(4000, 5)).toBe('Invalid socket close reason: expected a string of at most 123 bytes.')
    expect(() => checkCloseCode(1, undefined)).toThrow('Invalid close code 1: expected 1000-1003, 1007-1014 or 3000-4999.')
  })
})
