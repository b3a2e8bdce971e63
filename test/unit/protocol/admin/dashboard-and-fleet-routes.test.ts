// The dashboard's admin routes (src/protocol/admin/live.ts: the live feed, clock pause/resume/speed, scenario continue,
// the dashboard's page) and the fleet's (src/protocol/admin/fleet.ts), with the answers docs/admin-api.md gives, through
// the protocol both ways in share (`fake.protocol.handle`). test/dashboard and test/fleet drive the same over a real
// server and the CLI.
import { describe, expect, it } from 'vitest'
import type { Dockside } from '../../../../src/index'
// Before admin-live: the package's entry loads the protocol's modules in their order (admin-live alone first would
// meet admin.ts's half-made route table).
import { freshFakes, parseLiveChunk } from '../../../support/fresh-fakes'
import { LIVE_BACKLOG } from '../../../../src/protocol/admin/live'
import type { ProtoResponse } from '../../../../src/protocol/types'

const fresh = freshFakes()

const served = { scheme: 'http' as const, host: '127.0.0.1', port: 2375 }

async function raw(fake: Dockside, method: string, url: string, body = '', signal = new AbortController().signal): Promise<ProtoResponse> {
  return fake.protocol.handle({ method, url, headers: { host: '127.0.0.1:2375' }, signal, body: async () => body, served })
}

async function api(fake: Dockside, method: string, url: string, body?: unknown) {
  const res = await raw(fake, method, url, body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body))
  const text = res.body as string
  return { status: res.status, headers: res.headers, text, json: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : undefined }
}

describe('clock controls', () => {
  it('pause: a virtual clock has nothing to pause (400); an auto clock pauses, journaled, and answers the clock', async () => {
    const virtual = fresh()
    const refused = await api(virtual, 'POST', '/_dockside/clock/pause')
    expect([refused.status, refused.json.message]).toEqual([400, 'The virtual clock only moves when advanced (POST /_dockside/clock/advance): there is nothing to pause.'])
    expect(virtual.clock.paused).toBe(false)
    const auto = fresh({ clock: 'auto' })
    const paused = await api(auto, 'POST', '/_dockside/clock/pause')
    expect(paused.status).toBe(200)
    expect(paused.json).toEqual({ mode: 'auto', now: new Date(auto.clock.now()).toISOString(), nowMs: auto.clock.now(), elapsedMs: auto.clock.elapsed(), pending: auto.clock.pending, paused: true, speed: 1 })
    expect(auto.journal.ofType('clock.pause')).toHaveLength(1)
  })

  it('resume: answers the clock on any clock; journaled only when it was paused', async () => {
    const auto = fresh({ clock: 'auto' })
    expect((await api(auto, 'POST', '/_dockside/clock/resume')).json).toMatchObject({ mode: 'auto', paused: false, speed: 1 })
    expect(auto.journal.ofType('clock.resume')).toEqual([])
    await api(auto, 'POST', '/_dockside/clock/pause')
    expect((await api(auto, 'POST', '/_dockside/clock/resume')).json).toMatchObject({ paused: false })
    expect(auto.clock.paused).toBe(false)
    expect(auto.journal.ofType('clock.resume')).toHaveLength(1)
    expect((await api(fresh(), 'POST', '/_dockside/clock/resume')).json).toMatchObject({ mode: 'virtual', paused: false, speed: 1 })
  })

  it('speed: a real clock takes {"speed": N} or ?speed=N; other clocks have none; bad values are 400s naming them', async () => {
    const real = fresh({ clock: 'real' })
    const set = await api(real, 'POST', '/_dockside/clock/speed', { speed: 4 })
    expect([set.status, set.json.mode, set.json.speed]).toEqual([200, 'real', 4])
    expect(real.clock.speed).toBe(4)
    expect(real.journal.ofType('clock.speed').map((e) => e.speed)).toEqual([4])
    expect((await api(real, 'POST', '/_dockside/clock/speed?speed=0.5')).json.speed).toBe(0.5)
    // The body wins over the query.
    expect((await api(real, 'POST', '/_dockside/clock/speed?speed=3', { speed: 2 })).json.speed).toBe(2)
    for (const q of ['0', '-1', 'fast', '', ' ', 'Infinity']) {
      const res = await api(real, 'POST', `/_dockside/clock/speed?speed=${q}`)
      expect([res.status, res.json.message], q).toEqual([400, `Invalid "speed" ${JSON.stringify(q)}: expected a number above 0, like 2 or 0.5.`])
    }
    const notJson = await api(real, 'POST', '/_dockside/clock/speed', '{speed')
    expect([notJson.status, notJson.json.message]).toEqual([400, 'The request body is not valid JSON (6 bytes). Send {"speed": 2}.'])
    const typo = await api(real, 'POST', '/_dockside/clock/speed', { pace: 2 })
    expect(typo.status).toBe(400)
    const none = await api(real, 'POST', '/_dockside/clock/speed')
    expect(none.status).toBe(400)
    const tooFast = await api(real, 'POST', '/_dockside/clock/speed', { speed: 1e7 })
    expect([tooFast.status, tooFast.json.message.startsWith('speed: ')]).toEqual([400, true])
    expect(real.clock.speed).toBe(2)
    const virtual = await api(fresh(), 'POST', '/_dockside/clock/speed', { speed: 4 })
    expect([virtual.status, virtual.json.message]).toEqual([400, 'The virtual clock has no speed: only the "real" clock runs at a speed factor (start with --clock real --speed N).'])
    expect((await api(fresh({ clock: 'auto' }), 'POST', '/_dockside/clock/speed', { speed: 4 })).json.message).toMatch(/^The auto clock has no speed/)
  })

  it('scenario/continue resumes a paused clock, journaled, and says whether it was paused', async () => {
    const fake = fresh({ scenario: { timeline: [{ at: '2s', say: 'over to you', pause: true }] } })
    expect((await api(fake, 'POST', '/_dockside/scenario/continue')).json).toEqual({ continued: false, clock: expect.objectContaining({ mode: 'virtual', paused: false }) })
    expect(fake.journal.ofType('scenario.continue')).toEqual([])
    await fake.clock.advance('5s')
    expect(fake.clock.paused).toBe(true)
    const res = await api(fake, 'POST', '/_dockside/scenario/continue')
    expect(res.json).toEqual({ continued: true, clock: expect.objectContaining({ paused: false, elapsedMs: 2000 }) })
    expect(fake.journal.ofType('scenario.continue')).toHaveLength(1)
  })

  it('other methods and longer paths of these routes are not routes', async () => {
    const fake = fresh()
    expect((await api(fake, 'GET', '/_dockside/clock/pause')).status).toBe(404)
    expect((await api(fake, 'POST', '/_dockside/clock/resume/now')).status).toBe(404)
    expect((await api(fake, 'POST', '/_dockside/scenario/continue/x')).status).toBe(404)
    expect((await api(fake, 'GET', '/_dockside/live/x')).status).toBe(404)
    expect((await api(fake, 'POST', '/_dockside/live')).status).toBe(404)
    expect(fake.clock.paused).toBe(false)
  })
})

describe('GET /_dockside/ui', () => {
  it('serves the page with no-cache and nosniff, by GET or HEAD; any other method is a 400; an unknown file a 404', async () => {
    const fake = fresh()
    for (const url of ['/_dockside/ui', '/_dockside/ui/']) {
      const page = await api(fake, 'GET', url)
      expect(page.status).toBe(200)
      expect(page.headers).toEqual({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff', date: expect.stringMatching(/ GMT$/) })
      expect(page.text).toContain('<script type="module" src="/_dockside/ui/app.js"></script>')
    }
    expect((await api(fake, 'HEAD', '/_dockside/ui')).status).toBe(200)
    const post = await api(fake, 'POST', '/_dockside/ui')
    expect([post.status, post.json.message]).toEqual([400, 'The dashboard is read with GET, not POST; its actions use the admin API.'])
    const missing = await api(fake, 'GET', '/_dockside/ui/secrets.txt')
    expect([missing.status, missing.json.message]).toEqual([404, 'The dashboard has no file "secrets.txt".'])
    expect((await api(fake, 'GET', '/_dockside/ui/a/app.js')).json.message).toBe('The dashboard has no file "a/app.js".')
  })
})

describe('GET /_dockside/live', () => {
  async function firstChunks(res: ProtoResponse, n: number) {
    const chunks: string[] = []
    for await (const chunk of res.body as AsyncIterable<string>) {
      chunks.push(chunk)
      if (chunks.length === n) break
    }
    return chunks
  }
  const parse = parseLiveChunk

  it('an event stream: retry, then a snapshot of everything with the last 200 matching events; ends with the page', async () => {
    const fake = fresh({ scenario: { timeline: Array.from({ length: 21 }, (_, i) => ({ at: `${i + 1}s`, say: `caption ${i + 1}` })) } })
    await fake.clock.advance('30s')
    for (let i = 0; i < LIVE_BACKLOG + 1; i++) fake.containers.create({ name: `c${i}`, image: 'busybox' }).start()
    fake.faults.add({ id: 'f', on: 'push', reply: 503 })
    fake.rateLimit.set({ route: 'events', limit: 5, window: '10s' })
    const before = fake.events.subscriberCount
    const res = await raw(fake, 'GET', `/_dockside/live?filters=${encodeURIComponent('{"event":["start"]}')}`)
    expect(res.status).toBe(200)
    expect(res.headers).toEqual({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no', date: expect.stringMatching(/ GMT$/) })
    const [retry, first] = await firstChunks(res, 2)
    expect(retry).toBe('retry: 1000\n\n')
    const [state, events] = parse(first)
    expect(state.event).toBe('state')
    expect(Object.keys(state.data)).toEqual(['seq', 'clock', 'seed', 'containers', 'timeline', 'pushes', 'sockets', 'deliveries', 'deliveriesAt', 'deliveriesRecountMs', 'faults', 'rateLimit', 'captions'])
    expect(state.data.clock).toEqual({ mode: 'virtual', now: '2026-01-01T00:00:30.000Z', nowMs: Date.parse('2026-01-01T00:00:30.000Z'), elapsedMs: 30000, pending: 0, paused: false, speed: 1 })
    expect(state.data.seed).toBe(42)
    expect(state.data.containers).toHaveLength(LIVE_BACKLOG + 1)
    expect(state.data.containers[0]).toMatchObject({ name: 'c0', state: 'running', startedAt: Date.parse('2026-01-01T00:00:30.000Z') })
    expect(state.data.faults).toEqual([{ id: 'f', on: 'push', reply: 503, fired: 0, matched: 0, timesTotal: 1, remaining: 1, status: 'pending' }])
    expect(state.data.rateLimit).toEqual({ rules: [{ route: 'events', limit: 5, window: '10s' }], buckets: [] })
    // The last 20 captions.
    expect(state.data.captions.map((c: { text: string }) => c.text)).toEqual(Array.from({ length: 20 }, (_, i) => `caption ${i + 2}`))
    // The last 200 start events (create events are filtered out), oldest first.
    expect(events.event).toBe('events')
    expect(events.data).toHaveLength(LIVE_BACKLOG)
    expect(events.data.every((e: { Action: string }) => e.Action === 'start')).toBe(true)
    expect(events.data[0].Actor.Attributes.name).toBe('c1')
    // The page went away (the reader stopped): the feed's subscriptions went with it.
    expect(fake.events.subscriberCount).toBe(before)
  })

  it('sends a new snapshot and the new events when something happens; a new caption is kept among the last 20', async () => {
    const fake = fresh({ scenario: { timeline: [{ at: '1s', say: 'first' }, { at: '2s', say: 'second' }] } })
    const res = await raw(fake, 'GET', '/_dockside/live')
    const it = (res.body as AsyncIterable<string>)[Symbol.asyncIterator]()
    expect((await it.next()).value).toBe('retry: 1000\n\n')
    const first = parse((await it.next()).value as string)
    expect(first.map((m) => m.event)).toEqual(['state'])
    expect(first[0].data.captions).toEqual([])
    await fake.clock.advance('1s')
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    const next = parse((await it.next()).value as string)
    expect(next[0].data.captions).toMatchObject([{ text: 'first', time: Date.parse('2026-01-01T00:00:01.000Z') }])
    expect(next[0].data.containers.map((c: { name: string }) => c.name)).toEqual(['web'])
    expect(next[1].event).toBe('events')
    expect(next[1].data.map((e: { Action: string }) => e.Action)).toEqual(['start'])
    await it.return?.()
  })

  it('ends when the fake is reset', async () => {
    const fake = fresh()
    const res = await raw(fake, 'GET', '/_dockside/live')
    const it = (res.body as AsyncIterable<string>)[Symbol.asyncIterator]()
    await it.next()
    await it.next()
    const ended = it.next()
    await fake.reset()
    expect(await ended).toEqual({ done: true, value: undefined })
  })

  it('ends when the page goes away', async () => {
    const fake = fresh()
    const gone = new AbortController()
    const res = await raw(fake, 'GET', '/_dockside/live', '', gone.signal)
    const it = (res.body as AsyncIterable<string>)[Symbol.asyncIterator]()
    await it.next()
    await it.next()
    const ended = it.next()
    gone.abort()
    expect(await ended).toEqual({ done: true, value: undefined })
  })

  it('a bad filter is a 400 naming it', async () => {
    const res = await api(fresh(), 'GET', `/_dockside/live?filters=${encodeURIComponent('{"colour":["red"]}')}`)
    expect(res.status).toBe(400)
    expect(res.json.message).toContain('colour')
  })
})

describe('fleet routes', () => {
  it('POST creates a fake on a port of its own (201); GET lists and reads one; DELETE ends it; unknown ids are 404s naming the live ones', async () => {
    const fake = fresh({ fleet: { maxFakes: 2 } })
    const created = await api(fake, 'POST', '/_dockside/fakes', { seed: 7 })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({ id: 'fake-1', seed: 7, clock: 'virtual', url: `http://127.0.0.1:${created.json.port}`, wsUrl: `ws://127.0.0.1:${created.json.port}` })
    const empty = await api(fake, 'POST', '/_dockside/fakes')
    expect(empty.json).toMatchObject({ id: 'fake-2', clock: 'virtual' })
    expect((await api(fake, 'GET', '/_dockside/fakes')).json.map((f: { id: string }) => f.id)).toEqual(['fake-1', 'fake-2'])
    expect((await api(fake, 'GET', '/_dockside/fakes/fake-1')).json).toEqual(created.json)
    const missing = await api(fake, 'GET', '/_dockside/fakes/fake-9')
    expect([missing.status, missing.json.message]).toEqual([404, 'No such fake: fake-9. Fakes: fake-1, fake-2.'])
    expect((await api(fake, 'DELETE', '/_dockside/fakes/fake-1')).json).toEqual({ removed: 'fake-1' })
    expect((await api(fake, 'DELETE', '/_dockside/fakes/fake-1')).json.message).toBe('No such fake: fake-1. Fakes: fake-2.')
    await api(fake, 'DELETE', '/_dockside/fakes/fake-2')
    expect((await api(fake, 'DELETE', '/_dockside/fakes/fake-2')).json.message).toBe('No such fake: fake-2. Fakes: (none).')
    expect((await api(fake, 'GET', '/_dockside/fakes/fake-2')).json.message).toBe('No such fake: fake-2. Fakes: (none).')
  })

  it('a body that is not JSON is a 400 giving its size; other methods and paths are 404s listing the fleet routes', async () => {
    const fake = fresh({ fleet: true })
    const bad = await api(fake, 'POST', '/_dockside/fakes', '{"seed":')
    expect([bad.status, bad.json.message]).toEqual([400, 'The request body is not valid JSON (8 bytes, not shown: it may hold a secret). Send nothing, or {"scenario":{...},"seed":7,"ttl":"15m"}.'])
    const typo = await api(fake, 'POST', '/_dockside/fakes', { sed: 7 })
    expect([typo.status, typo.json.message]).toEqual([400, 'sed: unknown field; allowed: scenario, seed, ttl'])
    for (const [method, url] of [
      ['PUT', '/_dockside/fakes'],
      ['POST', '/_dockside/fakes/fake-1'],
      ['GET', '/_dockside/fakes/fake-1/clock'],
    ]) {
      const res = await api(fake, method, url)
      expect([res.status, res.json.message], `${method} ${url}`).toEqual([404, `No admin route for ${method} ${url}. Fleet routes: GET|POST /_dockside/fakes, GET|DELETE /_dockside/fakes/{id}.`])
    }
    expect((await api(fake, 'GET', '/_dockside/fakes')).json).toEqual([])
  })
})
