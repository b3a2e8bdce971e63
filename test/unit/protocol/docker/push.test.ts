// POST /images/{name}/push as the protocol answers it (src/protocol/docker/push.ts, faults.ts), through fake.protocol:
// the rate limit per client, fault replies with and without Retry-After, connect latency abandoned, the model's
// refusals, the push reset turned into the transport's, and a dribble's line-by-line pacing (docs/faults.md).
import { describe, expect, it } from 'vitest'
import { createService } from '../../../../src/core/service'
import { createDockside, type Dockside } from '../../../../src/index'
import { pushRoute } from '../../../../src/protocol/docker/push'
import { SERVER_SHUTDOWN, TransportReset } from '../../../../src/protocol/types'

const push = (fake: Dockside, url: string, headers: Record<string, string> = {}, signal = new AbortController().signal) =>
  fake.protocol.handle({ method: 'POST', url, headers, signal, body: async () => '' })
const message = (res: { body?: unknown }) => JSON.parse(res.body as string).message as string

/** A push dribbling a line a second, its first line read and its second asked for: what a leaving party interrupts. */
async function dribbling(fake: Dockside) {
  fake.images.add('localhost:5000/app', { tags: ['1.0'], layers: [10] })
  fake.faults.add({ on: 'push', dribble: { line: '1s' } })
  const ac = new AbortController()
  const res = await push(fake, '/images/localhost:5000/app/push?tag=1.0', {}, ac.signal)
  const it = (res.body as AsyncIterable<string>)[Symbol.asyncIterator]()
  const first = it.next()
  await fake.clock.advance(1000)
  expect((await first).done).toBe(false)
  return { ac, body: it, second: it.next() }
}

describe('the push route', () => {
  it('is rate limited per client (X-Dockside-Client, else address): 429 with Retry-After', async () => {
    await using fake = createDockside({ seed: 1, rateLimit: { route: 'push', limit: 1, window: '10s' } })
    fake.images.add('localhost:5000/app', { tags: ['1.0'], layers: [10] })
    expect((await push(fake, '/images/ghost/push', { 'x-dockside-client': 'a' })).status).toBe(404)
    const refused = await push(fake, '/images/ghost/push', { 'x-dockside-client': 'a' })
    expect([refused.status, refused.headers['retry-after']]).toEqual([429, '10'])
    expect((await push(fake, '/images/ghost/push', { 'x-dockside-client': 'b' })).status).toBe(404)
  })

  it('answers a fault reply with its status and message, Retry-After only when the rule has one', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'push', reply: 503, retryAfter: 7, message: 'registry down', match: { client: 'x' } })
    fake.faults.add({ on: 'push', reply: 400, message: 'no', match: { client: 'y' } })
    const down = await push(fake, '/images/app/push', { 'x-dockside-client': 'x' })
    expect([down.status, down.headers['retry-after'], message(down)]).toEqual([503, '7', 'registry down'])
    const no = await push(fake, '/images/app/push', { 'x-dockside-client': 'y' })
    expect([no.status, no.headers['retry-after'], message(no)]).toEqual([400, undefined, 'no'])
  })

  it('matches faults on the image with its tag, and the route', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'push', reply: 500, match: { image: 'app:2.0' } })
    fake.faults.add({ on: 'push', reply: 503, match: { route: '/images/other/push' } })
    expect((await push(fake, '/images/app/push?tag=2.0')).status).toBe(500)
    expect((await push(fake, '/images/app/push?tag=1.0')).status).toBe(404)
    expect((await push(fake, '/v1.47/images/other/push')).status).toBe(503)
  })

  it('a client gone during connect latency gets 503; the model refusals are 404 and 400', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'push', latency: { connect: '1s' }, match: { client: 'slow' } })
    const ac = new AbortController()
    const pending = push(fake, '/images/app/push', { 'x-dockside-client': 'slow' }, ac.signal)
    ac.abort()
    const gone = await pending
    expect([gone.status, message(gone)]).toEqual([503, 'the client went away during injected latency'])
    const missing = await push(fake, '/images/app/push?tag=1.0')
    expect([missing.status, message(missing)]).toEqual([404, 'No such image: app:1.0'])
    expect((await push(fake, '/images/Bad_Name/push')).status).toBe(400)
  })

  it('a reset fault ends the body with the transport reset', async () => {
    await using fake = createDockside({ seed: 1, clock: 'auto' })
    fake.images.add('localhost:5000/app', { tags: ['1.0'], layers: [10, 20] })
    fake.faults.add({ on: 'push', reset: true, afterLayer: 1 })
    const res = await push(fake, '/images/localhost:5000/app/push?tag=1.0')
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('application/json')
    const read = async () => {
      for await (const _ of res.body as AsyncIterable<string>) void _
    }
    await expect(read()).rejects.toBeInstanceOf(TransportReset)
  })

  it('connect latency with jitter waits at least the connect time, at most connect + jitter', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'push', latency: { connect: '1s', jitter: '500ms' } })
    let settled = false
    const pending = push(fake, '/images/app/push').then((r) => ((settled = true), r))
    await fake.clock.advance(999)
    expect(settled).toBe(false)
    await fake.clock.advance(501)
    expect((await pending).status).toBe(404)
  })

  it('a body abandoned early is returned to the model (no push left running)', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.images.add('localhost:5000/app', { tags: ['1.0'], layers: [10] })
    const res = await push(fake, '/images/localhost:5000/app/push?tag=1.0')
    const it = (res.body as AsyncIterable<string>)[Symbol.asyncIterator]()
    expect((await it.next()).done).toBe(false)
    expect(await it.return!()).toEqual({ done: true, value: undefined })
  })

  it('a dribble with jitter waits at least its line time for each line', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.images.add('localhost:5000/app', { tags: ['1.0'], layers: [10] })
    fake.faults.add({ on: 'push', dribble: { line: '1s', jitter: '500ms' } })
    const res = await push(fake, '/images/localhost:5000/app/push?tag=1.0')
    const it = (res.body as AsyncIterable<string>)[Symbol.asyncIterator]()
    let got = false
    const first = it.next().then(() => (got = true))
    await fake.clock.advance(999)
    expect(got).toBe(false)
    await fake.clock.advance(501)
    await first
    expect(got).toBe(true)
    await it.return!()
  })

  it('a dribble sends each line on its own, a line apart on the clock', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.images.add('localhost:5000/app', { tags: ['1.0'], layers: [10] })
    fake.faults.add({ on: 'push', dribble: { line: '1s' } })
    const res = await push(fake, '/images/localhost:5000/app/push?tag=1.0')
    const it = (res.body as AsyncIterable<string>)[Symbol.asyncIterator]()
    let got: string | undefined
    const first = it.next().then((r) => (got = r.value as string))
    await fake.clock.advance(999)
    expect(got).toBeUndefined()
    await fake.clock.advance(1)
    await first
    expect(got).toBe('{"status":"The push refers to repository [localhost:5000/app]"}\r\n')
    await it.return!()
  })

  it('a dribble draws its jitter as `dribble` and the auto clock runs its waits: the whole stream, line by line', async () => {
    await using fake = createDockside({ seed: 1, clock: 'auto' })
    fake.images.add('localhost:5000/app', { tags: ['1.0'], layers: [10] })
    fake.faults.add({ on: 'push', dribble: { line: '1s', jitter: '500ms' } })
    const res = await push(fake, '/images/localhost:5000/app/push?tag=1.0')
    const lines: string[] = []
    for await (const line of res.body as AsyncIterable<string>) lines.push(line)
    expect(lines.every((l) => l.endsWith('\r\n') && l.indexOf('\n') === l.length - 1)).toBe(true)
    expect(lines.at(-1)).toMatch(/^\{"progressDetail":\{\},"aux":\{"Tag":"1\.0","Digest":"sha256:[0-9a-f]{64}","Size":\d+\}\}\r\n$/)
    const draws = fake.journal.ofType('fault.draw')
    expect(draws.length).toBe(lines.length)
    expect(new Set(draws.map((d) => d.purpose))).toEqual(new Set(['dribble']))
  })

  it('a client gone during a dribble ends the body there, with no error line, journaled as cancelled by the client', async () => {
    await using fake = createDockside({ seed: 1 })
    const { ac, second } = await dribbling(fake)
    ac.abort()
    expect(await second).toEqual({ done: true, value: undefined })
    expect(fake.journal.ofType('push.cancelled').map(({ repository, tag, registry, by }) => ({ repository, tag, registry, by }))).toEqual([
      { repository: 'localhost:5000/app', tag: '1.0', registry: 'localhost:5000', by: 'client' },
    ])
  })

  it("the server closing during a dribble ends the body with the push's error line (a clean end reads as pushed)", async () => {
    await using fake = createDockside({ seed: 1 })
    const { ac, body, second } = await dribbling(fake)
    ac.abort(SERVER_SHUTDOWN)
    const why = "push of localhost:5000/app:1.0 interrupted: the fake's server closed; this tag was not pushed"
    expect(await second).toEqual({ done: false, value: `{"errorDetail":{"message":"${why}"},"error":"${why}"}\r\n` })
    expect((await body.next()).done).toBe(true)
    expect(fake.journal.ofType('push.cancelled').map((e) => e.by)).toEqual(['server'])
  })

  it('a request already aborted by its client pushes nothing; by the server closing, its client reads the error line', async () => {
    for (const reason of ['gone', SERVER_SHUTDOWN]) {
      await using fake = createDockside({ seed: 1, clock: 'auto' })
      fake.images.add('localhost:5000/app', { tags: ['1.0'], layers: [10] })
      const ac = new AbortController()
      ac.abort(reason)
      const res = await push(fake, '/images/localhost:5000/app/push?tag=1.0', {}, ac.signal)
      const lines: string[] = []
      for await (const line of res.body as AsyncIterable<string>) lines.push(line)
      const why = "push of localhost:5000/app:1.0 interrupted: the fake's server closed; this tag was not pushed"
      expect(res.status).toBe(200)
      if (reason !== 'gone') expect(lines.at(-1)).toBe(`{"errorDetail":{"message":"${why}"},"error":"${why}"}\r\n`)
      expect(fake.registries.list().flatMap((r) => r.tags)).toEqual([])
      expect(fake.journal.ofType('push.cancelled').map((e) => e.by)).toEqual([reason === 'gone' ? 'client' : 'server'])
    }
  })

  it('a request with neither client id nor address is rate limited as client `local`', async () => {
    await using fake = createDockside({ seed: 1, rateLimit: { route: 'push', limit: 1, window: '10s' } })
    expect((await push(fake, '/images/ghost/push')).status).toBe(404)
    expect((await push(fake, '/images/ghost/push', { 'x-dockside-client': 'local' })).status).toBe(429)
    expect(fake.journal.ofType('ratelimit').map((e) => [e.client, e.allowed])).toEqual([
      ['local', true],
      ['local', false],
    ])
  })

  it('a stream fault on a push refused before it began (404) is journaled as missed, and its count given back', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'push', reset: true, id: 'r' })
    expect((await push(fake, '/images/localhost:5000/app/push?tag=1.0')).status).toBe(404)
    expect(fake.journal.ofType('fault.missed').map((e) => [e.rule, e.why, e.fired])).toEqual([['r', 'the push of localhost:5000/app:1.0 was refused before it began (404)', 0]])
  })

  it("a refused push is on the board with the tag asked for (every tag without one); a reference the daemon refuses is not", async () => {
    const svc = createService({ seed: 1, rateLimit: { route: 'push', limit: 0, window: '10s' } })
    svc.images.add('localhost:5000/app', { tags: ['1.0', '2.0'], layers: [10] })
    const req = { method: 'POST', url: '/images/x/push', headers: {}, signal: new AbortController().signal, body: async () => '' }
    expect((await pushRoute(svc, req, 'localhost:5000/app', '2.0')).status).toBe(429)
    expect((await pushRoute(svc, req, 'localhost:5000/app', undefined)).status).toBe(429)
    expect((await pushRoute(svc, req, 'Bad_Name', undefined)).status).toBe(429)
    expect(svc.pushes.list().map((p) => [p.repository, p.tags, p.state])).toEqual([
      ['localhost:5000/app', ['2.0'], 'failed'],
      ['localhost:5000/app', ['1.0', '2.0'], 'failed'],
    ])
  })
})
