// The in-process WHATWG WebSocket (its task queue is websocket-tasks.ts, its events websocket-events.ts): what a client
// observes is what Node's own WebSocket (undici's) observes against the real server, checked side by side in
// test/ways-in/intercept/websocket/parity.test.ts, websocket-parity-2.test.ts, websocket-parity-events-and-options.test.ts and
// websocket-parity-handshake-and-faults.test.ts.
// No mock-socket in between: see docs/decisions/0008-in-process-websocket.md. Departures from Node are the spec's,
// listed in docs/in-process.md.
import { createHash } from 'node:crypto'
import { getEventListeners } from 'node:events'
import { errorResponse, jsonError } from '../../protocol/http'
import { EVENTS_MAX_MESSAGE } from '../../protocol/limits'
import { chooseSubprotocol } from '../../protocol/events/subprotocol'
import type { ProtoRequest, SocketSession, UpgradeResult } from '../../protocol/types'
import { globalTimers } from '../../runtime/global-timers'
import { hostNextTick } from '../../runtime/host-timers'
import { servedAt, wsOrigins, type HookedRegion } from './registry'
import { CloseEventClass, enumerable, ErrorEventClass, FastMessageEvent, illegal, isObject, markAsUncloneable, SOCKET_ENDED } from './websocket-events'
import { atClosePhase, enqueue, FOLLOWED_TASKS, later, REAL_TASKS, setReceiver, type Job, type TaskQueue } from './websocket-tasks'
import { argumentCheck, byteLength, clampUnsignedShort, isValidSubprotocol, NO_INIT, NO_PROTOCOLS, parseSubprotocols, sendData, urlRecord, webSocketInit, wellFormed } from './webidl'

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


let isSocket: (v: unknown) => boolean

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
 * connection itself after the frame (see `Hops.unreadClosed` in websocket-tasks.ts), whether or not a close frame of the client's crossed it.
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
  /** The fake is refusing a frame it read (see `Hops.unreadClosed` in websocket-tasks.ts). */
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
    // The task queue delivers the frames it holds through it (websocket-tasks.ts).
    setReceiver(receive)
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
