import net from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer } from '../../../src/index'

/** A raw TCP client: writes bytes as given and reads the answer, as a Go client that does not encode its query would. */
class RawClient {
  private buffer = Buffer.alloc(0)
  private waiters: (() => void)[] = []
  readonly ended: Promise<void>
  private constructor(readonly socket: net.Socket) {
    socket.on('data', (d: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, d])
      for (const w of this.waiters.splice(0)) w()
    })
    this.ended = new Promise((r) => socket.once('close', () => r()))
    this.ended.then(() => this.waiters.splice(0).forEach((w) => w()))
  }
  static async connect(port: number) {
    const socket = net.connect(port, '127.0.0.1')
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
    return new RawClient(socket)
  }
  private async until<T>(take: () => T | undefined): Promise<T> {
    for (;;) {
      const v = take()
      if (v !== undefined) return v
      if (this.socket.destroyed && !this.socket.readable) throw new Error(`connection closed; received so far: ${JSON.stringify(this.buffer.toString())}`)
      await new Promise<void>((r) => this.waiters.push(r))
    }
  }
  /** Reads the status line and headers. */
  head() {
    return this.until(() => {
      const end = this.buffer.indexOf('\r\n\r\n')
      if (end < 0) return undefined
      const [statusLine, ...lines] = this.buffer.subarray(0, end).toString().split('\r\n')
      this.buffer = this.buffer.subarray(end + 4)
      const headers: Record<string, string> = {}
      for (const l of lines) {
        const i = l.indexOf(':')
        headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim()
      }
      return { status: Number(statusLine.split(' ')[1]), statusLine, headers }
    })
  }
  body(length: number) {
    return this.until(() => {
      if (this.buffer.length < length) return undefined
      const b = this.buffer.subarray(0, length).toString()
      this.buffer = this.buffer.subarray(length)
      return b
    })
  }
  /** Reads one unmasked server frame. */
  frame() {
    return this.until(() => {
      const b = this.buffer
      if (b.length < 2) return undefined
      const opcode = b[0] & 0x0f
      let len = b[1] & 0x7f
      let at = 2
      if (len === 126) {
        if (b.length < 4) return undefined
        len = b.readUInt16BE(2)
        at = 4
      } else if (len === 127) {
        if (b.length < 10) return undefined
        len = Number(b.readBigUInt64BE(2))
        at = 10
      }
      if (b.length < at + len) return undefined
      const payload = b.subarray(at, at + len)
      this.buffer = b.subarray(at + len)
      return { fin: (b[0] & 0x80) !== 0, opcode, payload }
    })
  }
  get pending() {
    return this.buffer.length
  }
  write(text: string) {
    this.socket.write(text)
  }
  destroy() {
    this.socket.destroy()
  }
}

const upgrade = (target: string) =>
  `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`

let fake: Dockside
let server: DocksideServer
const clients: RawClient[] = []
const open = async () => {
  fake = createDockside({ seed: 11 })
  server = await fake.listen({ port: 0 })
  const c = await RawClient.connect(server.port)
  clients.push(c)
  return c
}
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy()
  await fake?.close()
})

/** Waits until the fake has the socket registered, so events emitted next reach it. */
const opened = async () => {
  while (fake.protocol.hub.sockets.size === 0) await new Promise((r) => setImmediate(r))
}

describe('raw, unencoded JSON in the request line', () => {
  it('upgrades GET /events/ws?filters={"container":{"web":true}} and sends only matching frames', async () => {
    const c = await open()
    const web = fake.containers.create({ name: 'web', image: 'nginx:1.27', labels: { app: 'web' } })
    const api = fake.containers.create({ name: 'api', image: 'busybox' })
    c.write(upgrade('/events/ws?filters={"container":{"web":true}}'))
    const head = await c.head()
    expect(head.status).toBe(101)
    expect(head.headers.upgrade?.toLowerCase()).toBe('websocket')
    expect(head.headers['sec-websocket-accept']).toBe('s3pPLMBiTxaQ9kYGzzhZRbK+xOo=')
    await opened()
    api.start()
    web.start()
    const f = await c.frame()
    expect(f.opcode).toBe(1)
    expect(f.fin).toBe(true)
    const event = JSON.parse(f.payload.toString()) as { status: string; Actor: { Attributes: Record<string, string> } }
    expect(event.status).toBe('start')
    expect(event.Actor.Attributes.name).toBe('web')
    // The api event never came: the next frame is web's stop.
    api.stop()
    web.stop({ exitCode: 2 })
    const g = await c.frame()
    expect(JSON.parse(g.payload.toString())).toMatchObject({ status: 'stop', Actor: { Attributes: { name: 'web', exitCode: '2' } } })
    expect(c.pending).toBe(0)
  })

  it('reads a raw `+` in raw JSON as a space, as Go\'s url.ParseQuery reads every value (a literal plus is %2B)', async () => {
    const c = await open()
    const plus = fake.containers.create({ name: 'p', image: 'busybox', labels: { v: 'a+b' } })
    const space = fake.containers.create({ name: 's', image: 'busybox', labels: { v: 'a b' } })
    c.write(upgrade('/events/ws?filters={"label":["v=a+b"],"event":["start"]}'))
    expect((await c.head()).status).toBe(101)
    await opened()
    plus.start()
    space.start()
    const f = await c.frame()
    expect(JSON.parse(f.payload.toString())).toMatchObject({ Actor: { Attributes: { name: 's', v: 'a b' } } })
    const encoded = await RawClient.connect(server.port)
    clients.push(encoded)
    encoded.write(upgrade('/events/ws?filters={"label":["v=a%2Bb"],"event":["stop"]}'))
    expect((await encoded.head()).status).toBe(101)
    while (fake.protocol.hub.sockets.size < 2) await new Promise((r) => setImmediate(r))
    space.stop()
    plus.stop()
    expect(JSON.parse((await encoded.frame()).payload.toString())).toMatchObject({ Actor: { Attributes: { name: 'p', v: 'a+b' } } })
  })

  it('reads `+` as a space in a percent-encoded value (Go url.Values encoding)', async () => {
    const c = await open()
    const spaced = fake.containers.create({ name: 'spaced', image: 'busybox', labels: { note: 'hello world' } })
    const other = fake.containers.create({ name: 'other', image: 'busybox', labels: { note: 'hello+world' } })
    // url.Values{"filters": {`{"label":["note=hello world"]}`}}.Encode()
    const encoded = new URLSearchParams({ filters: '{"label":["note=hello world"]}' }).toString()
    expect(encoded).toContain('hello+world')
    c.write(upgrade(`/events/ws?${encoded}`))
    expect((await c.head()).status).toBe(101)
    await opened()
    other.start()
    spaced.start()
    const f = await c.frame()
    expect(JSON.parse(f.payload.toString())).toMatchObject({ Actor: { Attributes: { name: 'spaced', note: 'hello world' } } })
  })
})

describe('raw refusals before the upgrade', () => {
  it.each([
    ['an event the service does not emit', '/events/ws?filters={"event":["die"]}', /start, stop/],
    ['invalid JSON', '/events/ws?filters={"event":', /not valid JSON/],
    ['an unknown filter name', '/events/ws?filters={"type":["container"]}', /container, event, image, label/],
    ['a value of the wrong shape', '/events/ws?filters={"event":"start"}', /object of booleans/],
  ])('answers 400 with Content-Length and a JSON message for %s', async (_what, target, message) => {
    const c = await open()
    c.write(upgrade(target))
    const head = await c.head()
    expect(head.statusLine).toBe('HTTP/1.1 400 Bad Request')
    expect(head.headers['content-type']).toBe('application/json')
    expect(head.headers['content-length']).toMatch(/^\d+$/)
    const body = await c.body(Number(head.headers['content-length']))
    expect(Buffer.byteLength(body)).toBe(Number(head.headers['content-length']))
    const json = JSON.parse(body) as { message: string }
    expect(json.message).toMatch(message)
    await c.ended
    expect(c.pending).toBe(0)
    expect(fake.protocol.hub.sockets.size).toBe(0)
  })

  it('answers a 429 fault with Retry-After and Content-Length', async () => {
    const c = await open()
    fake.faults.add({ on: 'events', reply: 429, retryAfter: 3, message: 'slow down' })
    c.write(upgrade('/events/ws?filters={"container":{"web":true}}'))
    const head = await c.head()
    expect(head.status).toBe(429)
    expect(head.headers['retry-after']).toBe('3')
    const body = await c.body(Number(head.headers['content-length']))
    expect(JSON.parse(body)).toEqual({ message: 'slow down' })
  })
})
