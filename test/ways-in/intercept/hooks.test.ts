import http from 'node:http'
import https from 'node:https'
import { afterEach, describe, expect, it, vi } from 'vitest'
import WS from 'ws'
import { createDockside, type Dockside } from '../../../src/index'
import { InProcessWebSocket, interceptRegions, intercept } from '../../../src/transports/intercept/index'
import { probeWithGlobalWs } from '../../support/global-ws-probe'
import { probeWithWs } from '../../support/ws-probe'
import { enc } from '../../support/helpers'

/** Node's own WebSocket, before any hook replaces the global one. */
const NodeWebSocket = globalThis.WebSocket

const WEST = 'https://us-west-1.hyper.test'
const WEST_WS = 'wss://us-west-1.hyper.test:443'
const open: Dockside[] = []
const fresh = (seed = 1) => {
  const fake = createDockside({ seed })
  open.push(fake)
  return fake
}
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
  vi.useRealTimers()
})

describe('install and restore', () => {
  it('hooks fetch and the global WebSocket, and restore() puts both back', async () => {
    const before = globalThis.WebSocket
    const fake = fresh()
    const hooks = await fake.intercept()
    expect(hooks.baseUrl).toBe(WEST)
    expect(globalThis.WebSocket).toBe(InProcessWebSocket)
    const ping = await fetch(`${WEST}/_ping`)
    expect([ping.status, await ping.text()]).toEqual([200, 'OK'])
    hooks.restore()
    expect(globalThis.WebSocket).toBe(before)
    await expect(fetch(`${WEST}/_ping`)).rejects.toThrow(/fetch failed/)
  })

  it('refuses a second install on the same host, naming it and what to do', async () => {
    const a = fresh(1)
    const b = fresh(2)
    await using _hooks = await a.intercept()
    await expect(b.intercept()).rejects.toThrow(/https:\/\/us-west-1\.hyper\.test is already hooked.*seed 1.*restore\(\)/)
    // The usual cause in a suite: an earlier `hooks = fake.intercept()` without await, whose restore() never ran.
    await expect(b.intercept()).rejects.toThrow(/An intercept\(\) whose promise was not awaited holds its region too.*await it\./)
    // Another region is fine.
    await using east = await b.intercept({ region: 'eu-central-1' })
    expect(east.baseUrl).toBe('https://eu-central-1.hyper.test')
  })

  it('close() of the fake restores its hooks', async () => {
    const fake = fresh()
    await fake.intercept()
    await fake.close()
    await using again = await fresh().intercept()
    expect(again.baseUrl).toBe(WEST)
  })

  it('several regions at once, each with its own state', async () => {
    const west = fresh(1)
    const east = fresh(2)
    await using hooks = await interceptRegions({ regions: { 'us-west-1': west, 'eu-central-1': east } })
    expect(hooks.addresses.map((a) => a.baseUrl)).toEqual([WEST, 'https://eu-central-1.hyper.test'])
    west.containers.create({ name: 'only-west', image: 'busybox' })
    const w = await (await fetch(`${WEST}/_dockside/containers`)).json()
    const e = await (await fetch('https://eu-central-1.hyper.test/_dockside/containers')).json()
    expect([w.length, e.length]).toEqual([1, 0])
    const ws = await probeWithGlobalWs('wss://eu-central-1.hyper.test/events/ws')
    expect(ws.status).toBe(101)
    expect([west.protocol.hub.sockets.size, east.protocol.hub.sockets.size]).toEqual([0, 1])
  })
})

describe('unhandled requests and other hosts', () => {
  it("'error' (default) fails the request with the method, URL and the fake's routes", async () => {
    await using _h = await fresh().intercept()
    const error = await fetch(`${WEST}/v2/nothing-here`, { method: 'PUT' }).catch((e: Error) => e)
    expect(error).toBeInstanceOf(Error)
    const message = String((error as Error & { cause?: Error }).cause?.message ?? (error as Error).message)
    expect(message).toMatch(/PUT https:\/\/us-west-1\.hyper\.test\/v2\/nothing-here is not a route.*POST \/images\/\{name\}\/push/)
  })

  it("'warn' prints the message and answers the fake's 404; a function is called with the request", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const fake = fresh()
    const hooks = await fake.intercept({ onUnhandled: 'warn' })
    const res = await fetch(`${WEST}/nope`)
    expect(res.status).toBe(404)
    expect(warn.mock.calls[0][0]).toMatch(/GET https:\/\/us-west-1\.hyper\.test\/nope/)
    hooks.restore()
    warn.mockRestore()
    const seen: string[] = []
    await using _h = await fake.intercept({ onUnhandled: (r) => void seen.push(`${r.method} ${r.url}`) })
    expect((await fetch(`${WEST}/nope`, { method: 'DELETE' })).status).toBe(404)
    expect(seen).toEqual([`DELETE ${WEST}/nope`])
  })

  it("'bypass' sends unserved paths to the network; served ones stay in process; other hosts pass through", async () => {
    // A real local server plays "the network"; its address is hooked, so the same host serves both.
    const real = http.createServer((req, res) => res.end(`real ${req.method} ${req.url}`))
    await new Promise<void>((r) => real.listen(0, '127.0.0.1', () => r()))
    const base = `http://127.0.0.1:${(real.address() as { port: number }).port}`
    try {
      const fake = fresh()
      await using _h = await fake.intercept({ baseUrl: base, onUnhandled: 'bypass' })
      expect(await (await fetch(`${base}/elsewhere`)).text()).toBe('real GET /elsewhere')
      expect(await (await fetch(`${base}/_ping`)).text()).toBe('OK')
      // node:http is hooked too.
      const viaHttp = await new Promise<string>((resolve, reject) => {
        http.get(`${base}/version`, (res) => {
          let body = ''
          res.on('data', (c) => (body += c))
          res.on('end', () => resolve(body))
        }).on('error', reject)
      })
      expect(JSON.parse(viaHttp)).toHaveProperty('ApiVersion')
    } finally {
      real.close()
    }
  })

  it('a real dockside server on 127.0.0.1 works side by side with the hooks (fetch and global WebSocket)', async () => {
    await using _h = await fresh(1).intercept()
    const other = fresh(2)
    await using server = await other.listen({ port: 0 })
    expect(await (await fetch(`${server.url}/_ping`)).text()).toBe('OK')
    const ws = await probeWithGlobalWs(`${server.wsUrl}/events/ws`)
    expect(ws.status).toBe(101)
    // Node's own socket, and still an instance of the (hooked) global WebSocket, as it is without the hooks.
    expect(Object.getPrototypeOf(ws.socket)).toBe(NodeWebSocket.prototype)
    expect(ws.socket).toBeInstanceOf(globalThis.WebSocket)
    other.containers.create({ name: 'x', image: 'busybox' }).start()
    expect(JSON.parse(await ws.nextMessage()).Action).toBe('start')
    ws.close()
  })
})

describe('websocket handshake and sessions, as a real client sees them', () => {
  it('a refused handshake is error then close 1006 (not clean), never open, on both ways in; details on .handshake and in the journal', async () => {
    const fake = fresh()
    fake.faults.add({ on: 'events', reply: 429, retryAfter: 3, times: 2 })
    await using server = await fake.listen({ port: 0 })
    const real = await probeWithGlobalWs(`${server.wsUrl}/events/ws`)
    await using _h = await fake.intercept()
    const inProcess = await probeWithGlobalWs(`${WEST_WS}/events/ws`)
    expect(inProcess.events).toEqual(real.events)
    expect(inProcess.events).toEqual(['error', 'close 1006 false'])
    expect(inProcess.status).toBe(429)
    expect(inProcess.headers['retry-after']).toBe('3')
    expect(JSON.parse(inProcess.body!).message).toMatch(/too many requests/)
    expect(fake.journal.ofType('request').map((e) => e.status)).toEqual([429, 429])
  })

  it('a session the fake drops (no close frame) gives error then close 1006, as undici does on a reset', async () => {
    const fake = fresh()
    // A protocol that accepts and drops at once: the transport contract's drop(), as a fault would call it.
    const dropping = { ...fake.protocol, upgrade: async () => ({ kind: 'accept' as const, open: (sink: { drop(): void }) => (sink.drop(), { clientClosed: () => {} }) }) }
    await using _h = await intercept({ ...fake, protocol: dropping, seed: 1 } as unknown as Dockside)
    const ws = await probeWithGlobalWs(`${WEST_WS}/events/ws`)
    expect(await ws.closed).toEqual({ code: 1006, reason: '' })
    expect(ws.events).toEqual(['open', 'error', 'close 1006 false'])
  })

  it('raw and percent-encoded JSON filters reach the protocol as the client wrote them', async () => {
    const fake = fresh()
    await using _h = await fake.intercept()
    const raw = await probeWithGlobalWs(`${WEST_WS}/events/ws?filters={"container":{"web":true}}`)
    const encoded = await probeWithGlobalWs(`${WEST_WS}/events/ws?filters=${enc({ event: ['stop'] })}`)
    expect([raw.status, encoded.status]).toEqual([101, 101])
    expect(fake.journal.ofType('ws.open').map((e) => e.filters)).toEqual([{ container: ['web'] }, { event: ['stop'] }])
  })

  it('an unknown websocket path is a refused handshake (404), and onUnhandled error puts the routes in the body', async () => {
    await using _h = await fresh().intercept()
    const ws = await probeWithGlobalWs(`${WEST_WS}/nope`)
    expect(ws.events).toEqual(['error', 'close 1006 false'])
    expect(ws.status).toBe(404)
    expect(JSON.parse(ws.body!).message).toMatch(/GET wss:\/\/us-west-1\.hyper\.test\/nope is not a route/)
  })

  it('a client close reaches the fake with its code and reason; close() without a code is 1005', async () => {
    const fake = fresh()
    await using _h = await fake.intercept()
    const a = await probeWithGlobalWs(`${WEST_WS}/events/ws`)
    a.close(4001, 'done')
    expect(await a.closed).toEqual({ code: 4001, reason: 'done' })
    const b = await probeWithGlobalWs(`${WEST_WS}/events/ws`)
    b.close()
    expect((await b.closed).code).toBe(1005)
    expect(fake.journal.ofType('ws.close').map((e) => [e.by, e.code, e.reason])).toEqual([['client', 4001, 'done'], ['client', 1005, '']])
    expect(() => new InProcessWebSocket(`${WEST_WS}/events/ws`).close(1001)).toThrow(expect.objectContaining({ name: 'InvalidAccessError' }))
  })
})

describe('clients built on the ws package', () => {
  it('way 1: the real server on port 0', async () => {
    const fake = fresh()
    await using server = await fake.listen({ port: 0 })
    const ws = await probeWithWs(`${server.wsUrl}/events/ws`)
    fake.containers.create({ name: 'w', image: 'busybox' }).start()
    expect(JSON.parse(await ws.nextMessage()).Action).toBe('start')
    ws.close()
  })

  it('way 2: hand the fake\'s WebSocket class to a client that takes a constructor', async () => {
    // A client written like many ws-based clients: it takes the WebSocket implementation as an option.
    const watch = (url: string, Impl: typeof WebSocket | typeof WS) =>
      new Promise<string>((resolve) => {
        const socket = new (Impl as typeof WebSocket)(url)
        socket.addEventListener('message', (e) => resolve(String(e.data)))
      })
    const fake = fresh()
    const hooks = await fake.intercept()
    const got = watch(`${WEST_WS}/events/ws`, hooks.WebSocket as unknown as typeof WebSocket)
    await expect.poll(() => fake.protocol.hub.sockets.size).toBe(1)
    fake.containers.create({ name: 'w', image: 'busybox' }).start()
    expect(JSON.parse(await got).Action).toBe('start')
    // The ws package itself is not reached by the WebSocket hook: its upgrade request meets the HTTP hook, which
    // cannot upgrade a node:http socket and fails the handshake naming that limit and the ways that work, instead of hanging.
    const hooked = new WS(`${WEST_WS}/events/ws`)
    const refused = await new Promise<Error>((resolve) => hooked.on('error', resolve))
    expect(refused.message).toMatch(/in-process hooks cannot upgrade a node:http socket.*docs\/in-process\.md#clients-built-on-the-ws-package/)
    hooks.restore()
    const direct = new WS(`${WEST_WS}/events/ws`)
    const failure = await new Promise<Error>((resolve) => direct.on('error', resolve))
    expect(failure.message).toMatch(/ENOTFOUND|EAI_AGAIN|getaddrinfo/)
  })
})

describe('bare intercept() function', () => {
  it('takes the fake as its first argument', async () => {
    const fake = fresh()
    await using hooks = await intercept(fake, { baseUrl: 'https://api.example.test' })
    expect(hooks.wsBaseUrl).toBe('wss://api.example.test')
    expect(await (await fetch('https://api.example.test/_ping')).text()).toBe('OK')
  })

  it('baseUrl and wsBaseUrl can be different hosts; only the given ones are hooked', async () => {
    const fake = fresh()
    await using hooks = await intercept(fake, { baseUrl: 'https://api.example.test', wsBaseUrl: 'wss://stream.example.test:8443' })
    expect([hooks.baseUrl, hooks.wsBaseUrl]).toEqual(['https://api.example.test', 'wss://stream.example.test:8443'])
    expect((await probeWithGlobalWs('wss://stream.example.test:8443/events/ws')).status).toBe(101)
    // The HTTP host's websocket address is not hooked: it goes to the platform WebSocket, which cannot resolve it.
    const elsewhere = await probeWithGlobalWs('wss://api.example.test/events/ws')
    expect(Object.getPrototypeOf(elsewhere.socket)).toBe(NodeWebSocket.prototype)
    expect(elsewhere.socket).toBeInstanceOf(globalThis.WebSocket)
    expect(elsewhere.events).toEqual(['error', 'close 1006 false'])
    await expect(fetch('https://stream.example.test:8443/_ping')).rejects.toThrow(/fetch failed/)
    await expect(intercept(fake, { baseUrl: 'https://api.example.test/v1' })).rejects.toThrow(/give the origin only/)
  })
})

describe('streamed bodies, as on the server', () => {
  it('a push arrives through fetch line by line as the clock advances (first line without waiting), 3 s for 3 MB at 1 MB/s in 500 ms steps as on the server', async () => {
    const fake = createDockside({ seed: 5, pushBandwidth: 1_000_000 })
    open.push(fake)
    await using _h = await fake.intercept()
    fake.images.add('localhost:5000/app:1', { layers: [3_000_000] })
    const res = await fetch(`${WEST}/images/localhost:5000/app/push?tag=1`, { method: 'POST' })
    const reader = res.body!.getReader()
    // Each line with the clock time (ms) at which the client read it.
    const seen: string[] = []
    let buffer = ''
    let done = false
    const reading = (async () => {
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        buffer += new TextDecoder().decode(r.value)
        const lines = buffer.split('\n')
        buffer = lines.pop()!
        for (const l of lines) seen.push(`${fake.clock.elapsed()} ${JSON.parse(l).status ?? 'aux'}`)
      }
      done = true
    })()
    await expect.poll(() => seen.length).toBeGreaterThan(0)
    expect(seen[0]).toBe('0 The push refers to repository [localhost:5000/app]')
    while (!done) {
      await fake.clock.advance('500ms')
      await new Promise((r) => setImmediate(r))
    }
    await reading
    // Progress lines at several clock times; the result only after the layer's 3 s at 1 MB/s.
    const times = seen.map((l) => Number(l.split(' ')[0]))
    expect(new Set(times.filter((t) => t > 0 && t < 3000)).size).toBeGreaterThanOrEqual(4)
    expect(seen.at(-1)).toBe('3000 aux')
  })

  it('a TransportReset mid-body fails fetch with TypeError: terminated and node:http with aborted, as a real reset does', async () => {
    const { TransportReset } = await import('../../../src/protocol/types')
    const fake = fresh()
    async function* body() {
      yield '{"status":"one"}\n'
      throw new TransportReset()
    }
    const resetting = { ...fake.protocol, handle: async () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: body() }) }
    await using _h = await intercept({ ...fake, protocol: resetting, seed: 1 } as unknown as Dockside)
    const read = async (url: string) => {
      const res = await fetch(url)
      const reader = res.body!.getReader()
      let text = ''
      try {
        for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value)
        return { text, error: undefined, chunked: res.headers.get('transfer-encoding') }
      } catch (error) {
        return { text, error: String(error), chunked: res.headers.get('transfer-encoding') }
      }
    }
    const inProcess = await read(`${WEST}/_ping`)
    expect(inProcess).toEqual({ text: '{"status":"one"}\n', error: 'TypeError: terminated', chunked: 'chunked' })
    // node:https through the same hook (the conformance reset cases check fetch against the real server).
    const viaHttp = await new Promise<string>((resolve) => {
      https.get(`${WEST}/_ping`, (res) => {
        res.on('data', () => {})
        res.on('error', (e) => resolve(e.message))
        res.on('end', () => resolve('clean end'))
      })
    })
    expect(viaHttp).toBe('aborted')
  })

  it('headers arrive before the first body byte: fetch of an idle GET /events stream resolves at once', async () => {
    const fake = fresh()
    await using _h = await fake.intercept()
    const controller = new AbortController()
    const res = await fetch(`${WEST}/events`, { signal: controller.signal })
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/json'])
    const reader = res.body!.getReader()
    const next = reader.read()
    fake.containers.create({ name: 'w', image: 'busybox' }).start()
    expect(JSON.parse(new TextDecoder().decode((await next).value)).Action).toBe('start')
    controller.abort()
  })
})

describe('the class is typed as the DOM WebSocket (npm test type-checks this file)', () => {
  it('assigns to typeof WebSocket, and its on… handlers get CloseEvent and MessageEvent', async () => {
    // Type errors here fail `tsc -p .` before any test runs: clients typed against the DOM's WebSocket take the class.
    const Impl: typeof WebSocket = InProcessWebSocket
    const fake = createDockside({ seed: 1 })
    open.push(fake)
    await using hooks = await fake.intercept({ baseUrl: 'http://types.test' })
    const ws: WebSocket = new Impl(`${hooks.wsBaseUrl}/events/ws`)
    const got = new Promise<number>((resolve) => (ws.onclose = (e) => resolve(e.code)))
    ws.onmessage = (e) => void String(e.data)
    await new Promise((resolve) => (ws.onopen = resolve))
    ws.close(3001)
    expect(await got).toBe(3001)
  })
})
