// The request side of the real server (serve.ts): what a node:http request is to the protocol (its headers joined,
// its target in origin form, its body read up to a cap), and the handshake and Host checks the server answers itself.
import type * as Http from 'node:http'
import { jsonError } from '../../protocol/http'
import { BodyTooLargeError } from '../../protocol/limits'
import { hostClearTimeout, hostSetTimeout } from '../../runtime/host-timers'
import type { ProtoRequest, ProtoResponse, Served } from '../../protocol/types'

const WS_KEY = /^[+/0-9A-Za-z]{22}==$/
/**
 * The framing checks of the websocket handshake that `ws` makes (it would answer them as text/html),
 * answered as the protocol's JSON refusals. What the request asks for (path, method, filters) is the protocol's.
 */
export function handshakeProblem(req: Http.IncomingMessage): ProtoResponse & { body: string } | undefined {
  if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') return jsonError(400, `Invalid Upgrade header ${JSON.stringify(req.headers.upgrade)}: expected "Upgrade: websocket".`)
  const key = req.headers['sec-websocket-key']
  if (key === undefined || !WS_KEY.test(key)) return jsonError(400, 'Missing or invalid Sec-WebSocket-Key header: expected 16 random bytes in base64 (RFC 6455).')
  const version = req.headers['sec-websocket-version']
  if (version !== '13' && version !== '8') {
    return jsonError(400, `Missing or unsupported Sec-WebSocket-Version ${JSON.stringify(version)}: this server speaks 13 (RFC 6455).`, { 'sec-websocket-version': '13, 8' })
  }
  return undefined
}

/**
 * HTTP/1.1 requires a Host header (RFC 9112, section 3.2): without one, a JSON 400 (node's own answer has no body).
 * HTTP/1.0 predates Host and is served without it.
 */
export function missingHost(req: Http.IncomingMessage): (ProtoResponse & { body: string }) | undefined {
  if (req.headers.host !== undefined || req.httpVersion === '1.0') return undefined
  return jsonError(400, `Missing Host header: HTTP/${req.httpVersion} requires one (RFC 9112, section 3.2); send e.g. "Host: 127.0.0.1:2375".`)
}

/**
 * The request's headers as one string each: node's own object when it has no list (node joins repeated headers
 * itself, all but `set-cookie`), else a copy with the lists joined. Nothing downstream writes to it.
 */
function headersOf(req: Http.IncomingMessage): Record<string, string | undefined> {
  const raw = req.headers
  for (const k in raw) {
    if (typeof raw[k] === 'string') continue
    const headers: Record<string, string | undefined> = {}
    for (const [key, v] of Object.entries(raw)) headers[key] = Array.isArray(v) ? v.join(', ') : v
    return headers
  }
  return raw as Record<string, string | undefined>
}

/**
 * The path and query of a request target. A server must accept the absolute form too (`GET http://host/_ping`,
 * RFC 9112, section 3.2.2), which node:http passes on as it came.
 */
function originForm(url: string): string {
  if (url.startsWith('/')) return url
  const m = /^https?:\/\/[^/?#]*/i.exec(url)
  if (!m) return url
  const rest = url.slice(m[0].length)
  return rest.startsWith('/') ? rest : `/${rest}`
}

export function toProtoRequest(req: Http.IncomingMessage, signal: AbortSignal, served: Served | undefined): ProtoRequest {
  const headers = headersOf(req)
  let body: Promise<string> | undefined
  return {
    method: req.method ?? 'GET',
    url: originForm(req.url ?? '/'),
    headers,
    signal,
    remoteAddress: req.socket.remoteAddress,
    served,
    body: (max = Infinity) =>
      (body ??= new Promise<string>((resolve, reject) => {
        if (Number(req.headers['content-length']) > max) return reject(new BodyTooLargeError(max))
        let chunks: Buffer[] = []
        let size = 0
        const onData = (c: Buffer) => {
          size += c.length
          if (size <= max) return void chunks.push(c)
          // Stop buffering at the cap; what follows is read and dropped until the 413 is out and the connection closes.
          chunks = []
          req.off('data', onData)
          reject(new BodyTooLargeError(max))
        }
        req.on('data', onData)
        req.on('end', () => size <= max && resolve(Buffer.concat(chunks).toString('utf8')))
        req.on('error', reject)
      })),
  }
}

/** How much of a refused body (413) the server reads and drops before it closes, so the client can read the answer. */
export const LINGER_BYTES = 16 * 1024 * 1024
/** How long (wall time) the server reads a refused body at most before it closes. */
export const LINGER_MS = 3000

/**
 * A body refused for its size (413) is still on its way: closing with it unread resets the connection (the client's
 * next write fails with EPIPE, and a reset can discard the answer before the client reads it). Reads and drops the
 * rest, as Go's net/http and nginx's lingering close do, up to {@link LINGER_BYTES} or {@link LINGER_MS}, whichever
 * comes first; then calls `done` with `true` when the body ended (a clean close) or `false` at the bound (close now).
 * A declared `Content-Length` past the bound is not waited for: `done(false)` at once.
 */
export function dropRefusedBody(req: Http.IncomingMessage, after: (ms: number, fn: () => void) => () => void, done: (ended: boolean) => void): void {
  if (req.complete) return done(true)
  if (Number(req.headers['content-length']) > LINGER_BYTES) return done(false)
  let dropped = 0
  let finished = false
  const finish = (ended: boolean) => {
    if (finished) return
    finished = true
    cancel()
    req.off('data', onData)
    req.off('end', onEnd)
    req.socket.off('close', onClose)
    done(ended)
  }
  const onData = (chunk: Buffer) => {
    dropped += chunk.length
    if (dropped > LINGER_BYTES) finish(false)
  }
  const onEnd = () => finish(true)
  const onClose = () => finish(false)
  const cancel = after(LINGER_MS, () => finish(false))
  req.on('data', onData)
  req.once('end', onEnd)
  req.socket.once('close', onClose)
  req.resume()
}

/**
 * A 413 for a body still arriving: its head and body are written at once (with their length, so the client has the
 * whole answer), and the response ends (node then closes the connection: `connection: close`) once the rest of the
 * body was read and dropped, or at once past the bound, with the socket destroyed `graceMs` later (see dropRefusedBody).
 */
export function answerRefusedBody(req: Http.IncomingMessage, res: Http.ServerResponse, status: number, headers: Record<string, string>, body: string, graceMs: number): void {
  const bytes = Buffer.from(body)
  res.writeHead(status, { ...headers, 'content-length': String(bytes.length) })
  res.write(bytes)
  const after = (ms: number, fn: () => void) => {
    const timer = hostSetTimeout(fn, ms)
    return () => hostClearTimeout(timer)
  }
  dropRefusedBody(req, after, (ended) => {
    res.end()
    if (ended) return
    // Past the bound: what the client still sends is not read. The answer is out: give it a moment to leave, then go.
    const timer = hostSetTimeout(() => req.socket.destroy(), graceMs)
    req.socket.once('close', () => hostClearTimeout(timer))
  })
}
