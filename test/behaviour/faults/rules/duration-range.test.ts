import { expect, test } from 'vitest'
import { createDockside, parseScenario, ScenarioError, type FaultRule } from 'dockside'

// Regression: a fault rule's durations were only checked for their form, not for the 100-year range every duration
// dockside takes runs in. POST /_dockside/faults {"on":"events","latency":{"connect":1e308}} answered 201, then every
// /events/ws, GET /events or push answered `400 Invalid duration 1e+308: longer than the 100-year maximum` (the plan
// parsed the rule on each request) and the rule showed fired: 0; `dockside validate` said such a file was valid.
// Every duration field of a rule is now checked when the rule is added, by the one validation the library, the admin
// API and scenario files share, and refused naming the field and the range.

const RANGE = 'must be a duration from 0 to 3153600000000 ms (100 years, "36500d")'

/** Each duration field of a rule, over the maximum as a number and as a string. */
const TOO_LONG: [path: string, shown: string, rule: FaultRule][] = [
  ['latency.connect', '1e+308', { on: 'events', latency: { connect: 1e308 } }],
  ['latency.perEvent', '1e+308', { on: 'events', latency: { perEvent: 1e308 } }],
  ['latency.jitter', '1e+308', { on: 'events', latency: { jitter: 1e308 } }],
  ['afterTime', '1e+308', { on: 'events', close: { code: 4000 }, afterTime: 1e308 }],
  ['afterTime', '"36501d"', { on: 'events', drop: true, afterTime: '36501d' }],
  ['from', '1e+308', { on: 'events', reply: 500, from: 1e308 }],
  ['until', '"36501d"', { on: 'events', reply: 500, until: '36501d' }],
  ['until', '1e+308', { on: 'push', reply: 500, until: 1e308 }],
  ['dribble.line', '1e+308', { on: 'push', dribble: { line: 1e308 } }],
  ['dribble.jitter', '"36501d"', { on: 'push', dribble: { line: '1s', jitter: '36501d' } }],
  ['latency.connect', '"36501d"', { on: 'push', latency: { connect: '36501d' } }],
]

const refusal = (path: string, shown: string) => `${path}: ${shown} is longer than the 100-year maximum; ${RANGE}`

test.each(TOO_LONG)('library: a rule whose %s is %s (over 100 years) is refused naming the field and the range', async (path, shown, rule) => {
  await using fake = createDockside()
  expect(() => fake.faults.add(rule)).toThrow(refusal(path, shown))
  expect(() => fake.faults.addAll([{ on: 'events', drop: true }, rule])).toThrow(`fault rule[1].${refusal(path, shown)}`)
  expect(fake.faults.list()).toEqual([])
})

test('admin API: each over-long duration is a 400 naming the field and the range; events and pushes keep being served', async () => {
  await using fake = createDockside({ scenario: { images: [{ name: 'localhost:5000/team/app', tags: ['1.0'] }] } })
  const server = await fake.listen({ port: 0 })
  const post = (body: unknown) => fetch(`${server.url}/_dockside/faults`, { method: 'POST', body: JSON.stringify(body) })
  for (const [path, shown, rule] of TOO_LONG) {
    const one = await post(rule)
    expect(one.status, path).toBe(400)
    expect(await one.json(), path).toEqual({ message: refusal(path, shown) })
    const batch = await post({ rules: [rule] })
    expect(batch.status, path).toBe(400)
    expect((await batch.json()).message, path).toBe(`rules[0].${refusal(path, shown)}`)
  }
  expect(await (await fetch(`${server.url}/_dockside/faults`)).json()).toEqual([])
  // Nothing was stored, so nothing breaks the requests the rules would have matched.
  const events = await fetch(`${server.url}/events?since=0&until=1`)
  expect(events.status).toBe(200)
  await events.body?.cancel()
  const push = await fetch(`${server.url}/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST' })
  expect(push.status).toBe(200)
  await push.body?.cancel()
  // Exactly the maximum is a duration: the rule is taken, and fires.
  const added = await post({ id: 'long', on: 'events', reply: 503, until: '36500d', times: 'always' })
  expect(added.status).toBe(201)
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${server.url}/events?since=0&until=1`)
    expect(res.status).toBe(503)
    expect((await res.json()).message).toBe('service unavailable')
  }
  expect(fake.faults.list()[0].fired).toBe(2)
})

test('scenario files (dockside validate, dockside serve) refuse an over-long duration, top-level or in a timeline step', async () => {
  const top = 'faults:\n  - { on: events, latency: { connect: 1e308 } }\n'
  await expect(parseScenario(top, 'long.yaml')).rejects.toThrow(new ScenarioError('long.yaml', 'faults[0].latency.connect', `1e+308 is longer than the 100-year maximum; ${RANGE}`))
  const step = 'timeline:\n  - { at: 10s, faults: [{ on: events, reply: 429, until: 36501d }] }\n'
  await expect(parseScenario(step, 'step.yaml')).rejects.toThrow(new ScenarioError('step.yaml', 'timeline[0].faults[0].until', `"36501d" is longer than the 100-year maximum; ${RANGE}`))
  expect(() => createDockside({ scenario: { faults: [{ on: 'push', dribble: { line: 1e308 } }] } })).toThrow(`(scenario): at faults[0].dribble.line: 1e+308 is longer than the 100-year maximum; ${RANGE}`)
})

test('without the schema (the core alone) a rule duration that is not one is named by its path too', async () => {
  const { createService } = await import('../../../../src/core/service')
  const svc = createService()
  expect(() => svc.faults.add({ on: 'events', drop: true, afterTime: 'soon' })).toThrow(/^afterTime: must be a duration: milliseconds or a string like "250ms", "5s", "2m", "1h30m", from 0 to 3153600000000 ms \(100 years\)$/)
  expect(() => svc.faults.add({ on: 'events', latency: { connect: Infinity } })).toThrow(refusal('latency.connect', 'Infinity'))
  expect(svc.faults.list()).toEqual([])
})
