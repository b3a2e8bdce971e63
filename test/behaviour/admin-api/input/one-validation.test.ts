// Regressions of issue 8 point 5 ("one validation, everywhere"): what the admin API refuses, the library
// refuses with the same text; createDockside options are checked at run time; the JSON Schema stays the
// one source of field names (checked against the TypeScript types below).
import { readFileSync } from 'node:fs'
import { expect, test } from 'vitest'
import { createDockside, parseScenario, ScenarioError, type FaultRule, type Scenario, type TimelineStep } from '../../../../src/index'
import type { FaultDribble, FaultLatency, FaultMatch } from '../../../../src/faults/rule'
import type { RateLimitRule } from '../../../../src/faults/rate-limit'
import type { CreateContainerOptions } from '../../../../src/service/containers'

const schema = JSON.parse(readFileSync(new URL('../../../../docs/scenario.schema.json', import.meta.url), 'utf8'))

test('bug: createDockside({ sed: 5 }) was silently accepted; now it throws naming the option and listing the allowed ones', () => {
  expect(() => createDockside({ sed: 5 } as never)).toThrow(/^createDockside options: unknown option "sed"; allowed: seed, clock, .*scenario, accessKeys, adminToken, allowedOrigins, allowedHosts, maxBodySize, maxBacklog, fleet$/)
  expect(() => createDockside(null as never)).toThrow('createDockside options: must be an object of options')
})

test('bug: fake.faults.add took match.route 5, id 7 and match 5; now the same refusal as the admin API', async () => {
  await using fake = createDockside()
  expect(() => fake.faults.add({ on: 'events', reply: 500, match: { route: 5 } } as never)).toThrow(/^match\.route: must be a string$/)
  expect(() => fake.faults.add({ on: 'events', reply: 500, id: 7 } as never)).toThrow(/^id: must be a string$/)
  expect(() => fake.faults.add({ on: 'push', reply: 500, match: 5 } as never)).toThrow(/^match: must be an object$/)
  expect(() => fake.rateLimit.set({ limit: 1, window: '1s', per: 'everyone' } as never)).toThrow(/^per: must be one of "client", "route"$/)
  expect(fake.faults.list()).toEqual([])
})

test('fake.faults.addAll and fake.apply are all or nothing; the error names the index and the field', async () => {
  await using fake = createDockside()
  expect(() => fake.faults.addAll([{ on: 'events', reply: 429 }, { on: 'events', reply: 429, match: { route: 5 } } as never])).toThrow(/^fault rule\[1\]\.match\.route: must be a string$/)
  expect(fake.faults.list()).toEqual([])
  const storyboard = { containers: [{ name: 'web', image: 'nginx', running: true }], faults: [{ on: 'events', reply: 429 }, { on: 'events', drop: false }] }
  await expect(fake.apply(storyboard)).rejects.toThrow('(scenario): at faults[1].drop: must be true')
  expect(fake.containers.list()).toEqual([])
  expect(fake.events.events).toEqual([])
})

test('bug: a registry host listed twice silently replaced the first (and dropped its credentials); now refused with the path', async () => {
  const registries = [{ host: 'registry.example.com', username: 'alice', password: 's3cret' }, { host: 'registry.example.com' }]
  const expected = '(scenario): at registries[1].host: "registry.example.com" is already listed at registries[0]; list each registry host once'
  expect(() => createDockside({ scenario: { registries } })).toThrow(expected)
  const e = await parseScenario(JSON.stringify({ registries }), 'twice.json').catch((error: unknown) => error)
  expect(e).toBeInstanceOf(ScenarioError)
  expect((e as ScenarioError).message).toBe(expected.replace('(scenario)', 'twice.json'))
  expect(() => createDockside({ scenario: { containers: [{ name: 'web', image: 'a' }, { name: 'web', image: 'b' }] } })).toThrow('(scenario): at containers[1].name: "web" is already used by containers[0]; container names are unique')
})

/** Every field of a TypeScript type, listed once: the compiler refuses a missing or extra name. */
const fields = <T>(record: Record<keyof T, true>) => Object.keys(record).sort()
const props = (node: { properties: object }) => Object.keys(node.properties).filter((k) => k !== '$schema').sort()

test('the schema and the TypeScript types name the same fields (the schema is the one source)', () => {
  const defs = schema.$defs
  const rule = fields<FaultRule>({ id: true, on: true, match: true, reply: true, refuse: true, retryAfter: true, message: true, error: true, afterLayer: true, afterBytes: true, close: true, drop: true, reset: true, truncate: true, stall: true, unreachable: true, dribble: true, latency: true, afterMessages: true, afterTime: true, times: true, after: true, every: true, probability: true, from: true, until: true })
  expect(props(defs.fault)).toEqual(rule)
  expect(props(defs.fault.properties.match)).toEqual(fields<FaultMatch>({ route: true, image: true, container: true, client: true, filters: true, reconnect: true }))
  expect(props(defs.fault.properties.latency)).toEqual(fields<FaultLatency>({ connect: true, perEvent: true, jitter: true }))
  expect(props(defs.fault.properties.dribble)).toEqual(fields<FaultDribble>({ line: true, jitter: true }))
  expect(props(defs.rateLimit)).toEqual(fields<RateLimitRule>({ route: true, limit: true, window: true, burst: true, per: true, message: true }))
  const scenario = fields<Scenario>({ seed: true, clock: true, maxConnectionAge: true, pushBandwidth: true, timeFormat: true, retainEvents: true, retainEventsFor: true, rateLimit: true, containers: true, images: true, registries: true, timeline: true, faults: true, accessKeys: true })
  expect(props(schema)).toEqual(scenario)
  const step = fields<TimelineStep>({ at: true, every: true, start: true, stop: true, create: true, remove: true, restart: true, close: true, drop: true, faults: true, push: true, say: true, pause: true, image: true, labels: true, instanceType: true, exitCode: true, timeNano: true })
  expect(props(schema.properties.timeline.items)).toEqual(step)
  type ScenarioContainer = NonNullable<Scenario['containers']>[number]
  expect(props(defs.container)).toEqual(fields<ScenarioContainer>({ id: true, name: true, image: true, labels: true, instanceType: true, networkMode: true, running: true }))
  expect(props(defs.containerBody)).toEqual(fields<CreateContainerOptions & { start: boolean; running: boolean }>({ id: true, name: true, image: true, labels: true, instanceType: true, networkMode: true, start: true, running: true }))
  type ScenarioImage = NonNullable<Scenario['images']>[number]
  expect(props(defs.image)).toEqual(fields<ScenarioImage>({ name: true, tags: true, layers: true, id: true, manifest: true }))
  type ScenarioRegistry = NonNullable<Scenario['registries']>[number]
  expect(props(defs.registry)).toEqual(fields<ScenarioRegistry>({ host: true, username: true, password: true, token: true }))
})
