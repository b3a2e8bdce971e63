// The fault plan around the rules: ids, all-or-nothing batches, the table, pending rules, removal, the JSON
// round trip and the per-phase decision (docs/faults.md, "Schedules").
import { describe, expect, it } from 'vitest'
import { createDockside } from '../../../src/index'
import { createService } from '../../../src/core/service'

describe('the fault plan', () => {
  it('ids: rule-N by default, counting only generated ids; a duplicate id is refused', async () => {
    await using fake = createDockside()
    expect(fake.faults.add({ on: 'events', drop: true }).id).toBe('rule-1')
    expect(fake.faults.add({ id: 'mine', on: 'events', drop: true }).id).toBe('mine')
    expect(fake.faults.add({ on: 'push', reset: true }).id).toBe('rule-2')
    expect(() => fake.faults.add({ id: 'mine', on: 'push', stall: true })).toThrow(/^id: a fault rule with id "mine" already exists$/)
    expect(fake.faults.list().map((h) => h.id)).toEqual(['rule-1', 'mine', 'rule-2'])
    expect(fake.journal.ofType('fault.add').map((e) => e.rule)).toEqual(['rule-1', 'mine', 'rule-2'])
  })

  it("a handle's limit and window are the schedule the plan keeps (the defaults by action, times(), persist())", async () => {
    await using fake = createDockside()
    const once = fake.faults.add({ on: 'events', drop: true, from: '1s', until: '2m' })
    const latency = fake.faults.add({ on: 'events', latency: { connect: 10 } })
    const refuse = fake.faults.add({ on: 'events', refuse: 3 })
    expect([once.limit, latency.limit, refuse.limit]).toEqual([1, Infinity, 3])
    expect([once.window, latency.window]).toEqual([{ fromMs: 1000, untilMs: 120_000 }, { fromMs: 0, untilMs: Infinity }])
    expect(once.times(4).limit).toBe(4)
    expect(refuse.persist().limit).toBe(Infinity)
  })

  it("the caller's rule object is neither kept nor changed", async () => {
    await using fake = createDockside()
    const input = { on: 'events' as const, refuse: 1, match: { client: 'c' } }
    const h = fake.faults.add(input)
    expect(input).toEqual({ on: 'events', refuse: 1, match: { client: 'c' } })
    expect(h.rule).toEqual({ id: 'rule-1', on: 'events', refuse: 1, match: { reconnect: true, client: 'c' } })
  })

  it('addAll is all or nothing, naming the index; ids are checked against each other and the plan', async () => {
    await using fake = createDockside()
    fake.faults.add({ id: 'a', on: 'events', drop: true })
    expect(() => fake.faults.addAll([{ on: 'events', drop: true }, { on: 'events', reply: 418 as never }])).toThrow(/^fault rule\[1\]\.reply: must be one of 400, 404, 429, 500, 503$/)
    expect(() => fake.faults.addAll([{ id: 'b', on: 'events', drop: true }, { id: 'b', on: 'push', stall: true }])).toThrow(/^fault rule\[1\]\.id: a fault rule with id "b" already exists$/)
    expect(() => fake.faults.addAll([{ id: 'a', on: 'events', drop: true }])).toThrow(/^fault rule\[0\]\.id: a fault rule with id "a" already exists$/)
    // Generated ids count on from the plan's, skipping the ids taken in the plan and anywhere in the batch.
    fake.faults.add({ on: 'events', drop: true })
    expect(() => fake.faults.addAll([{ on: 'events', drop: true }, { id: 'rule-1', on: 'events', drop: true }])).toThrow(/^fault rule\[1\]\.id: a fault rule with id "rule-1" already exists$/)
    expect(() => fake.faults.validate({} as never)).toThrow(/^fault rules: must be a list of fault rules$/)
    expect(fake.faults.list().map((h) => h.id)).toEqual(['a', 'rule-1'])
    expect(fake.faults.addAll([{ on: 'events', drop: true }, { id: 'rule-2', on: 'events', drop: true }, { id: 'z', on: 'push', stall: true }]).map((h) => h.id)).toEqual(['rule-3', 'rule-2', 'z'])
  })

  it('remove, clear, pending and the JSON round trip', async () => {
    await using fake = createDockside()
    const a = fake.faults.add({ id: 'a', on: 'events', drop: true })
    fake.faults.add({ id: 'b', on: 'push', reply: 500, times: 2 })
    expect(fake.faults.decide('events', {})?.rule.id).toBe('a')
    expect(fake.faults.pending().map((h) => h.id)).toEqual(['b'])
    expect(fake.faults.toJSON()).toEqual([
      { id: 'a', on: 'events', drop: true },
      { id: 'b', on: 'push', reply: 500, times: 2 },
    ])
    a.remove()
    expect(fake.faults.remove('a')).toBe(false)
    expect(fake.faults.list().map((h) => h.id)).toEqual(['b'])
    expect(fake.faults.remove('b')).toBe(true)
    fake.faults.add({ on: 'events', drop: true })
    fake.faults.clear()
    expect(fake.faults.list()).toEqual([])
    expect(() => fake.faults.assertAllFired()).not.toThrow()
  })

  it('the table lines up every column; assertAllFired names the seed and how to look further', async () => {
    await using fake = createDockside({ seed: 4 })
    fake.faults.add({ id: 'storm-429', on: 'events', reply: 429, retryAfter: 1, times: 'always', from: '30s', until: '50s' })
    fake.faults.add({ id: 'x', on: 'push', stall: true })
    fake.faults.decide('push', {})
    expect(fake.faults.table()).toBe(
      [
        '  rule       site       action                    schedule            matched  fired',
        '  ---------  ---------  ------------------------  ------------------  -------  -----',
        '  storm-429  on events  reply 429 retry-after 1s  always, [30s, 50s)  0        0',
        '  x          on push    stall                     once                1        1',
      ].join('\n'),
    )
    expect(() => fake.faults.assertAllFired()).toThrow(
      [
        '1 fault rule(s) never fired (seed 4):',
        '  rule       site       action                    schedule            matched  fired',
        '  ---------  ---------  ------------------------  ------------------  -------  -----',
        '  storm-429  on events  reply 429 retry-after 1s  always, [30s, 50s)  0        0',
        "Check each rule's match and schedule against what the client did (fake.journal.ofType('fault.')).",
      ].join('\n'),
    )
  })

  it('decideAll: a reply ends the decision; else the first latency and the first stream action both fire', async () => {
    await using fake = createDockside()
    fake.faults.add({ id: 'lat1', on: 'events', latency: { connect: 5 } })
    fake.faults.add({ id: 'lat2', on: 'events', latency: { connect: 9 } })
    fake.faults.add({ id: 'drop', on: 'events', drop: true })
    fake.faults.add({ id: 'close', on: 'events', close: { code: 4000 } })
    fake.faults.add({ id: 'no', on: 'events', reply: 500, after: 1 })
    expect(fake.faults.decideAll('events', {}).map((d) => d.rule.id)).toEqual(['lat1', 'drop'])
    // The reply's after: 1 let the first request through; the second is answered by it alone.
    expect(fake.faults.decideAll('events', {}).map((d) => d.rule.id)).toEqual(['no'])
    // Every eligible rule counted both requests as matches, fired or not.
    expect(fake.faults.list().map((h) => [h.id, h.matched, h.fired])).toEqual([
      ['lat1', 2, 1],
      ['lat2', 2, 0],
      ['drop', 1, 1],
      ['close', 2, 0],
      ['no', 2, 1],
    ])
    expect(fake.faults.decideAll('push', {})).toEqual([])
  })

  it('the fault journal entry carries the request context and the action', async () => {
    await using fake = createDockside()
    fake.faults.add({ id: 'r', on: 'events', reply: 429 })
    fake.faults.decide('events', { client: 'c', route: '/events/ws', reconnect: true })
    expect(fake.journal.ofType('fault')[0]).toMatchObject({
      rule: 'r',
      site: 'events',
      match: 1,
      fired: 1,
      action: 'reply',
      client: 'c',
      route: '/events/ws',
      reconnect: true,
      detail: { kind: 'reply', status: 429, message: 'too many requests', retryAfter: 1 },
    })
  })

  it('jitter draws in [0, max) from the seed and journals each; no draw for 0', async () => {
    await using fake = createDockside({ seed: 2 })
    expect(fake.faults.jitter('r', 0, 'connect')).toBe(0)
    expect(fake.journal.ofType('fault.draw')).toHaveLength(0)
    const draws = [1, 2, 3].map(() => fake.faults.jitter('r', 1000, 'event 1'))
    for (const d of draws) expect(Number.isInteger(d) && d >= 0 && d < 1000).toBe(true)
    expect(fake.journal.ofType('fault.draw').map((e) => [e.rule, e.purpose, e.jitterMs])).toEqual(draws.map((d) => ['r', 'event 1', d]))
    await using again = createDockside({ seed: 2 })
    expect([1, 2, 3].map(() => again.faults.jitter('r', 1000, 'event 1'))).toEqual(draws)
  })

  it('after and every combine from the first match after `after`: after 1, every 3 fires on matches 2 and 5', async () => {
    await using fake = createDockside()
    const h = fake.faults.add({ id: 'r', on: 'events', drop: true, after: 1, every: 3, times: 'always' })
    const fired = [1, 2, 3, 4, 5, 6].filter(() => fake.faults.decide('events', {}) !== undefined)
    expect(fired).toEqual([2, 5])
    expect([h.matched, h.fired]).toEqual([6, 2])
    expect(fake.journal.ofType('fault.skip').map((e) => [e.match, e.why])).toEqual([
      [1, 'match 1 of the first 1 let through'],
      [3, 'not an every-3th match'],
      [4, 'not an every-3th match'],
      [6, 'not an every-3th match'],
    ])
  })

  it('probability 1 fires without a draw: the seeded sequence is not moved', async () => {
    await using fake = createDockside({ seed: 9 })
    fake.faults.add({ id: 'p', on: 'events', drop: true, probability: 1, times: 'always' })
    expect(fake.faults.decide('events', {})?.rule.id).toBe('p')
    expect(fake.journal.ofType('fault.draw')).toEqual([])
    await using fresh = createDockside({ seed: 9 })
    expect(fake.faults.jitter('j', 1000, 'x')).toBe(fresh.faults.jitter('j', 1000, 'x'))
  })

  it('jitter is the draw scaled to [0, max): floor(draw x max)', async () => {
    await using fake = createDockside({ seed: 2 })
    const ms = [1, 2, 3, 4].map(() => fake.faults.jitter('r', 1000, 'connect'))
    const draws = fake.journal.ofType('fault.draw').map((e) => e.draw as number)
    expect(ms).toEqual(draws.map((d) => Math.floor(d * 1000)))
    expect(Math.max(...ms)).toBeGreaterThan(0)
  })

  it('times(1) is accepted; the core alone (no schema check) adds rules', () => {
    const svc = createService()
    const h = svc.faults.add({ on: 'events', drop: true, times: 'always' })
    expect(h.times(1)).toBe(h)
    expect(svc.faults.decide('events', {})?.rule.id).toBe('rule-1')
    expect(svc.faults.decide('events', {})).toBe(undefined)
  })

  it('decideAll tries a reply that did not fire once: its skip is journaled once per request', async () => {
    await using fake = createDockside()
    fake.faults.add({ id: 'later', on: 'events', reply: 503, after: 1 })
    fake.faults.add({ id: 'slow', on: 'events', latency: { connect: 5 } })
    expect(fake.faults.decideAll('events', {}).map((d) => d.rule.id)).toEqual(['slow'])
    expect(fake.journal.ofType('fault.skip').map((e) => [e.rule, e.match])).toEqual([['later', 1]])
    expect(fake.faults.decideAll('events', {}).map((d) => d.rule.id)).toEqual(['later'])
  })
})

describe('a misspelt action is named', () => {
  it('bug: { replay: 429 } said "must have exactly one action" without naming replay; now the unknown field first', () => {
    const fake = createDockside({ seed: 1 })
    expect(() => fake.faults.add({ on: 'events', replay: 429 } as never)).toThrow(/^fault rule: unknown field "replay"; allowed: id, on, match, reply, /)
    // With no unknown field, the missing action is still what is said.
    expect(() => fake.faults.add({ on: 'events' } as never)).toThrow(/^fault rule: must have exactly one action: "reply", /)
    expect(fake.faults.list()).toEqual([])
  })
})
