import http from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

// What a client sends past the URL parser and the header limit: the same answer, and the same record, from the real
// server on 127.0.0.1 and from the in-process hooks (fetch, node:http, the global WebSocket).

/** Node's own WebSocket, before any hook replaces the global one. */
const NodeWebSocket = globalThis.WebSocket

const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

interface Way {
  fake: Dockside
  /** `http://host[:port]` of this way in. */
  base: string
  WS: typeof WebSocket
}

/** Runs `fn` against the real server, then against the hooks of a fresh fake with the same seed; returns both. */
async function both<T>(fn: (way: Way) => Promise<T>): Promise<{ server: T; inProcess: T }> {
  const a = createDockside({ seed: 5 })
  open.push(a)
  await using server = await a.listen({ port: 0 })
  const onServer = await fn({ fake: a, base: server.url, WS: NodeWebSocket })
  const b = createDockside({ seed: 5 })
  open.push(b)
  await using hooks = await b.intercept({ baseUrl: 'http://in-process.test' })
  const inProcess = await fn({ fake: b, base: hooks.baseUrl, WS: hooks.WebSocket as unknown as typeof WebSocket })
  return { server: onServer, inProcess }
}

/** A node:http GET with `path` sent as it is (no URL parser in between): status and body. */
function rawGet(base: string, path: string): Promise<string> {
  const url = new URL(base)
  return new Promise((resolve, reject) => {
    http
      .get({ hostname: url.hostname, port: url.port || undefined, path }, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (body += c))
        res.on('end', () => resolve(`${res.statusCode} ${body}`))
      })
      .on('error', reject)
  })
}

/** How Node's server counts a request against its 16 KiB limit: the target plus every header's name and value. */
const FETCH_HEADERS = (host: string) => ({ host, connection: 'keep-alive', accept: '*/*', 'accept-language': '*', 'sec-fetch-mode': 'cors', 'user-agent': 'node', 'accept-encoding': 'gzip, deflate' })
const counted = (target: string, headers: Record<string, string>) => target.length + Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length, 0)

describe('the in-process hooks answer what the server answers', () => {
  it('at the 16 KiB header limit: 16,383 bytes are served, 16,384 are a 431 on fetch, node:http and the WebSocket', async () => {
    const { server, inProcess } = await both(async ({ fake, base, WS }) => {
      const host = new URL(base).host
      const target = (n: number) => {
        const path = '/_ping?pad='
        return path + 'x'.repeat(n - counted(path, FETCH_HEADERS(host)))
      }
      const out: string[] = []
      for (const n of [16_383, 16_384]) {
        const t = target(n)
        expect(counted(t, FETCH_HEADERS(host))).toBe(n)
        const res = await fetch(base + t)
        out.push(`fetch ${n}: ${res.status} ${(await res.text()).slice(0, 50)}`)
      }
      // node:http sends host and connection only.
      const httpTarget = (n: number) => '/_ping?pad=' + 'y'.repeat(n - counted('/_ping?pad=', { host, connection: 'keep-alive' }))
      for (const n of [16_383, 16_384]) out.push(`http ${n}: ${(await rawGet(base, httpTarget(n))).slice(0, 50)}`)
      // A websocket whose filters alone are over the limit is refused before it opens.
      const ws = new WS(`${base.replace(/^http/, 'ws')}/events/ws?filters=${encodeURIComponent(JSON.stringify({ container: Array.from({ length: 2000 }, (_, i) => `c${i}`) }))}`)
      const events: string[] = []
      await new Promise<void>((resolve) => {
        for (const type of ['open', 'error', 'close']) ws.addEventListener(type, (e) => (events.push(`${type}${type === 'close' ? ` ${(e as CloseEvent).code}` : ''}`), type === 'close' && resolve()))
      })
      out.push(`ws: ${events.join(', ')}`)
      // The refused requests never reached the fake: only the two served pings and the two node:http ones are recorded.
      out.push(`recorded: ${fake.requests.list().length}, journal ws.open: ${fake.journal.ofType('ws.open').length}`)
      return out
    })
    expect(inProcess).toEqual(server)
    expect(server).toEqual([
      'fetch 16383: 200 OK',
      'fetch 16384: 431 {"message":"Bad request: the request line and head',
      'http 16383: 200 OK',
      'http 16384: 431 {"message":"Bad request: the request line and ',
      'ws: error, close 1006',
      'recorded: 2, journal ws.open: 0',
    ])
  })

  it('node:http sends raw JSON filters with # and % as they are: the fake reads and records those bytes, refusing a lone % as Go does', async () => {
    const { server, inProcess } = await both(async ({ fake, base }) => {
      fake.containers.create({ name: 'web', image: 'nginx', labels: { 'a#b': 'x', pct: '100%' } })
      fake.containers.create({ name: 'db', image: 'postgres' })
      const names = async (path: string) => {
        const [status, body] = (await rawGet(base, path)).split(/ (.*)/s)
        return `${status} ${status === '200' ? (JSON.parse(body) as { Names: string[] }[]).map((c) => c.Names[0]).join(',') : body}`
      }
      return {
        hash: await names('/containers/json?all=1&filters={"label":["a#b"]}'),
        percent: await names('/containers/json?all=1&filters={"label":["pct=100%"]}'),
        recorded: fake.requests.list().map((r) => r.url),
      }
    })
    expect(inProcess).toEqual(server)
    // A lone % is a broken escape to Go's url.ParseQuery: the daemon's ParseForm refuses the query, in its words.
    // (Go quotes the broken escape `%"]` as strconv.Quote does: "%\"]".)
    expect([server.hash, server.percent]).toEqual(['200 /web', `400 ${JSON.stringify({ message: 'invalid URL escape "%\\"]"' })}\n`])
    expect(server.recorded).toEqual(['/containers/json?all=1&filters={"label":["a#b"]}', '/containers/json?all=1&filters={"label":["pct=100%"]}'])
  })

  it('answers carry the headers node:http adds (Date, Connection, Keep-Alive) on fetch and node:http', async () => {
    const { server, inProcess } = await both(async ({ base }) => {
      const pairs = (headers: Headers) => {
        const list: [string, string][] = []
        headers.forEach((value, name) => list.push([name, value]))
        return list
      }
      const shape = (headers: [string, string][]) => headers.map(([k, v]) => `${k.toLowerCase()}: ${k.toLowerCase() === 'date' ? (Number.isNaN(Date.parse(v)) ? 'not a date' : 'a date') : v}`).sort()
      const out: Record<string, string[]> = {}
      for (const method of ['GET', 'HEAD']) {
        const res = await fetch(`${base}/_ping`, { method })
        await res.arrayBuffer()
        out[`fetch ${method}`] = shape(pairs(res.headers))
      }
      const missing = await fetch(`${base}/images/nope/push`, { method: 'POST' })
      await missing.arrayBuffer()
      out['fetch 404'] = shape(pairs(missing.headers))
      out.http = await new Promise<string[]>((resolve, reject) => {
        http
          .get(`${base}/_ping`, (res) => {
            const raw = res.rawHeaders
            res.resume()
            res.on('end', () => resolve(shape(raw.flatMap((v, i) => (i % 2 ? [] : [[v, raw[i + 1]] as [string, string]])))))
          })
          .on('error', reject)
      })
      return out
    })
    expect(inProcess).toEqual(server)
    expect(server['fetch GET']).toEqual(expect.arrayContaining(['date: a date', 'connection: keep-alive', 'keep-alive: timeout=5']))
    expect(server['fetch HEAD']).toEqual(expect.arrayContaining(['date: a date', 'connection: close']))
  })

  it("a push reset mid-stream fails fetch with undici's cause: SocketError UND_ERR_SOCKET", async () => {
    const { server, inProcess } = await both(async ({ fake, base }) => {
      fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: [3_000_000, 1_000_000] })
      fake.faults.add({ on: 'push', reset: true, afterLayer: 1 })
      const res = await fetch(`${base}/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST' })
      const failed = res.text().then(
        () => 'ended cleanly',
        (e: Error & { cause?: Error & { code?: string } }) => `${e.name}: ${e.message}; cause ${e.cause?.constructor.name} ${e.cause?.name} ${e.cause?.code} ${e.cause?.message}`,
      )
      await fake.clock.advance('10s')
      return failed
    })
    expect(inProcess).toEqual(server)
    expect(server).toBe('TypeError: terminated; cause SocketError SocketError UND_ERR_SOCKET other side closed')
  })

  it("the WebSocket handshake is recorded with Node's headers and target; the fake's close reason is the server's", async () => {
    const { server, inProcess } = await both(async ({ fake, base, WS }) => {
      const ws = new WS(`${base.replace(/^http/, 'ws')}/events/ws?`, ['v1'])
      await new Promise((resolve) => ws.addEventListener('open', resolve))
      const closed = new Promise<string>((resolve) => ws.addEventListener('close', (e) => resolve(`${e.code} ${e.reason} ${e.wasClean}`)))
      const [request] = fake.requests.list()
      const headers = { ...request.headers } as Record<string, string>
      // Values that name the way in or are random per connection.
      expect(headers['sec-websocket-key']).toMatch(/^[+/0-9A-Za-z]{22}==$/)
      delete headers['sec-websocket-key']
      delete headers.host
      await fake.close()
      return { url: request.url, headers: Object.entries(headers), closed: await closed }
    })
    expect(inProcess).toEqual(server)
    expect(server.closed).toBe('1001 the fake server is shutting down true')
  })
})
