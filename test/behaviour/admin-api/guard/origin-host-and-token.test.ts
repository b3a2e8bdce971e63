// Issue 8 point 11: a web page could drive the admin API. A `text/plain` POST from `Origin: https://evil.example`
// (which a browser sends without a preflight) installed a fault with 201, and a page that reached the fake through
// DNS rebinding (its own name resolving to 127.0.0.1) was answered too. Every request here goes to 127.0.0.1 (or
// stays in process); the page's or remote caller's Origin, Host and Sec-Fetch-* headers are sent as they would be.
import http from 'node:http'
import https from 'node:https'
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'
import type { ProtoRequest } from '../../../../src/protocol/types'
import { probeWithWs } from '../../../support/ws-probe'

const closers: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

interface Answer {
  status: number
  headers: Record<string, string>
  json: { message?: string } & Record<string, unknown>
}

/** One way in, with a request function that sends any header (Host included) and a websocket opener. */
interface Way {
  name: string
  start(fake: Dockside, listen?: Parameters<Dockside['listen']>[0]): Promise<{
    /** The Host a client of this way in sends. */
    host: string
    request(method: string, path: string, headers?: Record<string, string>, body?: string): Promise<Answer>
    upgrade(headers: Record<string, string>): Promise<{ status: number; body: string | undefined }>
    close(): Promise<void> | void
  }>
}

/**
 * node:http.request to 127.0.0.1:port (or node:https.request to the hooked host, in process): unlike fetch, it lets
 * the test set the Host a remote caller or a rebinding page would send.
 */
function send(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string, hooked?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const options = { method, path, headers: { host: hooked ?? `127.0.0.1:${port}`, ...headers } }
    const req = (hooked ? https.request({ ...options, host: hooked }, reply) : http.request({ ...options, host: '127.0.0.1', port }, reply))
    function reply(res: http.IncomingMessage) {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => (text += d))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers as Record<string, string>, json: res.headers['content-type'] === 'application/json' ? JSON.parse(text) : {} }))
    }
    req.on('error', reject)
    req.end(body)
  })
}

const server: Way = {
  name: 'server',
  async start(fake, listen) {
    const s = await fake.listen({ port: 0, ...listen })
    return {
      host: `127.0.0.1:${s.port}`,
      request: (method, path, headers, body) => send(s.port, method, path, headers, body),
      async upgrade(headers) {
        const probe = await probeWithWs(`${s.wsUrl}/events/ws`, headers)
        if (probe.status === 101) probe.close()
        return { status: probe.status, body: probe.body }
      },
      close: () => s.close(),
    }
  },
}

const inProcess: Way = {
  name: 'in-process',
  async start(fake) {
    const hooks = await fake.intercept()
    closers.push(() => hooks.restore())
    return {
      host: 'us-west-1.hyper.test',
      async request(method, path, headers = {}, body) {
        if (headers.host) return send(443, method, path, headers, body, 'us-west-1.hyper.test')
        const res = await fetch(`https://us-west-1.hyper.test${path}`, { method, headers, body })
        const headersOut: Record<string, string> = {}
        res.headers.forEach((v, k) => (headersOut[k] = v))
        return { status: res.status, headers: headersOut, json: headersOut['content-type'] === 'application/json' ? await res.json() : {} }
      },
      upgrade: (headers) =>
        new Promise((resolve) => {
          const ws = new hooks.WebSocket('wss://us-west-1.hyper.test/events/ws', { headers })
          ws.addEventListener('open', () => {
            ws.close()
            resolve({ status: 101, body: undefined })
          })
          ws.addEventListener('error', () => resolve({ status: ws.handshake?.status ?? 0, body: ws.handshake?.body }))
        }),
      close: () => hooks.restore(),
    }
  },
}

const fault = JSON.stringify({ on: 'events', reply: 500 })

function fresh(options: Parameters<typeof createDockside>[0] = {}) {
  const fake = createDockside(options)
  closers.push(() => fake.close())
  return fake
}

describe.each([server, inProcess])('admin guard ($name)', (way) => {
  it('a text/plain POST from Origin https://evil.example installs no fault: JSON 403 naming the Origin and --allow-origin (was 201)', async () => {
    const fake = fresh()
    const h = await way.start(fake)
    const res = await h.request('POST', '/_dockside/faults', { origin: 'https://evil.example', 'content-type': 'text/plain' }, fault)
    expect(res.status).toBe(403)
    expect(res.headers['content-type']).toBe('application/json')
    expect(res.json.message).toMatch(/Origin "https:\/\/evil\.example"/)
    expect(res.json.message).toMatch(/--allow-origin/)
    expect(fake.faults.list()).toEqual([])
    expect(fake.journal.ofType('access.refused')).toMatchObject([{ path: '/_dockside/faults', status: 403, reason: 'origin', origin: 'https://evil.example' }])
    // Tools send no Origin: the same request from a test or curl is served.
    expect((await h.request('POST', '/_dockside/faults', { 'content-type': 'text/plain' }, fault)).status).toBe(201)
  })

  it('Sec-Fetch-Site cross-site and same-site are refused (a link, image or form); same-origin and none pass', async () => {
    const h = await way.start(fresh())
    for (const site of ['cross-site', 'same-site']) {
      const res = await h.request('GET', '/_dockside/state', { 'sec-fetch-site': site })
      expect(res.status).toBe(403)
      expect(res.json.message).toContain(`Sec-Fetch-Site: ${site}`)
    }
    for (const site of ['same-origin', 'none']) expect((await h.request('GET', '/_dockside/state', { 'sec-fetch-site': site })).status).toBe(200)
  })

  it("the fake's own origin passes; Origin null and foreign origins do not; allowedOrigins lets a named page in", async () => {
    const fake = fresh({ allowedOrigins: ['http://localhost:5173'] })
    const h = await way.start(fake)
    const scheme = way.name === 'server' ? 'http' : 'https'
    expect((await h.request('GET', '/_dockside/state', { origin: `${scheme}://${h.host}` })).status).toBe(200)
    expect((await h.request('GET', '/_dockside/state', { origin: 'null' })).status).toBe(403)
    expect((await h.request('GET', '/_dockside/state', { origin: 'http://localhost:3000' })).status).toBe(403)
    const allowed = await h.request('POST', '/_dockside/faults', { origin: 'http://localhost:5173', 'sec-fetch-site': 'same-site' }, fault)
    expect(allowed.status).toBe(201)
  })

  it('an admin token is required as a Bearer header: 401 with WWW-Authenticate when missing or wrong; Docker routes and events need none', async () => {
    const fake = fresh({ adminToken: 's3cret-token' })
    const h = await way.start(fake)
    const missing = await h.request('GET', '/_dockside/state')
    expect(missing.status).toBe(401)
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer realm="dockside admin"/)
    expect(missing.json.message).toMatch(/Missing Authorization header.*Authorization: Bearer <token>/)
    const wrong = await h.request('POST', '/_dockside/faults', { authorization: 'Bearer s3cret-tokeN' }, fault)
    expect(wrong.status).toBe(401)
    expect(wrong.headers['www-authenticate']).toMatch(/error="invalid_token"/)
    expect(wrong.json.message).toMatch(/Wrong admin token/)
    expect(JSON.stringify([missing.json, wrong.json])).not.toContain('s3cret')
    expect((await h.request('GET', '/_dockside/state', { authorization: 'Basic czNjcmV0LXRva2Vu' })).status).toBe(401)
    expect(fake.faults.list()).toEqual([])
    expect((await h.request('POST', '/_dockside/faults', { authorization: 'Bearer s3cret-token' }, fault)).status).toBe(201)
    expect((await h.request('GET', '/_dockside/state', { authorization: 'bearer s3cret-token' })).status).toBe(200)
    expect((await h.request('GET', '/_ping')).status).toBe(200)
    expect((await h.request('GET', '/containers/json')).status).toBe(200)
    fake.faults.clear()
    expect((await h.upgrade({})).status).toBe(101)
    expect(JSON.stringify(fake.journal.entries)).not.toContain('s3cret')
  })

  it('the events websocket takes any Origin by default; with allowedOrigins a foreign Origin is a JSON 403 before the upgrade', async () => {
    const open = await way.start(fresh())
    expect((await open.upgrade({ origin: 'https://evil.example' })).status).toBe(101)
    await open.close()
    const fake = fresh({ allowedOrigins: ['https://app.example'] })
    const h = await way.start(fake)
    const refused = await h.upgrade({ origin: 'https://evil.example' })
    expect(refused.status).toBe(403)
    expect(JSON.parse(refused.body!).message).toMatch(/Origin "https:\/\/evil\.example" may not open the events websocket: this fake allows "https:\/\/app\.example"/)
    expect(fake.journal.ofType('ws.open')).toEqual([])
    expect(fake.deliveries.clients()).toEqual([])
    expect((await h.upgrade({ origin: 'https://app.example' })).status).toBe(101)
    expect((await h.upgrade({})).status).toBe(101)
  })
  it('a Host that is not a loopback name or the bound address is a JSON 403 (a rebinding page sends its own name)', async () => {
    const fake = fresh()
    const h = await way.start(fake)
    const port = Number(h.host.split(':')[1] ?? 443)
    const res = await h.request('POST', '/_dockside/faults', { host: `evil.example:${port}`, 'content-type': 'text/plain' }, fault)
    expect(res.status).toBe(403)
    expect(res.json.message).toMatch(/Host "evil\.example:\d+" is not an address of this fake \(served at [\w.-]+:\d+\).*DNS rebinding.*--allow-host/)
    expect(fake.faults.list()).toEqual([])
    for (const host of [h.host, `localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'LOCALHOST', `127.0.0.1:${port + 1}`]) {
      expect((await h.request('GET', '/_dockside/state', { host })).status, host).toBe(200)
    }
    // Only the admin API is guarded: Docker routes answer whatever the Host, as the Engine does.
    expect((await h.request('GET', '/_ping', { host: 'evil.example' })).status).toBe(200)
  })
})

describe('admin guard: Host and Origin against the server', () => {
  it('allowedHosts (a compose service name) lets a named host in; listen options override the fake\'s', async () => {
    const fake = fresh({ allowedHosts: ['dockside'], adminToken: 'fake-wide' })
    const a = await server.start(fake)
    expect((await a.request('GET', '/_dockside/state', { host: 'dockside:2375', authorization: 'Bearer fake-wide' })).status).toBe(200)
    expect((await a.request('GET', '/_dockside/state', { host: 'other:2375', authorization: 'Bearer fake-wide' })).status).toBe(403)
    const b = await server.start(fake, { adminToken: 'this-server', allowedHosts: ['*'] })
    expect((await b.request('GET', '/_dockside/state', { host: 'other:2375', authorization: 'Bearer this-server' })).status).toBe(200)
    expect((await b.request('GET', '/_dockside/state', { authorization: 'Bearer fake-wide' })).status).toBe(401)
  })

  it('a loopback Origin on the served port passes; the same name on another port (another local app) does not', async () => {
    const h = await server.start(fresh())
    const port = Number(h.host.split(':')[1])
    expect((await h.request('GET', '/_dockside/state', { origin: `http://localhost:${port}` })).status).toBe(200)
    expect((await h.request('GET', '/_dockside/state', { origin: `http://[::1]:${port}` })).status).toBe(200)
    expect((await h.request('GET', '/_dockside/state', { origin: `https://localhost:${port}` })).status).toBe(403)
    expect((await h.request('GET', '/_dockside/state', { origin: `http://localhost:${port + 1}` })).status).toBe(403)
  })
})

describe('admin guard in the protocol', () => {
  const req = (headers: Record<string, string>, served: ProtoRequest['served']): ProtoRequest => ({
    method: 'GET',
    url: '/_dockside/state',
    headers,
    signal: new AbortController().signal,
    body: async () => '',
    served,
  })

  it('bound to a wildcard address, any IP literal is the bound address; a name is not', async () => {
    const fake = fresh()
    const served = { scheme: 'http' as const, host: '0.0.0.0', port: 2375 }
    expect((await fake.protocol.handle(req({ host: '192.168.1.20:2375' }, served))).status).toBe(200)
    expect((await fake.protocol.handle(req({ host: '[fe80::1]:2375' }, served))).status).toBe(200)
    expect((await fake.protocol.handle(req({ host: 'attacker.example:2375' }, served))).status).toBe(403)
    expect((await fake.protocol.handle(req({}, served))).status).toBe(403)
    const named = { scheme: 'http' as const, host: 'dockside.internal', port: 2375 }
    expect((await fake.protocol.handle(req({ host: 'dockside.internal:2375' }, named))).status).toBe(200)
    expect((await fake.protocol.handle(req({ host: '192.168.1.20:2375' }, named))).status).toBe(403)
  })

  it('bad access options are refused by name; a bad token is not echoed', () => {
    expect(() => createDockside({ allowedOrigins: ['localhost:5173'] })).toThrow(/allowedOrigins entry "localhost:5173": expected an origin/)
    expect(() => createDockside({ allowedOrigins: ['http://app.example/path'] })).toThrow(/expected an origin/)
    expect(() => createDockside({ allowedHosts: ['a host'] })).toThrow(/allowedHosts entry "a host"/)
    let message = ''
    try {
      createDockside({ adminToken: 'has space' })
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toMatch(/Invalid adminToken/)
    expect(message).not.toContain('has space')
  })
})
