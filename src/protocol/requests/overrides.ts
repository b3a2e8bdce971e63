// Per-test overrides: answer any route (the events websocket upgrade included) with a scripted reply, a delay on the
// fake's clock, or a handler that looks at the request and then answers or passes to the fake's own route. The newest
// override that matches wins, as with msw's `server.use()` and WireMock stubs. They live until `reset()` (the vitest
// fixture closes its fake after each test). The admin API (`/_dockside/*`) cannot be overridden: it is how overrides
// are removed. See docs/api.md#per-test-overrides.
import { ConflictError, FieldError, InvalidInputError } from '../../service/errors'
import type { Service } from '../../core/service'
import { toMs, type Duration } from '../../time/duration'
import { compilePattern, type Candidate, type CompiledPattern, type RequestPattern, type Tester } from './log'
import { parseTarget } from '../http'
import type { ProtoResponse } from '../types'

/** What an override answers. */
export interface OverrideReply {
  /** 200-599. @default 200 */
  status?: number
  /** Response headers; `content-length` is always computed. */
  headers?: Record<string, string>
  /** A string is sent as is (`text/plain` unless a `content-type` header says otherwise); anything else as JSON. */
  body?: unknown
  /** Wait this long on the fake's clock first (ms or `'2s'`): `advance()` moves it under the virtual clock. @default 0 */
  delay?: Duration
  /** After the delay, let the fake's own route answer (faults included) instead of `status`/`body`. @default false */
  passthrough?: boolean
}

/** The request an override handler looks at. Header names are lower-case; values are the real ones. */
export interface OverrideRequest {
  method: string
  /** Path and query as received. */
  url: string
  /** Path without the API version prefix. */
  path: string
  query: Record<string, string>
  headers: Record<string, string | undefined>
  client: string | undefined
  /** The body as text (capped at the fake's `maxBodySize`); the fake's route can read it again. */
  text(): Promise<string>
  /** The body parsed as JSON. */
  json(): Promise<unknown>
}

/** Looks at a request: returns a reply, `{ passthrough: true }`, or nothing to let the next override (or the fake) answer. */
export type OverrideHandler = (request: OverrideRequest) => OverrideReply | undefined | void | Promise<OverrideReply | undefined | void>

/** Options of {@link Overrides.use}. */
export interface OverrideOptions {
  /** How many requests it answers, then it is spent (and stays listed). @default unlimited */
  times?: number
  /** Its id, for `remove(id)` and the journal. @default 'override-N' */
  id?: string
}

/** An override in place. */
export interface OverrideHandle {
  readonly id: string
  /** Requests it answered (or passed through after its delay). */
  readonly used: number
  /** Takes it away at once; false when it was already gone. */
  remove(): boolean
}

/** An override as listed by `fake.overrides.list()` and `GET /_dockside/overrides`. */
export interface OverrideInfo {
  id: string
  /** The request pattern as text: `POST /images/*\/push query tag="1.0"`. */
  request: string
  /** The scripted reply, or `'handler'` for a function. */
  response: OverrideReply | 'handler'
  times: number | null
  used: number
}

/** The overrides of one fake. */
export interface Overrides {
  /**
   * Answers requests matching `request` with `response` (a reply or a handler) until `reset()`. The newest match wins.
   * @example fake.use({ method: 'POST', path: '/images/*\/push' }, { status: 503, body: { message: 'down for maintenance' } }, { times: 1 })
   */
  use(request: RequestPattern | string, response: OverrideReply | OverrideHandler, options?: OverrideOptions): OverrideHandle
  list(): OverrideInfo[]
  remove(id: string): boolean
  clear(): void
  readonly size: number
}

/** What the router gets back: the override's id, and its answer unless it passed through. */
export interface OverrideOutcome {
  id: string
  response?: ProtoResponse & { body?: string }
}

/** The request as the router sees it, for {@link OverrideStore.answer}. */
export interface OverrideInput extends Candidate {
  url: string
  signal: AbortSignal
  body(): Promise<string>
}

/** Internal side of {@link Overrides}, used by the router. */
export interface OverrideStore extends Overrides {
  answer(svc: Service, req: OverrideInput): Promise<OverrideOutcome | undefined>
  /**
   * Whether a live override's pattern covers `method url` (its body, if it has one, unknown yet): a way in that only
   * passes the fake's own routes on (the in-process hooks' unhandled-request policy) passes these on too.
   */
  covers(method: string, url: string, headers: Record<string, string | undefined>): boolean
  /** Adds one from the admin API's JSON (`{ id?, request, response, times? }`), path patterns compiled by `regex`. */
  addJson(value: unknown, regex: (source: string) => Tester): OverrideHandle
}

interface Entry {
  id: string
  pattern: CompiledPattern
  response: OverrideReply | OverrideHandler
  times: number
  used: number
}

const REPLY_FIELDS = ['status', 'headers', 'body', 'delay', 'passthrough']

/**
 * How deep an override's body (the reply's, or the JSON a request must contain) may nest objects and lists. Far above
 * any API's body, far below where JSON.stringify runs out of stack (a few thousand levels): a body nested 5000 deep was
 * installed, then every answer that showed it (the route, `GET /_dockside/overrides`) was a 400 "Maximum call stack
 * size exceeded".
 */
export const MAX_BODY_DEPTH = 100

/** Header names and values an override may add, in bytes: Node's clients refuse a reply whose headers pass 16 KiB, the fake's own included. */
export const MAX_REPLY_HEADER_BYTES = 8 * 1024

/** An HTTP token (RFC 9110): what a header name may be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
/** What node:http sends in a header value: tab, visible ASCII, space and Latin-1 (no CR, LF, NUL or other controls). */
const BAD_VALUE_CHAR = /[^\t\x20-\x7e\x80-\xff]/
/** Headers the fake frames the answer with itself. */
const FRAMING = new Set(['transfer-encoding'])

/** Why a body cannot be matched or sent as JSON (nested too deep, refers to itself), or undefined. Never recurses deeper than the limit. */
function depthProblem(value: unknown): string | undefined {
  const ancestors = new Set<object>()
  const walk = (v: unknown, depth: number): string | undefined => {
    if (v === null || typeof v !== 'object') return undefined
    if (depth > MAX_BODY_DEPTH) return `is nested more than ${MAX_BODY_DEPTH} levels deep; a body may nest at most ${MAX_BODY_DEPTH} levels of objects and lists`
    if (ancestors.has(v)) return 'refers to itself (a circular structure cannot be JSON); give a plain JSON value'
    ancestors.add(v)
    for (const child of Object.values(v)) {
      const problem = walk(child, depth + 1)
      if (problem) return problem
    }
    ancestors.delete(v)
    return undefined
  }
  return walk(value, 1)
}

/**
 * Checks a reply's headers as node:http will send them: names are HTTP tokens, values text without CR, LF, NUL or
 * other control characters (and no character past U+00FF), the framing headers are the fake's. Refused here, not
 * found by every request the override answers (a 500, or a handshake answer no client can parse).
 */
function checkReplyHeaders(headers: Record<string, string>, where: string): void {
  let bytes = 0
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) throw new FieldError(where, `${JSON.stringify(name)} is not a header name: names are HTTP tokens (letters, digits and !#$%&'*+-.^_\`|~, no spaces or colons)`, 'override')
    if (FRAMING.has(name.toLowerCase())) throw new FieldError(`${where}.${name}`, 'is set by the fake (it sends the body with a content-length); leave it out', 'override')
    const bad = BAD_VALUE_CHAR.exec(value)
    if (bad) {
      const code = `U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
      throw new FieldError(`${where}.${name}`, `has a character a header value cannot carry (${code} at index ${bad.index}); values are text without CR, LF, NUL or other control characters, and no character past U+00FF`, 'override')
    }
    bytes += name.length + value.length
  }
  if (bytes > MAX_REPLY_HEADER_BYTES) throw new FieldError(where, `${bytes} bytes of header names and values; at most ${MAX_REPLY_HEADER_BYTES} in all (clients such as Node's refuse an answer whose headers pass 16 KiB)`, 'override')
}

/** Checks a reply's body: a string, or a value that JSON.stringify turns into JSON, nested at most {@link MAX_BODY_DEPTH} deep. */
function checkReplyBody(body: unknown, where: string): void {
  if (typeof body === 'string') return
  const deep = depthProblem(body)
  if (deep) throw new FieldError(where, deep, 'override')
  let text: string | undefined
  try {
    text = JSON.stringify(body)
  } catch (error) {
    throw new FieldError(where, `cannot be sent as JSON (${(error as Error).message}); give a string or a JSON value`, 'override')
  }
  if (text === undefined) throw new FieldError(where, `must be a string or a JSON value, not ${typeof body}`, 'override')
}

/** Checks the `body` of a request pattern (the JSON a request must contain), so that compiling and showing it cannot fail. */
export function checkPatternBody(body: unknown, where: string, subject: string): void {
  if (body === null || typeof body !== 'object' || body instanceof RegExp) return
  const deep = depthProblem(body)
  if (deep) throw new FieldError(where, deep, subject)
}

/** Checks a reply (given to `use()` or returned by a handler); `where` names it in the error. */
function checkReply(reply: unknown, where: string): OverrideReply {
  if (reply === null || typeof reply !== 'object' || Array.isArray(reply)) throw new FieldError(where, 'must be a reply object like { status: 503, body: { message: "..." } }, or a handler function', 'override')
  const r = reply as Record<string, unknown>
  const unknown = Object.keys(r).find((k) => !REPLY_FIELDS.includes(k))
  if (unknown !== undefined) throw new FieldError(`${where}.${unknown}`, `unknown field; allowed: ${REPLY_FIELDS.join(', ')}`, 'override')
  if (r.status !== undefined && (!Number.isInteger(r.status) || (r.status as number) < 200 || (r.status as number) > 599)) {
    throw new FieldError(`${where}.status`, `must be an integer from 200 to 599 (a websocket's 101 is the fake's own: use passthrough), not ${JSON.stringify(r.status)}`, 'override')
  }
  if (r.headers !== undefined && (r.headers === null || typeof r.headers !== 'object' || Array.isArray(r.headers) || Object.values(r.headers).some((v) => typeof v !== 'string'))) {
    throw new FieldError(`${where}.headers`, 'must be an object of header names to string values', 'override')
  }
  if (r.headers !== undefined) checkReplyHeaders(r.headers as Record<string, string>, `${where}.headers`)
  if (r.body !== undefined) checkReplyBody(r.body, `${where}.body`)
  if (r.delay !== undefined) {
    try {
      toMs(r.delay as Duration, 'override delay')
    } catch (error) {
      throw new FieldError(`${where}.delay`, (error as Error).message, 'override')
    }
  }
  if (r.passthrough !== undefined && typeof r.passthrough !== 'boolean') throw new FieldError(`${where}.passthrough`, 'must be true or false', 'override')
  if (r.passthrough === true && (r.status !== undefined || r.body !== undefined || r.headers !== undefined)) {
    throw new FieldError(where, 'passthrough lets the fake answer: give it no status, headers or body (a delay is fine)', 'override')
  }
  return r as OverrideReply
}

const encoder = new TextEncoder()

function toResponse(reply: OverrideReply): ProtoResponse & { body?: string } {
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(reply.headers ?? {})) headers[k.toLowerCase()] = v
  const body = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body)
  if (reply.body !== undefined) headers['content-type'] ??= typeof reply.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json'
  headers['content-length'] = String(encoder.encode(body).length)
  return { status: reply.status ?? 200, headers, body }
}

function requestOf(req: OverrideInput): OverrideRequest {
  return {
    method: req.method,
    url: req.url,
    path: req.path,
    query: Object.fromEntries(req.query),
    headers: req.headers,
    client: req.client,
    text: () => req.body(),
    json: async () => {
      const text = await req.body()
      try {
        return JSON.parse(text) as unknown
      } catch {
        throw new InvalidInputError(`The request body is not JSON (${text.length} characters).`)
      }
    },
  }
}

const JSON_FIELDS = ['id', 'request', 'response', 'times']
const JSON_REQUEST_FIELDS = ['method', 'path', 'pathPattern', 'query', 'headers', 'body', 'client']

/**
 * A pattern from JSON: string values only, `pathPattern` an RE2 regexp; checked field by field. `status` is allowed
 * for verification (`GET /_dockside/requests`), not for overrides (they match before there is an answer).
 */
export function patternFromJson(value: unknown, where: string, regex: (source: string) => Tester, subject = 'override', allowStatus = false): CompiledPattern {
  if (value === undefined) return compilePattern({})
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new FieldError(where, 'must be an object like {"method":"GET","path":"/_ping"}', subject)
  const v = value as Record<string, unknown>
  const fields = allowStatus ? [...JSON_REQUEST_FIELDS, 'status'] : JSON_REQUEST_FIELDS
  const unknown = Object.keys(v).find((k) => !fields.includes(k))
  if (unknown !== undefined) throw new FieldError(`${where}.${unknown}`, `unknown field; allowed: ${fields.join(', ')}`, subject)
  if (v.status !== undefined && (typeof v.status !== 'number' || !Number.isInteger(v.status))) throw new FieldError(`${where}.status`, 'must be an integer HTTP status', subject)
  for (const k of ['method', 'path', 'pathPattern', 'client'] as const) {
    if (v[k] !== undefined && typeof v[k] !== 'string') throw new FieldError(`${where}.${k}`, 'must be a string', subject)
  }
  if (v.path !== undefined && v.pathPattern !== undefined) throw new FieldError(where, 'give "path" or "pathPattern", not both', subject)
  if (typeof v.path === 'string' && !v.path.startsWith('/')) throw new FieldError(`${where}.path`, 'must start with "/"', subject)
  for (const k of ['query', 'headers'] as const) {
    const rec = v[k]
    if (rec !== undefined && (rec === null || typeof rec !== 'object' || Array.isArray(rec) || Object.values(rec).some((x) => typeof x !== 'string'))) {
      throw new FieldError(`${where}.${k}`, 'must be an object of names to string values', subject)
    }
  }
  if (v.body !== undefined && (v.body === null || (typeof v.body !== 'string' && typeof v.body !== 'object'))) throw new FieldError(`${where}.body`, 'must be the exact text, or a JSON object/array the body must contain', subject)
  checkPatternBody(v.body, `${where}.body`, subject)
  let path: RequestPattern['path'] = v.path as string | undefined
  if (typeof v.pathPattern === 'string') {
    const tester = compileTester(v.pathPattern, `${where}.pathPattern`, regex, subject)
    // A RegExp-like object: the pattern only calls test().
    path = Object.assign(Object.create(RegExp.prototype) as RegExp, { test: (t: string) => tester.test(t), toString: () => `/${v.pathPattern as string}/` })
  }
  const pattern: RequestPattern = { ...(v as RequestPattern), path }
  delete (pattern as Record<string, unknown>).pathPattern
  if (pattern.path === undefined) delete pattern.path
  // Every field was checked above, and a path pattern's source (pathSource) is always a valid RE2 regexp: this cannot throw.
  return compilePattern(pattern, (source) => compileTester(source, `${where}.path`, regex, subject))
}

function compileTester(source: string, where: string, regex: (source: string) => Tester, subject: string): Tester {
  try {
    return regex(source)
  } catch (error) {
    throw new FieldError(where, `not a valid RE2 regular expression: ${(error as Error).message}`, subject)
  }
}

export function createOverrides(): OverrideStore {
  // Newest last; searched from the end.
  let entries: Entry[] = []
  let next = 0
  const add = (pattern: CompiledPattern, response: OverrideReply | OverrideHandler, options: OverrideOptions = {}): OverrideHandle => {
    if (options === null || typeof options !== 'object') throw new InvalidInputError('Override options must be an object like { times: 1 }.')
    const unknown = Object.keys(options).find((k) => k !== 'times' && k !== 'id')
    if (unknown !== undefined) throw new FieldError(unknown, 'unknown option; allowed: times, id', 'override options')
    const times = options.times ?? Infinity
    if (times !== Infinity && (!Number.isInteger(times) || times < 1)) throw new FieldError('times', `must be an integer of 1 or more, not ${JSON.stringify(options.times)}`, 'override options')
    if (typeof response !== 'function') checkReply(response, 'response')
    const id = options.id ?? `override-${++next}`
    if (typeof id !== 'string' || id === '') throw new FieldError('id', 'must be a non-empty string', 'override options')
    if (entries.some((e) => e.id === id)) throw new ConflictError(`An override with id ${JSON.stringify(id)} is in place; remove it first or pick another id.`)
    const entry: Entry = { id, pattern, response, times, used: 0 }
    entries.push(entry)
    return {
      id,
      get used() {
        return entry.used
      },
      remove: () => store.remove(id),
    }
  }
  const store: OverrideStore = {
    get size() {
      return entries.length
    },
    use(request, response, options) {
      if (request !== null && typeof request === 'object') checkPatternBody((request as RequestPattern).body, 'request.body', 'override')
      return add(compilePattern(request), response, options)
    },
    list: () => entries.map((e) => ({ id: e.id, request: e.pattern.text, response: typeof e.response === 'function' ? 'handler' : e.response, times: e.times === Infinity ? null : e.times, used: e.used })),
    remove(id) {
      const before = entries.length
      entries = entries.filter((e) => e.id !== id)
      return entries.length < before
    },
    clear() {
      entries = []
    },
    addJson(value, regex) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new FieldError('', 'must be an object like {"request":{"method":"GET","path":"/_ping"},"response":{"status":503}}', 'request body')
      const v = value as Record<string, unknown>
      const unknown = Object.keys(v).find((k) => !JSON_FIELDS.includes(k))
      if (unknown !== undefined) throw new FieldError(unknown, `unknown field; allowed: ${JSON_FIELDS.join(', ')}`, 'request body')
      if (v.response === undefined) throw new FieldError('response', 'is required: a reply like {"status":503,"body":{"message":"..."}} or {"passthrough":true,"delay":"2s"}', 'request body')
      const pattern = patternFromJson(v.request, 'request', regex)
      if (v.times !== undefined && (typeof v.times !== 'number' || !Number.isInteger(v.times) || v.times < 1)) throw new FieldError('times', 'must be an integer of 1 or more', 'request body')
      return add(pattern, checkReply(v.response, 'response'), { ...(v.times !== undefined ? { times: v.times as number } : {}), ...(v.id !== undefined ? { id: v.id as string } : {}) })
    },
    covers(method, url, headers) {
      if (entries.length === 0) return false
      const target = parseTarget(url)
      const candidate: Candidate = { method, path: target.path, query: target.query, headers, client: headers['x-dockside-client'] ?? target.query.get('client') }
      return entries.some((e) => e.used < e.times && e.pattern.matches(candidate, undefined, true))
    },
    async answer(svc, req) {
      let request: OverrideRequest | undefined
      for (let i = entries.length - 1; i >= 0; i--) {
        const e = entries[i]
        if (e.used >= e.times) continue
        const body = e.pattern.needsBody ? await req.body().catch(() => undefined) : undefined
        if (!e.pattern.matches(req, body)) continue
        let reply: OverrideReply | undefined
        if (typeof e.response === 'function') {
          const returned = await e.response((request ??= requestOf(req)))
          // Nothing returned: the next override (or the fake) answers, and this one is not used up.
          if (returned === undefined) continue
          reply = checkReply(returned, `the handler of override ${e.id} returned`)
        } else reply = e.response
        // Removed while its handler ran (a reset): the fake answers as it is now.
        if (!entries.includes(e)) return undefined
        e.used++
        const ms = reply.delay === undefined ? 0 : toMs(reply.delay)
        svc.journal.record('override', { id: e.id, method: req.method, path: req.path, status: reply.passthrough ? 'passthrough' : (reply.status ?? 200), delayMs: ms })
        if (ms > 0) await svc.clock.sleep(ms, req.signal, 'wait')
        return reply.passthrough ? { id: e.id } : { id: e.id, response: toResponse(reply) }
      }
      return undefined
    },
  }
  return store
}
