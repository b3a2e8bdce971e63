// Events, as Node's WebSocket fires them, for the in-process WebSocket (websocket.ts): its message, error and close
// events and their brand checks. Marked uncloneable as undici marks them.
import type * as WorkerThreads from 'node:worker_threads'
import { argumentCheck, unsignedLong, wellFormed } from './webidl'

const workerThreads = process.getBuiltinModule('node:worker_threads') as typeof WorkerThreads
/**
 * Node's WebSocket and its events are marked so (undici's `webidl.util.markAsUncloneable`): `structuredClone(ws)` and
 * `port.postMessage(ws)` throw a DataCloneError. Node 22.10+ and 23+; on older Node undici does not mark them either.
 */
export const markAsUncloneable: (o: object) => void = (workerThreads as { markAsUncloneable?: (o: object) => void }).markAsUncloneable ?? (() => {})

// ---------------------------------------------------------------------------------------------------------------
// Events, as Node's WebSocket fires them.
// ---------------------------------------------------------------------------------------------------------------

/**
 * Why the handshake request's signal aborts when the socket ends: one reason for all (`abort()` without one builds an
 * AbortError DOMException with a stack trace on every close).
 */
export const SOCKET_ENDED = new DOMException('The in-process WebSocket ended.', 'AbortError')

export const illegal = () => Object.assign(new TypeError('Illegal invocation'), { code: 'ERR_INVALID_THIS' })
export const isObject = (v: unknown): v is object => v !== null && (typeof v === 'object' || typeof v === 'function')
// Receiver checks, as undici's brand checks: any receiver (null, a primitive) that is not one is `Illegal invocation`.
let isMessageEvent: (v: unknown) => boolean
let isErrorEvent: (v: unknown) => boolean

/**
 * A `MessageEvent` (`instanceof MessageEvent`, `[object MessageEvent]`, the same attributes) built at the cost of a
 * plain `Event`: the native constructor converts its init dictionary field by field (~0.8 µs a message).
 */
export class FastMessageEvent extends Event {
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
export const enumerable = { enumerable: true }
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
export const ErrorEventClass: typeof ErrorEventShim = (globalThis as unknown as { ErrorEvent?: typeof ErrorEventShim }).ErrorEvent ?? ErrorEventShim

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
export const CloseEventClass: new (type: string, init: CloseInit) => Event = (globalThis as unknown as { CloseEvent?: typeof CloseEventShim }).CloseEvent ?? CloseEventShim
