import { expect, test } from 'vitest'
import { createDockside, InvalidInputError } from 'dockside'

// Regression: unknown fields were refused at a rule's top level but not inside its action object, so
// POST /_dockside/faults {"on":"events","close":{"code":4000,"afterMessages":1}} was accepted and closed
// every socket at once: afterMessages belongs on the rule and was silently ignored.
test('a misplaced field inside close, latency or dribble is a 400 naming it, not ignored', async () => {
  await using fake = createDockside()
  const server = await fake.listen({ port: 0 })
  const res = await fetch(`${server.url}/_dockside/faults`, { method: 'POST', body: JSON.stringify({ on: 'events', close: { code: 4000, afterMessages: 1 } }) })
  expect(res.status).toBe(400)
  expect((await res.json()).message).toBe('close: unknown field "afterMessages"; allowed: code, reason; "afterMessages" and "afterTime" go on the rule itself')
  expect(() => fake.faults.add({ on: 'events', latency: { perevent: '1s' } } as never)).toThrow(InvalidInputError)
  expect(() => fake.faults.add({ on: 'push', dribble: { line: '1s', every: 2 } } as never)).toThrow(/^dribble: unknown field "every"; allowed: line, jitter$/)
  expect(fake.faults.list()).toEqual([])
  fake.faults.add({ on: 'events', close: { code: 4000, reason: 'ok' }, afterMessages: 1 })
  expect(fake.faults.list()).toHaveLength(1)
})
