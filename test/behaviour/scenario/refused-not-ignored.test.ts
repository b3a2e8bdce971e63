// Review, second round: false answers of the admin API and of scenario files. Each test names the bug it guards.
// Found by the second review of the admin API and scenarios (was test/regressions/admin-scenario-review-2.test.ts).
import { describe, expect, it } from 'vitest'
import { createDockside, parseScenario, ScenarioError, type Dockside } from '../../../src/index'

/** A fake with a running `web`, served on 127.0.0.1. */
async function served(options: Parameters<typeof createDockside>[0] = { scenario: { containers: [{ name: 'web', image: 'nginx', running: true }] } }) {
  const fake = createDockside(options)
  const { url } = await fake.listen({ port: 0 })
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(url + path, { method, body: body === undefined ? undefined : JSON.stringify(body) })
    return { status: res.status, json: (await res.json()) as Record<string, unknown> & { message?: string } }
  }
  return { fake, call }
}

const state = (fake: Dockside, name = 'web') => fake.containers.get(name).state

describe('admin paths: every segment counts', () => {
  it('bug: POST /_dockside/containers/web/stop/extra stopped web as /stop did; now a 404 naming the path', async () => {
    const { fake, call } = await served()
    await using _ = fake
    for (const path of ['/_dockside/containers/web/stop/extra', '/_dockside/containers/web/stop/extra/more', '/_dockside/containers/web/start/x']) {
      const res = await call('POST', path)
      expect(res.status, path).toBe(404)
      expect(res.json.message, path).toMatch(new RegExp(`^No admin route for POST ${path.replace(/\//g, '\\/')}\\. Admin routes: `))
    }
    expect(state(fake)).toBe('running')
    expect((await call('POST', '/_dockside/containers/web/stop')).json.state).toBe('exited')
  })
})

describe('?exitCode=: a decimal integer from 0 to 255', () => {
  it('bug: ?exitCode=0x10 stopped with 16 (Number()), 1e1 with 10 and a blank value with 0; now a 400 naming exitCode', async () => {
    const { fake, call } = await served()
    await using _ = fake
    for (const raw of ['0x10', '1e1', '', '+1', '-1', '1.0', ' 1', '256', 'abc']) {
      const res = await call('POST', `/_dockside/containers/web/stop?exitCode=${encodeURIComponent(raw)}`)
      expect(res.status, raw).toBe(400)
      expect(res.json.message, raw).toBe(`exitCode: must be a decimal integer from 0 to 255 (like ?exitCode=137), not ${JSON.stringify(raw)}`)
    }
    expect(state(fake)).toBe('running')
    const ok = await call('POST', '/_dockside/containers/web/stop?exitCode=016')
    expect([ok.status, ok.json.exitCode]).toEqual([200, 16])
  })

  it('bug: exitCode in both the body and the query: the body won silently; now a 400 naming it', async () => {
    const { fake, call } = await served()
    await using _ = fake
    const res = await call('POST', '/_dockside/containers/web/stop?exitCode=2', { exitCode: 1 })
    expect([res.status, res.json.message]).toEqual([400, 'exitCode: is given in both the body and the query; give it once'])
    expect(state(fake)).toBe('running')
  })
})

describe('registry hosts: a port from 1 to 65535, neither part empty', () => {
  it('bug: r1:99999 and r1:0 were added; now refused by the admin API, scenarios and the library', async () => {
    const { fake, call } = await served({})
    await using _ = fake
    for (const host of ['r1:99999', 'r1:0', 'r1:65536']) {
      const port = host.split(':')[1]
      const res = await call('POST', '/_dockside/registries', { host })
      expect(res.status, host).toBe(400)
      expect(res.json.message, host).toBe(`Invalid registry host "${host}": port ${port} is not from 1 to 65535; expected host or host:port, e.g. "localhost:5000".`)
      expect(() => fake.registries.add(host)).toThrow(`port ${port} is not from 1 to 65535`)
      await expect(parseScenario(`registries:\n  - host: "${host}"\n`, 'r.yaml')).rejects.toThrow(
        new ScenarioError('r.yaml', 'registries[0]', `Invalid registry host "${host}": port ${port} is not from 1 to 65535; expected host or host:port, e.g. "localhost:5000".`),
      )
    }
    // An empty host or port: the schema's message says what a host is, not its regular expression.
    for (const host of ['r1:', ':5000', '']) {
      const res = await call('POST', '/_dockside/registries', { host })
      expect(res.status, host).toBe(400)
      expect(res.json.message, host).toBe('host: must be a registry host: host or host:port (host of [a-zA-Z0-9.-] or an IPv6 address in brackets, neither part empty, a port from 1 to 65535), e.g. "localhost:5000" or "[::1]:5000"')
    }
    expect(fake.registries.list()).toEqual([])
    expect((await call('POST', '/_dockside/registries', { host: 'r1:65535' })).status).toBe(201)
    expect((await call('POST', '/_dockside/registries', { host: 'r2:1' })).status).toBe(201)
    // A bracketed IPv6 host, as a push's reference may name it (`[::1]:5000/app`), in the admin API and scenarios too.
    expect((await call('POST', '/_dockside/registries', { host: '[::1]:5000' })).status).toBe(201)
    await parseScenario('registries:\n  - host: "[::1]:5001"\n', 'r.yaml')
  })
})

describe('maxConnectionAge: a duration above 0', () => {
  it('bug: maxConnectionAge 0 was accepted (every events socket at its maximum age as it opened); now refused', async () => {
    const message = 'must be a duration above 0, like "1h" (default "24h"): at 0 every events socket would be closed as it opens'
    for (const age of [0, '0s', '0ms', '0']) {
      expect(() => createDockside({ maxConnectionAge: age }), String(age)).toThrow(`maxConnectionAge: ${message}`)
      await expect(parseScenario(`maxConnectionAge: ${JSON.stringify(age)}\n`, 'a.yaml')).rejects.toThrow(new ScenarioError('a.yaml', 'maxConnectionAge', message))
      expect(() => createDockside({ scenario: { maxConnectionAge: age } })).toThrow(new ScenarioError('(scenario)', 'maxConnectionAge', message))
    }
    expect(() => createDockside({ maxConnectionAge: 'soon' })).toThrow(/^maxConnectionAge: must be a duration/)
    await createDockside({ maxConnectionAge: '1ms' }).close()
  })
})

describe('fault rules whose window has ended', () => {
  const ended = (now: number, from: string, until: string) =>
    `until: the rule's window, from ${from} to ${until} of clock time (counted from the clock's start), ended at or before now (${now} ms since the clock's start), so the rule could never fire; "until" must be later than now`

  it('bug: fake.faults.add took a rule whose "until" had passed (it could never fire); now refused naming the window and now', async () => {
    await using fake = createDockside()
    await fake.clock.advance('10s')
    expect(() => fake.faults.add({ on: 'events', reply: 429, until: '5s' })).toThrow(ended(10_000, '0 ms', '5s'))
    expect(() => fake.faults.add({ on: 'events', reply: 429, from: '1s', until: 10_000 })).toThrow(ended(10_000, '1s', '10000 ms'))
    expect(() => fake.faults.addAll([{ on: 'events', drop: true }, { on: 'events', reply: 429, until: '2s' }])).toThrow(`[1].${ended(10_000, '0 ms', '2s')}`)
    expect(fake.faults.list()).toEqual([])
    expect(fake.faults.add({ on: 'events', reply: 429, until: '10001ms' }).id).toBe('rule-1')
  })

  it('bug: POST /_dockside/faults took it too; now a 400, and a batch adds none', async () => {
    const { fake, call } = await served({})
    await using _ = fake
    await call('POST', '/_dockside/clock/advance', { by: '1m' })
    const one = await call('POST', '/_dockside/faults', { on: 'push', error: 'boom', from: '10s', until: '30s' })
    expect(one).toEqual({ status: 400, json: { message: ended(60_000, '10s', '30s') } })
    const batch = await call('POST', '/_dockside/faults', { rules: [{ on: 'events', drop: true }, { on: 'events', reply: 503, until: '1m' }] })
    expect(batch).toEqual({ status: 400, json: { message: `rules[1].${ended(60_000, '0 ms', '1m')}` } })
    expect((await call('GET', '/_dockside/faults')).json).toEqual([])
  })

  it('a scenario applied from the clock\'s start past a rule\'s window is refused before anything changes; from now it counts from now', async () => {
    const { fake, call } = await served({})
    await using _ = fake
    await fake.clock.advance('1m')
    const storyboard = { containers: [{ name: 'late', image: 'nginx' }], faults: [{ on: 'events', reply: 429, from: '10s', until: '20s' }] }
    const res = await call('POST', '/_dockside/scenario', storyboard)
    expect(res).toEqual({ status: 400, json: { message: `(scenario): at faults[0].until: ${ended(60_000, '10s', '20s').slice('until: '.length)}` } })
    expect(fake.containers.list()).toEqual([])
    expect((await call('POST', '/_dockside/scenario?from=now', storyboard)).status).toBe(200)
    expect(fake.faults.list().map((f) => [f.rule.from, f.rule.until])).toEqual([[70_000, 80_000]])
  })

  it('bug: a one-shot step already past (it runs at once) whose rule\'s window has ended was applied, then failed as a timeline.error; now refused before anything changes', async () => {
    const { fake, call } = await served({})
    await using _ = fake
    await fake.clock.advance('1m')
    const storyboard = { containers: [{ name: 'late', image: 'nginx' }], timeline: [{ at: '10s', faults: [{ on: 'events', reply: 429, until: '15s' }] }] }
    const res = await call('POST', '/_dockside/scenario', storyboard)
    expect(res).toEqual({ status: 400, json: { message: `(scenario): at timeline[0].faults[0].until: ${ended(60_000, '0 ms', '15s').slice('until: '.length)}` } })
    expect(fake.containers.list()).toEqual([])
    // A window still open now is fine, and so is the same story from now.
    expect((await call('POST', '/_dockside/scenario', { timeline: [{ at: '10s', faults: [{ on: 'events', reply: 429, until: '2m' }] }] })).status).toBe(200)
    expect((await call('POST', '/_dockside/scenario?from=now', storyboard)).status).toBe(200)
  })

  it('statically: an "until" of 0, and a step\'s rule whose window ends by the step\'s "at", are refused in files', async () => {
    await expect(parseScenario('faults:\n  - { on: events, reply: 429, until: 0 }\n', 'z.yaml')).rejects.toThrow(
      new ScenarioError('z.yaml', 'faults[0].until', `0 ms ends the window at the clock's start, so the rule could never fire; "until" must be later than 0`),
    )
    await expect(parseScenario('timeline:\n  - { at: 30s, faults: [{ on: events, reply: 429, until: 20s }] }\n', 's.yaml')).rejects.toThrow(
      new ScenarioError('s.yaml', 'timeline[0].faults[0].until', 'the rule\'s window ends at "20s", no later than the step adds it (at "30s"), so it could never fire; "until" must be later than the step\'s "at"'),
    )
    await parseScenario('timeline:\n  - { at: 30s, faults: [{ on: events, reply: 429, until: 31s }] }\n', 'ok.yaml')
  })
})

describe('an advance a pause stopped', () => {
  it('bug: an advance a "pause: true" step stopped answered 200 with `now` and no sign it stopped early; now `paused: true`', async () => {
    const { fake, call } = await served({ scenario: { timeline: [{ at: '5s', say: 'hold', pause: true }] } })
    await using _ = fake
    const cut = await call('POST', '/_dockside/clock/advance', { by: '10s' })
    expect(cut).toEqual({
      status: 200,
      json: { now: '2026-01-01T00:00:05.000Z', elapsedMs: 5000, paused: true, hint: 'the advance stopped at a pause; continue with POST /_dockside/scenario/continue, then advance again for the rest' },
    })
    expect((await call('POST', '/_dockside/scenario/continue')).json.continued).toBe(true)
    // The rest of the time, with no pause on the way: the plain answer.
    expect(await call('POST', '/_dockside/clock/advance', { by: '5s' })).toEqual({ status: 200, json: { now: '2026-01-01T00:00:10.000Z', elapsedMs: 10_000 } })
  })

  it('an advance queued behind one a pause stopped moves on from the pause (a manual step), and says the clock is still paused', async () => {
    const { fake, call } = await served({ scenario: { timeline: [{ at: '5s', pause: true }] } })
    await using _ = fake
    const [first, second] = await Promise.all([call('POST', '/_dockside/clock/advance', { by: '10s' }), call('POST', '/_dockside/clock/advance', { by: '3s' })])
    expect(first.json).toMatchObject({ elapsedMs: 5000, paused: true })
    expect(second.json).toEqual({
      now: '2026-01-01T00:00:08.000Z',
      elapsedMs: 8000,
      paused: true,
      hint: 'the clock was paused before this advance and still is: the advance moved it as asked; continue with POST /_dockside/scenario/continue (a story pause) or POST /_dockside/clock/resume',
    })
    // As GET /_dockside/clock says.
    expect((await call('GET', '/_dockside/clock')).json.paused).toBe(true)
  })

  it('an advance of an auto clock paused by POST /_dockside/clock/pause moves it and says it is still paused', async () => {
    const { fake, call } = await served({ clock: 'auto' })
    await using _ = fake
    expect((await call('POST', '/_dockside/clock/pause')).status).toBe(200)
    const answer = (await call('POST', '/_dockside/clock/advance', { by: '10s' })).json
    expect(answer.paused).toBe(true)
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(10_000)
  })
})

describe('timeline step fields that would do nothing', () => {
  const cases: [yaml: string, path: string, expected: string][] = [
    ['{ at: 1s, restart: false }', 'restart', 'false restarts nothing, so the step would do nothing; use restart: true, or remove the step'],
    ['{ at: 1s, drop: false }', 'drop', 'false drops nothing, so the step would do nothing; use drop: true, or remove the step'],
    ['{ at: 1s, faults: [] }', 'faults', 'an empty list adds no rule, so the step would do nothing; list the rules to add, or remove the step'],
    ['{ at: 1s, start: web, exitCode: 3 }', 'exitCode', 'is the exit code the container stops with, read by a "stop" step only; this is a "start" step, which would ignore it: drop "exitCode"'],
    ['{ at: 1s, remove: web, exitCode: 3 }', 'exitCode', 'is the exit code the container stops with, read by a "stop" step only; this is a "remove" step, which would ignore it: drop "exitCode"'],
    ['{ at: 1s, stop: web, image: nginx }', 'image', 'is the new container\'s image, read by a "create" step only; this is a "stop" step, which would ignore it: drop "image"'],
    ['{ at: 1s, start: web, labels: { a: b } }', 'labels', 'is the new container\'s labels, read by a "create" step only; this is a "start" step, which would ignore it: drop "labels"'],
    ['{ at: 1s, say: hi, instanceType: s3 }', 'instanceType', 'is the new container\'s instance type, read by a "create" step only; this is a step without an action (a "say" caption or a "pause"), which would ignore it: drop "instanceType"'],
    ['{ at: 1s, pause: false }', 'pause', 'false pauses nothing and the step has no action nor "say", so it would do nothing; use pause: true, or remove the step'],
  ]
  it.each(cases)('bug: %s was accepted and did nothing; now refused naming the field and the step', async (step, field, expected) => {
    const yaml = `containers: [{ name: web, image: nginx }]\ntimeline:\n  - { at: 0, say: first }\n  - ${step}\n`
    await expect(parseScenario(yaml, 'noop.yaml')).rejects.toThrow(new ScenarioError('noop.yaml', `timeline[1].${field}`, expected))
  })

  it('the fields where they do something are fine, and so is an explicit pause: false on a step that does something', async () => {
    await parseScenario(
      'containers: [{ name: web, image: nginx }]\ntimeline:\n  - { at: 1s, stop: web, exitCode: 3, pause: false }\n  - { at: 2s, create: c2, image: nginx, labels: { a: b }, instanceType: s3 }\n  - { at: 3s, restart: true }\n  - { at: 4s, say: hi, pause: false }\n',
      'ok.yaml',
    )
  })

  it('POST /_dockside/scenario refuses them too, applying nothing', async () => {
    const { fake, call } = await served()
    await using _ = fake
    const res = await call('POST', '/_dockside/scenario', { containers: [{ name: 'c2', image: 'nginx' }], timeline: [{ at: '1s', start: 'web', exitCode: 1 }] })
    expect(res.status).toBe(400)
    expect(res.json.message).toMatch(/^\(scenario\): at timeline\[0\]\.exitCode: is the exit code the container stops with/)
    expect(fake.containers.list().map((c) => c.name)).toEqual(['web'])
  })
})

describe('images: each repository:tag once', () => {
  it('bug: an image listed twice in a scenario was merged silently (the second took the tag); now refused naming it', async () => {
    await expect(parseScenario('images:\n  - { name: "app:1.0", layers: 1 }\n  - { name: app, tags: ["2.0", "1.0"], layers: 2 }\n', 'i.yaml')).rejects.toThrow(
      new ScenarioError('i.yaml', 'images[1]', '"app:1.0" is already listed at images[0]; list each image (repository:tag) once, with all its tags in one entry'),
    )
    await expect(parseScenario('images:\n  - { name: app }\n  - { name: "app:latest" }\n', 'i.yaml')).rejects.toThrow(/at images\[1\]: "app:latest" is already listed at images\[0\]/)
    // Other tags of one repository, and one entry that names its tag twice, are one image each.
    await parseScenario('images:\n  - { name: "app:1.0", tags: ["1.0", latest] }\n  - { name: "app:2.0" }\n', 'ok.yaml')
  })

  it('POST /_dockside/images with a repository:tag the fake has moves the tag to the new image, as docs/admin-api.md says', async () => {
    const { fake, call } = await served({})
    await using _ = fake
    const first = await call('POST', '/_dockside/images', { name: 'app:1.0', tags: ['stable'], layers: 1 })
    const second = await call('POST', '/_dockside/images', { name: 'app:1.0', layers: 2 })
    expect([first.status, second.status]).toEqual([201, 201])
    const images = (await call('GET', '/_dockside/images')).json as unknown as { repository: string; tag: string; id: string }[]
    expect(images.map((i) => [i.tag, i.id]).sort()).toEqual([
      ['1.0', second.json.id],
      ['stable', first.json.id],
    ])
  })
})

describe('timeline create names', () => {
  it('bug: a create step with a name the API refuses was accepted (a timeline.error when it ran); now refused', async () => {
    await expect(parseScenario('timeline:\n  - { at: 1s, create: "bad name", image: nginx }\n', 'c.yaml')).rejects.toThrow(
      new ScenarioError('c.yaml', 'timeline[0].create', '"bad name" is not a container name (the API refuses it, so the step could never create it): allowed characters are [a-zA-Z0-9][a-zA-Z0-9_.-], like "web-1"'),
    )
    expect(() => createDockside({ scenario: { timeline: [{ at: 0, create: '-x', image: 'nginx' }] } })).toThrow(/at timeline\[0\]\.create: "-x" is not a container name/)
  })
})

describe('compose-style x- keys', () => {
  it('bug: a top-level x-common holding YAML anchors was refused as an unknown field; now ignored', async () => {
    const yaml = 'x-common: &common { image: "nginx:1.27", labels: { tier: web } }\nx-notes: anything\ncontainers:\n  - { <<: *common, name: web }\n  - { <<: *common, name: web2, running: true }\n'
    const scenario = await parseScenario(yaml, 'x.yaml')
    await using fake = createDockside({ scenario })
    expect(fake.containers.list().map((c) => [c.name, c.image, c.labels.tier, c.state])).toEqual([
      ['web', 'nginx:1.27', 'web', 'created'],
      ['web2', 'nginx:1.27', 'web', 'running'],
    ])
  })

  it('only at the top level, starting with "x-"; the unknown-field message says so', async () => {
    await expect(parseScenario('common: 1\n', 'u.yaml')).rejects.toThrow(/at \(root\): unknown field "common"; allowed: .*timeline, faults; and any key starting with "x-" \(ignored: a holder of YAML anchors, as in compose files\)$/)
    await expect(parseScenario('containers:\n  - { name: web, image: nginx, x-note: 1 }\n', 'n.yaml')).rejects.toThrow(/at containers\[0\]: unknown field "x-note"/)
  })
})
