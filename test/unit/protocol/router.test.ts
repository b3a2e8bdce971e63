// The router (src/protocol/router.ts), driven through `fake.protocol` as every way in drives it: the body cap, the
// journal's `request` lines and the request log, the websocket endpoint answered over plain HTTP, and the upgrade's
// refusals in order (unknown path, override, method, access, signature), each recorded once.
import { describe, expect, it } from 'vitest'
import { createDockside } from '../../../src/index'
import type { ProtoRequest } from '../../../src/protocol/types'
import { signHyperRequest } from '../../../src/protocol/signing'

function request(method: string, url: string, options: { headers?: Record<string, string | undefined>; body?: string; seen?: (number | undefined)[] } = {}): ProtoRequest {
  return {
    method,
    url,
    headers: options.headers ?? {},
    signal: new AbortController().signal,
    body: async (max) => {
      options.seen?.push(max)
      return options.body ?? ''
    },
  }
}

const fresh = (options: Parameters<typeof createDockside>[0] = {}) => createDockside({ seed: 3, ...options })

async function body(res: { body?: unknown }) {
  return JSON.parse(res.body as string) as { message: string; [k: string]: unknown }
}

describe('handle', () => {
  it('refuses a Content-Length over maxBodySize with 413 without reading the body; reads others through the cap', async () => {
    await using fake = fresh({ maxBodySize: '2KiB' })
    const seen: (number | undefined)[] = []
    const tooBig = await fake.protocol.handle(request('POST', '/auth', { headers: { 'content-length': '2049' }, seen }))
    expect(tooBig.status).toBe(413)
    expect(tooBig.headers.connection).toBe('close')
    expect((await body(tooBig)).message).toMatch(/^The request body is over the 2 KiB \(2048 bytes\) limit\./)
    expect(seen).toEqual([])
    const atLimit = await fake.protocol.handle(request('POST', '/auth', { headers: { 'content-length': '2048' }, body: '{"username":"a"}', seen }))
    expect(atLimit.status).toBe(200)
    expect(seen).toEqual([2048])
  })

  it('journals each request and logs it with its client (header first, else ?client=), body read and status; the admin API is journaled only', async () => {
    await using fake = fresh()
    await fake.protocol.handle(request('POST', '/v1.47/auth?client=q', { headers: { 'x-dockside-client': 'h' }, body: '{"username":"u"}' }))
    await fake.protocol.handle(request('GET', '/_ping?client=q'))
    await fake.protocol.handle(request('GET', '/_dockside/health'))
    await fake.protocol.handle(request('GET', '/_dockside'))
    await fake.protocol.handle(request('GET', '/_dockside/journal'))
    const lines = fake.journal.ofType('request').map((e) => [e.method, e.path, e.status, e.client])
    expect(lines).toEqual([
      ['POST', '/auth', 200, 'h'],
      ['GET', '/_ping', 200, undefined],
      ['GET', '/_dockside/health', expect.any(Number), undefined],
      ['GET', '/_dockside', expect.any(Number), undefined],
    ])
    const log = fake.requests.list()
    expect(log.map((r) => [r.method, r.url, r.path, r.client, r.status, r.body, r.websocket, r.override])).toEqual([
      ['POST', '/v1.47/auth?client=q', '/auth', 'h', 200, '{"username":"u"}', undefined, undefined],
      ['GET', '/_ping?client=q', '/_ping', 'q', 200, undefined, undefined, undefined],
    ])
    expect(log[0].time).toBe(Date.UTC(2026, 0, 1))
    expect(log[1].query).toEqual({ client: 'q' })
  })

  it('a path that only looks like the admin API is a Docker path', async () => {
    await using fake = fresh()
    const res = await fake.protocol.handle(request('GET', '/_docksidex'))
    expect(res.status).toBe(404)
    expect(fake.requests.list().map((r) => r.path)).toEqual(['/_docksidex'])
  })

  it('GET /events/ws over plain HTTP is a 400 saying to upgrade', async () => {
    await using fake = fresh()
    const res = await fake.protocol.handle(request('GET', '/v1.47/events/ws'))
    expect(res.status).toBe(400)
    expect((await body(res)).message).toBe('GET /events/ws is a websocket endpoint: send an Upgrade: websocket request.')
  })

  it('a push name may be percent-encoded; a broken escape is Go\'s bare 400 before any route; the tag query wins', async () => {
    await using fake = fresh()
    const encoded = await fake.protocol.handle(request('POST', '/images/localhost%3A5000%2Fteam%2Fapp/push?tag=1.0'))
    expect(encoded.status).toBe(404)
    expect((await body(encoded)).message).toMatch(/localhost:5000\/team\/app:1\.0/)
    const bad = await fake.protocol.handle(request('POST', '/v1.41/images/app%E0%A4%A/push'))
    expect([bad.status, bad.headers['content-type'], bad.headers.connection, bad.headers['api-version']]).toEqual([400, 'text/plain; charset=utf-8', 'close', undefined])
    expect(bad.headers['x-dockside-hint']).toMatch(/^the request path holds a broken escape "%A\/"/)
    expect(fake.journal.ofType('push.start')).toEqual([])
    // Only POST pushes, only GET streams events: the other methods are no Docker route.
    for (const [method, url] of [['GET', '/images/app/push'], ['POST', '/events']]) {
      const res = await fake.protocol.handle(request(method, url))
      expect([res.status, (await body(res)).message, res.headers['x-dockside-hint']], `${method} ${url}`).toEqual([404, 'page not found', expect.stringMatching(/^\w+ \/\S+ is not a Docker Engine API route/)])
    }
  })

  it('a path with //, . or .. segments is the Engine router\'s 301 to its clean form, the query kept (it was a 404)', async () => {
    await using fake = fresh()
    for (const [url, location] of [
      ['/v1.41//containers/json?all=1', '/v1.41/containers/json?all=1'],
      ['/v1.41/containers/../_ping', '/v1.41/_ping'],
      ['/v1.41/./_ping', '/v1.41/_ping'],
      ['//_ping', '/_ping'],
      ['/v1.41/a/b/../../_ping/', '/v1.41/_ping/'],
    ]) {
      const res = await fake.protocol.handle(request('GET', url))
      expect([res.status, res.headers.location, res.headers['content-length'], res.headers['api-version'], res.body ?? ''], url).toEqual([301, location, '0', undefined, ''])
    }
    // A trailing slash is clean: the route's own 404. The admin API keeps its answers.
    expect((await fake.protocol.handle(request('GET', '/v1.41/_ping/'))).status).toBe(404)
    expect((await fake.protocol.handle(request('GET', '//_dockside/state'))).status).not.toBe(301)
    expect(fake.journal.ofType('request').map((r) => r.status)).toContain(301)
  })

  it('OPTIONS on any Docker path is the Engine\'s CORS options route: 200, no body, its headers (it was a 404)', async () => {
    await using fake = fresh()
    for (const url of ['/v1.41/_ping', '/containers/json', '/v1.41/no/such/route', '/images/x/push']) {
      const res = await fake.protocol.handle(request('OPTIONS', url))
      expect([res.status, res.body ?? '', res.headers['content-length'], res.headers['api-version']], url).toEqual([200, '', '0', '1.47'])
      // A daemon started without --api-cors-header: no CORS headers, so a browser's preflight still fails.
      expect(Object.keys(res.headers).filter((k) => k.toLowerCase().startsWith('access-control-')), url).toEqual([])
    }
    // The version middleware still runs first.
    expect((await fake.protocol.handle(request('OPTIONS', '/v1.99/_ping'))).status).toBe(400)
    // The admin API keeps its own answers.
    expect((await fake.protocol.handle(request('OPTIONS', '/_dockside/state'))).status).not.toBe(200)
  })

  it('the admin API is never overridden, /_dockside itself included', async () => {
    await using fake = fresh()
    fake.use('GET /_dockside/health', { status: 503 })
    fake.use('GET /_dockside', { status: 503 })
    // The admin guard answers (no admin token or served address here), never the override.
    for (const url of ['/_dockside/health', '/_dockside']) {
      const res = await fake.protocol.handle(request('GET', url))
      expect(res.status, url).toBe(403)
    }
    expect(fake.journal.ofType('access.refused').map((e) => e.path)).toEqual(['/_dockside/health', '/_dockside'])
  })

  it('an override handler can read the request body', async () => {
    await using fake = fresh()
    fake.use('POST /auth', async (r) => ({ status: 200, body: { echoed: await r.text() } }))
    const res = await fake.protocol.handle(request('POST', '/auth', { body: '{"username":"u"}' }))
    expect(await body(res)).toEqual({ echoed: '{"username":"u"}' })
  })

  it('an override answers before the route and is recorded with its id', async () => {
    await using fake = fresh()
    const handle = fake.use('GET /_ping', { status: 503, body: { message: 'down' } })
    const res = await fake.protocol.handle(request('GET', '/_ping'))
    expect([res.status, (await body(res)).message]).toEqual([503, 'down'])
    expect(fake.requests.list().map((r) => [r.status, r.override])).toEqual([[503, handle.id]])
  })
})

describe('upgrade', () => {
  it('another path is not-found with the protocol 404 naming GET /events/ws', async () => {
    await using fake = fresh()
    const r = await fake.protocol.upgrade(request('GET', '/events/wss?x=1'))
    expect(r.kind).toBe('not-found')
    if (r.kind === 'accept') throw new Error('accepted')
    expect(r.response.status).toBe(404)
    expect((await body(r.response)).message).toBe('No websocket endpoint at /events/wss?x=1. This fake serves GET /events/ws.')
  })

  it('a non-GET upgrade is 405 with Allow: GET, recorded as a websocket request', async () => {
    await using fake = fresh()
    const r = await fake.protocol.upgrade(request('POST', '/events/ws'))
    if (r.kind !== 'reject') throw new Error(r.kind)
    expect([r.response.status, r.response.headers.allow, (await body(r.response)).message]).toEqual([405, 'GET', 'A websocket upgrade must be a GET request, not POST.'])
    expect(fake.requests.list().map((x) => [x.method, x.status, x.websocket])).toEqual([['POST', 405, true]])
  })

  it('an override refuses the upgrade with its answer (a body always present); one that throws is a refusal too', async () => {
    await using fake = fresh()
    const refusing = fake.use('GET /events/ws', { status: 429, headers: { 'retry-after': '3' } }, { times: 1 })
    const r = await fake.protocol.upgrade(request('GET', '/events/ws'))
    if (r.kind !== 'reject') throw new Error(r.kind)
    expect([r.response.status, r.response.headers['retry-after'], r.response.body]).toEqual([429, '3', ''])
    fake.use('GET /events/ws', () => {
      throw new TypeError('handler bug')
    })
    const failed = await fake.protocol.upgrade(request('GET', '/events/ws'))
    if (failed.kind !== 'reject') throw new Error(failed.kind)
    expect(failed.response.status).toBe(500)
    expect(fake.requests.list().map((x) => [x.status, x.override, x.websocket])).toEqual([
      [429, refusing.id, true],
      [failed.response.status, '(failed)', true],
    ])
  })

  it('a refused signature is answered with the check message (and the canonical request on a wrong signature), journaled', async () => {
    await using fake = fresh({ accessKeys: { AK: 'SK' } })
    const r = await fake.protocol.upgrade(request('GET', '/events/ws'))
    if (r.kind !== 'reject') throw new Error(r.kind)
    expect(r.response.status).toBe(403)
    expect(Object.keys(await body(r.response))).toEqual(['message'])
    const base = { method: 'GET', url: '/events/ws', headers: { host: 'h' } }
    const signed = await signHyperRequest(base, { accessKey: 'AK', secretKey: 'wrong', date: fake.clock.now() })
    const wrong = await fake.protocol.upgrade(request('GET', '/events/ws', { headers: { host: 'h', ...signed } }))
    if (wrong.kind !== 'reject') throw new Error(wrong.kind)
    expect(wrong.response.status).toBe(403)
    expect(Object.keys(await body(wrong.response))).toEqual(['message', 'canonicalRequest', 'stringToSign'])
    expect(fake.journal.ofType('auth.refused').map((e) => [e.path, e.status])).toEqual([
      ['/events/ws', 403],
      ['/events/ws', 403],
    ])
    expect(fake.requests.list().map((x) => [x.status, x.websocket])).toEqual([
      [403, true],
      [403, true],
    ])
    const good = await signHyperRequest(base, { accessKey: 'AK', secretKey: 'SK', date: fake.clock.now() })
    const ok = await fake.protocol.upgrade(request('GET', '/events/ws', { headers: { host: 'h', ...good } }))
    expect(ok.kind).toBe('accept')
    expect(fake.journal.ofType('auth.signed').map((e) => [e.accessKey, e.verified])).toEqual([['AK', true]])
    expect(fake.requests.list().at(-1)).toMatchObject({ status: 101, websocket: true })
  })

  it('an unsigned upgrade without keys journals no auth.signed; a signed one names its key, unverified', async () => {
    await using fake = fresh()
    expect((await fake.protocol.upgrade(request('GET', '/events/ws'))).kind).toBe('accept')
    expect(fake.journal.ofType('auth.signed')).toEqual([])
    const signed = await signHyperRequest({ method: 'GET', url: '/events/ws', headers: {} }, { accessKey: 'AK', secretKey: 'x', date: 0 })
    expect((await fake.protocol.upgrade(request('GET', '/events/ws', { headers: signed }))).kind).toBe('accept')
    expect(fake.journal.ofType('auth.signed').map((e) => [e.accessKey, e.verified])).toEqual([['AK', false]])
  })

  it('an upgrade from an origin that is not allowed is refused by the guard, journaled and recorded as a websocket request', async () => {
    await using fake = fresh({ allowedOrigins: ['http://localhost:5173'] })
    const r = await fake.protocol.upgrade(request('GET', '/events/ws', { headers: { origin: 'https://evil.example' } }))
    if (r.kind !== 'reject') throw new Error(r.kind)
    expect(r.response.status).toBe(403)
    expect(fake.journal.ofType('access.refused').map((e) => [e.path, e.status, e.origin])).toEqual([['/events/ws', 403, 'https://evil.example']])
    expect(fake.requests.list().map((x) => [x.status, x.websocket])).toEqual([[403, true]])
  })

  it('a refused events query is recorded with its status', async () => {
    await using fake = fresh()
    const r = await fake.protocol.upgrade(request('GET', '/events/ws?since=x'))
    if (r.kind !== 'reject') throw new Error(r.kind)
    expect(r.response.status).toBe(400)
    expect(fake.requests.list().map((x) => [x.status, x.websocket])).toEqual([[400, true]])
  })
})
