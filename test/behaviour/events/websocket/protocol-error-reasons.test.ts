// Regression: a client that broke the WebSocket protocol got a close frame with the code alone (1002 for an unmasked
// frame, 1007 for text that is not UTF-8): ws sends it before any listener runs, and PROTOCOL.md says every close
// carries a readable reason (Go's websocket servers, the real service's, give one for 1002). The journal and the
// delivery report said the client closed with 1006. Now the frame carries the reason, and both record the server's
// close with that code and reason.
import net from 'node:net'
import { randomBytes } from 'node:crypto'
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

/** Opens /events/ws over a raw socket, writes `frame` after the 101, and reads the server's close frame. */
async function closeAfter(port: number, frame: Buffer): Promise<{ code: number; reason: string }> {
  const socket = net.connect(port, '127.0.0.1')
  let buffered = Buffer.alloc(0)
  let upgraded = false
  return new Promise((resolve, reject) => {
    socket.on('error', reject)
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk])
      if (!upgraded) {
        const end = buffered.indexOf('\r\n\r\n')
        if (end < 0) return
        expect(buffered.subarray(0, 12).toString()).toBe('HTTP/1.1 101')
        buffered = buffered.subarray(end + 4)
        upgraded = true
        socket.write(frame)
      }
      // An unmasked server frame: opcode, then a 7-bit length (a close payload is at most 125 bytes).
      if (buffered.length >= 2 && buffered.length >= 2 + (buffered[1]! & 0x7f)) {
        expect(buffered[0]).toBe(0x88)
        const payload = buffered.subarray(2, 2 + (buffered[1]! & 0x7f))
        resolve({ code: payload.readUInt16BE(0), reason: payload.subarray(2).toString() })
        socket.destroy()
      }
    })
    socket.write(`GET /events/ws?client=rude HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`)
  })
}

/** A client text frame, masked unless told otherwise. */
function textFrame(payload: Buffer, masked = true): Buffer {
  if (!masked) return Buffer.concat([Buffer.from([0x81, payload.length]), payload])
  const mask = randomBytes(4)
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!))])
}

it.each([
  ['an unmasked frame', textFrame(Buffer.from('hi'), false), 1002, 'protocol error: the client sent a frame the WebSocket protocol (RFC 6455) does not allow'],
  ['text that is not UTF-8', textFrame(Buffer.from([0xc3, 0x28])), 1007, 'invalid frame payload data: the client sent text that is not UTF-8'],
  ['an unknown opcode', Buffer.from([0x83, 0x80, 1, 2, 3, 4]), 1002, 'protocol error: the client sent a frame the WebSocket protocol (RFC 6455) does not allow'],
])('%s: the close frame carries its code and a reason; the journal and the report say the server closed', async (_, frame, code, reason) => {
  const fake = createDockside({ seed: 2 })
  open.push(fake)
  const { port } = await fake.listen({ host: '127.0.0.1', port: 0 })
  expect(await closeAfter(port, frame)).toEqual({ code, reason })
  await expect.poll(() => fake.journal.ofType('ws.close').map((e) => [e.by, e.code, e.reason])).toEqual([['server', code, reason]])
  expect(fake.deliveries.report('rude').connections.map((c) => [c.closedBy, c.code, c.reason])).toEqual([['server', code, reason]])
})
