// The WebSocket constructor's argument conversions as undici 7 (Node 24's WebSocket) applies them, messages included
// (lib/web/webidl/index.js, lib/web/websocket/websocket.js, lib/web/fetch/headers.js). undici calls the converter of
// `DOMString or sequence<DOMString> or WebSocketInit` with the value alone, so its messages name neither a prefix nor
// an argument ("undefined: undefined is a symbol, ..."): kept as they are, since a client sees them.
import { inspect, types } from 'node:util'
import { isArrayBuffer } from 'node:util/types'

const isObject = (v: unknown): v is object => v !== null && (typeof v === 'object' || typeof v === 'function')

/** webidl.util.Stringify */
function stringify(v: unknown): string {
  switch (typeof v) {
    case 'symbol':
      return `Symbol(${v.description})`
    case 'object':
    case 'function':
      return v === null ? 'null' : inspect(v)
    case 'string':
      return `"${v}"`
    case 'bigint':
      return `${v}n`
    default:
      return `${v as string}`
  }
}

function domString(v: unknown, prefix: string | undefined, argument: string | undefined): string {
  if (typeof v === 'symbol') throw new TypeError(`${prefix}: ${argument} is a symbol, which cannot be converted to a DOMString.`)
  return String(v)
}

function byteString(v: unknown, prefix: string | undefined, argument: string | undefined): string {
  if (typeof v === 'symbol') throw new TypeError(`${prefix}: ${argument} is a symbol, which cannot be converted to a ByteString.`)
  const x = String(v)
  for (let i = 0; i < x.length; i++) {
    const c = x.charCodeAt(i)
    if (c > 255) throw new TypeError(`Cannot convert argument to a ByteString because the character at index ${i} has a value of ${c} which is greater than 255.`)
  }
  return x
}

/** webidl.sequenceConverter */
function sequence<T>(convert: (v: unknown, prefix: string | undefined, argument: string) => T, v: unknown, prefix: string | undefined, argument: string | undefined, iterable?: () => Iterator<unknown>): T[] {
  if (!isObject(v)) throw new TypeError(`${prefix}: ${argument} (${stringify(v)}) is not iterable.`)
  const method = typeof iterable === 'function' ? iterable() : (v as { [Symbol.iterator]?: () => Iterator<unknown> })[Symbol.iterator]?.()
  if (method === undefined || typeof method.next !== 'function') throw new TypeError(`${prefix}: ${argument} is not iterable.`)
  const out: T[] = []
  let index = 0
  for (;;) {
    const { done, value } = method.next()
    if (done) break
    out.push(convert(value, prefix, `${argument}[${index++}]`))
  }
  return out
}

/** `record<ByteString, ByteString>` (webidl.recordConverter) */
function byteStringRecord(o: object, prefix: string | undefined, argument: string | undefined): Record<string, string> {
  const result: Record<string, string> = {}
  const source = o as Record<PropertyKey, unknown>
  if (!types.isProxy(o)) {
    for (const key of [...Object.getOwnPropertyNames(o), ...Object.getOwnPropertySymbols(o)]) {
      const keyName = stringify(key)
      const typedKey = byteString(key, prefix, `Key ${keyName} in ${argument}`)
      result[typedKey] = byteString(source[key], prefix, `${argument}[${keyName}]`)
    }
    return result
  }
  for (const key of Reflect.ownKeys(o)) {
    if (Reflect.getOwnPropertyDescriptor(o, key)?.enumerable) result[byteString(key, prefix, argument)] = byteString(source[key], prefix, argument)
  }
  return result
}

/** `HeadersInit` as undici converts it: what `new Headers()` is then given (it checks pairs and names itself). */
function headersInit(v: unknown, prefix: string | undefined, argument: string): HeadersInit {
  if (isObject(v)) {
    const iterator = Reflect.get(v, Symbol.iterator) as unknown
    if (!types.isProxy(v) && iterator === (Headers.prototype as unknown as { entries: unknown }).entries) return v as Headers
    if (typeof iterator === 'function') {
      const pair = (p: unknown, pre: string | undefined, arg: string) => sequence(byteString, p, pre, arg)
      return sequence(pair, v, prefix, argument, (iterator as () => Iterator<unknown>).bind(v)) as unknown as HeadersInit
    }
    return byteStringRecord(v, prefix, argument)
  }
  throw new TypeError('Headers constructor: Argument 1 could not be converted to one of: sequence<sequence<ByteString>>, record<ByteString, ByteString>.')
}

/** `DOMString or sequence<DOMString>`; undici converts a sequence without naming it (`undefined[0]`). */
function protocolsOf(v: unknown, prefix: string | undefined, argument: string | undefined): string | string[] {
  if (isObject(v) && Symbol.iterator in v) return sequence(domString, v, undefined, undefined)
  return domString(v, prefix, argument)
}

export interface WebSocketInit {
  protocols: string[]
  /** Undefined or null when none were given (undici then sends none of its own). */
  headers: HeadersInit | null | undefined
}

/**
 * The constructor's second argument: a protocol, a list of them, or undici's `WebSocketInit` dictionary
 * (`{ protocols, headers, dispatcher }`, read in that lexicographic order: dispatcher, headers, protocols).
 */
export function webSocketInit(v: unknown): WebSocketInit {
  let protocols: string | string[]
  let headers: HeadersInit | null | undefined
  if (isObject(v) && !(Symbol.iterator in v)) {
    const dict = v as { dispatcher?: unknown; headers?: unknown; protocols?: unknown }
    // The dispatcher is read (a getter runs) and unused: the fake answers in process.
    void dict.dispatcher
    const h = dict.headers
    if (h !== undefined) headers = h === null ? null : headersInit(h, undefined, 'undefined.headers')
    const p = dict.protocols
    protocols = p === undefined ? [] : protocolsOf(p, undefined, 'undefined.protocols')
  } else {
    protocols = protocolsOf(v, undefined, undefined)
  }
  return { protocols: typeof protocols === 'string' ? [protocols] : protocols, headers }
}

// `ws`'s tokenChars (lib/validation.js): what its server accepts in a Sec-WebSocket-Protocol value.
const TOKEN = '!#$%&\'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/**
 * The sub-protocols of a `Sec-WebSocket-Protocol` request header as the real server's `ws` parses them
 * (lib/subprotocol.js): undefined where it refuses the handshake (an empty item, a character outside a token, a
 * duplicate).
 */
export function parseSubprotocols(header: string): string[] | undefined {
  const protocols = new Set<string>()
  let start = -1
  let end = -1
  let i = 0
  for (; i < header.length; i++) {
    const c = header[i]
    if (end === -1 && TOKEN.includes(c)) {
      if (start === -1) start = i
    } else if (i !== 0 && (c === ' ' || c === '\t')) {
      if (end === -1 && start !== -1) end = i
    } else if (c === ',') {
      if (start === -1) return undefined
      if (end === -1) end = i
      const protocol = header.slice(start, end)
      if (protocols.has(protocol)) return undefined
      protocols.add(protocol)
      start = end = -1
    } else return undefined
  }
  if (start === -1 || end !== -1) return undefined
  const protocol = header.slice(start, i)
  if (protocols.has(protocol)) return undefined
  protocols.add(protocol)
  return [...protocols]
}

// ---------------------------------------------------------------------------------------------------------------
// WebIDL conversions, as undici's WebSocket applies them (lib/web/websocket/websocket.js, lib/web/webidl).
// ---------------------------------------------------------------------------------------------------------------

/**
 * `unsigned long` without `[Clamp]` or `[EnforceRange]`, as undici converts it: the integer part, then the remainder by
 * 2^32, sign kept (-1 stays -1; the WebIDL spec's modulo would give 4294967295).
 */
export function unsignedLong(v: unknown): number {
  const x = Number(v)
  return Number.isFinite(x) && x !== 0 ? Math.trunc(x) % 2 ** 32 : 0
}

/** USVString: lone surrogates become U+FFFD (`String.prototype.toWellFormed`, Node 20+). */
export const usv = (v: unknown) => (typeof v === 'string' ? v : `${v as string}`) as string & { toWellFormed(): string }
export const wellFormed = (v: unknown) => usv(v).toWellFormed()

export function argumentCheck(length: number, prefix: string) {
  if (length < 1) throw new TypeError(`${prefix}: 1 argument required, but 0 found.`)
}

/**
 * `[Clamp] unsigned short` as undici converts it: clamped to 0..65535, then the floor when the floor is even and the
 * ceiling when it is odd (3000.7 is 3000, 3001.2 is 3002, 1000.9 is 1000). The WebIDL spec rounds to the nearest
 * integer instead; a client gets Node's code here, the one its close frame carries in production.
 */
export function clampUnsignedShort(v: unknown): number {
  const x = Number(v)
  if (Number.isNaN(x)) return 0
  const c = Math.min(Math.max(x, 0), 65535)
  const f = Math.floor(c)
  return f % 2 === 0 ? f : Math.ceil(c)
}

/** RFC 6455 token characters: what `Sec-WebSocket-Protocol` values may hold. */
export function isValidSubprotocol(p: string) {
  if (p.length === 0) return false
  for (let i = 0; i < p.length; i++) {
    const c = p.charCodeAt(i)
    if (c < 0x21 || c > 0x7e || '"(),/:;<=>?@[\\]{}'.includes(p[i])) return false
  }
  return true
}

/** The constructor's default: no subprotocols, converted without walking an iterator. */
export const NO_PROTOCOLS: string[] = []
export const NO_INIT: WebSocketInit = Object.freeze({ protocols: NO_PROTOCOLS, headers: undefined })

export function urlRecord(url: string): URL {
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

export function sendData(v: unknown): string | Blob | ArrayBuffer | ArrayBufferView {
  if (v !== null && typeof v === 'object') {
    if (v instanceof Blob) return v
    // undici's `webidl.is.BufferSource`: an ArrayBuffer of any realm, or a view on one. A SharedArrayBuffer and a view
    // on one are sent as their string (`"[object SharedArrayBuffer]"`, `"0,0,0"`), as in Node.
    if (isArrayBuffer(v) || (ArrayBuffer.isView(v) && isArrayBuffer(v.buffer))) return v as ArrayBuffer | ArrayBufferView
  }
  return wellFormed(v)
}

export function byteLength(data: string | Blob | ArrayBuffer | ArrayBufferView): number {
  if (typeof data === 'string') return Buffer.byteLength(data)
  if (data instanceof Blob) return data.size
  return data.byteLength
}
