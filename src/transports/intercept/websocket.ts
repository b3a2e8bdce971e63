import { Server as MockServer, WebSocket as MockWebSocket } from 'mock-socket'
import { errorResponse, jsonError } from '../../protocol/http'
import { EVENTS_MAX_MESSAGE } from '../../protocol/limits'
import type { ProtoRequest, SocketSession, UpgradeResult } from '../../protocol/types'
import { servedAt, wsOrigins, type HookedRegion } from './registry'

/** What the in-process handshake answered: 101, or the refusal's status, headers and body. */
export interface Handshake {
  status: number
  /** Lower-case header names. */
  headers: Record<string, string>
  /** The refusal's body (JSON text); undefined on success. */
  body: string | undefined
}

/** mock-socket dispatches every open and close after `setTimeout(…, 4)` of the global timers; refusals do the same. */
export const MOCK_SOCKET_DELAY_MS = 4

type Listener = ((event: Event) => void) | null

const CloseEventClass: new (type: string, init: { code: number; reason: string; wasClean: boolean }) => Event =
  (globalThis as { CloseEvent?: typeof CloseEvent }).CloseEvent ??
  class CloseEventPolyfill extends Event {
    readonly code: number
    readonly reason: string
    readonly wasClean: boolean
    constructor(type: string, init: { code: number; reason: string; wasClean: boolean }) {
      super(type)
      this.code = init.code
      this.reason = init.reason
      this.wasClean = init.wasClean
    }
  }

const later = (fn: () => void) => globalThis.setTimeout(fn, MOCK_SOCKET_DELAY_MS)

/** The WebSocket that was global before the first install, for hosts that are not hooked. */
let passThrough: typeof WebSocket | undefined
export const setPassThrough = (ws: typeof WebSocket | undefined) => void (passThrough = ws)

/** One mock-socket server per hooked websocket origin; accepted sessions run through it. */
interface Pipe {
  server: MockServer
  url: string
  waiting: Map<string, (serverSide: ServerSide) => void>
}
interface ServerSide {
  send(data: string): void
  close(options?: { code?: number; reason?: string }): void
}
const pipes = new Map<HookedRegion, Pipe>()
let nextPipeId = 0

export function openPipe(region: HookedRegion) {
  const url = `${region.wsOrigin}/events/ws`
  let server: MockServer
  try {
    server = new MockServer(url, { mock: false })
  } catch {
    throw new Error(`dockside: a mock-socket Server already listens on ${url} in this process. Stop it (server.stop()) before fake.intercept(), or hook another region.`)
  }
  const pipe: Pipe = { server, url, waiting: new Map() }
  server.on('connection', (socket) => {
    const id = new URL(socket.url).searchParams.get('dockside-session') ?? ''
    const take = pipe.waiting.get(id)
    pipe.waiting.delete(id)
    take?.(socket as unknown as ServerSide)
  })
  pipes.set(region, pipe)
}

export function closePipe(region: HookedRegion) {
  const pipe = pipes.get(region)
  pipes.delete(region)
  pipe?.server.stop()
}

function invalidAccess(message: string) {
  return new DOMException(message, 'InvalidAccessError')
}

/**
 * A WHATWG `WebSocket` that answers hooked hosts in process and hands every other URL to the WebSocket that
 * was global before. The handshake is decided by the fake before `open`: a refusal fires `error` then `close`
 * with 1006 (wasClean false) and never `open`, exactly as a real client sees a refused upgrade; its status,
 * headers and body are on {@link InProcessWebSocket.handshake}. Accepted sessions run over mock-socket.
 *
 * Pass this class to clients that take a WebSocket constructor (for example clients written for the `ws`
 * package's API subset `new WebSocket(url)` + `addEventListener`): they reach the fake without the global hook.
 */
export class InProcessWebSocket extends EventTarget {
  static readonly CONNECTING = 0
  static readonly OPEN = 1
  static readonly CLOSING = 2
  static readonly CLOSED = 3
  readonly CONNECTING = 0
  readonly OPEN = 1
  readonly CLOSING = 2
  readonly CLOSED = 3

  readonly url: string = ''
  readonly extensions = ''
  readonly protocol: string = ''
  readonly bufferedAmount = 0
  binaryType: 'blob' | 'arraybuffer' = 'blob'
  #state = 0
  /** Non-standard: the in-process handshake's answer, set before `open` or `error`. */
  handshake: Handshake | undefined

  #inner: InstanceType<typeof MockWebSocket> | undefined
  #session: SocketSession | undefined
  #abort = new AbortController()
  #handlers: Record<'open' | 'message' | 'error' | 'close', Listener> = { open: null, message: null, error: null, close: null }
  #dropped = false

  constructor(url: string | URL, protocols?: string | string[] | { headers?: Record<string, string> }, options?: { headers?: Record<string, string> }) {
    super()
    const raw = String(url)
    const parsed = new URL(raw)
    if (parsed.protocol === 'http:') parsed.protocol = 'ws:'
    if (parsed.protocol === 'https:') parsed.protocol = 'wss:'
    if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') throw new DOMException(`The URL's scheme must be either 'ws' or 'wss'. '${parsed.protocol}' is not allowed.`, 'SyntaxError')
    if (parsed.hash) throw new DOMException(`The URL contains a fragment identifier ('${parsed.hash}'). Fragment identifiers are not allowed in WebSocket URLs.`, 'SyntaxError')
    const region = wsOrigins.get(parsed.origin)
    // Exactly as the client gave it: raw JSON in the query reaches the protocol unencoded, as on the wire.
    const pathAndQuery = rawPathAndQuery(raw)
    const opts = typeof protocols === 'object' && !Array.isArray(protocols) ? protocols : options
    const list = typeof protocols === 'string' ? [protocols] : Array.isArray(protocols) ? protocols : []
    if (!region || (region.onUnhandled === 'bypass' && !region.routes.websocket(pathAndQuery))) {
      const Original = passThrough
      if (!Original) throw new Error(`dockside: no WebSocket to pass ${raw} to: this host is not hooked and there was no global WebSocket before intercept().`)
      return new Original(raw, list) as unknown as InProcessWebSocket
    }
    this.url = parsed.href
    const headers: Record<string, string> = {
      host: parsed.host,
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-version': '13',
      ...(list.length ? { 'sec-websocket-protocol': list.join(', ') } : {}),
    }
    for (const [k, v] of Object.entries(opts?.headers ?? {})) headers[k.toLowerCase()] = v
    const req: ProtoRequest = { method: 'GET', url: pathAndQuery, headers, signal: this.#abort.signal, body: async () => '', remoteAddress: 'in-process', served: servedAt(region.wsOrigin) }
    void this.#connect(region, req)
  }

  get readyState() {
    return this.#state
  }

  async #connect(region: HookedRegion, req: ProtoRequest) {
    let result: UpgradeResult
    try {
      result = await region.protocol.upgrade(req)
      if (result.kind === 'not-found') {
        const { response } = result
        result = await region.unhandled('GET', this.url, async () => ({ kind: 'reject', response }) as const)
      }
    } catch (error) {
      // `onUnhandled: 'error'` fails the handshake with the fake's 404 and its message; anything else is the protocol's 500.
      const message = (error as Error).message
      result = { kind: 'reject', response: message.startsWith('dockside:') ? jsonError(404, message) : errorResponse(error) }
    }
    if (result.kind !== 'accept') {
      const { status, headers, body } = result.response
      this.handshake = { status, headers: { ...headers }, body }
      return later(() => this.#fail())
    }
    // Closed by the client meanwhile: its own pending failure (close() in CONNECTING) ends the socket, once.
    if (this.#state !== InProcessWebSocket.CONNECTING) return
    const pipe = pipes.get(region)
    if (!pipe) return later(() => this.#fail())
    const open = result.open
    const id = String(++nextPipeId)
    pipe.waiting.set(id, (serverSide) => {
      if (this.#state !== InProcessWebSocket.OPEN) return
      // Frames are delivered on a microtask: after the fake's state change returns, before any timer.
      this.#session = open({
        send: (text) => queueMicrotask(() => serverSide.send(text)),
        close: (code, reason) => queueMicrotask(() => serverSide.close({ code, reason })),
        drop: () => queueMicrotask(() => this.#drop()),
      })
      // `open` fires only now that the fake has subscribed the socket, as on the server (where the 101 follows
      // the subscription): an event emitted inside the client's `onopen` reaches it.
      this.dispatchEvent(new Event('open'))
    })
    const inner = new MockWebSocket(`${pipe.url}?dockside-session=${id}`)
    this.#inner = inner
    // mock-socket fires the client's `open`, then the server's `connection` (above), in one synchronous step.
    inner.addEventListener('open', () => {
      if (this.#state !== InProcessWebSocket.CONNECTING) return
      this.handshake = { status: 101, headers: { upgrade: 'websocket', connection: 'Upgrade' }, body: undefined }
      this.#state = InProcessWebSocket.OPEN
    })
    inner.addEventListener('message', (event) => {
      if (this.#state !== InProcessWebSocket.OPEN) return
      this.dispatchEvent(new MessageEvent('message', { data: (event as MessageEvent).data, origin: new URL(this.url).origin }))
    })
    inner.addEventListener('close', (event) => {
      if (this.#dropped) return
      const e = event as unknown as { code: number; reason: string }
      this.#finish(e.code, e.reason ?? '', true, false)
    })
  }

  /** The connection failed before opening: `error`, then `close` 1006 (wasClean false). */
  #fail() {
    this.#finish(1006, '', false, true)
  }

  /** The server went away without a close frame. */
  #drop() {
    if (this.#state !== InProcessWebSocket.OPEN && this.#state !== InProcessWebSocket.CLOSING) return
    // Detach from mock-socket; no close frame reaches this socket.
    this.#dropped = true
    this.#inner?.close()
    this.#inner = undefined
    later(() => this.#finish(1006, '', false, true))
  }

  #finish(code: number, reason: string, wasClean: boolean, error: boolean) {
    if (this.#state === InProcessWebSocket.CLOSED) return
    this.#state = InProcessWebSocket.CLOSED
    this.#abort.abort()
    this.#session?.clientClosed(code, reason)
    this.#session = undefined
    if (error) this.dispatchEvent(new Event('error'))
    this.dispatchEvent(new CloseEventClass('close', { code, reason, wasClean }))
  }

  send(data: string | ArrayBufferLike | Blob | ArrayBufferView) {
    if (this.#state === InProcessWebSocket.CONNECTING) throw new DOMException("Failed to execute 'send' on 'WebSocket': Still in CONNECTING state.", 'InvalidStateError')
    if (this.#state !== InProcessWebSocket.OPEN) return
    // The events endpoint ignores client messages, as the real service does, and closes with 1009 on one over its limit.
    if (byteLength(data) > EVENTS_MAX_MESSAGE) return void this.#session?.tooBig()
    this.#inner?.send(typeof data === 'string' ? data : String(data))
  }

  close(code?: number, reason?: string) {
    if (code !== undefined && code !== 1000 && (code < 3000 || code > 4999)) throw invalidAccess(`The close code must be either 1000, or between 3000 and 4999. ${code} is neither.`)
    if (reason !== undefined && Buffer.byteLength(reason) > 123) throw new DOMException('The close reason must not be greater than 123 UTF-8 bytes.', 'SyntaxError')
    if (this.#state === InProcessWebSocket.CLOSING || this.#state === InProcessWebSocket.CLOSED) return
    if (this.#state === InProcessWebSocket.CONNECTING) {
      // Closing before the handshake completed fails the connection, as in a browser or undici.
      this.#state = InProcessWebSocket.CLOSING
      return void later(() => this.#fail())
    }
    this.#state = InProcessWebSocket.CLOSING
    // mock-socket delivers the close (with the code the client chose, 1005 when none) after its 4 ms delay.
    this.#inner?.close(code, reason)
  }

  get onopen() {
    return this.#handlers.open
  }
  set onopen(fn: Listener) {
    this.#setHandler('open', fn)
  }
  get onmessage() {
    return this.#handlers.message
  }
  set onmessage(fn: Listener) {
    this.#setHandler('message', fn)
  }
  get onerror() {
    return this.#handlers.error
  }
  set onerror(fn: Listener) {
    this.#setHandler('error', fn)
  }
  get onclose() {
    return this.#handlers.close
  }
  set onclose(fn: Listener) {
    this.#setHandler('close', fn)
  }
  #setHandler(type: 'open' | 'message' | 'error' | 'close', fn: Listener) {
    const old = this.#handlers[type]
    if (old) this.removeEventListener(type, old)
    this.#handlers[type] = fn
    if (fn) this.addEventListener(type, fn)
  }
}

/** The size of a message as it would go on the wire. */
function byteLength(data: string | ArrayBufferLike | Blob | ArrayBufferView): number {
  if (typeof data === 'string') return Buffer.byteLength(data)
  if (data instanceof Blob) return data.size
  return data.byteLength
}

/** `/path?query` of a URL string exactly as written (no re-encoding). */
function rawPathAndQuery(raw: string): string {
  const afterScheme = raw.indexOf('//')
  const start = raw.indexOf('/', afterScheme + 2)
  const q = raw.indexOf('?', afterScheme + 2)
  const from = start < 0 || (q >= 0 && q < start) ? -1 : start
  let rest = from < 0 ? (q >= 0 ? '/' + raw.slice(q) : '/') : raw.slice(from)
  const hash = rest.indexOf('#')
  if (hash >= 0) rest = rest.slice(0, hash)
  return rest
}
