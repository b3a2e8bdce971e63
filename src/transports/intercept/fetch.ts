// fetch in process: an undici Dispatcher set as the global dispatcher, so Node's own `fetch` (undici) hands requests
// to hooked origins straight to the protocol. No socket, no HTTP parsing, no nock in the way. Other origins go to the
// dispatcher that was global before. See docs/decisions/0009-fetch-dispatcher.md.
import type * as Http from 'node:http'
import type * as Vm from 'node:vm'
import { readCappedText } from '../../protocol/limits'
import type { Served } from '../../protocol/guard'
import { TransportReset, type ProtoRequest, type ProtoResponse } from '../../protocol/types'
import { hostNextTick, hostTimers } from '../../runtime/host-timers'
import { invalidMethodAnswer } from '../methods'
import { httpOrigins, servedAt, type HookedRegion } from './registry'
import { serverHeaders } from '../server-headers'

/** The symbol Node's fetch (and the undici package) reads the global dispatcher from. */
export const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1')

const { STATUS_CODES, METHODS } = process.getBuiltinModule('node:http') as typeof Http
/** The methods the real server's parser accepts (case-sensitive): any other is refused before the fake sees it. */
const PARSED = new Set(METHODS)
// The host's nextTick as captured when dockside was imported (host-timers.ts): a user's fake timers (jest fakes
// process.nextTick) cannot hold back a stream's bytes, even when this module loads after they were installed.
const nextTick = hostNextTick

/** Bytes gathered before they go to the client without waiting for the end of the turn (a socket's high-water mark). */
const COALESCE_BYTES = 64 * 1024

/** The parts of undici's dispatch options this dispatcher reads. */
export interface DispatchOptions {
  origin?: string | URL
  path: string
  method: string
  headers?: Record<string, string | string[] | undefined> | (string | Buffer)[] | null
  body?: string | Uint8Array | AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string> | null
  upgrade?: string | null
}

/** undici's dispatch handler (the callbacks Node's fetch gives). */
export interface DispatchHandler {
  onConnect?(abort: (reason?: Error) => void): void
  onResponseStarted?(): void
  onHeaders?(status: number, rawHeaders: Buffer[], resume: () => void, statusText: string): boolean
  onData?(chunk: Buffer): boolean
  onComplete?(trailers: Buffer[] | null): void
  onError?(error: Error): void
}

interface Dispatcher {
  dispatch(options: DispatchOptions, handler: DispatchHandler): boolean
}

type GlobalWithDispatcher = typeof globalThis & { [GLOBAL_DISPATCHER]?: Dispatcher }

/**
 * The global Node's fetch reads its dispatcher from: the main realm's. Under jest a test file's `globalThis` is a vm
 * context of its own while `fetch` is Node's, so a dispatcher set there was never read and fetch went to nock (whose
 * sockets wait on the file's process.nextTick, which jest's default fake timers fake).
 */
let realm: GlobalWithDispatcher | undefined
const fetchRealm = (): GlobalWithDispatcher => (realm ??= (process.getBuiltinModule('node:vm') as typeof Vm).runInThisContext('globalThis') as GlobalWithDispatcher)

const regionFor = (origin: string | URL | undefined): HookedRegion | undefined => {
  if (origin === undefined) return undefined
  const text = typeof origin === 'string' ? origin : origin.origin
  const hit = httpOrigins.get(text)
  if (hit || typeof origin !== 'string') return hit
  // Not already an origin (a trailing slash, a default port spelled out): normalise it once.
  try {
    return httpOrigins.get(new URL(origin).origin)
  } catch {
    return undefined
  }
}

function headersOf(raw: DispatchOptions['headers']): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {}
  if (!raw) return headers
  const add = (name: string, value: string) => {
    const key = name.toLowerCase()
    const had = headers[key]
    headers[key] = had === undefined ? value : `${had}, ${value}`
  }
  if (Array.isArray(raw)) for (let i = 0; i + 1 < raw.length; i += 2) add(String(raw[i]), String(raw[i + 1]))
  else for (const [k, v] of Object.entries(raw)) if (v !== undefined) add(k, Array.isArray(v) ? v.join(', ') : String(v))
  return headers
}

/**
 * A request body as bytes. Leaving early (a body over the limit) stops reading, as a server does, without waiting for
 * the body's source to wind down: undici's generator over a fetch body stream never settles a `return()`.
 */
function bytesOf(body: NonNullable<DispatchOptions['body']>, signal: AbortSignal): AsyncIterator<Uint8Array> {
  if (typeof body === 'string') return toAsync([Buffer.from(body)])
  if (body instanceof Uint8Array) return toAsync([body])
  const source = body as AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>
  const it = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : toAsync(source)
  const iterator: AsyncIterator<Uint8Array> = {
    next: async () => {
      const r = await it.next()
      // A client that went away mid-body (its source failed, an abort) ends undici's generator as if done: the
      // server's request errors then (node's `aborted`, ECONNRESET), rather than reading a cut-off body as whole.
      if (signal.aborted) throw Object.assign(new Error('aborted'), { code: 'ECONNRESET' })
      return r.done ? { done: true, value: undefined } : { done: false, value: typeof r.value === 'string' ? Buffer.from(r.value) : r.value }
    },
    return: async () => {
      void Promise.resolve(it.return?.()).catch(() => {})
      return { done: true, value: undefined }
    },
  }
  return iterator
}

async function* toAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items
}

/** An iterator as an iterable, with `first` (already read) put back in front. */
function iterableOf(first: Uint8Array | undefined, rest: AsyncIterator<Uint8Array>): AsyncIterable<Uint8Array> {
  let head = first
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        if (head === undefined) return rest.next()
        const value = head
        head = undefined
        return Promise.resolve({ done: false, value })
      },
      return: () => rest.return?.() ?? Promise.resolve({ done: true, value: undefined }),
    }),
  }
}

/** The methods undici sends `content-length: 0` for when their streamed body turns out empty (its `expectsPayload`). */
const PAYLOAD_METHODS = new Set(['PUT', 'POST', 'PATCH', 'QUERY', 'PROPFIND', 'PROPPATCH'])

/** Per hooked region, what every request to it shares: its Host header and the address it serves. */
const addresses = new WeakMap<HookedRegion, { host: string; served: Served }>()
const addressOf = (region: HookedRegion) => {
  let a = addresses.get(region)
  if (!a) addresses.set(region, (a = { host: new URL(region.origin).host, served: servedAt(region.origin) }))
  return a
}

/** Header names and values as bytes, for the few that every answer repeats. */
const latin1 = new Map<string, Buffer>()
const bytes = (text: string) => {
  let b = latin1.get(text)
  if (!b) {
    b = Buffer.from(text, 'latin1')
    if (text.length <= 64) {
      if (latin1.size >= 256) latin1.clear()
      latin1.set(text, b)
    }
  }
  return b
}

/**
 * What undici reports (as the `cause` of fetch's `TypeError: terminated`) when the server ends a connection mid-body,
 * which is what a reset or a cut-off stream does on the real server: an error of its `SocketError`'s class name, name, code and message,
 * so that retry code branching on `cause.code === 'UND_ERR_SOCKET'` takes the same branch in process.
 */
class SocketError extends Error {
  override name = 'SocketError'
  readonly code = 'UND_ERR_SOCKET'
}
const socketClosed = () => new SocketError('other side closed')

/**
 * The request as the protocol sees it: the headers undici would have written on a socket, `host` included. `streamed`
 * is a streamed body's first chunk (undefined: it was empty) and the rest of it, read by serve().
 */
function toProtoRequest(region: HookedRegion, options: DispatchOptions, signal: AbortSignal, streamed?: { first: Uint8Array | undefined; rest: AsyncIterator<Uint8Array> }): ProtoRequest {
  const headers = headersOf(options.headers)
  const method = options.method.toUpperCase()
  const address = addressOf(region)
  headers.host ??= address.host
  // undici closes the connection after a HEAD and keeps it alive otherwise.
  headers.connection ??= method === 'HEAD' ? 'close' : 'keep-alive'
  // A streamed body of no stated length goes chunked, or with `content-length: 0` when it is empty (undici's framing).
  if (streamed && headers['content-length'] === undefined) {
    if (streamed.first !== undefined) headers['transfer-encoding'] = 'chunked'
    else if (PAYLOAD_METHODS.has(method)) headers['content-length'] = '0'
  }
  let text: Promise<string> | undefined
  const body = options.body
  const chunks = () => (streamed ? iterableOf(streamed.first, streamed.rest) : { [Symbol.asyncIterator]: () => bytesOf(body!, signal) })
  return {
    method,
    url: options.path,
    headers,
    signal,
    body: (max) => (text ??= body == null ? Promise.resolve('') : readCappedText(chunks(), max)),
    remoteAddress: 'in-process',
    served: address.served,
  }
}

/** An error of undici's own classes, by name and code, as fetch's `TypeError: fetch failed` carries it as `cause`. */
class UndiciError extends Error {
  constructor(
    override readonly name: string,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}
const invalid = (message: string) => new UndiciError('InvalidArgumentError', 'UND_ERR_INVALID_ARG', message)
/** An HTTP token (RFC 9110): what a Connection header's options must be. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/**
 * What undici's client refuses in a request before it reaches a socket (lib/core/request.js's processHeader and the
 * body's length check), so that a client bug fails in process as it fails against the server: `fetch` with a
 * `transfer-encoding`, `keep-alive`, `upgrade` or `expect` header, a `content-length` that is not a number or not the
 * body's length, a `connection` that is not a list of tokens. undefined when undici would send it.
 */
function requestProblem(options: DispatchOptions): Error | undefined {
  const raw = options.headers
  const pairs: [string, unknown][] = []
  if (Array.isArray(raw)) for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([String(raw[i]), raw[i + 1]])
  else if (raw) for (const [k, v] of Object.entries(raw)) if (v !== undefined) pairs.push([k, v])
  let length: number | undefined
  for (const [key, value] of pairs) {
    const name = key.toLowerCase()
    const text = Array.isArray(value) ? value.join(', ') : String(value)
    if (name === 'content-length') {
      if (length !== undefined) return invalid('duplicate content-length header')
      if (!/^\d+$/.test(text)) return invalid('invalid content-length header')
      length = Number(text)
    } else if (name === 'transfer-encoding' || name === 'keep-alive' || name === 'upgrade') {
      return invalid(`invalid ${name} header`)
    } else if (name === 'connection') {
      if (!text.split(',').every((token) => TOKEN.test(token.trim()))) return invalid('invalid connection header')
    } else if (name === 'expect') {
      return new UndiciError('NotSupportedError', 'UND_ERR_NOT_SUPPORTED', 'expect header not supported')
    }
  }
  const body = options.body
  const size = typeof body === 'string' ? Buffer.byteLength(body) : body instanceof Uint8Array ? body.byteLength : undefined
  if (length !== undefined && size !== undefined && length !== size) {
    return new UndiciError('RequestContentLengthMismatchError', 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH', 'Request body length does not match content-length header')
  }
  return undefined
}

/** One request to a hooked origin, answered by its fake with the callbacks undici's own client would call. */
function serve(region: HookedRegion, options: DispatchOptions, handler: DispatchHandler) {
  // Refused by undici before any connection: the fake never sees it.
  const problem = requestProblem(options)
  if (problem) return void handler.onError?.(problem)
  const controller = new AbortController()
  let finished = false
  let stopBody: (() => void) | undefined
  const fail = (error: Error) => {
    if (finished) return
    finished = true
    controller.abort()
    stopBody?.()
    handler.onError?.(error)
  }
  // The client's abort (its signal, a cancelled body): the fake sees the client go away, as when a socket closes.
  handler.onConnect?.((reason) => fail(reason ?? Object.assign(new Error('Request aborted'), { name: 'AbortError' })))
  if (finished) return
  // A method node:http's parser refuses (`patch`: fetch upper-cases only the six standard ones) is answered as the
  // server answers it, before any route: the fake never sees it.
  if (!PARSED.has(options.method)) return refuse(options.method)
  // The answer is built on `proto`, set once the request has started.
  let proto: ProtoRequest
  const body = options.body
  // undici writes the request (its head included) with a streamed body's first chunk: the fake sees it only then, and
  // never when the body fails before it (fetch rejects with that failure, as against the server).
  if (body == null || typeof body === 'string' || body instanceof Uint8Array) return start(toProtoRequest(region, options, controller.signal))
  const rest = bytesOf(body, controller.signal)
  rest.next().then(
    (first) => finished || start(toProtoRequest(region, options, controller.signal, { first: first.done ? undefined : first.value, rest })),
    (error: unknown) => fail(error instanceof Error ? error : new Error(String(error))),
  )

  function start(request: ProtoRequest) {
    proto = request
    // A route the fake serves, or one an override covers (a stub for a Docker route the fake lacks).
    const served = region.routes.http(proto.method, proto.url) || region.protocol.overrides.covers(proto.method, proto.url, proto.headers)
    const answer = served
      ? region.protocol.handle(proto)
      : region.unhandled(proto.method, `${region.origin}${proto.url}`, () => region.protocol.handle(proto))
    answer.then(
      (res) => respond(res),
      (error: unknown) => fail(error instanceof Error ? error : new Error(String(error))),
    )
  }

  function refuse(method: string) {
    const answer = invalidMethodAnswer(method, METHODS)
    const raw: Buffer[] = []
    for (const [k, v] of answer.headers) raw.push(bytes(k), bytes(v))
    handler.onResponseStarted?.()
    handler.onHeaders?.(answer.status, raw, () => {}, STATUS_CODES[answer.status]!)
    if (finished) return
    handler.onData?.(Buffer.from(answer.body))
    if (finished) return
    finished = true
    handler.onComplete?.([])
  }

  function respond(res: ProtoResponse) {
    const body = res.body
    const streamed = body !== undefined && typeof body !== 'string'
    if (finished) {
      if (streamed) void Promise.resolve(body[Symbol.asyncIterator]().return?.()).catch(() => {})
      return
    }
    const raw: Buffer[] = []
    for (const [k, v] of Object.entries(res.headers)) raw.push(bytes(k), bytes(v))
    for (const [k, v] of serverHeaders(res.headers, proto.headers.connection, proto.method, res.status)) raw.push(bytes(k), bytes(v))
    let resumed: (() => void) | undefined
    let paused = false
    const resume = () => {
      paused = false
      const wake = resumed
      resumed = undefined
      wake?.()
    }
    handler.onResponseStarted?.()
    // node:http writes `unknown` for a status it has no name for (an override's 599).
    handler.onHeaders?.(res.status, raw, resume, STATUS_CODES[res.status] ?? 'unknown')
    if (finished) return
    if (proto.method === 'HEAD' || body === undefined || body === '') return complete()
    if (typeof body === 'string') {
      handler.onData?.(Buffer.from(body))
      return complete()
    }
    void pump(body[Symbol.asyncIterator]())

    function complete() {
      if (finished) return
      finished = true
      handler.onComplete?.([])
    }

    /**
     * Moves the protocol's chunks to the client: what arrives within one turn (a push's ticks that the clock fires
     * together) goes as one piece at the end of the turn, or at once past {@link COALESCE_BYTES}; the next chunk is
     * asked for while the client keeps up (backpressure: `onData` returning false pauses until undici resumes).
     */
    async function pump(iterator: AsyncIterator<string>) {
      let pending = ''
      let flushQueued = false
      const flush = () => {
        flushQueued = false
        if (pending === '' || finished) return
        const chunk = Buffer.from(pending)
        pending = ''
        if (handler.onData?.(chunk) === false) paused = true
      }
      const onAbort = () => fail(socketClosed())
      // Ending the body also wakes a pump paused for a client that stopped reading, so it finishes and cleans up.
      stopBody = () => {
        void Promise.resolve(iterator.return?.()).catch(() => {})
        resume()
      }
      res.abort?.addEventListener('abort', onAbort, { once: true })
      try {
        for (;;) {
          let step: IteratorResult<string>
          try {
            step = await iterator.next()
          } catch (error) {
            // A TransportReset mid-body: the chunks before it reach the client, then the connection fails as a reset
            // does on the server (one host turn later), which fetch reports as `TypeError: terminated`.
            flush()
            await new Promise<void>((resolve) => hostTimers.immediate(resolve))
            return fail(error instanceof TransportReset ? socketClosed() : error instanceof Error ? error : new Error(String(error)))
          }
          if (finished) return
          if (step.done) {
            flush()
            return complete()
          }
          if (step.value === '') continue
          pending += step.value
          if (pending.length >= COALESCE_BYTES) flush()
          else if (!flushQueued) {
            flushQueued = true
            nextTick(flush)
          }
          if (paused && !finished) await new Promise<void>((resolve) => (resumed = resolve))
        }
      } finally {
        res.abort?.removeEventListener('abort', onAbort)
        if (!finished) stopBody()
      }
    }
  }
}

let installs = 0
let installed: Dispatcher | undefined
let previous: Dispatcher | undefined

/**
 * Makes Node's fetch answer hooked origins in process: installs the dispatcher (once for every install in this
 * process) and returns how to take this install's share back. Paths the fake does not serve go to the previous
 * dispatcher in `bypass` mode, as do all other origins.
 */
export function hookFetch(): () => void {
  const g = fetchRealm()
  if (installs++ === 0) {
    // Reading fetch makes Node load undici, which sets its own global dispatcher first.
    void globalThis.fetch
    const fallback = g[GLOBAL_DISPATCHER]
    previous = fallback
    const dispatcher: Dispatcher & { isMockActive: boolean; close(): Promise<void>; destroy(): Promise<void> } = {
      // Node's fetch passes a request body as a stream (not its source) unless this is set.
      isMockActive: false,
      dispatch(options, handler) {
        const region = installed === dispatcher ? regionFor(options.origin) : undefined
        if (region && !(region.onUnhandled === 'bypass' && !region.routes.http(options.method, options.path) && !region.protocol.overrides.covers(options.method, options.path, {}))) {
          serve(region, options, handler)
          return true
        }
        if (!fallback) {
          handler.onError?.(new Error(`dockside: no dispatcher for ${String(options.origin)} (Node's fetch set none)`))
          return true
        }
        return fallback.dispatch(options, handler)
      },
      // Closing the global dispatcher is not ours to do for the one underneath.
      close: async () => {},
      destroy: async () => {},
    }
    installed = dispatcher
    g[GLOBAL_DISPATCHER] = dispatcher
  }
  let undone = false
  return () => {
    if (undone) return
    undone = true
    if (--installs > 0) return
    // Put the previous dispatcher back, unless someone has set another since (then leave theirs; ours passes through).
    if (g[GLOBAL_DISPATCHER] === installed && previous) g[GLOBAL_DISPATCHER] = previous
    installed = undefined
    previous = undefined
  }
}
