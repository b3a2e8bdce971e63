// The dashboard's admin routes, over a real server: the live feed (server-sent events), clock pause/resume/speed,
// scenario continue, and the dashboard's own files behind the admin guard.
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createDockside, type Dockside } from '../../../src/index'
import { ensureUiBuilt, readSse } from './support'

let fake: Dockside
afterEach(() => fake?.close())
beforeAll(() => ensureUiBuilt())

const post = (url: string, body?: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })

interface Snapshot {
  clock: { mode: string; nowMs: number; paused: boolean; speed: number }
  containers: { name: string; state: string }[]
  pushes: { state: string; layers: { current: number; size: number }[]; digests: Record<string, string> }[]
  captions: { text: string }[]
  rateLimit: { buckets: { tokens: number; burst: number; client: string }[] }
}

describe('GET /_dockside/live', () => {
  it('pushes a snapshot, then the events and state that follow, as they happen', async () => {
    fake = createDockside({ seed: 4 })
    const server = await fake.listen()
    fake.containers.create({ name: 'web', image: 'nginx', labels: { app: 'web' } }).start()
    const res = await fetch(`${server.url}/_dockside/live`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
    let started = false
    const messages = await readSse(res, (ms) => {
      const states = ms.filter((m) => m.event === 'state')
      if (states.length === 1 && !started) {
        started = true
        fake.containers.create({ name: 'api', image: 'nginx' }).start()
      }
      return ms.some((m) => m.event === 'events' && (m.data as { Actor: { Attributes: { name: string } } }[]).some((e) => e.Actor.Attributes.name === 'api'))
    })
    const first = messages.find((m) => m.event === 'state')!.data as Snapshot
    expect(first.containers.map((c) => c.name)).toEqual(['web'])
    // The backlog came first: web's start, then api's as it happened.
    const names = messages.filter((m) => m.event === 'events').flatMap((m) => (m.data as { Actor: { Attributes: { name: string } } }[]).map((e) => e.Actor.Attributes.name))
    expect(names).toEqual(['web', 'api'])
    // The page went away: the feed's subscription to the event log went with it (the fake's own listener stays).
    await expect.poll(() => fake.events.subscriberCount).toBe(1)
  })

  it('watching is not recorded: the feed and its acknowledgements leave the journal as it was; feed ids count per fake', async () => {
    const other = createDockside({ seed: 4 })
    const otherServer = await other.listen()
    const first = await readSse(await fetch(`${otherServer.url}/_dockside/live?ack=1`), (ms) => ms.some((m) => m.event === 'state'))
    expect(first[0]).toMatchObject({ data: { feed: 'live-1' } })
    await other.close()
    fake = createDockside({ seed: 4 })
    const server = await fake.listen()
    fake.containers.create({ name: 'web', image: 'nginx' })
    const before = fake.journal.entries.map((e) => e.type)
    const res = await fetch(`${server.url}/_dockside/live?ack=1`)
    const [state] = await readSse(res, (ms) => ms.some((m) => m.event === 'state'))
    // A fake's first feed is live-1, whatever fakes ran in this process before it.
    expect(state.data).toMatchObject({ feed: 'live-1', seq: 1 })
    expect((await post(`${server.url}/_dockside/live/ack`, { feed: 'live-1', seq: 1 })).status).toBe(200)
    expect(fake.journal.entries.map((e) => e.type)).toEqual(before)
    // What the dashboard does (not what it watches) is journaled.
    expect((await post(`${server.url}/_dockside/containers`, { name: 'api', image: 'nginx' })).status).toBe(201)
    expect(fake.journal.ofType('request').map((e) => e.path)).toEqual(['/_dockside/containers'])
  })

  it('filters events with the /events/ws syntax, and refuses a bad filter with a 400 naming it', async () => {
    fake = createDockside({ seed: 4 })
    const server = await fake.listen()
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    web.start()
    web.stop({ exitCode: 3 })
    const res = await fetch(`${server.url}/_dockside/live?filters=${encodeURIComponent('{"event":["stop"]}')}`)
    const messages = await readSse(res, (ms) => ms.some((m) => m.event === 'events'))
    const events = messages.find((m) => m.event === 'events')!.data as { Action: string }[]
    expect(events.map((e) => e.Action)).toEqual(['stop'])
    const bad = await fetch(`${server.url}/_dockside/live?filters=${encodeURIComponent('{"colour":["red"]}')}`)
    expect(bad.status).toBe(400)
    expect((await bad.json()).message).toMatch(/colour/)
  })

  it('shows a push layer by layer, its digest, and the rate limiter buckets', async () => {
    fake = createDockside({ seed: 4, pushBandwidth: 1_000_000, rateLimit: { route: 'push', limit: 3, window: '10s' } })
    fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: [3_000_000, 1_000_000] })
    const server = await fake.listen()
    const live = await fetch(`${server.url}/_dockside/live`)
    let partway: Snapshot | undefined
    let seenPartway!: () => void
    const partwaySeen = new Promise<void>((resolve) => (seenPartway = resolve))
    const done = readSse(live, (ms) => {
      const s = ms.at(-1)?.data as Snapshot | undefined
      if (ms.at(-1)?.event === 'state' && s!.pushes[0]?.layers.some((l) => l.current > 0 && l.current < l.size)) {
        partway ??= s
        seenPartway()
      }
      return ms.some((m) => m.event === 'state' && (m.data as Snapshot).pushes.some((p) => p.state === 'done'))
    })
    const push = await fetch(`${server.url}/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST', headers: { 'x-dockside-client': 'ci' } })
    const body = push.text()
    await fake.clock.advance('1s')
    // The page is told while the push is part-way (the feed sends at most one snapshot per 100 ms of host time).
    await partwaySeen
    // One token of three spent, 1 s into a 10 s window: not yet back.
    expect(partway?.rateLimit.buckets).toEqual([{ rule: 0, route: 'push', client: 'ci', tokens: 2, burst: 3 }])
    while (!(await Promise.race([body.then(() => true), new Promise((r) => setImmediate(() => r(false)))]))) await fake.clock.advance('100ms')
    const states = (await done).filter((m) => m.event === 'state').map((m) => m.data as Snapshot)
    const last = states.at(-1)!
    expect(last.pushes[0].layers.every((l) => l.current === l.size)).toBe(true)
    expect(Object.values(last.pushes[0].digests)[0]).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(last.rateLimit.buckets).toEqual([{ rule: 0, route: 'push', client: 'ci', tokens: 3, burst: 3 }])
  })
})

describe('delivery reports on the feed', () => {
  it('counts a client\'s gaps, and says when it is away while owed events', async () => {
    fake = createDockside({ seed: 4 })
    const server = await fake.listen()
    const ws = new WebSocket(`${server.wsUrl}/events/ws?client=sdk`)
    await new Promise((r) => ws.once('open', r))
    const closed = new Promise((r) => ws.once('close', r))
    fake.restart()
    await closed
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    const messages = await readSse(await fetch(`${server.url}/_dockside/live`), (ms) => ms.some((m) => m.event === 'state'))
    const deliveries = (messages.find((m) => m.event === 'state')!.data as { deliveries: { client: string; gaps: number; away: boolean; missed: number }[] }).deliveries
    expect(deliveries).toMatchObject([{ client: 'sdk', gaps: 1, away: true, missed: 1 }])
  })
})

describe('the live feed in process', () => {
  it('streams the same snapshot and events through fetch hooked by fake.intercept()', async () => {
    fake = createDockside({ seed: 4 })
    const hooks = await fake.intercept()
    try {
      fake.containers.create({ name: 'web', image: 'nginx' }).start()
      const res = await fetch(`${hooks.baseUrl}/_dockside/live`)
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
      const messages = await readSse(res, (ms) => ms.some((m) => m.event === 'state') && ms.some((m) => m.event === 'events'))
      expect((messages.find((m) => m.event === 'state')!.data as Snapshot).containers.map((c) => c.name)).toEqual(['web'])
      expect((messages.find((m) => m.event === 'events')!.data as { Action: string }[]).map((e) => e.Action)).toEqual(['start'])
    } finally {
      hooks.restore()
    }
  })
})

describe('a timeline push', () => {
  it('is refused by a push fault reply as a client would be: journaled, and failed on the board with the answer', async () => {
    fake = createDockside({
      scenario: {
        images: [{ name: 'localhost:5000/team/app', tags: ['1.0'], layers: 2 }],
        faults: [{ on: 'push', reply: 429, retryAfter: 5, match: { client: 'scenario' } }],
        timeline: [{ at: '1s', push: 'localhost:5000/team/app:1.0' }, { at: '2s', push: 'localhost:5000/team/app:1.0' }],
      },
    })
    await fake.clock.advance('10s')
    expect(fake.journal.ofType('push.refused')).toMatchObject([{ repository: 'localhost:5000/team/app', client: 'scenario', message: expect.stringMatching(/^429 /) }])
    expect(fake.journal.ofType('push.tag')).toHaveLength(1)
    const server = await fake.listen()
    const messages = await readSse(await fetch(`${server.url}/_dockside/live`), (ms) => ms.some((m) => m.event === 'state'))
    expect((messages.find((m) => m.event === 'state')!.data as Snapshot).pushes.map((p) => p.state)).toEqual(['failed', 'done'])
  })

  it('names a bad image reference in the scenario', async () => {
    expect(() => createDockside({ scenario: { timeline: [{ at: '1s', push: 'Team/App@sha256:abc' }] } })).toThrow(/timeline\[0\]\.push: cannot push a digest reference/)
  })
})

describe('clock and scenario routes', () => {
  it('pause freezes a real clock, resume lets it run on, speed changes its pace', async () => {
    fake = createDockside({ clock: 'real' })
    const server = await fake.listen()
    const paused = await (await post(`${server.url}/_dockside/clock/pause`)).json()
    expect(paused).toMatchObject({ mode: 'real', paused: true })
    const at = fake.clock.now()
    await new Promise((r) => setTimeout(r, 30)) // real wall time must pass for a real clock to (not) move
    expect(fake.clock.now()).toBe(at)
    expect(await (await post(`${server.url}/_dockside/clock/speed`, { speed: 50 })).json()).toMatchObject({ speed: 50, paused: true })
    await post(`${server.url}/_dockside/clock/resume`)
    await new Promise((r) => setTimeout(r, 40))
    // At 50x, 40 ms of wall time is about 2 s of clock time; it continued from where it stopped.
    expect(fake.clock.now() - at).toBeGreaterThan(1000)
    expect(await (await fetch(`${server.url}/_dockside/clock`)).json()).toMatchObject({ paused: false, speed: 50 })
  })

  it('refuses what a clock cannot do, and a bad speed, with a 400 naming it', async () => {
    fake = createDockside()
    const server = await fake.listen()
    const pause = await post(`${server.url}/_dockside/clock/pause`)
    expect(pause.status).toBe(400)
    expect((await pause.json()).message).toMatch(/virtual clock only moves when advanced/)
    const speed = await post(`${server.url}/_dockside/clock/speed`, { speed: 2 })
    expect((await speed.json()).message).toMatch(/virtual clock has no speed/)
    const real = createDockside({ clock: 'real' })
    try {
      const realServer = await real.listen()
      for (const [body, expected] of [[{ speed: 0 }, /speed/], [{ speed: 'fast' }, /speed: must be a number/], [{ pace: 2 }, /pace|speed/]] as const) {
        const res = await post(`${realServer.url}/_dockside/clock/speed`, body)
        expect(res.status).toBe(400)
        expect((await res.json()).message).toMatch(expected)
      }
    } finally {
      await real.close()
    }
  })

  it('a step with `pause` stops the clock there until POST /_dockside/scenario/continue; `say` captions are journaled as the step runs', async () => {
    fake = createDockside({
      scenario: {
        containers: [{ name: 'web', image: 'nginx' }],
        timeline: [
          { at: '1s', say: 'the web tier starts', start: 'web' },
          { at: '2s', say: 'over to you', pause: true },
          { at: '3s', stop: 'web', say: 'and stops' },
        ],
      },
    })
    const server = await fake.listen()
    await fake.clock.advance('10s')
    // The advance stopped at the pause: 2 s, web still running, the last caption not yet said.
    expect(fake.clock.elapsed()).toBe(2000)
    expect(fake.clock.paused).toBe(true)
    expect(fake.containers.get('web').state).toBe('running')
    expect(fake.journal.entries.filter((e) => e.type === 'say').map((e) => e.text)).toEqual(['the web tier starts', 'over to you'])
    expect(await (await post(`${server.url}/_dockside/scenario/continue`)).json()).toMatchObject({ continued: true })
    await fake.clock.advance('10s')
    expect(fake.containers.get('web').state).toBe('exited')
    expect(fake.journal.entries.filter((e) => e.type === 'say').at(-1)!.text).toBe('and stops')
    expect(await (await post(`${server.url}/_dockside/scenario/continue`)).json()).toMatchObject({ continued: false })
  })
})

describe('GET /_dockside/ui', () => {
  it('serves the dashboard from the package, with no outside address in it', async () => {
    fake = createDockside()
    const server = await fake.listen()
    const page = await fetch(`${server.url}/_dockside/ui`)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    const html = await page.text()
    expect(html).toContain('/_dockside/ui/app.js')
    for (const file of ['app.js', 'app.css']) {
      const res = await fetch(`${server.url}/_dockside/ui/${file}`)
      expect(res.status).toBe(200)
      // No CDN: nothing the page loads comes from another host.
      expect(await res.text()).not.toMatch(/https?:\/\/(?!127\.0\.0\.1|localhost|www\.w3\.org)[a-z0-9.-]+\.[a-z]{2,}\//i)
    }
    expect((await fetch(`${server.url}/_dockside/ui/../state`)).status).not.toBe(500)
    const missing = await fetch(`${server.url}/_dockside/ui/secrets.txt`)
    expect(missing.status).toBe(404)
  })

  it('is behind the admin guard: the token is required and other origins are refused', async () => {
    fake = createDockside({ adminToken: 'tok-123' })
    const server = await fake.listen()
    expect((await fetch(`${server.url}/_dockside/ui`)).status).toBe(401)
    expect((await fetch(`${server.url}/_dockside/live`)).status).toBe(401)
    expect((await fetch(`${server.url}/_dockside/ui`, { headers: { authorization: 'Bearer tok-123' } })).status).toBe(200)
    const open = createDockside()
    try {
      const s = await open.listen()
      const cross = await fetch(`${s.url}/_dockside/live`, { headers: { origin: 'https://evil.example' } })
      expect(cross.status).toBe(403)
    } finally {
      await open.close()
    }
  })
})
