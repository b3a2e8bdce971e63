// Regression: a field that says when or how an action strikes was accepted on a rule whose action never reads it, and
// silently ignored: `{"on":"push","reply":500,"afterLayer":2}` answered 201, and the next push got a 500 before its
// first line instead of failing after two layers; `afterMessages` on a `reply` or a `stall`, `afterLayer` on an events
// `drop`, `afterMessages` on a push `error` (it struck at once) and `retryAfter` on a `close` were the same. Each is now a
// 400 naming the field and the actions that read it, and the plan is left as it was.
// Found by the faults hunt (was test/regressions/faults-hunt-ignored-modifiers.test.ts).
import { expect, it } from 'vitest'
import { createDockside, InvalidInputError } from '../../../../src/index'

it.each([
  [{ on: 'push', reply: 500, afterLayer: 2 }, 'afterLayer: is read only by "error", "reset", "truncate", "stall", "unreachable" on "push", and this rule\'s action is "reply" on "push", so it would be ignored; drop "afterLayer"'],
  [{ on: 'push', dribble: { line: '1s' }, afterBytes: 10 }, 'afterBytes: is read only by "error", "reset", "truncate", "stall", "unreachable" on "push", and this rule\'s action is "dribble" on "push"'],
  [{ on: 'events', drop: true, afterLayer: 1 }, 'afterLayer: is read only by "error", "reset", "truncate", "stall", "unreachable" on "push", and this rule\'s action is "drop" on "events"'],
  [{ on: 'events', stall: true, afterLayer: 1 }, 'afterLayer: is read only by "error", "reset", "truncate", "stall", "unreachable" on "push", and this rule\'s action is "stall" on "events"'],
  [{ on: 'events', reply: 429, afterMessages: 3 }, 'afterMessages: is read only by "close", "drop" on "events", and this rule\'s action is "reply" on "events", so it would be ignored; drop "afterMessages"'],
  [{ on: 'events', stall: true, afterTime: '1s' }, 'afterTime: is read only by "close", "drop" on "events", and this rule\'s action is "stall" on "events"'],
  [{ on: 'push', error: 'denied', afterMessages: 1 }, 'afterMessages: is read only by "close", "drop" on "events", and this rule\'s action is "error" on "push"'],
  [{ on: 'events', close: { code: 4000 }, retryAfter: 5 }, 'retryAfter: is read only by "reply", "refuse", and this rule\'s action is "close" on "events", so it would be ignored; drop "retryAfter"'],
] as const)('%j is a 400 naming the field, not a rule that ignores it', async (rule, message) => {
  await using fake = createDockside()
  const server = await fake.listen({ host: '127.0.0.1', port: 0 })
  const res = await fetch(`${server.url}/_dockside/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rule) })
  expect(res.status).toBe(400)
  expect((await res.json()).message).toContain(message)
  expect(() => fake.faults.add(rule as never)).toThrow(InvalidInputError)
  expect(fake.faults.list()).toEqual([])
})

it('a push under `reply` + `afterLayer` was answered 500 up front; the rules that read these fields are still taken', async () => {
  await using fake = createDockside()
  fake.faults.add({ on: 'push', error: 'denied', afterLayer: 1 })
  fake.faults.add({ on: 'push', stall: true, afterBytes: 10 })
  fake.faults.add({ on: 'events', close: { code: 4000 }, afterMessages: 2, afterTime: '1s' })
  fake.faults.add({ on: 'events', refuse: 1, reply: 429, retryAfter: 3 })
  expect(fake.faults.list()).toHaveLength(4)
})
