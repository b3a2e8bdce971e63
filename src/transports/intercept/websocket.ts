// The in-process WHATWG WebSocket: what a client observes is what Node's own WebSocket (undici's) observes against
// the real server, checked side by side in test/intercept/websocket-parity.test.ts, websocket-parity-2.test.ts,
// websocket-parity-review-3.test.ts and websocket-parity-hunt-4.test.ts.
// No mock-socket in between: see docs/decisions/0008-in-process-websocket.md. Departures from Node are the spec's,
// listed in docs/in-process.md.
import { createHash } from 'node:crypto'
import { getEventListeners } from 'node:events'
import { isArrayBuffer } from 'node:util/types'
import type * as WorkerThreads from 'node:worker_threads'
import { errorResponse, jsonError } from '../../protocol/http'
import { EVENTS_MAX_MESSAGE } from '../../protocol/limits'
import { chooseSubprotocol } from '../../protocol/subprotocol'
import type { ProtoRequest, SocketSession, UpgradeResult } from '../../protocol/types'
import { globalTimers } from '../../runtime/global-timers'
import { hostNextTick, hostTimers } from '../../runtime/host-timers'
import { servedAt, wsOrigins, type HookedRegion } from './registry'
import { parseSubprotocols, webSocketInit, type WebSocketInit } from './webidl'

/** What the in-process handshake answered: 101, or the refusal's status, headers and body. */
export interface Handshake {
  status: number
  /** Lower-case header names. */
  headers: Record<string, string>
  /** The refusal's body (JSON text); undefined on success. */
  body: string | undefined
}

/** Node's own WebSocket class (the DOM's type): this module's own class is named `WebSocket`, as undici's is. */
type NodeWebSocket = globalThis.WebSocket

/** The WebSocket that was global before the first install, for hosts that are not hooked. */
let passThrough: typeof globalThis.WebSocket | undefined
export const setPassThrough = (ws: typeof globalThis.WebSocket | undefined) => void (passThrough = ws)

const workerThreads = process.getBuiltinModule('node:worker_threads') as typeof WorkerThreads
/**
 * Node's WebSocket and its events are marked so (undici's `webidl.util.markAsUncloneable`): `structuredClone(ws)` and
 * `port.postMessage(ws)` throw a DataCloneError. Node 22.10+ and 23+; on older Node undici does not mark them either.
 */
const markAsUncloneable: (o: object) => void = (workerThreads as { markAsUncloneable?: (o: object) => void }).markAsUncloneable ?? (() => {})

// ---------------------------------------------------------------------------------------------------------------
// Tasks. Everything the "network" does (open, each frame, closes) reaches the client in a later task, never on a
// microtask, and never on the global timers that a user's fake timers replace. Frames sent in one turn are dispatched
// in one task, in order, as Node dispatches frames that arrive in one read.
//
// The default queue is a wire: a hop (one way between client and fake) lands in the event loop's next poll phase,
// where a socket's data lands (a MessageChannel: its message is I/O, as a read is). So a frame the fake sends while
// the client runs in an I/O callback (an event of this socket, say) comes after the client's own setImmediate queued
// in that turn (the check phase comes first), and one sent from a setImmediate or a timer callback comes before it
// (the next poll phase comes first), as over a socket to 127.0.0.1. A hop sent while a delivery is being read (or in
// its microtasks) lands in the next poll phase, as a reply over a socket does: Node reads a MessagePort's messages
// posted meanwhile in the same go, so such hops are held until the check phase. Each step takes the hops it takes on
// Node against the real server on 127.0.0.1 (WIRE_HOPS, measured there). A connection's end (the `close` event) lands
// in the close phase before its last hop's poll phase, where a socket's close callback runs (see atClosePhase).
// ---------------------------------------------------------------------------------------------------------------

type Job = (() => void) | string

/** How many hops each step takes before the client sees it. */
interface Hops {
  /** From the constructor to `open`. */
  open: number
  /** From the constructor to `error` and `close` of a refused handshake. */
  refused: number
  /** From the fake's close frame to `close` (the frame itself, CLOSING, takes one). */
  serverClosed: number
  /** From `close()` to `close` (the fake reads the frame after one). */
  clientClosed: number
  /** From `close()` to `close` when the fake's own close frame crossed the client's (it ends the connection on reading it). */
  crossedClosed: number
  /** From a drop (no close frame) to `error` and `close` 1006. */
  dropped: number
  /**
   * From the fake's close frame to `close` when the fake closed on a frame it would not read (1009): the real server
   * ends the connection with its close frame then, without waiting for the client's echo.
   */
  unreadClosed: number
}

/** One task queue: frames and state changes of its sockets, dispatched in order, one task per hop. */
interface TaskQueue {
  targets: (WebSocket | undefined)[]
  jobs: Job[]
  scheduled: boolean
  readonly schedule: () => void
  readonly hops: Hops
  /** A wire (the default queue): `bufferedAmount` drains on the next tick, as Node's socket takes a frame. */
  readonly wire: boolean
}

/** Node 24 against the real server on 127.0.0.1: the first poll phase where each step is seen (test/intercept/websocket-parity-2.test.ts). */
const WIRE_HOPS: Hops = { open: 3, refused: 3, serverClosed: 4, clientClosed: 4, crossedClosed: 3, dropped: 2, unreadClosed: 3 }

/** The default: a wire (see above). */
const REAL_TASKS: TaskQueue = { targets: [], jobs: [], scheduled: false, schedule: () => wireSend(), hops: WIRE_HOPS, wire: true }

/**
 * For a fake that follows the global timers (`followGlobalTimers()`): its user asked one clock to drive both the client
 * and the fake, so its sockets' tasks run on the global (possibly faked) setImmediate, one per step (two for a close
 * from the fake: CLOSING, then CLOSED), and `vi.advanceTimersByTime` delivers them in step with the client's own timers.
 */
const FOLLOWED_TASKS: TaskQueue = {
  targets: [],
  jobs: [],
  scheduled: false,
  schedule: () => void globalTimers.immediate(() => flush(FOLLOWED_TASKS)),
  hops: { open: 1, refused: 1, serverClosed: 2, clientClosed: 1, crossedClosed: 1, dropped: 1, unreadClosed: 2 },
  wire: false,
}

let wire: WorkerThreads.MessageChannel | undefined
/**
 * A delivery ran in this poll phase and the check phase after it has not come yet: what is sent now is read in the
 * next poll phase, and a step's hops can be counted from here (see {@link later}).
 */
let reading = false
/** A hop was sent while `reading`: it goes out in the check phase. */
let held = false
/** Steps due some poll phases ahead, each with the check phases left before it goes out on the wire. */
let waiting: { target: WebSocket; job: () => void; skip: number }[] = []
/** {@link atCheck} is queued (at most once: it runs once per check phase while it has work). */
let checking = false

function wireSend() {
  if (reading) return void (held = true)
  if (!wire) {
    wire = new workerThreads.MessageChannel()
    wire.port2.on('message', wireRead)
  }
  // Ref'd while a hop is under way, as a socket with data to read keeps the process alive; unref'd when idle.
  wire.port2.ref()
  wire.port1.postMessage(null)
}

function wireRead() {
  wire!.port2.unref()
  reading = true
  if (!checking) {
    checking = true
    hostTimers.immediate(atCheck)
  }
  flush(REAL_TASKS)
}

/**
 * The check phase after a delivery (and each one while steps wait): the hops sent meanwhile go out, steps with no
 * check phase left go out with them (to the next poll phase), the others wait one more.
 */
function atCheck() {
  checking = false
  reading = false
  if (waiting.length > 0) {
    const left: typeof waiting = []
    for (const w of waiting) {
      if (w.skip === 0) enqueue(REAL_TASKS, w.target, w.job)
      else {
        w.skip--
        left.push(w)
      }
    }
    waiting = left
    if (left.length > 0) {
      checking = true
      hostTimers.immediate(atCheck)
    }
  }
  if (held) {
    held = false
    wireSend()
  }
}

/** Connection ends waiting for the close phase (see {@link atClosePhase}). */
let ends: (() => void)[] = []

/**
 * Runs `end` in the event loop's close phase (after the check phase), where a handle's close callback runs: a
 * MessagePort's own 'close' event is one. One port per phase, for every end due in it, in order.
 */
function atClosePhase(end: () => void) {
  ends.push(end)
  if (ends.length > 1) return
  const { port1 } = new workerThreads.MessageChannel()
  port1.once('close', () => {
    const due = ends
    ends = []
    for (let i = 0; i < due.length; i++) {
      try {
        due[i]()
      } catch (error) {
        // As in flush: listener errors never get here; anything else must not stop the others.
        for (let k = i + 1; k < due.length; k++) atClosePhase(due[k])
        throw error
      }
    }
  })
  port1.close()
}

function enqueue(queue: TaskQueue, target: WebSocket | undefined, job: Job) {
  queue.targets.push(target)
  queue.jobs.push(job)
  if (!queue.scheduled) {
    queue.scheduled = true
    queue.schedule()
  }
}

/**
 * Runs `job` `hops` hops from now (0: at once). From an unknown phase a step's first hop goes on the wire (it lands in
 * the next poll phase whatever phase it is sent in). While `reading` (in a delivery's poll phase, or in its check
 * phase before {@link atCheck}), the next check phase is known to be the one `atCheck` runs in: the hops are counted
 * there, one check phase each (each followed by a poll phase), and only the last goes on the wire. The same poll
 * phase, fewer messages.
 */
function later(queue: TaskQueue, target: WebSocket, hops: number, job: () => void) {
  if (hops <= 0) job()
  else if (hops === 1) enqueue(queue, target, job)
  else if (queue === REAL_TASKS && reading) waiting.push({ target, job, skip: hops - 1 })
  else enqueue(queue, target, () => later(queue, target, hops - 1, job))
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
const isObject = (v: unknown): v is object => v !== null && (typeof v === 'object' || typeof v === 'function')
// Receiver checks, as undici's brand checks: any receiver (null, a primitive) that is not one is `Illegal invocation`.
let isMessageEvent: (v: unknown) => boolean
let isErrorEvent: (v: unknown) => boolean
let isSocket: (v: unknown) => boolean

/**
 * A `MessageEvent` (`instanceof MessageEvent`, `[object MessageEvent]`, the same attributes) built at the cost of a
 * plain `Event`: the native constructor converts its init dictionary field by field (~0.8 µs a message).
 */
class FastMessageEvent extends Event {
  #data: unknown
  #origin: string
  /** Each event's own (frozen) array, as undici gives each one: `a.ports !== b.ports`. Made on first read. */
  #ports: readonly MessagePort[] | undefined
  static {
    isMessageEvent = (v) => isObject(v) && #data in v
  }
  constructor(data: unknown, origin: string) {
    super('message')
    this.#data = data
    this.#origin = origin
    markAsUncloneable(this)
  }
  get data() {
    if (!isMessageEvent(this)) throw illegal()
    return this.#data
  }
  get origin() {
    if (!isMessageEvent(this)) throw illegal()
    return this.#origin
  }
  get lastEventId() {
    if (!isMessageEvent(this)) throw illegal()
    return ''
  }
  get source() {
    if (!isMessageEvent(this)) throw illegal()
    return null
  }
  get ports() {
    if (!isMessageEvent(this)) throw illegal()
    return (this.#ports ??= Object.freeze([]))
  }
  initMessageEvent(type: string, bubbles = false, cancelable = false, data: unknown = null, origin = '', lastEventId = '', source: MessagePort | null = null, ports: MessagePort[] = []) {
    if (!isMessageEvent(this)) throw illegal()
    argumentCheck(arguments.length, 'MessageEvent.initMessageEvent')
    return new MessageEvent(type, { bubbles, cancelable, data, origin, lastEventId, source, ports })
  }
}
if (typeof MessageEvent === 'function') {
  Object.setPrototypeOf(FastMessageEvent.prototype, MessageEvent.prototype)
  Object.defineProperty(FastMessageEvent.prototype, 'constructor', { value: MessageEvent, writable: true, configurable: true })
}
const enumerable = { enumerable: true }
Object.defineProperties(FastMessageEvent.prototype, { data: enumerable, origin: enumerable, lastEventId: enumerable, source: enumerable, ports: enumerable, initMessageEvent: enumerable })

/** `ErrorEventInit`'s members (EventInit's included) in the order undici's dictionary converter reads them. */
const ERROR_EVENT_INIT = ['bubbles', 'cancelable', 'colno', 'composed', 'error', 'filename', 'lineno', 'message'] as const
/** Node has no global `ErrorEvent`; its WebSocket fires undici's, which looks like this one (its constructor included). */
class ErrorEventShim extends Event {
  #init: { message: string; filename: string; lineno: number; colno: number; error: unknown }
  static {
    isErrorEvent = (v) => isObject(v) && #init in v
  }
  constructor(type: string, eventInitDict?: { message?: string; filename?: string; lineno?: number; colno?: number; error?: unknown }) {
    argumentCheck(arguments.length, 'ErrorEvent constructor')
    super(type, eventInitDict as EventInit)
    markAsUncloneable(this)
    // undici's dictionary converter reads every member (Event's own again) once, in the order of their names.
    const d: Record<string, unknown> = eventInitDict ?? {}
    const v: Record<string, unknown> = {}
    for (const k of ERROR_EVENT_INIT) v[k] = d[k]
    const colno = unsignedLong(v.colno)
    const filename = v.filename === undefined ? '' : wellFormed(v.filename)
    const lineno = unsignedLong(v.lineno)
    if (typeof v.message === 'symbol') throw new TypeError('undefined: undefined.message is a symbol, which cannot be converted to a DOMString.')
    this.#init = { message: v.message === undefined ? '' : String(v.message), filename, lineno, colno, error: v.error }
  }
  get message() {
    if (!isErrorEvent(this)) throw illegal()
    return this.#init.message
  }
  get filename() {
    if (!isErrorEvent(this)) throw illegal()
    return this.#init.filename
  }
  get lineno() {
    if (!isErrorEvent(this)) throw illegal()
    return this.#init.lineno
  }
  get colno() {
    if (!isErrorEvent(this)) throw illegal()
    return this.#init.colno
  }
  get error() {
    if (!isErrorEvent(this)) throw illegal()
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

/**
 * `unsigned long` without `[Clamp]` or `[EnforceRange]`, as undici converts it: the integer part, then the remainder by
 * 2^32, sign kept (-1 stays -1; the WebIDL spec's modulo would give 4294967295).
 */
function unsignedLong(v: unknown): number {
  const x = Number(v)
  return Number.isFinite(x) && x !== 0 ? Math.trunc(x) % 2 ** 32 : 0
}

/** USVString: lone surrogates become U+FFFD (`String.prototype.toWellFormed`, Node 20+). */
const usv = (v: unknown) => (typeof v === 'string' ? v : `${v as string}`) as string & { toWellFormed(): string }
const wellFormed = (v: unknown) => usv(v).toWellFormed()

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

/** The constructor's default: no subprotocols, converted without walking an iterator. */
const NO_PROTOCOLS: string[] = []
const NO_INIT: WebSocketInit = Object.freeze({ protocols: NO_PROTOCOLS, headers: undefined })

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
    // undici's `webidl.is.BufferSource`: an ArrayBuffer of any realm, or a view on one. A SharedArrayBuffer and a view
    // on one are sent as their string (`"[object SharedArrayBuffer]"`, `"0,0,0"`), as in Node.
    if (isArrayBuffer(v) || (ArrayBuffer.isView(v) && isArrayBuffer(v.buffer))) return v as ArrayBuffer | ArrayBufferView
  }
  return wellFormed(v)
}

function byteLength(data: string | Blob | ArrayBuffer | ArrayBufferView): number {
  if (typeof data === 'string') return Buffer.byteLength(data)
  if (data instanceof Blob) return data.size
  return data.byteLength
}

/**
 * Sec-WebSocket-Key values: 16 bytes each, from a counter, so that a seeded run records the same keys every time (the
 * fake's seeded random source is not drawn from). Twelve fixed bytes (a hash, made once) and the counter in the last
 * four: unique per socket, 24 base64 characters like any key, and no hash per connect.
 */
const KEY_BYTES = createHash('sha1').update('dockside websocket key').digest().subarray(0, 16)
let keysMade = 0
const nextKey = () => {
  KEY_BYTES.writeUInt32BE(++keysMade >>> 0, 12)
  return KEY_BYTES.toString('base64')
}

/**
 * The upgrade request's headers, as undici sends them and in its order: what `fake.requests` records for the
 * handshake is what it records from Node's WebSocket against the real server. The client's own headers (undici's
 * `WebSocketInit.headers`, checked by `new Headers()` as undici does) replace the defaults of the same name; the
 * offered sub-protocols are appended to a `Sec-WebSocket-Protocol` of its own, as undici's header list combines them.
 */
/**
 * The `headers` of undici's WebSocket init, spelled out: the DOM lib's `HeadersInit` and `BinaryType` are not in a
 * Node-only project's types (lib without "dom"), and the published declarations must type-check there.
 */
export type WebSocketInitHeaders = string[][] | Record<string, string | readonly string[]> | Headers
/** `binaryType`'s values (the DOM lib's `BinaryType`). */
export type WebSocketBinaryType = 'blob' | 'arraybuffer'
/** The close event as a handler sees it (the DOM lib's `CloseEvent`, which Node's own types do not declare). */
export interface WebSocketCloseEvent extends Event {
  readonly code: number
  readonly reason: string
  readonly wasClean: boolean
}

function handshakeHeaders(host: string, init: HeadersInit | null | undefined, protocols: string[]): Record<string, string> {
  const headers: Record<string, string> = { host, connection: 'upgrade', upgrade: 'websocket' }
  if (init) new Headers(init).forEach((value, k) => (headers[k] = value))
  headers['sec-websocket-key'] = nextKey()
  headers['sec-websocket-version'] = '13'
  if (protocols.length) {
    const own = headers['sec-websocket-protocol']
    headers['sec-websocket-protocol'] = own === undefined ? protocols.join(', ') : `${own}, ${protocols.join(', ')}`
  }
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
type Handler<E extends Event = Event> = ((this: NodeWebSocket, event: E) => unknown) | null
type HandlerType = 'open' | 'message' | 'error' | 'close'

/** Delivers one text frame (a job of {@link flush}): the hot path, one event per frame per socket. */
let receive: (ws: WebSocket, text: string) => void

/**
 * The server's close frame as the client reads it, or its connection dropped without one. `ends`: the fake ends the
 * connection itself after the frame (see {@link Hops.unreadClosed}), whether or not a close frame of the client's crossed it.
 */
type PeerClose = { code: number; reason: string; ends: boolean } | 'dropped'

/** What the real server answers (its `ws`) to a `Sec-WebSocket-Protocol` it cannot parse. */
const BAD_PROTOCOL_HEADER = 'Bad websocket handshake: Invalid Sec-WebSocket-Protocol header.'

/**
 * A WHATWG `WebSocket` that answers hooked hosts in process and hands every other URL to the WebSocket that was
 * global before. Arguments, errors, attributes, event classes and their order are those of Node's own WebSocket
 * (undici) against the real server; see docs/in-process.md for the differences that remain and why. Exported as
 * `InProcessWebSocket`; its source name is `WebSocket`, as undici's is, so that a bundle names it `_WebSocket` as
 * Node's bundle does (V8's messages and `Function.prototype.toString` show that name).
 *
 * The handshake is decided by the fake before `open`: a refusal fires `error` then `close` with 1006 (wasClean
 * false) and never `open`, exactly as a real client sees a refused upgrade; its status, headers and body are on
 * the non-standard {@link WebSocket.handshake}.
 *
 * Pass this class to clients that take a WebSocket constructor (for example clients written for the `ws`
 * package's API subset `new WebSocket(url)` + `addEventListener`): they reach the fake without the global hook.
 */
class WebSocket extends EventTarget {
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
  #binaryType: WebSocketBinaryType = 'blob'
  #handlers: Record<HandlerType, unknown> = { open: null, message: null, error: null, close: null }
  #handshake: Handshake | undefined
  #session: SocketSession | undefined
  #abort: AbortController | undefined
  /** The client's close frame (or the server's) has gone out: nothing more is sent or delivered. */
  #closeSent = false
  /**
   * The fake's close frame, set when the fake sends it (or drops the connection): it reaches the client before the
   * connection ends, so the `close` event reports it even when the client's own close frame crossed it.
   */
  #peer: PeerClose | undefined
  /** The fake is refusing a frame it read (see {@link Hops.unreadClosed}). */
  #unread = false
  /** Blob sends still being read (Node's send queue waits for each in order; later sends wait behind them). */
  #sending: Promise<void> | undefined
  /** Accepted by the fake, `open` not yet dispatched: the fake's steps wait here (see {@link #deliver}). */
  #early: Job[] | undefined
  /** Where this socket's tasks run (see {@link FOLLOWED_TASKS}). */
  #tasks: TaskQueue = REAL_TASKS

  /**
   * A socket to a host that is not hooked is the WebSocket that was global before (see the constructor): it is an
   * instance of this class too, as it is of the global `WebSocket` without the hooks. (Node's class has no own
   * `Symbol.hasInstance`; this one needs it for that.)
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true
    return this === WebSocket && passThrough !== undefined && (passThrough as unknown) !== WebSocket && value instanceof passThrough
  }

  static {
    isSocket = (v) => isObject(v) && #state in v
    receive = (ws, text) => {
      if (ws.#state !== OPEN) return
      ws.dispatchEvent(new FastMessageEvent(text, ws.#origin))
    }
  }

  constructor(url: string | URL, protocols: string | string[] | { protocols?: string | string[]; headers?: WebSocketInitHeaders } = NO_PROTOCOLS) {
    super()
    markAsUncloneable(this)
    argumentCheck(arguments.length, 'WebSocket constructor')
    const init = protocols === NO_PROTOCOLS ? NO_INIT : webSocketInit(protocols)
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
      return new Original(url, (protocols === NO_PROTOCOLS ? [] : protocols) as string[]) as unknown as WebSocket
    }
    this.#url = record
    this.#origin = record.origin
    if (region.fake.clock.host === globalTimers) this.#tasks = FOLLOWED_TASKS
    const headers = handshakeHeaders(record.host, init.headers, list)
    const abort = new AbortController()
    this.#abort = abort
    const req: ProtoRequest = { method: 'GET', url: target, headers, signal: abort.signal, body: async () => '', remoteAddress: 'in-process', served: servedOf(region) }
    // What the server's `ws` makes of the header (the client's own value and the offered list combined): the fake
    // answers the first; a value it cannot parse fails the handshake once the fake has accepted it.
    const header = headers['sec-websocket-protocol']
    void this.#connect(region, req, header === undefined ? NO_PROTOCOLS : parseSubprotocols(header))
  }

  async #connect(region: HookedRegion, req: ProtoRequest, offered: string[] | undefined) {
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
    if (result.kind === 'accept' && offered === undefined) result = { kind: 'reject', response: jsonError(400, BAD_PROTOCOL_HEADER) }
    const hops = this.#tasks.hops
    if (result.kind !== 'accept') {
      const { status, headers, body } = result.response
      this.#handshake = { status, headers: { ...headers }, body }
      return later(this.#tasks, this, hops.refused, this.#asFetchResolves(() => this.#fail()))
    }
    const open = result.open
    const protocol = chooseSubprotocol(offered!)
    // On the wire the fake subscribes the socket a hop before `open`, where the server reads the upgrade request and
    // answers it: an event emitted in that hop reaches the client, as on the server. What the fake sends until `open`
    // (frames, its close frame, a drop) comes with the 101 and is replayed after `open` and its microtasks. A fake that
    // follows the global timers subscribes it at `open`.
    const wire = this.#tasks.wire
    later(this.#tasks, this, wire ? hops.open - 1 : hops.open, () => {
      if (this.#state !== CONNECTING) return
      const early: Job[] = []
      const opened = () => {
        this.#early = undefined
        if (this.#state !== CONNECTING) return
        this.#handshake = { status: 101, headers: { upgrade: 'websocket', connection: 'Upgrade', ...(protocol ? { 'sec-websocket-protocol': protocol } : {}) }, body: undefined }
        this.#state = OPEN
        this.#protocol = protocol ?? ''
        this.dispatchEvent(new Event('open'))
        if (early.length > 0) this.#asFetchResolves(() => this.#replay(early))()
      }
      if (wire) {
        this.#early = early
        enqueue(this.#tasks, this, this.#asFetchResolves(opened))
      }
      this.#session = open({
        send: (text) => {
          if (!this.#closeSent) this.#deliver(text)
        },
        close: (code, reason) => this.#serverClose(code, reason),
        drop: () => this.#serverClose(1006, ''),
      })
      // Nothing listens to the handshake's signal once the socket is accepted (the protocol listens only while it
      // decides): let it go, so that the close does not build and dispatch an abort event nobody hears.
      if (getEventListeners(this.#abort!.signal, 'abort').length === 0) this.#abort = undefined
      if (!wire) opened()
    })
  }

  /** A step's first hop: on the wire, or held with the 101 until `open` (see {@link #early}). */
  #deliver(job: Job) {
    if (this.#early) this.#early.push(job)
    else enqueue(this.#tasks, this, job)
  }

  /** What came with the 101, in order: each step's first hop is the 101's. */
  #replay(early: Job[]) {
    for (const job of early) {
      if (typeof job === 'string') receive(this, job)
      else job()
    }
  }

  /**
   * Node's WebSocket learns the handshake's answer where its fetch resolves: in a microtask of the read that brings
   * it, so `open` (or a refusal's `error` and `close`) runs after that read's nextTicks, and a nextTick a listener
   * queues runs after the listener's microtasks. On the wire only: a fake that follows the global timers delivers
   * on them, at once.
   */
  #asFetchResolves(job: () => void): () => void {
    return this.#tasks.wire ? () => void Promise.resolve().then(job) : job
  }

  /**
   * The server's close frame reaches the client one hop later and makes it CLOSING (a `send()` now is dropped); the
   * connection's end, with the `close` event, comes hops later, as Node's WebSocket sees the frame, echoes it and
   * then sees the TCP close. Going away without a frame (1006) is `error` and `close` once the drop is seen.
   */
  #serverClose(code: number, reason: string) {
    if (this.#state === CLOSED) return
    this.#session = undefined
    const hops = this.#tasks.hops
    // The server's own end: the protocol has already recorded it (no clientClosed back); a close frame of the
    // client's, if any, crossed it.
    if (code === 1006) {
      this.#peer = 'dropped'
      const end = () => this.#finish(1006, '', false, true)
      // With the 101, the end of the connection is read after the handshake's: its hops count from `open`.
      if (this.#early) return void this.#early.push(() => this.#ending(hops.dropped, end))
      return this.#ending(hops.dropped, end)
    }
    this.#peer = { code, reason, ends: this.#unread }
    const closed = this.#unread ? hops.unreadClosed : hops.serverClosed
    this.#deliver(() => {
      if (this.#state === CLOSED) return
      this.#state = CLOSING
      this.#closeSent = true
      this.#ending(closed - 1, () => this.#finish(code, reason, true, false))
    })
  }

  /**
   * The connection's end (`close`, after `error` for a drop) `hops` hops from now. On the wire it lands in the close
   * phase before the poll phase of its last hop, where Node's socket 'close' lands (a handle's close callback): a
   * socket or a timer the client starts in its `close` listener is where it is after Node's.
   */
  #ending(hops: number, end: () => void) {
    if (!this.#tasks.wire) return later(this.#tasks, this, hops, end)
    later(this.#tasks, this, hops - 1, () => atClosePhase(end))
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
    const mine = isSocket(this)
    if (!mine && !inherits(this)) throw illegal()
    const c = code === undefined ? null : clampUnsignedShort(code)
    const r = reason === undefined ? '' : wellFormed(reason)
    if (!mine) throw notASocket(this, '#handler')
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
    const hops = this.#tasks.hops
    enqueue(this.#tasks, this, () => {
      // The fake reads the close frame (unless it had closed or dropped the connection first).
      session?.clientClosed(sentCode, r)
      // Its echo, or its own close frame if one crossed the client's (it then ends the connection at once), then the
      // connection's end: the close event reports the frame the client received (Node's `closingInfo`); none at all
      // if the connection dropped.
      const crossed = this.#peer !== undefined && this.#peer !== 'dropped'
      // A fake that ends the connection itself (its 1009 on a frame sent before this close) ends it on its own schedule.
      if (crossed && (this.#peer as Exclude<PeerClose, 'dropped'>).ends) return
      this.#ending((crossed ? hops.crossedClosed : hops.clientClosed) - 1, () => {
        const peer = this.#peer
        if (peer === 'dropped') this.#finish(1006, '', false, true)
        else if (peer) this.#finish(peer.code, peer.reason, true, false)
        else this.#finish(sentCode, r, true, false)
      })
    })
  }

  send(data: string | ArrayBufferLike | Blob | ArrayBufferView) {
    const mine = isSocket(this)
    if (!mine && !inherits(this)) throw illegal()
    argumentCheck(arguments.length, 'WebSocket.send')
    const value = sendData(data)
    if (!mine) throw notASocket(this, '#handler')
    if (this.#state === CONNECTING) throw new DOMException('Sent before connected.', 'InvalidStateError')
    if (this.#state !== OPEN) return
    const n = byteLength(value)
    this.#bufferedAmount += n
    const session = this.#session
    // The events endpoint ignores client messages, as the real service does, and closes with 1009 on one over its
    // limit once it has read it (one hop), unless it has closed or dropped the connection first. A close() of the
    // client's meanwhile comes after the frame (Node writes the frame at once): the fake still refuses it.
    const read = () => {
      if (n <= EVENTS_MAX_MESSAGE || !session || this.#peer !== undefined) return
      this.#unread = true
      try {
        session.tooBig()
      } finally {
        this.#unread = false
      }
    }
    if (!this.#tasks.wire) {
      return enqueue(this.#tasks, this, () => {
        this.#bufferedAmount -= n
        read()
      })
    }
    // Node's socket takes a frame at once and calls back on the next tick; a Blob is read first, and what is sent
    // after it waits behind it: written after a close frame sent meanwhile, the fake never reads it.
    const drain = () => void (this.#bufferedAmount -= n)
    const big = n > EVENTS_MAX_MESSAGE
    if (!(value instanceof Blob) && !this.#sending) {
      if (big) enqueue(this.#tasks, this, read)
      return hostNextTick(drain)
    }
    const before = this.#sending
    const sent = (async () => {
      if (before) await before
      if (value instanceof Blob) await value.arrayBuffer()
      if (big && !this.#closeSent) enqueue(this.#tasks, this, read)
      hostNextTick(drain)
    })()
    this.#sending = sent
    void sent.then(() => {
      if (this.#sending === sent) this.#sending = undefined
    })
  }

  get readyState(): 0 | 1 | 2 | 3 {
    if (!isSocket(this)) throw notASocket(this, '#handler')
    return this.#state as 0 | 1 | 2 | 3
  }
  get bufferedAmount() {
    if (!isSocket(this)) throw notASocket(this, '#bufferedAmount')
    return this.#bufferedAmount
  }
  get url() {
    if (!isSocket(this)) throw notASocket(this, '#url')
    return this.#url.href
  }
  get extensions() {
    if (!isSocket(this)) throw notASocket(this, '#extensions')
    return ''
  }
  get protocol() {
    if (!isSocket(this)) throw notASocket(this, '#protocol')
    return this.#protocol
  }
  /** Non-standard: the in-process handshake's answer, set before `open` or `error`. */
  get handshake(): Handshake | undefined {
    if (!isSocket(this)) throw illegal()
    return this.#handshake
  }

  // Each accessor checks its receiver itself, as undici's do (see notASocket), before reaching a private method
  // (V8's own check there throws a TypeError without a code).
  get onopen(): Handler {
    if (!isSocket(this)) throw notASocket(this, '#events')
    return this.#getHandler('open')
  }
  set onopen(fn: Handler) {
    if (!isSocket(this)) throw notASocket(this, '#events')
    this.#setHandler('open', fn)
  }
  get onerror(): Handler {
    if (!isSocket(this)) throw notASocket(this, '#events')
    return this.#getHandler('error')
  }
  set onerror(fn: Handler) {
    if (!isSocket(this)) throw notASocket(this, '#events')
    this.#setHandler('error', fn)
  }
  get onclose(): Handler<WebSocketCloseEvent> {
    if (!isSocket(this)) throw notASocket(this, '#events')
    return this.#getHandler('close') as Handler<WebSocketCloseEvent>
  }
  set onclose(fn: Handler<WebSocketCloseEvent>) {
    if (!isSocket(this)) throw notASocket(this, '#events')
    this.#setHandler('close', fn)
  }
  get onmessage(): Handler<MessageEvent> {
    if (!isSocket(this)) throw notASocket(this, '#events')
    return this.#getHandler('message') as Handler<MessageEvent>
  }
  set onmessage(fn: Handler<MessageEvent>) {
    if (!isSocket(this)) throw notASocket(this, '#events')
    this.#setHandler('message', fn)
  }
  get binaryType(): WebSocketBinaryType {
    if (!isSocket(this)) throw notASocket(this, '#binaryType')
    return this.#binaryType
  }
  set binaryType(type: WebSocketBinaryType) {
    if (!isSocket(this)) throw notASocket(this, '#binaryType', true)
    this.#binaryType = type === 'blob' || type === 'arraybuffer' ? type : 'blob'
  }
  #getHandler(type: HandlerType): Handler {
    return this.#handlers[type] as Handler
  }
  /**
   * `[LegacyTreatNonObjectAsNull]`: a non-object is null; a non-callable object is kept and does nothing. As undici's
   * setters: the old value itself is removed (a non-callable object's do-nothing listener stays on the socket, and a
   * listener added with addEventListener that is also the handler goes with it).
   */
  #setHandler(type: HandlerType, fn: unknown) {
    const old = this.#handlers[type] as EventListenerOrEventListenerObject | null
    if (old) this.removeEventListener(type, old)
    if (!isObject(fn)) {
      this.#handlers[type] = null
      return
    }
    this.addEventListener(type, typeof fn === 'function' ? (fn as EventListener) : () => {})
    this.#handlers[type] = fn
  }
}

export { WebSocket as InProcessWebSocket }

/** undici's brand check (`webidl.brandCheck`): the prototype chain, not the private fields. */
const inherits = (v: unknown) => Function.prototype[Symbol.hasInstance].call(WebSocket, v)

/**
 * What Node's WebSocket throws for a receiver that is not one of its sockets: `Illegal invocation` (code
 * ERR_INVALID_THIS) from its brand check, or, for an object that merely inherits the prototype
 * (`Object.create(WebSocket.prototype)`), V8's own TypeError when it then reads the private field of undici's class
 * that the attribute reads (named as undici names it).
 */
function notASocket(v: unknown, field: string, write = false): TypeError {
  if (!inherits(v)) return illegal()
  return new TypeError(write ? `Cannot write private member ${field} to an object whose class did not declare it` : `Cannot read private member ${field} from an object whose class did not declare it`)
}

const constant = (value: number) => ({ value, enumerable: true, writable: false, configurable: false })
const states = { CONNECTING: constant(CONNECTING), OPEN: constant(OPEN), CLOSING: constant(CLOSING), CLOSED: constant(CLOSED) }
Object.defineProperties(WebSocket, states)
// What `ws.constructor.name` and V8's messages (`#<WebSocket>`) say, as for Node's class.
Object.defineProperty(WebSocket, 'name', { value: 'WebSocket' })
Object.defineProperties(WebSocket.prototype, {
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
