import { expect, test } from 'vitest'
import { createDockside } from 'dockside'
import { shiftWindow } from '../../../../src/faults/rule'

// Regression: a storyboard posted with ?from=now moves its faults' `from`/`until` by the time elapsed. `until: "36500d"`
// (exactly the 100-year maximum) posted 1 s into the run became 3153601000000 ms, past the maximum: the rule was added,
// then every GET /events and /events/ws answered `400 Invalid duration 3153601000000: longer than the 100-year
// maximum` (even for clients the rule was not about). A bound moved past the maximum now means "never": an `until`
// past it is no end (the window stays open), a `from` past it is clamped to the maximum (the latest time a rule can
// say). A request never fails because of a rule's arithmetic.

const MAX = 3_153_600_000_000

test('shiftWindow: bounds move by the offset; an until past the maximum is no end, a from past it is the maximum', () => {
  expect(shiftWindow({ on: 'events', reply: 503, from: '1s', until: '36500d' }, 1000)).toEqual({ on: 'events', reply: 503, from: 2000 })
  expect(shiftWindow({ on: 'events', reply: 503, from: '36499d', until: '36500d' }, 2 * 86_400_000)).toEqual({ on: 'events', reply: 503, from: MAX })
  expect(shiftWindow({ on: 'events', reply: 503, from: '10s', until: '20s' }, 120_000)).toEqual({ on: 'events', reply: 503, from: 130_000, until: 140_000 })
  // Exactly the maximum is still a bound.
  expect(shiftWindow({ on: 'events', reply: 503, until: '20s' }, MAX - 20_000)).toEqual({ on: 'events', reply: 503, until: MAX })
  expect(shiftWindow({ on: 'events', reply: 503, until: '20s' }, MAX - 19_999)).toEqual({ on: 'events', reply: 503 })
  const rule = { on: 'events', drop: true } as const
  expect(shiftWindow(rule, 5000)).toBe(rule)
})

test('POST /_dockside/scenario?from=now with until "36500d" 1 s into the run: the rule fires; no request fails', async () => {
  await using fake = createDockside()
  const server = await fake.listen({ port: 0 })
  await fake.clock.advance('1s')
  const storyboard = {
    faults: [{ id: 'long', on: 'events', reply: 503, from: '1s', until: '36500d', times: 'always' }],
    timeline: [{ at: '10s', faults: [{ id: 'later', on: 'push', reply: 500, until: '36500d', times: 'always' }] }],
  }
  const res = await fetch(`${server.url}/_dockside/scenario?from=now`, { method: 'POST', body: JSON.stringify(storyboard) })
  expect(res.status).toBe(200)
  const events = async () => {
    const r = await fetch(`${server.url}/events?since=0&until=1&client=someone`)
    await r.body?.cancel()
    return r.status
  }
  expect(await events()).toBe(200)
  await fake.clock.advance('5s')
  expect(await events()).toBe(503)
  await fake.clock.advance('10s')
  expect((await fetch(`${server.url}/images/nope/push`, { method: 'POST' })).status).toBe(500)
  expect(fake.journal.ofType('timeline.error')).toEqual([])
  const listed = (await (await fetch(`${server.url}/_dockside/faults`)).json()) as { id: string; from?: number; until?: number; fired: number }[]
  expect(listed.map(({ id, from, until, fired }) => ({ id, from, until, fired }))).toEqual([
    { id: 'long', from: 2000, until: undefined, fired: 1 },
    { id: 'later', from: undefined, until: undefined, fired: 1 },
  ])
})

test('fake.apply from now: a from moved past the maximum never opens in practice, and nothing fails', async () => {
  await using fake = createDockside()
  const server = await fake.listen({ port: 0 })
  await fake.clock.advance('1s')
  await fake.apply({ faults: [{ id: 'never', on: 'events', reply: 500, from: '36500d' }] }, { from: 'now' })
  await fake.clock.advance('1d')
  const r = await fetch(`${server.url}/events?since=0&until=1`)
  expect(r.status).toBe(200)
  await r.body?.cancel()
  expect(fake.faults.pending().map((h) => [h.id, h.rule.from])).toEqual([['never', MAX]])
})
