// Regression (issue 8, point 9): a client that stopped reading grew the server's memory until the 24 h maximum age
// (10 such websockets added 4.4 MB/s, 4 GET /events streams 3.2 MB/s). Each socket's and stream's backlog is now
// capped (maxBacklog): the websocket closes with 1013 and a reason naming the backlog, the stream ends, both are
// journaled and in the client's delivery report, and a reading client beside them misses nothing.
// The long version with memory figures: bench/soak-slow-consumers.mjs.
import net from 'node:net'
import WebSocket from 'ws'
import { afterEach, expect, it } from 'vitest'
import { createDockside } from '../../../../src/index'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

/** A raw TCP client that sends `request`, reads the answer's head, then never reads again. */
function deafClient(port: number, request: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1')
    let head = ''
    const onData = (d: Buffer) => {
      head += d.toString('latin1')
      if (!head.includes('\r\n\r\n')) return
      s.off('data', onData)
      s.pause()
      if (!/^HTTP\/1.1 (101|200)/.test(head)) reject(new Error(head))
      else resolve(s)
    }
    s.on('data', onData)
    s.on('error', () => {})
    s.write(request)
  })
}

const upgrade = (client: string) =>
  `GET /events/ws?client=${client} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`
const stream = (client: string) => `GET /events?client=${client} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`

it('bug: clients that stop reading are closed at maxBacklog (1013, journaled, reported); a reading client misses nothing', async () => {
  const fake = createDockside({ maxBacklog: '256KiB' })
  closers.push(() => fake.close())
  const server = await fake.listen({ port: 0 })

  const reader = new WebSocket(`${server.wsUrl}/events/ws?client=reader`)
  let received = 0
  reader.on('message', () => received++)
  await new Promise((r) => reader.once('open', r))
  const deaf = await Promise.all([deafClient(server.port, upgrade('deaf-1')), deafClient(server.port, upgrade('deaf-2')), deafClient(server.port, upgrade('deaf-3'))])
  const deafStream = await deafClient(server.port, stream('deaf-stream'))

  // ~8 KB frames, so the kernel's socket buffers fill after a few hundred events.
  const labels = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`label-${i}`, 'x'.repeat(120)]))
  const c = fake.containers.create({ name: 'web', image: 'nginx', labels })
  const overflowed = () => fake.journal.ofType('ws.backlog').length === 3 && fake.journal.ofType('stream.backlog').length === 1
  let emitted = 0
  while (!overflowed() && emitted < 20_000) {
    for (let i = 0; i < 20; i++, emitted++) {
      if (emitted % 2 === 0) c.start()
      else c.stop()
    }
    // Let the sockets move between bursts.
    await new Promise((r) => setImmediate(r))
  }
  expect(overflowed()).toBe(true)
  // The server has ended their TCP connections: reading again, each gets what was in flight, then the end, well
  // before ws's own 30 s wait for a close frame that never comes.
  await Promise.all(
    [...deaf, deafStream].map((s) => {
      const closed = new Promise<void>((r) => s.once('close', () => r()))
      s.resume()
      return closed
    }),
  )

  for (const client of ['deaf-1', 'deaf-2', 'deaf-3']) {
    const close = fake.journal.ofType('ws.close').find((e) => e.client === client)
    expect(close).toMatchObject({ by: 'server', code: 1013 })
    expect(String(close?.reason)).toMatch(/client too slow: over 262144 bytes queued \(maxBacklog\)/)
    expect(fake.journal.ofType('ws.backlog').find((e) => e.client === client)).toMatchObject({ limit: 262144 })
    expect(fake.deliveries.report(client).connections[0]).toMatchObject({ closedBy: 'server', code: 1013, reason: expect.stringMatching(/maxBacklog/) })
  }
  expect(fake.journal.ofType('stream.backlog')[0]).toMatchObject({ client: 'deaf-stream', limit: 262144 })
  expect(fake.deliveries.report('deaf-stream').connections[0]).toMatchObject({ via: 'stream', closedBy: 'server', code: 1013, reason: expect.stringMatching(/maxBacklog/) })
  // Only the reader is left.
  expect([...fake.protocol.hub.sockets].map((s) => s.client)).toEqual(['reader'])

  // The reader gets every event, and its report says so.
  await new Promise<void>((resolve) => {
    const check = () => (received >= emitted ? resolve() : reader.once('message', check))
    check()
  })
  const report = fake.deliveries.report('reader')
  expect(report.expected).toBe(emitted)
  expect(report.missed).toEqual([])
  expect(report.delivered).toBe(emitted)
  expect(report.connections[0].closedBy).toBeUndefined()
  reader.close()
}, 30_000)

it('a since replay does not count against the backlog of a reading client', async () => {
  const fake = createDockside({ maxBacklog: '16KiB' })
  closers.push(() => fake.close())
  const server = await fake.listen({ port: 0 })
  const c = fake.containers.create({ name: 'web', image: 'nginx', labels: { big: 'x'.repeat(2000) } })
  for (let i = 0; i < 400; i++) {
    if (i % 2) c.stop()
    else c.start()
  }
  const ws = new WebSocket(`${server.wsUrl}/events/ws?client=replayer&since=0`)
  let received = 0
  ws.on('message', () => received++)
  await new Promise<void>((resolve) => {
    const check = () => (received >= 400 ? resolve() : ws.once('message', check))
    ws.once('open', check)
  })
  expect(fake.journal.ofType('ws.backlog')).toEqual([])
  expect(fake.deliveries.report('replayer').missed).toEqual([])
  ws.close()
})

it('in process, a GET /events client that stops reading is cut at maxBacklog, journaled and reported, its body errors without a read', async () => {
  const fake = createDockside({ maxBacklog: '64KiB' })
  closers.push(() => fake.close())
  const hooks = await fake.intercept({ region: 'us-west-1' })
  closers.push(async () => hooks.restore())
  const res = await fetch('https://us-west-1.hyper.test/events?client=deaf-in-process')
  expect(res.status).toBe(200)
  // The client never reads: past the hook's read-ahead, the protocol's queue grows until the cap. A burst in one turn
  // is taken whole at the transport's next turn (test/behaviour/events/backlog/burst-is-not-backlog.test.ts); what comes after it,
  // while the transport holds what the client has not read, is the backlog.
  const c = fake.containers.create({ name: 'web', image: 'nginx', labels: { big: 'x'.repeat(2000) } })
  const burst = () => {
    for (let i = 0; i < 400; i++) {
      if (i % 2) c.stop()
      else c.start()
    }
  }
  burst()
  await new Promise((resolve) => setImmediate(resolve))
  expect(fake.journal.ofType('stream.backlog')).toEqual([])
  burst()
  await expect.poll(() => fake.journal.ofType('stream.backlog').length).toBe(1)
  expect(fake.deliveries.report('deaf-in-process').connections[0]).toMatchObject({ closedBy: 'server', code: 1013 })
  // The stream was cut while nobody read it, as the server resets the connection: the body errors without a read.
  const reader = res.body!.getReader()
  await expect(reader.closed).rejects.toThrow(/terminated/)
})
