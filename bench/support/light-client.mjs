// A light websocket client for the benchmarks: raw TCP, an RFC 6455 handshake written by hand, and a frame parser
// that counts frames without allocating per frame (a fixed header buffer and, when latency is measured, a fixed
// 24-byte tail per socket from which the event's `timeNano` is read). On 2 cores the client must not be the
// bottleneck: a `ws` client builds a Buffer and a string per message.
import net from 'node:net'

const KEY = 'dGhlIHNhbXBsZSBub25jZQ=='
const CRLF2 = Buffer.from('\r\n\r\n')
// A masked close frame 1000 (client frames are masked; mask 0 keeps the payload as is).
const CLOSE = Buffer.from([0x88, 0x82, 0, 0, 0, 0, 0x03, 0xe8])

/** Wall clock in ms with sub-ms precision, the same formula the servers use for `timeNano`. */
export const wallMs = () => performance.timeOrigin + performance.now()

/**
 * One connection. `onFrame(client)` runs after each complete text frame; with `tail`, `client.timeNanoMs()` reads
 * the frame's trailing `"timeNano":<digits>}` as epoch ms.
 */
export class LightClient {
  frames = 0
  closed = false
  upgradedAt = 0
  constructor(port, path, { onFrame, tail = false, onClose } = {}) {
    this.onFrame = onFrame
    this.onClose = onClose
    this.wantTail = tail
    this.tail = tail ? new Uint8Array(24) : undefined
    this.hdr = new Uint8Array(10)
    this.hdrLen = 0
    this.need = 2
    this.remaining = -1
    this.opcode = 0
    this.handshake = true
    this.pending = undefined
    this.startedAt = performance.now()
    this.socket = net.connect(port, '127.0.0.1')
    this.socket.setNoDelay(true)
    this.opened = new Promise((resolve, reject) => {
      this._resolve = resolve
      this._reject = reject
    })
    this.socket.on('connect', () => {
      this.startedAt = performance.now()
      this.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n`)
    })
    this.socket.on('data', (chunk) => this.data(chunk))
    this.socket.on('error', (e) => this._reject(e))
    this.socket.on('close', () => {
      this.closed = true
      this._reject(new Error('closed before the upgrade'))
      this.onClose?.(this)
    })
  }

  data(chunk) {
    if (this.handshake) {
      const buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk
      const end = buf.indexOf(CRLF2)
      if (end < 0) return void (this.pending = buf)
      this.pending = undefined
      if (buf[9] !== 0x31 || buf[10] !== 0x30 || buf[11] !== 0x31) return this._reject(new Error(`not upgraded: ${buf.subarray(0, end).toString()}`))
      this.handshake = false
      this.upgradedAt = performance.now()
      this._resolve(this)
      if (end + 4 < buf.length) this.frames_(buf, end + 4)
      return
    }
    this.frames_(chunk, 0)
  }

  frames_(buf, i) {
    const n = buf.length
    while (i < n) {
      if (this.remaining < 0) {
        // Reading a header: 2 bytes, then 2 or 8 more for the length.
        while (this.hdrLen < this.need && i < n) this.hdr[this.hdrLen++] = buf[i++]
        if (this.hdrLen < this.need) return
        const len7 = this.hdr[1] & 0x7f
        if (this.need === 2 && len7 === 126) { this.need = 4; continue }
        if (this.need === 2 && len7 === 127) { this.need = 10; continue }
        this.opcode = this.hdr[0] & 0x0f
        this.remaining = len7 === 126 ? (this.hdr[2] << 8) | this.hdr[3] : len7 === 127 ? this.hdr[6] * 2 ** 24 + ((this.hdr[7] << 16) | (this.hdr[8] << 8) | this.hdr[9]) : len7
        this.hdrLen = 0
        this.need = 2
        this.tailLen = 0
      }
      const take = Math.min(this.remaining, n - i)
      if (this.wantTail) {
        // Keep the last 24 bytes of the payload.
        const from = Math.max(i, i + take - 24)
        for (let j = from; j < i + take; j++) this.tail[this.tailLen++ % 24] = buf[j]
      }
      i += take
      this.remaining -= take
      if (this.remaining === 0) {
        this.remaining = -1
        if (this.opcode === 1) {
          this.frames++
          this.onFrame?.(this)
        } else if (this.opcode === 8) {
          this.socket.end()
        }
      }
    }
  }

  /** The `timeNano` at the end of the last frame, in epoch ms. */
  timeNanoMs() {
    let v = 0
    let scale = 1
    // Digits backwards from before the closing brace; a Number keeps ~0.25 µs at today's epoch.
    for (let j = this.tailLen - 2; j >= Math.max(0, this.tailLen - 24); j--) {
      const c = this.tail[j % 24]
      if (c < 0x30 || c > 0x39) break
      v += (c - 0x30) * scale
      scale *= 10
    }
    return v / 1e6
  }

  /** Sends a close frame and resolves once the server has closed the TCP connection. */
  close() {
    return new Promise((resolve) => {
      if (this.closed) return resolve()
      this.socket.once('close', resolve)
      this.socket.write(CLOSE)
    })
  }

  destroy() {
    this.socket.destroy()
  }
}

/** Opens `n` clients, at most `concurrency` handshakes at a time. */
export async function openMany(port, path, n, options = {}, concurrency = 200) {
  const clients = Array.from({ length: n })
  let next = 0
  const worker = async () => {
    while (next < n) {
      const i = next++
      const c = new LightClient(port, path, options)
      await c.opened
      clients[i] = c
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker))
  return clients
}
