// Regression (issue 8, point 6): one 600 MB POST to /_dockside/faults killed the process, and 256 MB took 785 MB of
// memory. Request bodies are capped (default 1 MiB, `maxBodySize`) with a JSON 413 on both ways in, and the events
// websocket, which takes no client messages, closes on a frame over 4 KiB with 1009.
import http from 'node:http'
import net from 'node:net'
import WebSocket from 'ws'
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'
import { interceptWay } from '../../support/intercept-way'
import type { WayIn } from '../../support/way-in'

const serverWay: WayIn = {
  name: 'server',
  async start(fake) {
    const s = await fake.listen({ port: 0 })
    return { baseUrl: s.url, wsBaseUrl: s.wsUrl, fetch: (path, init) => fetch(s.url + path, init), connect: () => Promise.reject(new Error('unused')), close: () => s.close() }
  },
}

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

async function start(way: WayIn, options: Parameters<typeof createDockside>[0] = {}) {
  const fake = createDockside(options)
  closers.push(() => fake.close())
  const h = await way.start(fake)
  closers.push(() => h.close())
  return { fake, h }
}

const rule = (padding: number) => JSON.stringify({ on: 'events', reply: 503, message: 'x'.repeat(padding) })

it('createDockside refuses a maxBodySize that is not a size', () => {
  expect(() => createDockside({ maxBodySize: 'lots' })).toThrow(/Invalid maxBodySize "lots": expected a whole number of bytes above 0, or a size like/)
  expect(() => createDockside({ maxBacklog: 0 })).toThrow(/Invalid maxBacklog 0/)
})

describe('server: the cap holds while reading, not after', () => {
  let fake: Dockside
  const listen = async (options: Parameters<typeof createDockside>[0] = {}) => {
    fake = createDockside(options)
    closers.push(() => fake.close())
    return (await fake.listen({ port: 0 })).port
  }

  it('bug: a huge declared Content-Length was buffered; now refused at once with 413 and the connection closed', async () => {
    const port = await listen()
    const answer = await new Promise<string>((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1')
      let out = ''
      s.on('data', (d) => (out += d.toString('latin1')))
      s.on('close', () => resolve(out))
      s.on('error', reject)
      // Headers only: the 600 MB never come, and the answer must not wait for them.
      s.write('POST /_dockside/faults HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 600000000\r\n\r\n{"on":')
    })
    expect(answer).toMatch(/^HTTP\/1.1 413 Payload Too Large\r\n/)
    expect(answer.toLowerCase()).toContain('connection: close')
    expect(answer).toMatch(/"message":"The request body is over the 1 MiB/)
  })

  it('a 64 MiB chunked upload is answered 413 without being buffered, and the connection is closed', async () => {
    const port = await listen()
    const before = process.memoryUsage().arrayBuffers
    let peak = before
    const result = await new Promise<{ status: number; body: string; sent: number }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/_dockside/faults', headers: { 'content-type': 'application/json' } })
      const chunk = Buffer.alloc(64 * 1024, 0x20)
      let sent = 0
      let answered = false
      // One chunk per turn of the event loop, so the answer can arrive while the upload goes on.
      const pump = () => {
        if (answered) return
        if (sent >= 64 * 1024 * 1024) return void req.end()
        peak = Math.max(peak, process.memoryUsage().arrayBuffers)
        sent += chunk.length
        if (req.write(chunk)) setImmediate(pump)
        else req.once('drain', pump)
      }
      req.on('response', (res) => {
        answered = true
        let body = ''
        res.on('data', (d: Buffer) => (body += d.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, sent }))
      })
      // The server ends the connection after the answer; an EPIPE on our side of the upload is expected.
      req.on('error', (e) => (answered ? undefined : reject(e)))
      pump()
    })
    expect(result.status).toBe(413)
    expect(JSON.parse(result.body).message).toMatch(/over the 1 MiB/)
    // Refused well before the whole upload was sent, and nothing like the upload was held in memory.
    expect(result.sent).toBeLessThan(64 * 1024 * 1024)
    expect(peak - before).toBeLessThan(16 * 1024 * 1024)
    expect(fake.faults.list()).toHaveLength(0)
  })
})

describe('server: the events websocket takes no client messages', () => {
  it('an oversized frame closes it with 1009, journaled; a small one is ignored', async () => {
    const fake = createDockside()
    closers.push(() => fake.close())
    const server = await fake.listen({ port: 0 })
    const ws = new WebSocket(`${server.wsUrl}/events/ws?client=chatty`)
    await new Promise((r) => ws.once('open', r))
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)))
    ws.send('x'.repeat(100))
    fake.containers.create({ name: 'a', image: 'nginx' }).start()
    await new Promise((r) => ws.once('message', r))
    ws.send('x'.repeat(5000))
    expect(await closed).toBe(1009)
    const close = fake.journal.ofType('ws.close').at(-1)
    expect(close).toMatchObject({ client: 'chatty', by: 'server', code: 1009 })
    expect(String(close?.reason)).toMatch(/no client messages over 4096 bytes/)
    expect(fake.deliveries.report('chatty').connections[0]).toMatchObject({ closedBy: 'server', code: 1009 })
    expect(fake.protocol.hub.sockets.size).toBe(0)
  })
})

// Last: once nock has been installed in this process, raw sockets to 127.0.0.1 are no longer what the server tests need.
describe.each([serverWay, interceptWay])('request bodies are capped ($name)', (way) => {
  it('bug: a body over the default 1 MiB was read whole and applied; now a JSON 413 naming the limit and how to raise it', async () => {
    const { fake, h } = await start(way)
    const res = await h.fetch('/_dockside/faults', { method: 'POST', headers: { 'content-type': 'application/json' }, body: rule(2 * 1024 * 1024) })
    expect(res.status).toBe(413)
    expect(res.headers.get('content-type')).toBe('application/json')
    const { message } = (await res.json()) as { message: string }
    expect(message).toMatch(/1 MiB \(1048576 bytes\) limit/)
    expect(message).toMatch(/maxBodySize/)
    expect(message).toMatch(/--max-body-size/)
    expect(fake.faults.list()).toHaveLength(0)
    // The fake keeps serving.
    const ok = await h.fetch('/_dockside/faults', { method: 'POST', headers: { 'content-type': 'application/json' }, body: rule(10) })
    expect(ok.status).toBe(201)
  })

  it('maxBodySize sets the limit, in bytes or a size string', async () => {
    const { fake, h } = await start(way, { maxBodySize: '4KiB' })
    const over = await h.fetch('/_dockside/faults', { method: 'POST', body: rule(5000) })
    expect(over.status).toBe(413)
    expect(((await over.json()) as { message: string }).message).toMatch(/4 KiB \(4096 bytes\)/)
    const under = await h.fetch('/_dockside/faults', { method: 'POST', body: rule(3000) })
    expect(under.status).toBe(201)
    expect(fake.faults.list()).toHaveLength(1)
  })

  it('a body sent without a Content-Length (a stream) is capped while it is read', async () => {
    const { fake, h } = await start(way, { maxBodySize: 1000 })
    const text = rule(5000)
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < text.length; i += 500) controller.enqueue(new TextEncoder().encode(text.slice(i, i + 500)))
        controller.close()
      },
    })
    const res = await h.fetch('/_dockside/faults', { method: 'POST', body, duplex: 'half' } as RequestInit)
    expect(res.status).toBe(413)
    expect(fake.faults.list()).toHaveLength(0)
  })
})
