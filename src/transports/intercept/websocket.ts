// The in-process WHATWG WebSocket: what a client observes is what Node's own WebSocket (undici's) observes against
// the real server, checked side by side in test/intercept/websocket-parity.test.ts. No mock-socket in between:
// see docs/decisions/0008-in-process-websocket.md. Departures from Node are the spec's, listed in docs/in-process.md.
import { createHash } from 'node:crypto'
import { getEventListeners } from 'node:events'
import { errorResponse, jsonError } from '../../protocol/http'
import { EVENTS_MAX_MESSAGE } from '../../protocol/limits'
import { chooseSubprotocol } from '../../protocol/subprotocol'
import type { ProtoRequest, SocketSession, UpgradeResult } from '../../protocol/types'
import { globalTimers } from '../../runtime/global-timers'
import { hostTimers } from '../../runtime/host-timers'
import { servedAt, wsOrigins, type HookedRegion } from './registry'

/** What the in-process handshake answered: 101, or the refusal's status, headers and body. */
export interface Handshake {
  status: number
  /** Lower-case header names. */
  headers: Record<string, string>
  /** The refusal's body (JSON text); undefined on success. */
  body: string | undefined
}

/** The WebSocket that was global before the first install, for hosts that are not hooked. */
let passThrough: typeof WebSocket | undefined
export const setPassThrough = (ws: typeof WebSocket | undefined) => void (passThrough = ws)

// ---------------------------------------------------------------------------------------------------------------
// Tasks. Everything the "network" does (open, each frame, closes) reaches the client in a later task, never on a
// microtask, and on the host's real setImmediate captured at import: a user's fake timers never stall a frame.
// Frames sent in one turn are dispatched in one task, in order, as Node dispatches frames that arrive in one read.
// ---------------------------------------------------------------------------------------------------------------

type Job = (() => void) | string

/** One task queue: frames and state changes of its sockets, dispatched in order, one host task per turn. */
interface TaskQueue {
  targets: (InProcessWebSocket | undefined)[]
  jobs: Job[]
  scheduled: boolean
  readonly schedule: (fn: () => void) => unknown
}

const taskQueue = (schedule: (fn: () => void) => unknown): TaskQueue => ({ targets: [], jobs: [], scheduled: false, schedule })
/** The default: the host's real setImmediate, captured at import. */
const REAL_TASKS = taskQueue((fn) => hostTimers.immediate(fn))
/**
 * For a fake that follows the global timers (`followGlobalTimers()`): its user asked one clock to drive both the client
 * and the fake, so its sockets' tasks run on the global (possibly faked) setImmediate too, and `vi.advanceTimersByTime`
 * delivers them in step with the client's own timers.
 */
const FOLLOWED_TASKS = taskQueue((fn) => globalTimers.immediate(fn))

function enqueue(queue: TaskQueue, target: InProcessWebSocket | undefined, job: Job) {
  queue.targets.push(target)
  queue.jobs.push(job)
  if (!queue.scheduled) {
    queue.scheduled = true
    queue.schedule(() => flush(queue))
  }
}

function flush(queue: TaskQueue) {
  queue.scheduled = false
  const t = queue.targets
  const j = queue.jobs
  queue.targets = []
  queue.jobs = []
  for (let i = 0; i < j.length; i++) {
    const job = j[i]
    try {
      if (typeof job === 'string') receive(t[i]!, job)
      else job()
    } catch (error) {
      // Listener errors never get here (EventTarget reports them itself); anything else must not stop the others.
      for (let k = i + 1; k < j.length; k++) enqueue(queue, t[k], j[k])
      throw error
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Events, as Node's WebSocket fires them.
// ---------------------------------------------------------------------------------------------------------------

/**
 * Why the handshake request's signal aborts when the socket ends: one reason for all (`abort()` without one builds an
 * AbortError DOMException with a stack trace on every close).
 */
const SOCKET_ENDED = new DOMException('The in-process WebSocket ended.', 'AbortError')

const illegal = () => Object.assign(new TypeError('Illegal invocation'), { code: 'ERR_INVALID_THIS' })
const NO_PORTS: readonly MessagePort[] = Object.freeze([])

/**
 * A `MessageEvent` (`instanceof MessageEvent`, `[object MessageEvent]`, the same attributes) built at the cost of a
 * plain `Event`: the native constructor converts its init dictionary field by field (~0.8 µs a message).
 */
class FastMessageEvent extends Event {
  #data: unknown
  #origin: string
  constructor(data: unknown, origin: string) {
    super('message')
    this.#data = data
    this.#origin = origin
  }
  get data() {
    if (!(#data in this)) throw illegal()
    return this.#data
  }
  get origin() {
    if (!(#data in this)) throw illegal()
    return this.#origin
  }
  get lastEventId() {
    if (!(#data in this)) throw illegal()
    return ''
  }
  get source() {
    if (!(#data in this)) throw illegal()
    return null
  }
  get ports() {
    if (!(#data in this)) throw illegal()
    return NO_PORTS
  }
  initMessageEvent(type: string, bubbles = false, cancelable = false, data: unknown = null, origin = '', lastEventId = '', source: MessagePort | null = null, ports: MessagePort[] = []) {
    if (!(#data in this)) throw illegal()
    return new MessageEvent(type, { bubbles, cancelable, data, origin, lastEventId, source, ports })
  }
}
if (typeof MessageEvent === 'function') {
  Object.setPrototypeOf(FastMessageEvent.prototype, MessageEvent.prototype)
  Object.defineProperty(FastMessageEvent.prototype, 'constructor', { value: MessageEvent, writable: true, configurable: true })
}
const enumerable = { enumerable: true }
Object.defineProperties(FastMessageEvent.prototype, { data: enumerable, origin: enumerable, lastEventId: enumerable, source: enumerable, ports: enumerable, initMessageEvent: enumerable })

/** Node has no global `ErrorEvent`; its WebSocket fires undici's, which looks like this one. */
class ErrorEventShim extends Event {
  #init: { message: string; filename: string; lineno: number; colno: number; error: unknown }
  constructor(type: string, init: { message?: string; filename?: string; lineno?: number; colno?: number; error?: unknown } = {}) {
    super(type, init as EventInit)
    this.#init = { message: String(init.message ?? ''), filename: String(init.filename ?? ''), lineno: (init.lineno ?? 0) >>> 0, colno: (init.colno ?? 0) >>> 0, error: init.error }
  }
  get message() {
    if (!(#init in this)) throw illegal()
    return this.#init.message
  }
  get filename() {
    if (!(#init in this)) throw illegal()
    return this.#init.filename
  }
  get lineno() {
    if (!(#init in this)) throw illegal()
    return this.#init.lineno
  }
  get colno() {
    if (!(#init in this)) throw illegal()
    return this.#init.colno
  }
  get error() {
    if (!(#init in this)) throw illegal()
    return this.#init.error
  }
}
Object.defineProperty(ErrorEventShim, 'name', { value: 'ErrorEvent' })
Object.defineProperties(ErrorEventShim.prototype, {
  [Symbol.toStringTag]: { value: 'ErrorEvent', configurable: true },
  message: enumerable,
  filename: enumerable,
  lineno: enumerable,
  colno: enumerable,
  error: enumerable,
})
const ErrorEventClass: typeof ErrorEventShim = (globalThis as unknown as { ErrorEvent?: typeof ErrorEventShim }).ErrorEvent ?? ErrorEventShim

type CloseInit = { code: number; reason: string; wasClean: boolean }
class CloseEventShim extends Event {
  readonly code: number
  readonly reason: string
  readonly wasClean: boolean
  constructor(type: string, init: CloseInit) {
    super(type)
    this.code = init.code
    this.reason = init.reason
    this.wasClean = init.wasClean
  }
}
const CloseEventClass: new (type: string, init: CloseInit) => Event = (globalThis as unknown as { CloseEvent?: typeof CloseEventShim }).CloseEvent ?? CloseEventShim

// ---------------------------------------------------------------------------------------------------------------
// WebIDL conversions, as undici's WebSocket applies them (lib/web/websocket/websocket.js, lib/web/webidl).
// ---------------------------------------------------------------------------------------------------------------

/** USVString: lone surrogates become U+FFFD (`String.prototype.toWellFormed`, Node 20+). */
const usv = (v: unknown) => (typeof v === 'string' ? v : `${v as string}`) as string & { toWellFormed(): string }
const wellFormed = (v: unknown) => usv(v).toWellFormed()

function domString(v: unknown, prefix: string, argument: string) {
  if (typeof v === 'symbol') throw new TypeError(`${prefix}: ${argument} is a symbol, which cannot be converted to a DOMString.`)
  return String(v)
}

function argumentCheck(length: number, prefix: string) {
  if (length < 1) throw new TypeError(`${prefix}: 1 argument required, but 0 found.`)
}

/**
 * `[Clamp] unsigned short` as undici converts it: clamped to 0..65535, then the floor when the floor is even and the
 * ceiling when it is odd (3000.7 is 3000, 3001.2 is 3002, 1000.9 is 1000). The WebIDL spec rounds to the nearest
 * integer instead; a client gets Node's code here, the one its close frame carries in production.
 */
function clampUnsignedShort(v: unknown): number {
  const x = Number(v)
  if (Number.isNaN(x)) return 0
  const c = Math.min(Math.max(x, 0), 65535)
  const f = Math.floor(c)
  return f % 2 === 0 ? f : Math.ceil(c)
}

/** RFC 6455 token characters: what `Sec-WebSocket-Protocol` values may hold. */
function isValidSubprotocol(p: string) {
  if (p.length === 0) return false
  for (let i = 0; i < p.length; i++) {
    const c = p.charCodeAt(i)
    if (c < 0x21 || c > 0x7e || '"(),/:;<=>?@[\\]{}'.includes(p[i])) return false
  }
  return true
}

function protocolList(v: unknown, prefix: string): string[] {
  if (v !== null && (typeof v === 'object' || typeof v === 'function') && Symbol.iterator in v) {
    let i = 0
    return Array.from(v as Iterable<unknown>, (p) => domString(p, prefix, `protocols[${i++}]`))
  }
  return [domString(v, prefix, 'protocols')]
}

interface WebSocketInit {
  protocols: string[]
  headers: Record<string, string>
}

/** The constructor's default: no subprotocols, converted without walking an iterator. */
const NO_PROTOCOLS: string[] = []

function webSocketInit(v: unknown, prefix: string): WebSocketInit {
  if (v === NO_PROTOCOLS) return { protocols: [], headers: {} }
  if (v !== null && (typeof v === 'object' || typeof v === 'function') && !(Symbol.iterator in v)) {
    const init = v as { protocols?: unknown; headers?: unknown }
    const headers: Record<string, string> = {}
    if (init.headers != null) new Headers(init.headers as HeadersInit).forEach((value, k) => (headers[k] = value))
    return { protocols: init.protocols === undefined ? [] : protocolList(init.protocols, prefix), headers }
  }
  return { protocols: protocolList(v, prefix), headers: {} }
}

function urlRecord(url: string): URL {
  let record: URL
  try {
    record = new URL(url)
  } catch (error) {
    throw new DOMException(String(error), 'SyntaxError')
  }
  if (record.protocol === 'http:') record.protocol = 'ws:'
  else if (record.protocol === 'https:') record.protocol = 'wss:'
  if (record.protocol !== 'ws:' && record.protocol !== 'wss:') throw new DOMException('expected a ws: or wss: url', 'SyntaxError')
  if (record.hash.length || record.href.endsWith('#')) throw new DOMException('hash', 'SyntaxError')
  return record
}

function sendData(v: unknown): string | Blob | ArrayBuffer | ArrayBufferView {
  if (v !== null && typeof v === 'object') {
    if (v instanceof Blob) return v
    if (v instanceof ArrayBuffer || ArrayBuffer.isView(v)) return v as ArrayBuffer | ArrayBufferView
  }
  return wellFormed(v)
}

function byteLength(data: string | Blob | ArrayBuffer | ArrayBufferView): number {
  if (typeof data === 'string') return Buffer.byteLength(data)
  if (data instanceof Blob) return data.size
  return data.byteLength
}

/** Sec-WebSocket-Key values: 16 bytes each, from a counter, so that a seeded run records the same keys every time (the fake's seeded random source is not drawn from). */
let keysMade = 0
const nextKey = () => createHash('sha1').update(`dockside websocket key ${++keysMade}`).digest().subarray(0, 16).toString('base64')

/**
 * The upgrade request's headers, as undici sends them and in its order: what `fake.requests` records for the
 * handshake is what it records from Node's WebSocket against the real server. The client's own headers replace the
 * defaults of the same name.
 */
function handshakeHeaders(host: string, own: Record<string, string>, protocols: string[]): Record<string, string> {
  const headers: Record<string, string> = { host, connection: 'upgrade', upgrade: 'websocket', ...own }
  headers['sec-websocket-key'] = nextKey()
  headers['sec-websocket-version'] = '13'
  if (protocols.length) headers['sec-websocket-protocol'] = protocols.join(', ')
  headers['sec-websocket-extensions'] = 'permessage-deflate; client_max_window_bits'
  for (const [k, v] of WIRE_DEFAULTS) headers[k] ??= v
  return headers
}
const WIRE_DEFAULTS = [['accept', '*/*'], ['accept-language', '*'], ['sec-fetch-mode', 'websocket'], ['user-agent', 'node'], ['pragma', 'no-cache'], ['cache-control', 'no-cache'], ['accept-encoding', 'gzip, deflate']] as const

/** The address a hooked region serves, parsed once per region rather than once per connect. */
const served = new WeakMap<HookedRegion, ReturnType<typeof servedAt>>()
function servedOf(region: HookedRegion) {
  let s = served.get(region)
  if (!s) served.set(region, (s = servedAt(region.wsOrigin)))
  return s
}

const CONNECTING = 0
const OPEN = 1
const CLOSING = 2
const CLOSED = 3

/** An `on…` handler, typed as the DOM's (`this` is the socket, the event of its kind): the class is a `typeof WebSocket`. */
type Handler<E extends Event = Event> = ((this: WebSocket, event: E) => unknown) | null
type HandlerType = 'open' | 'message' | 'error' | 'close'

/** Delivers one text frame (a job of {@link flush}): the hot path, one event per frame per socket. */
let receive: (ws: InProcessWebSocket, text: string) => void

/**
 * A WHATWG `WebSocket` that answers hooked hosts in process and hands every other URL to the WebSocket that was
 * global before. Arguments, errors, attributes, event classes and their order are those of Node's own WebSocket
 * (undici) against the real server; see docs/in-process.md for the differences that remain and why.
 *
 * The handshake is decided by the fake before `open`: a refusal fires `error` then `close` with 1006 (wasClean
 * false) and never `open`, exactly as a real client sees a refused upgrade; its status, headers and body are on
 * the non-standard {@link InProcessWebSocket.handshake}.
 *
 * Pass this class to clients that take a WebSocket constructor (for example clients written for the `ws`
 * package's API subset `new WebSocket(url)` + `addEventListener`): they reach the fake without the global hook.
 */
export class InProcessWebSocket extends EventTarget {
  declare static readonly CONNECTING: 0
  declare static readonly OPEN: 1
  declare static readonly CLOSING: 2
  declare static readonly CLOSED: 3
  declare readonly CONNECTING: 0
  declare readonly OPEN: 1
  declare readonly CLOSING: 2
  declare readonly CLOSED: 3

  #state = CONNECTING
  #url!: URL
  #origin = ''
  #protocol = ''
  #bufferedAmount = 0
  #binaryType: BinaryType = 'blob'
  #handlers: Record<HandlerType, unknown> = { open: null, message: null, error: null, close: null }
  #handshake: Handshake | undefined
  #session: SocketSession | undefined
  #abort: AbortController | undefined
  /** The client's close frame (or the server's) has gone out: nothing more is sent or delivered. */
  #closeSent = false
  /** Where this socket's tasks run (see {@link FOLLOWED_TASKS}). */
  #tasks: TaskQueue = REAL_TASKS

  /**
   * A socket to a host that is not hooked is the WebSocket that was global before (see the constructor): it is an
   * instance of this class too, as it is of the global `WebSocket` without the hooks.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true
    return this === InProcessWebSocket && passThrough !== undefined && passThrough !== InProcessWebSocket && value instanceof passThrough
  }

  static {
    receive = (ws, text) => {
      if (ws.#state !== OPEN) return
      ws.dispatchEvent(new FastMessageEvent(text, ws.#origin))
    }
  }

  constructor(url: string | URL, protocols: string | string[] | { protocols?: string | string[]; headers?: HeadersInit } = NO_PROTOCOLS) {
    super()
    const prefix = 'WebSocket constructor'
    argumentCheck(arguments.length, prefix)
    const init = webSocketInit(protocols, prefix)
    const record = urlRecord(wellFormed(url))
    const list = init.protocols
    if (list.length !== new Set(list.map((p) => p.toLowerCase())).size) throw new DOMException('Invalid Sec-WebSocket-Protocol value', 'SyntaxError')
    if (list.length > 0 && !list.every(isValidSubprotocol)) throw new DOMException('Invalid Sec-WebSocket-Protocol value', 'SyntaxError')

    const region = wsOrigins.get(record.origin)
    // What goes on the request line: the URL's path and query as the URL parser serialises them ('..' resolved,
    // `"` in a query percent-encoded), as undici sends them.
    const target = record.pathname + (record.search === '' && record.href.endsWith('?') ? '?' : record.search)
    if (!region || (region.onUnhandled === 'bypass' && !region.routes.websocket(target))) {
      const Original = passThrough
      if (!Original) throw new Error(`dockside: no WebSocket to pass ${record.href} to: this host is not hooked and there was no global WebSocket before intercept().`)
      return new Original(url, (protocols === NO_PROTOCOLS ? [] : protocols) as string[]) as unknown as InProcessWebSocket
    }
    this.#url = record
    this.#origin = record.origin
    if (region.fake.clock.host === globalTimers) this.#tasks = FOLLOWED_TASKS
    const headers = handshakeHeaders(record.host, init.headers, list)
    const abort = new AbortController()
    this.#abort = abort
    const req: ProtoRequest = { method: 'GET', url: target, headers, signal: abort.signal, body: async () => '', remoteAddress: 'in-process', served: servedOf(region) }
    void this.#connect(region, req, list)
  }

  async #connect(region: HookedRegion, req: ProtoRequest, offered: string[]) {
    let result: UpgradeResult
    try {
      result = await region.protocol.upgrade(req)
      if (result.kind === 'not-found') {
        const { response } = result
        result = await region.unhandled('GET', this.#url.href, async () => ({ kind: 'reject', response }) as const)
      }
    } catch (error) {
      // `onUnhandled: 'error'` fails the handshake with the fake's 404 and its message; anything else is the protocol's 500.
      const message = (error as Error).message
      result = { kind: 'reject', response: message.startsWith('dockside:') ? jsonError(404, message) : errorResponse(error) }
    }
    // Closed by the client meanwhile: its own pending failure ends the socket, once; the fake never opens it.
    if (this.#state !== CONNECTING) return
    if (result.kind !== 'accept') {
      const { status, headers, body } = result.response
      this.#handshake = { status, headers: { ...headers }, body }
      return enqueue(this.#tasks, this, () => this.#fail())
    }
    const open = result.open
    const protocol = chooseSubprotocol(offered)
    enqueue(this.#tasks, this, () => {
      if (this.#state !== CONNECTING) return
      this.#handshake = { status: 101, headers: { upgrade: 'websocket', connection: 'Upgrade', ...(protocol ? { 'sec-websocket-protocol': protocol } : {}) }, body: undefined }
      this.#state = OPEN
      this.#protocol = protocol ?? ''
      // The fake subscribes the socket first, as on the server (where the 101 follows the subscription): an event
      // emitted inside the client's `onopen` reaches it. Whatever it sends meanwhile comes in later tasks.
      this.#session = open({
        send: (text) => {
          if (!this.#closeSent) enqueue(this.#tasks, this, text)
        },
        close: (code, reason) => this.#serverClose(code, reason),
        drop: () => this.#serverClose(1006, ''),
      })
      // Nothing listens to the handshake's signal once the socket is open (the protocol listens only while it
      // decides): let it go, so that the close does not build and dispatch an abort event nobody hears.
      if (getEventListeners(this.#abort!.signal, 'abort').length === 0) this.#abort = undefined
      this.dispatchEvent(new Event('open'))
    })
  }

  /**
   * The server's close frame reaches the client in a later task and makes it CLOSING (a `send()` now is dropped); the
   * connection's end, with the `close` event, comes in the task after, as Node's WebSocket sees the frame and then the
   * TCP close. Going away without a frame (1006) is the end at once: CLOSED, `error`, `close`.
   */
  #serverClose(code: number, reason: string) {
    if (this.#state === CLOSED) return
    this.#session = undefined
    // The server's own end: the protocol has already recorded it (no clientClosed back); a close frame of the
    // client's, if any, crossed it.
    if (code === 1006) return enqueue(this.#tasks, this, () => this.#finish(code, reason, false, true))
    enqueue(this.#tasks, this, () => {
      if (this.#state === CLOSED) return
      this.#state = CLOSING
      this.#closeSent = true
      enqueue(this.#tasks, this, () => this.#finish(code, reason, true, false))
    })
  }

  /** The connection failed before opening: `error`, then `close` 1006 (wasClean false). */
  #fail() {
    this.#finish(1006, '', false, true)
  }

  #finish(code: number, reason: string, wasClean: boolean, error: boolean) {
    if (this.#state === CLOSED) return
    this.#state = CLOSED
    this.#closeSent = true
    this.#abort?.abort(SOCKET_ENDED)
    const session = this.#session
    this.#session = undefined
    session?.clientClosed(code, reason)
    if (error) this.dispatchEvent(new ErrorEventClass('error', { error: new TypeError('') }))
    this.dispatchEvent(new CloseEventClass('close', { wasClean, code, reason }))
  }

  close(code: number | undefined = undefined, reason: string | undefined = undefined) {
    if (!(#state in this)) throw illegal()
    const c = code === undefined ? null : clampUnsignedShort(code)
    const r = reason === undefined ? '' : wellFormed(reason)
    if (c !== null && c !== 1000 && (c < 3000 || c > 4999)) throw new DOMException('invalid code', 'InvalidAccessError')
    const bytes = Buffer.byteLength(r)
    if (bytes > 123) throw new DOMException(`Reason must be less than 123 bytes; received ${bytes}`, 'SyntaxError')
    if (this.#state === CLOSING || this.#state === CLOSED) return
    if (this.#state === CONNECTING) {
      // Fail the connection; its error and close come in a later task (the spec; Node fires them inside close()).
      this.#state = CLOSING
      this.#abort?.abort(SOCKET_ENDED)
      return enqueue(this.#tasks, this, () => this.#fail())
    }
    this.#state = CLOSING
    if (this.#closeSent) return
    this.#closeSent = true
    // A close frame: a reason without a code is sent as 1000, neither as an empty frame (1005 on both ends).
    const sentCode = c ?? (r.length ? 1000 : 1005)
    const session = this.#session
    this.#session = undefined
    enqueue(this.#tasks, this, () => {
      session?.clientClosed(sentCode, r)
      // The server echoes the client's close frame: the close event carries the client's own code and reason.
      this.#finish(sentCode, r, true, false)
    })
  }

  send(data: string | ArrayBufferLike | Blob | ArrayBufferView) {
    if (!(#state in this)) throw illegal()
    argumentCheck(arguments.length, 'WebSocket.send')
    const value = sendData(data)
    if (this.#state === CONNECTING) throw new DOMException('Sent before connected.', 'InvalidStateError')
    if (this.#state !== OPEN) return
    const n = byteLength(value)
    this.#bufferedAmount += n
    const session = this.#session
    enqueue(this.#tasks, this, () => {
      this.#bufferedAmount -= n
      // The events endpoint ignores client messages, as the real service does, and closes with 1009 on one over its limit.
      if (n > EVENTS_MAX_MESSAGE && session && this.#session === session) session.tooBig()
    })
  }

  get readyState() {
    if (!(#state in this)) throw illegal()
    return this.#state
  }
  get bufferedAmount() {
    if (!(#state in this)) throw illegal()
    return this.#bufferedAmount
  }
  get url() {
    if (!(#state in this)) throw illegal()
    return this.#url.href
  }
  get extensions() {
    if (!(#state in this)) throw illegal()
    return ''
  }
  get protocol() {
    if (!(#state in this)) throw illegal()
    return this.#protocol
  }
  /** Non-standard: the in-process handshake's answer, set before `open` or `error`. */
  get handshake(): Handshake | undefined {
    if (!(#state in this)) throw illegal()
    return this.#handshake
  }

  get onopen(): Handler {
    return this.#getHandler('open')
  }
  set onopen(fn: Handler) {
    this.#setHandler('open', fn)
  }
  get onerror(): Handler {
    return this.#getHandler('error')
  }
  set onerror(fn: Handler) {
    this.#setHandler('error', fn)
  }
  get onclose(): Handler<CloseEvent> {
    return this.#getHandler('close') as Handler<CloseEvent>
  }
  set onclose(fn: Handler<CloseEvent>) {
    this.#setHandler('close', fn)
  }
  get onmessage(): Handler<MessageEvent> {
    return this.#getHandler('message') as Handler<MessageEvent>
  }
  set onmessage(fn: Handler<MessageEvent>) {
    this.#setHandler('message', fn)
  }
  get binaryType(): BinaryType {
    if (!(#state in this)) throw illegal()
    return this.#binaryType
  }
  set binaryType(type: BinaryType) {
    if (!(#state in this)) throw illegal()
    this.#binaryType = type === 'blob' || type === 'arraybuffer' ? type : 'blob'
  }
  #getHandler(type: HandlerType): Handler {
    if (!(#state in this)) throw illegal()
    return this.#handlers[type] as Handler
  }
  /** `[LegacyTreatNonObjectAsNull]`: a non-object is null; a non-callable object is kept and does nothing. */
  #setHandler(type: HandlerType, fn: unknown) {
    if (!(#state in this)) throw illegal()
    const old = this.#handlers[type] as { listener?: EventListener } | null
    if (old) this.removeEventListener(type, this.#listeners.get(type)!)
    if (fn === null || (typeof fn !== 'object' && typeof fn !== 'function')) {
      this.#handlers[type] = null
      return
    }
    const listener = typeof fn === 'function' ? (fn as EventListener) : () => {}
    this.#listeners.set(type, listener)
    this.addEventListener(type, listener)
    this.#handlers[type] = fn
  }
  #listeners = new Map<HandlerType, EventListener>()
}

const constant = (value: number) => ({ value, enumerable: true, writable: false, configurable: false })
const states = { CONNECTING: constant(CONNECTING), OPEN: constant(OPEN), CLOSING: constant(CLOSING), CLOSED: constant(CLOSED) }
Object.defineProperties(InProcessWebSocket, states)
// What `ws.constructor.name` and V8's messages (`#<WebSocket>`) say, as for Node's class.
Object.defineProperty(InProcessWebSocket, 'name', { value: 'WebSocket' })
Object.defineProperties(InProcessWebSocket.prototype, {
  ...states,
  url: enumerable,
  readyState: enumerable,
  bufferedAmount: enumerable,
  onopen: enumerable,
  onerror: enumerable,
  onclose: enumerable,
  close: enumerable,
  onmessage: enumerable,
  binaryType: enumerable,
  send: enumerable,
  extensions: enumerable,
  protocol: enumerable,
  [Symbol.toStringTag]: { value: 'WebSocket', writable: false, enumerable: false, configurable: true },
})
