import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockside, demoScenario, loadScenario, parseScenario, ScenarioError, validateScenario, type Dockside, type Scenario } from '../../../src/index'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dockside-scenario-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const YAML = `# A scenario a user would write
seed: 7
clock: virtual
registries:
  - host: localhost:5000
  - host: registry.example.com
    username: demo
    password: secret
images:
  - name: localhost:5000/team/app
    tags: ["1.0", latest]
    layers: [1000, 2000]
  - name: busybox:latest
    layers: 2
containers:
  - name: web
    image: busybox:latest
    labels: { app: web, note: "a=b" }
    instanceType: s4
    running: true
  - name: worker
    image: localhost:5000/team/app:1.0
timeline:
  - at: 2s
    every: 6s
    start: worker
  - at: 5s
    every: 6s
    stop: worker
    exitCode: 3
faults:
  - on: events
    reply: 429
    retryAfter: 2
`

/** Catches the ScenarioError a call throws. */
async function refusal(p: Promise<unknown>): Promise<ScenarioError> {
  try {
    await p
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError)
    return error as ScenarioError
  }
  throw new Error('expected a ScenarioError, but the scenario was accepted')
}

describe('loading scenarios', () => {
  it('loads a YAML file into a running fake', async () => {
    const file = join(dir, 'ok.yaml')
    await writeFile(file, YAML)
    const scenario = await loadScenario(file)
    await using fake = createDockside({ scenario })
    expect(fake.seed).toBe(7)
    expect(fake.containers.list().map((c) => [c.name, c.state])).toEqual([
      ['web', 'running'],
      ['worker', 'created'],
    ])
    expect(fake.containers.get('web').labels).toEqual({ app: 'web', note: 'a=b' })
    expect(fake.images.tagsOf('localhost:5000/team/app')).toEqual(['1.0', 'latest'])
    expect(fake.images.resolve('localhost:5000/team/app:1.0')!.layers.map((l) => l.size)).toEqual([1000, 2000])
    expect(fake.images.resolve('busybox:latest')!.layers).toHaveLength(2)
    expect(fake.registries.list().map((r) => r.host)).toEqual(['localhost:5000', 'registry.example.com'])
    expect(fake.faults.list()).toHaveLength(1)
    expect(fake.events.events.map((e) => `${e.action} ${e.name}`)).toEqual(['start web'])
  })

  it('loads the same scenario as JSON', async () => {
    const { parse } = await import('yaml')
    const file = join(dir, 'ok.json')
    await writeFile(file, JSON.stringify(parse(YAML)))
    const fromJson = await loadScenario(file)
    const fromYaml = await parseScenario(YAML, 'ok.yaml')
    expect(fromJson).toEqual(fromYaml)
  })

  it('treats an empty file as an empty scenario', async () => {
    expect(await parseScenario('', 'empty.yaml')).toEqual({})
    expect(await parseScenario('# nothing\n', 'empty.yaml')).toEqual({})
  })

  it('the built-in demo is valid, and "demo" loads it', async () => {
    expect(await validateScenario(structuredClone(demoScenario), 'demo')).toEqual(demoScenario)
    expect(await loadScenario('demo')).toBe(demoScenario)
    await expect(parseScenario(JSON.stringify(demoScenario), 'demo.json')).resolves.toEqual(demoScenario)
    // The demo skips the schema check at start (it is frozen and known valid, as the clone above proves); a value
    // made from it is checked again.
    expect(Object.isFrozen(demoScenario) && Object.isFrozen(demoScenario.containers![0].labels)).toBe(true)
    await expect(validateScenario({ ...demoScenario, seed: 'x' }, 'demo')).rejects.toThrow(/seed: must be an integer/)
    await expect(validateScenario({ ...demoScenario, containers: [...demoScenario.containers!, { name: 'web', image: 'nginx' }] }, 'demo')).rejects.toThrow(/containers\[3\]\.name/)
  })
})

describe('refusing bad scenarios with the file, the path inside it and what was expected', () => {
  it.each([
    ['a bad duration', 'timeline:\n  - at: 1s\n    start: web\n  - at: soon\n    start: web\n', 'timeline[1].at', /must be a duration.*"5s"/],
    ['an unknown top-level field', 'colour: red\n', '', /unknown field "colour"/],
    ['an unknown nested field', 'containers:\n  - name: web\n    image: x\n    labelz: {}\n', 'containers[0]', /unknown field "labelz"/],
    ['a wrong type', 'seed: abc\n', 'seed', /must be an integer/],
    ['a bad clock mode', 'clock: fast\n', 'clock', /"virtual", "auto", "real"/],
    ['a layer count of 0', 'images:\n  - name: x\n    layers: 0\n', 'images[0].layers', />= 1/],
    ['a missing required field', 'containers:\n  - name: web\n', 'containers[0]', /missing required field "image"/],
    ['a timeline step without an action', 'timeline:\n  - at: 1s\n', 'timeline[0]', /exactly one action: "start", "stop"/],
    ['a timeline step with two actions', 'timeline:\n  - at: 1s\n    start: web\n    stop: web\n', 'timeline[0]', /exactly one action/],
    ['a repeat of 0', 'timeline:\n  - at: 1s\n    every: 0s\n    start: web\n', 'timeline[0].every', /above 0/],
    ['a bad fault reply status', 'faults:\n  - on: events\n    reply: 418\n', 'faults[0].reply', /400, 404, 429, 500, 503/],
    ['a fault with two actions', 'faults:\n  - on: events\n    reply: 429\n    error: x\n', 'faults[0]', /exactly one action: "reply", .*"error".*"close"/],
    ['a fault on an unknown site', 'faults:\n  - on: pull\n    reply: 500\n', 'faults[0].on', /"events", "push"/],
    ['a close fault on push', 'faults:\n  - on: push\n    close: { code: 1000 }\n', 'faults[0].close', /does not apply to "push"; actions on "push": reply, error/],
    ['a close code out of range', 'faults:\n  - on: events\n    close: { code: 999 }\n', 'faults[0].close.code', /1000-1003, 1007-1014 or 3000-4999 \(got 999\)/],
  ])('%s', async (_what, text, path, expected) => {
    const e = await refusal(parseScenario(text, 'bad.yaml'))
    expect(e.file).toBe('bad.yaml')
    expect(e.path).toBe(path)
    expect(e.expected).toMatch(expected)
    expect(e.message).toBe(`bad.yaml: at ${path || '(root)'}: ${e.expected}`)
    expect(e.code).toBe('DOCKSIDE_INVALID_SCENARIO')
  })

  it('points at the line and column of a YAML syntax error', async () => {
    const e = await refusal(parseScenario('seed: 1\nimages: [1\n', 'broken.yaml'))
    expect(e.path).toMatch(/^line \d+, column \d+$/)
    expect(e.expected).toMatch(/^expected valid YAML \(/)
    expect(e.expected).not.toMatch(/at line/)
  })

  it('names invalid JSON in a .json file', async () => {
    const e = await refusal(parseScenario('{"seed": 1,}', 'broken.json'))
    expect(e.expected).toMatch(/expected valid JSON/)
  })

  it('names a missing file and suggests the demo', async () => {
    const e = await refusal(loadScenario(join(dir, 'nope.yaml')))
    expect(e.file).toContain('nope.yaml')
    expect(e.expected).toMatch(/ENOENT/)
    expect(e.expected).toMatch(/"demo"/)
  })
})

const since = (fake: Dockside) => fake.events.events.map((e) => `${(e.timeMs - fake.clock.startedAt) / 1000}s ${e.action} ${e.name}`)

describe('the timeline', () => {
  it('emits the demo events at the right clock times, repeating with `every`', async () => {
    await using fake = createDockside({ scenario: demoScenario })
    expect(since(fake)).toEqual(['0s start web', '0s start api'])
    await fake.clock.advance('26s')
    expect(since(fake)).toEqual([
      '0s start web',
      '0s start api',
      '2s start worker',
      '5s stop worker',
      '8s start worker',
      '10s stop web',
      '11s start web',
      '11s stop worker',
      '14s start worker',
      '17s stop worker',
      '20s start worker',
      '23s stop worker',
      '25s stop web',
      '26s start web',
      '26s start worker',
    ])
    expect(fake.events.events.find((e) => e.action === 'stop' && e.name === 'web')!.attributes.exitCode).toBe('137')
    // Nothing more is due until the next repeat.
    const before = fake.events.events.length
    await fake.clock.advance(999)
    expect(fake.events.events.length).toBe(before)
  })

  it('creates and removes containers, restarts, and journals steps that no longer apply', async () => {
    const scenario: Scenario = {
      timeline: [
        { at: '1s', create: 'job', image: 'busybox', labels: { kind: 'batch' } },
        { at: '2s', start: 'job' },
        { at: '3s', remove: 'job' },
        { at: '4s', start: 'job' },
        { at: '5s', restart: true },
      ],
    }
    await using fake = createDockside({ scenario })
    await using server = await fake.listen({ port: 0 })
    const { probeWithWs } = await import('../../support/ws-probe')
    const probe = await probeWithWs(`${server.wsUrl}/events/ws`)
    await fake.clock.advance('1s')
    expect(fake.containers.get('job').labels).toEqual({ kind: 'batch' })
    await fake.clock.advance('2s')
    expect(since(fake)).toEqual(['2s start job', '3s stop job'])
    expect(fake.containers.find('job')).toBeUndefined()
    await fake.clock.advance('1s')
    expect(fake.journal.ofType('timeline.error')).toHaveLength(1)
    expect(fake.journal.ofType('timeline.error')[0].message).toMatch(/No such container: job/)
    await fake.clock.advance('1s')
    expect(await probe.closed).toEqual({ code: 1001, reason: expect.stringMatching(/maintenance/) })
    expect(probe.messages).toHaveLength(2)
  })

  it('registries are open, need a username and password, or need a token, as the scenario says', async () => {
    const scenario = await parseScenario('registries:\n  - host: open:5000\n  - host: basic:5000\n    username: u\n    password: p\n  - host: tok:5000\n    token: t0k\n', 'regs.yaml')
    await using fake = createDockside({ scenario })
    expect(['open:5000', 'basic:5000', 'tok:5000'].map((h) => fake.registries.get(h).auth)).toEqual([
      { kind: 'open' },
      { kind: 'basic', username: 'u', password: 'p' },
      { kind: 'token', token: 't0k' },
    ])
    expect((await refusal(validateScenario({ registries: [{ host: 'x:1', token: 't', username: 'u' }] }, 'both.yaml'))).message).toContain('registries[0]')
  })

  it('counts `at` from the clock start', async () => {
    await using fake = createDockside({ scenario: { clock: { mode: 'virtual', start: '2030-05-05T00:00:00Z' }, containers: [{ name: 'a', image: 'x' }], timeline: [{ at: '1h30m', start: 'a' }] } })
    await fake.clock.advance('1h29m')
    expect(fake.events.events).toHaveLength(0)
    await fake.clock.advance('1m')
    expect(fake.events.events[0].timeMs).toBe(Date.UTC(2030, 4, 5, 1, 30))
  })
})

describe('seed and reset', () => {
  const scenario: Scenario = { seed: 5, containers: [{ name: 'web', image: 'busybox' }], images: [{ name: 'app', layers: 2 }] }

  it('an explicit seed overrides the scenario seed', async () => {
    await using a = createDockside({ scenario, seed: 9 })
    await using b = createDockside({ scenario: { ...scenario, seed: 9 } })
    await using c = createDockside({ scenario })
    expect(a.seed).toBe(9)
    expect(c.seed).toBe(5)
    expect(a.containers.get('web').id).toBe(b.containers.get('web').id)
    expect(a.containers.get('web').id).not.toBe(c.containers.get('web').id)
  })

  it('reset() returns to the scenario start: same ids, clock, events and faults as a fresh fake', async () => {
    await using fake = createDockside({ scenario: demoScenario })
    await using fresh = createDockside({ scenario: demoScenario })
    const ids = () => fake.containers.list().map((c) => `${c.name} ${c.id} ${c.state}`)
    await fake.clock.advance('30s')
    fake.containers.create({ image: 'extra' }).start()
    fake.faults.add({ on: 'push', reply: 500 })
    fake.images.add('added', { layers: 1 })
    await fake.reset()
    expect(fake.clock.elapsed()).toBe(0)
    expect(ids()).toEqual(fresh.containers.list().map((c) => `${c.name} ${c.id} ${c.state}`))
    expect(fake.images.list().map((i) => i.image.id)).toEqual(fresh.images.list().map((i) => i.image.id))
    expect(fake.faults.list()).toHaveLength(0)
    expect(fake.images.resolve('added')).toBeUndefined()
    expect(since(fake)).toEqual(since(fresh))
    // The timeline runs again from the start.
    await fake.clock.advance('2s')
    await fresh.clock.advance('2s')
    expect(since(fake)).toEqual(since(fresh))
    expect(fake.events.events.at(-1)!.frame('integer')).toBe(fresh.events.events.at(-1)!.frame('integer'))
  })
})
