import { expect, test } from 'vitest'
import { createDockside, parseScenario, ScenarioError, type FaultRule } from 'dockside'

// Regression: rules that could never do what they say were accepted. `from: "50s", until: "10s"` (an empty window:
// the rule never fires, and sits in pending() for ever), `error: ""` (an error line with no text) and
// `retryAfter: 1e308` (answered `Retry-After: 1e+308`). Each is now refused naming the field and what is allowed.

const REFUSED: [name: string, rule: FaultRule, message: string][] = [
  ['an empty window', { on: 'events', reply: 500, from: '50s', until: '10s' }, 'until: 10s is not later than "from" (50s), so the rule could never fire; "until" must be later than "from"'],
  ['a window of no time', { on: 'push', reply: 500, from: 5000, until: '5s' }, 'until: 5s is not later than "from" (5000 ms), so the rule could never fire; "until" must be later than "from"'],
  ['an error line with no text', { on: 'push', error: '' }, 'error: must be a non-empty string: the text of the error line the push gets'],
  ['a Retry-After of 1e308 seconds', { on: 'events', reply: 429, retryAfter: 1e308 }, 'retryAfter: 1e+308 is longer than the 100-year maximum; must be whole seconds from 0 to 3153600000 (100 years)'],
  ['a Retry-After of 100 years and a second', { on: 'events', reply: 503, retryAfter: 3_153_600_001 }, 'retryAfter: 3153600001 is longer than the 100-year maximum; must be whole seconds from 0 to 3153600000 (100 years)'],
]

test.each(REFUSED)('library: %s is refused', async (_name, rule, message) => {
  await using fake = createDockside()
  expect(() => fake.faults.add(rule)).toThrow(message)
  expect(fake.faults.list()).toEqual([])
})

test('admin API: each is a 400 naming the field; the largest allowed Retry-After is sent as it is', async () => {
  await using fake = createDockside()
  const server = await fake.listen({ port: 0 })
  const post = (body: unknown) => fetch(`${server.url}/_dockside/faults`, { method: 'POST', body: JSON.stringify(body) })
  for (const [name, rule, message] of REFUSED) {
    const res = await post(rule)
    expect(res.status, name).toBe(400)
    expect(await res.json(), name).toEqual({ message })
    expect((await (await post({ rules: [{ on: 'events', drop: true }, rule] })).json()).message, name).toBe(`rules[1].${message}`)
  }
  expect(await (await fetch(`${server.url}/_dockside/faults`)).json()).toEqual([])
  expect((await post({ on: 'events', reply: 429, retryAfter: 3_153_600_000, from: '1s', until: '1001ms' })).status).toBe(201)
  await fake.clock.advance('1s')
  const res = await fetch(`${server.url}/events`)
  expect(res.status).toBe(429)
  expect(res.headers.get('retry-after')).toBe('3153600000')
  await res.body?.cancel()
})

test('scenario files refuse them too, top-level and in a timeline step', async () => {
  const top = 'faults:\n  - { on: events, reply: 429, from: 50s, until: 10s }\n'
  await expect(parseScenario(top, 'window.yaml')).rejects.toThrow(new ScenarioError('window.yaml', 'faults[0].until', '10s is not later than "from" (50s), so the rule could never fire; "until" must be later than "from"'))
  const step = 'timeline:\n  - { at: 1s, faults: [{ on: push, error: "" }] }\n'
  await expect(parseScenario(step, 'error.yaml')).rejects.toThrow(new ScenarioError('error.yaml', 'timeline[0].faults[0].error', 'must be a non-empty string: the text of the error line the push gets'))
})
