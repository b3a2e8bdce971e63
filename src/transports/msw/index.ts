// MSW request handlers for the service's addresses: a third way in, beside the server and the in-process hooks.
// Thin like the others: each MSW request or connection becomes a protocol call (handle/upgrade); every behaviour
// stays in the protocol. No Node built-ins: the same handlers run under msw/node and in a page under msw/browser.
// See docs/msw.md.
// A namespace import: an msw without `ws` (before 2.6) would fail a named import when the module links, before
// docksideHandlers could say which msw it needs.
import * as msw from 'msw'
import type { HttpHandler, WebSocketHandler } from 'msw'
import type { ServedFake } from '../served-fake'
import { errorResponse } from '../../protocol/http'
import { EVENTS_MAX_MESSAGE, readCappedText } from '../../protocol/limits'
import type { ProtoRequest, ProtoResponse, SocketSession, UpgradeResult } from '../../protocol/types'
import { servedAt, serviceOrigins } from '../origins'
import { serverHeaders } from '../server-headers'
import { invalidMethodAnswer, PARSED_METHODS } from '../methods'
import { ReadAhead } from '../read-ahead'


/** Options of {@link docksideHandlers}: the addresses answered, as for `fake.intercept()`. */
export interface DocksideHandlersOptions {
  /** The region whose host is answered: `https://<region>.<domain>`. Ignored when `baseUrl` is given. @default 'us-west-1' */
  region?: string
  /** @default 'hyper.test' */
  domain?: string
  /** The HTTP address the client uses. @default `https://<region>.<domain>` */
  baseUrl?: string
  /** The websocket address the client uses. @default `baseUrl` with `wss:` (or `ws:` for `http:`) */
  wsBaseUrl?: string
}

const OPTION_NAMES = ['region', 'domain', 'baseUrl', 'wsBaseUrl']

/** What a refused or accepted handshake answered; set on the page's WebSocket as `handshake` (non-standard, as in process). */
export interface MswHandshake {
  status: number
  /** Lower-case header names. */
  headers: Record<string, string>
  /** The refusal's body (JSON text); undefined on success. */
  body: string | undefined
}

/** The oldest msw the handlers run on: http.all with a predicate, ws.link, and WebSocketHandler's test(). */
const MSW_MINIMUM = '2.13.6'

/** msw's `http` and `ws`, or a TypeError naming the msw these handlers need, when the project's is older. */
function mswApi(): { http: typeof msw.http; ws: typeof msw.ws } {
  const { http, ws, WebSocketHandler } = msw as Partial<typeof msw>
  if (typeof http?.all !== 'function' || typeof ws?.link !== 'function' || typeof WebSocketHandler?.prototype.test !== 'function') {
    throw new TypeError(
      `dockside/msw needs msw ${MSW_MINIMUM} or newer (msw 2 from ${MSW_MINIMUM}, or msw 3): the msw this project loads has no ` +
        `${typeof ws?.link !== 'function' ? 'ws.link() (msw 2.6 added it)' : 'WebSocketHandler test() (msw 2.13.6 added it)'}. ` +
        `Upgrade it: npm install --save-dev msw@^2.13.6 (or msw@3). The rest of dockside needs no msw.`,
    )
  }
  return { http, ws }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * The protocol's streaming body as a byte stream, read ahead as in process ({@link ReadAhead}). An empty first chunk
 * makes msw/node write the status line and headers at once: `await fetch()` resolves before the first line (an idle
 * GET /events stream included).
 */
function toStream(body: AsyncIterable<string>, abort: AbortSignal | undefined): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  const reader = new ReadAhead(body, (text) => encoder.encode(text), new Uint8Array(0))
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // The protocol ends a body at once (a consumer too far behind): the client sees the connection end.
        abort?.addEventListener('abort', () => {
          reader.stop()
          try {
            controller.error(abort.reason)
          } catch {
            // already closed
          }
        })
      },
      async pull(controller) {
        let chunk: Uint8Array | undefined
        try {
          chunk = await reader.take()
        } catch (failure) {
          reader.stop()
          return controller.error(failure)
        }
        if (reader.stopped) return
        if (chunk !== undefined) return controller.enqueue(chunk)
        reader.stop()
        controller.close()
      },
      // The client went away (cancel or abort): end the protocol's body, which cancels a push.
      cancel: () => reader.stop(),
    },
    { highWaterMark: 0 },
  )
}

const NULL_BODY = new Set([101, 103, 204, 205, 304])

/**
 * The answer as the client reads it from the real server: the route's headers, then those node:http adds (`date`,
 * `connection` as the request asked, `keep-alive`, chunked framing for a body of no stated length), in its order.
 * Without them a client saw no `connection` or `keep-alive` and an unframed string body (the dashboard's page).
 */
function toResponse(method: string, connection: string | null, res: ProtoResponse): Response {
  const headers = new Headers(res.headers)
  for (const [name, value] of serverHeaders(res.headers, connection ?? undefined, method, res.status)) headers.append(name, value)
  if (method === 'HEAD' || res.body === undefined || NULL_BODY.has(res.status)) {
    // A streaming body nobody will read still ends (a HEAD of a stream).
    if (res.body !== undefined && typeof res.body !== 'string') void Promise.resolve(res.body[Symbol.asyncIterator]().return?.()).catch(() => {})
    return new Response(null, { status: res.status, headers })
  }
  // As bytes: a string body would give the answer a `content-type: text/plain;charset=UTF-8` the server never sends
  // (an override's redirect with no body).
  if (typeof res.body === 'string') return new Response(new TextEncoder().encode(res.body), { status: res.status, headers })
  // Framed chunked (above), as node:http frames it: msw/node otherwise frames it by closing the connection, so a
  // TransportReset mid-body would look like a clean end to the client.
  return new Response(toStream(res.body, res.abort), { status: res.status, headers })
}

interface PageSocket extends WebSocket {
  handshake?: MswHandshake
}

/**
 * What a browser's WebSocket shows when the connection fails (a refused handshake, or a server gone without a close
 * frame): `error`, then `close` with 1006 and `wasClean: false`. MSW's mocked socket closes cleanly with the code it
 * is given, so the failure's close event is marked unclean on the way out.
 */
function failConnection(socket: PageSocket | undefined, client: { close(code?: number, reason?: string): void }) {
  if (socket && (socket.readyState === 2 || socket.readyState === 3)) return
  if (socket) {
    const dispatch = socket.dispatchEvent
    socket.dispatchEvent = function (this: PageSocket, event: Event) {
      if (event.type === 'close') {
        Object.defineProperty(event, 'wasClean', { value: false })
        socket.dispatchEvent = dispatch
      }
      return dispatch.call(this, event)
    }
    socket.dispatchEvent(new Event('error'))
  }
  client.close(1006, '')
}

/**
 * The arguments of a WebSocket's close() as the socket it stands in for converts and checks them, throwing what that
 * socket throws: a code other than 1000 or 3000-4999 (InvalidAccessError), a reason over 123 UTF-8 bytes
 * (SyntaxError). MSW's socket passed `'4000'` and `4000.5` on as codes and sent any reason.
 */
function closeArguments(code: unknown, reason: unknown): { code: number | undefined; reason: string } {
  let c: number | undefined
  // Chromium reads close(undefined, reason) as code 0; undici as no code.
  if (code !== undefined || (reason !== undefined && !IN_NODE)) {
    const x = Math.min(Math.max(Number(code) || 0, 0), 65535)
    const floor = Math.floor(x)
    // Clamped, then undici keeps an even floor and takes the ceiling of an odd one; Chromium keeps the floor.
    c = IN_NODE && floor % 2 === 1 ? Math.ceil(x) : floor
    if (c !== 1000 && (c < 3000 || c > 4999)) throw new DOMException(`The close code must be either 1000, or between 3000 and 4999. ${c} is neither.`, 'InvalidAccessError')
  }
  const r = reason === undefined ? '' : (`${reason as string}` as string & { toWellFormed(): string }).toWellFormed()
  const bytes = new TextEncoder().encode(r).byteLength
  if (bytes > 123) throw new DOMException(`The close reason must not be greater than 123 UTF-8 bytes; it has ${bytes}.`, 'SyntaxError')
  return { code: c, reason: r }
}

/** Under msw/node the page's socket stands in for Node's own (undici's); in a page, for the browser's (Chromium's). */
const IN_NODE = typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string'

type RunArgs = Parameters<WebSocketHandler['run']>

/**
 * MSW request handlers that answer the service's addresses with `fake`: HTTP (`http.all` on
 * `https://<region>.hyper.test`) and the events websocket (`ws.link` on `wss://<region>.hyper.test`). Add them
 * beside your own handlers in `setupServer(...)` (msw/node) or `setupWorker(...)` (msw/browser).
 * @example
 * const server = setupServer(...docksideHandlers(fake, { region: 'us-west-1' }), ...myHandlers)
 * server.listen()
 */
export function docksideHandlers(fake: ServedFake, options: DocksideHandlersOptions = {}): [HttpHandler, WebSocketHandler] {
  if (fake === null || typeof fake !== 'object' || typeof fake.protocol?.handle !== 'function') {
    throw new TypeError('docksideHandlers(fake, options) needs a fake from createDockside() as its first argument.')
  }
  const { http, ws } = mswApi()
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw new TypeError('docksideHandlers options must be an object, e.g. { region: "us-west-1" }.')
  const unknown = Object.keys(options).find((k) => !OPTION_NAMES.includes(k))
  if (unknown !== undefined) throw new TypeError(`docksideHandlers options: unknown option "${unknown}"; allowed: ${OPTION_NAMES.join(', ')}.`)
  // The same addresses and defaults as the in-process hook (one rule: registry.ts).
  const { origin, wsOrigin } = serviceOrigins(options)
  const protocol = fake.protocol
  const servedHttp = servedAt(origin)
  const servedWs = servedAt(wsOrigin)

  // Every request to the service's HTTP origin, except websocket upgrades (the ws.link below answers those).
  const httpHandler = http.all(
    ({ request }) => new URL(request.url).origin === origin && request.headers.get('upgrade')?.toLowerCase() !== 'websocket',
    async ({ request }) => {
      // A method the real server's parser refuses (a lowercase `patch`, which fetch does not upper-case) gets its 400.
      if (!PARSED_METHODS.includes(request.method)) {
        const { status, headers, body } = invalidMethodAnswer(request.method)
        return new Response(body, { status, headers })
      }
      const url = new URL(request.url)
      const headers: Record<string, string | undefined> = {}
      request.headers.forEach((value, key) => (headers[key] = value))
      // On the wire every request names its host; fetch adds it below the Request MSW sees.
      headers.host ??= url.host
      let body: Promise<string> | undefined
      const proto: ProtoRequest = {
        method: request.method,
        url: url.pathname + url.search,
        headers,
        signal: request.signal,
        body: (max) => (body ??= readCappedText(request.body as AsyncIterable<Uint8Array> | null, max)),
        remoteAddress: 'msw',
        served: servedHttp,
      }
      return toResponse(request.method, request.headers.get('connection'), await protocol.handle(proto))
    },
  )

  const link = ws.link(new RegExp(`^${escapeRegExp(wsOrigin)}(/|$)`))
  /** What each connection's handshake decided, from `run` (awaited by MSW before the socket opens) to `connection`. */
  const decided = new WeakMap<object, (client: RunArgs[0]['client']) => void>()
  const handler = link.addEventListener('connection', ({ client }) => decided.get(client)?.(client))

  // MSW opens the page's socket once every handler's `run` has resolved: the handshake is decided here, so a refusal
  // (or a stall, or connect latency) happens before `open`, as on the wire.
  const run = handler.run.bind(handler)
  handler.run = async (connection: RunArgs[0], context?: RunArgs[1]) => {
    if (!handler.test(connection.client.url, context)) return null
    const { client } = connection
    const socket = (client as { socket?: PageSocket }).socket
    const abort = new AbortController()
    let session: SocketSession | undefined
    let failed = false
    const fail = () => {
      failed = true
      abort.abort()
      failConnection(socket, client)
    }
    client.addEventListener('close', (event) => {
      abort.abort()
      const s = session
      session = undefined
      s?.clientClosed(event.code, event.reason)
    })
    client.addEventListener('message', (event) => {
      const data = event.data
      const size = typeof data === 'string' ? new TextEncoder().encode(data).byteLength : data instanceof Blob ? data.size : data.byteLength
      if (size > EVENTS_MAX_MESSAGE) session?.tooBig()
    })
    if (socket) {
      // close() and send() as a browser's (and undici's): MSW's take any code, close with 1000 when given none, and
      // close the socket on a send() before `open`.
      socket.close = function (this: PageSocket, code?: number, reason?: string) {
        const closing = closeArguments(code, reason)
        if (this.readyState === 0) return fail()
        if (this.readyState !== 1) return
        // No code and no reason: an empty close frame, which both ends report as 1005.
        client.close(closing.code ?? (closing.reason ? 1000 : 1005), closing.reason)
      }
      const send = socket.send
      socket.send = function (this: PageSocket, data: Parameters<WebSocket['send']>[0]) {
        if (this.readyState === 0) throw new DOMException("Failed to execute 'send' on 'WebSocket': Still in CONNECTING state.", 'InvalidStateError')
        return send.call(this, data)
      }
      // A frame's MessageEvent names the socket's origin, as a browser's and undici's do; MSW's gave its whole URL.
      const origin = new URL(socket.url).origin
      const dispatch = socket.dispatchEvent
      socket.dispatchEvent = function (this: PageSocket, event: Event) {
        if (event.type === 'message') Object.defineProperty(event, 'origin', { value: origin })
        return dispatch.call(this, event)
      }
      // An unknown binaryType is ignored, as the WebIDL enum setter does (undici's sets 'blob'); MSW's kept any value.
      let binaryType = socket.binaryType
      Object.defineProperty(socket, 'binaryType', {
        get: () => binaryType,
        set: (value: unknown) => {
          if (value === 'blob' || value === 'arraybuffer') binaryType = value
          else if (IN_NODE) binaryType = 'blob'
        },
        configurable: true,
      })
    }

    const url = new URL(connection.client.url)
    const list = connection.info.protocols
    const protocols = typeof list === 'string' ? [list] : (list ?? [])
    const headers: Record<string, string> = {
      host: url.host,
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-version': '13',
      ...(protocols.length ? { 'sec-websocket-protocol': protocols.join(', ') } : {}),
    }
    // A page's WebSocket sends its origin, as browsers do.
    const pageOrigin = (globalThis as { location?: { origin?: string } }).location?.origin
    if (pageOrigin && /^https?:\/\//.test(pageOrigin)) headers.origin = pageOrigin
    const req: ProtoRequest = { method: 'GET', url: url.pathname + url.search, headers, signal: abort.signal, body: async () => '', remoteAddress: 'msw', served: servedWs }

    let result: UpgradeResult
    try {
      result = await protocol.upgrade(req)
    } catch (error) {
      result = { kind: 'reject', response: errorResponse(error) as ProtoResponse & { body?: string } }
    }
    if (failed || (socket && socket.readyState !== 0)) {
      // The client gave up meanwhile; the protocol saw the abort. Still handled here: never passed to the network.
    } else if (result.kind !== 'accept') {
      const { status, headers: h, body } = result.response
      if (socket) socket.handshake = { status, headers: { ...h }, body: typeof body === 'string' ? body : undefined }
      fail()
    } else {
      if (socket) socket.handshake = { status: 101, headers: { upgrade: 'websocket', connection: 'Upgrade' }, body: undefined }
      const open = result.open
      decided.set(client, () => {
        if (socket && socket.readyState !== 0) return
        // A close or drop decided before the page saw `open` waits for it, as a client sees 101 before a close frame.
        const whenOpen = (fn: () => void) => (socket && socket.readyState === 0 ? socket.addEventListener('open', () => queueMicrotask(fn), { once: true }) : fn())
        session = open({
          send: (text) => client.send(text),
          // On a microtask, as the frames sent before it are: they reach the page first.
          close: (code, reason) => whenOpen(() => queueMicrotask(() => client.close(code, reason))),
          drop: () => whenOpen(() => queueMicrotask(() => failConnection(socket, client))),
        })
      })
    }
    return run(connection, context)
  }
  return [httpHandler, handler]
}
