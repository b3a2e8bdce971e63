// The delivery report says "delivered" of a frame the fake wrote to the client's socket (docs/chaos.md). On the real
// server, once a client's close frame has arrived (the websocket is CLOSING), the server's sink writes nothing more,
// yet the protocol went on counting what it was handed as sent and delivered until the TCP connection closed: a
// client that said goodbye and then waited for the TCP end was reported as having been delivered events it was never
// sent. The protocol now hears the goodbye at the close frame. A raw TCP client sends its close frame.
import { connect, type Socket } from 'node:net'
import { expect, it } from 'vitest'
import { createDockside } from '../../../src/index'

/** Bytes from `socket` until `done` says they are enough. */
function readUntil(socket: Socket, done: (bytes: Buffer) => boolean): Promise<Buffer> {
  return new Promise((resolve) => {
    let got = Buffer.alloc(0)
    const on = (chunk: Buffer) => {
      got = Buffer.concat([got, chunk])
      if (done(got)) {
        socket.off('data', on)
        resolve(got)
      }
    }
    socket.on('data', on)
  })
}

it('events after the client\'s close frame are neither written nor reported delivered or owed, on the server', async () => {
  await using fake = createDockside({ seed: 1 })
  const server = await fake.listen({ port: 0 })
  const web = fake.containers.create({ name: 'web', image: 'nginx' })
  const socket = connect(Number(new URL(server.url).port), '127.0.0.1')
  await new Promise((resolve) => socket.once('connect', resolve))
  socket.write('GET /events/ws?client=leaving HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n')
  await readUntil(socket, (b) => b.includes('\r\n\r\n'))
  web.start()
  // One event frame (a text frame, 0x81), then the client's masked close frame: code 1000.
  await readUntil(socket, (b) => b[0] === 0x81)
  const mask = Buffer.from([1, 2, 3, 4])
  const payload = Buffer.from([0x03, 0xe8]).map((b, i) => b ^ mask[i % 4])
  socket.write(Buffer.concat([Buffer.from([0x88, 0x82]), mask, payload]))
  // The server's close frame (0x88) answers it: the websocket is CLOSING, the TCP connection still open.
  const after = await readUntil(socket, (b) => b.includes(0x88))
  web.stop()
  web.start()
  await fake.clock.advance('1s')
  const r = fake.deliveries.report('leaving')
  // Neither delivered nor owed: the client had said goodbye before them.
  expect([r.expected, r.delivered, r.missed]).toEqual([1, 1, []])
  expect(fake.journal.ofType('ws.close')).toMatchObject([{ by: 'client', code: 1000, sent: 1 }])
  // Nothing but the close frame came after the first event.
  expect(after[0]).toBe(0x88)
  socket.destroy()
  await server.close()
})
