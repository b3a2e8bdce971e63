// What the fake received, for verification (`fake.requests`, `GET /_dockside/requests`, the request matchers), and
// the one request pattern that overrides match with too. Recording costs one small object and a ring push per
// request: headers and query are kept by reference and masked only when read, the body only when a route read it,
// cut to RECORDED_BODY_LIMIT characters. See docs/api.md#request-verification.
import { Recent } from '../../service/recent'
import { InvalidInputError } from '../../service/errors'
import { parseTarget } from '../http'

/** How many requests `fake.requests` keeps; older ones are dropped and counted in `omitted`. */
export const REQUEST_LOG_LIMIT = 1000
/** The longest body kept per recorded request, in characters; a longer one is cut and marked `bodyTruncated`. */
export const RECORDED_BODY_LIMIT = 8192

/** What a request pattern tests, per field. Strings are exact (`method` ignores case); a RegExp tests the value. */
export interface RequestPattern {
  /** `'GET'`, `'post'`, or `'*'`. @default any */
  method?: string
  /**
   * The path without its API version prefix (`/v1.47/containers/json` is `/containers/json`): exact, or with `:name`
   * for one segment and `*` for anything (`'/images/*\/push'`), or a RegExp. @default any
   */
  path?: string | RegExp
  /** Query parameters that must be present with these values (decoded). Others may be there too. */
  query?: Record<string, string | RegExp>
  /** Headers that must be present with these values; names in any case. Matched on the real value (shown masked). */
  headers?: Record<string, string | RegExp>
  /** The body: exact text, a RegExp, or an object/array the JSON body must contain (as `toMatchObject`). */
  body?: string | RegExp | Record<string, unknown> | unknown[]
  /** The client id (`X-Dockside-Client` header, else the `client` query parameter). */
  client?: string | RegExp
  /** The answer's status (verification only; overrides match before there is one). */
  status?: number
}

/** A request as `fake.requests` shows it: secrets masked (docs/security.md). */
export interface RecordedRequest {
  /** Order of arrival, from 1 (survives the ring dropping older ones). */
  seq: number
  /** Clock time of arrival, epoch ms. */
  time: number
  method: string
  /** Path and query as received (secret query values masked). */
  url: string
  /** Path without the API version prefix. */
  path: string
  query: Record<string, string>
  /** Lower-case names; `authorization`, `x-registry-auth`, cookies and token-like headers masked. */
  headers: Record<string, string>
  /** The body, when the route (or an override's handler) read it; secret JSON fields masked; cut at {@link RECORDED_BODY_LIMIT}. */
  body?: string
  bodyTruncated?: true
  client?: string
  /** The status answered (101 for an accepted websocket). */
  status: number
  /** The override that answered it, by id. */
  override?: string
  /** An events websocket upgrade (its frames are not requests). */
  websocket?: true
}

/** One field that did not match, for near-miss reports. */
export interface Mismatch {
  field: string
  expected: string
  actual: string
}

/** A recorded request that did not match, with what differed: the closest first. */
export interface NearMiss {
  request: RecordedRequest
  mismatches: Mismatch[]
  distance: number
}

/** What the router records: references only, masked views built on read. */
export interface RawRequest {
  seq: number
  time: number
  method: string
  url: string
  path: string
  /**
   * Parsed from `url` when first read (a websocket's entry lives as long as the log keeps it: thousands of open
   * connections kept one map each that nobody read).
   */
  query?: ReadonlyMap<string, string>
  headers: Record<string, string | undefined>
  body: string | undefined
  client: string | undefined
  status: number
  override: string | undefined
  websocket: boolean
  /** Set by the log when it cut the body at {@link RECORDED_BODY_LIMIT}. */
  bodyTruncated?: true
}

/** What the fake received, newest last. */
export interface RequestLog {
  /** Requests matching `pattern` (all when none), oldest first, masked. */
  list(pattern?: RequestPattern | string | CompiledPattern): RecordedRequest[]
  /** How many kept requests match `pattern`. */
  count(pattern?: RequestPattern | string | CompiledPattern): number
  /** The `limit` (default 3) kept requests closest to matching `pattern` without matching it, closest first. */
  nearMisses(pattern: RequestPattern | string | CompiledPattern, limit?: number): NearMiss[]
  /** How many older requests were dropped to stay within {@link REQUEST_LOG_LIMIT}. */
  readonly omitted: number
  /** Forgets the kept requests. */
  clear(): void
  /** Internal: called by the router once per request; numbers it (its `seq` is replaced) and cuts its body. */
  record(raw: RawRequest): void
}

// ---- Patterns ----

/** Something that tests a string: a RegExp, or re2js's linear-time matcher for patterns from the admin API. */
export interface Tester {
  test(text: string): boolean
}

/** A pattern compiled once: `matches` answers without allocating (per request); `mismatches` lists every field that differs (reports). */
export interface CompiledPattern {
  readonly needsBody: boolean
  /** The path when it is a plain string (no `*`, `:name` or RegExp): near misses rank paths by edit distance to it. */
  readonly plainPath: string | undefined
  /** `skipBody`: as if the body matched (not read yet). */
  matches(req: Candidate, body: string | undefined, skipBody?: boolean): boolean
  mismatches(req: Candidate, body: string | undefined): Mismatch[]
  /** The pattern as text, for messages. */
  readonly text: string
}

/** The fields a pattern is tested on. */
export interface Candidate {
  method: string
  path: string
  query: ReadonlyMap<string, string>
  headers: Record<string, string | undefined>
  client: string | undefined
  status?: number
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The regex source of a path pattern string: `:name` is one segment, `*` anything. */
export function pathSource(path: string): string {
  return `^${path
    .split(/(\*|:[A-Za-z_][A-Za-z0-9_]*)/)
    .map((part) => (part === '*' ? '.*' : part.startsWith(':') && part.length > 1 ? '[^/]+' : escapeRe(part)))
    .join('')}$`
}

const shownValue = (v: unknown) => (v instanceof RegExp ? String(v) : JSON.stringify(v))

/** Parses `'GET /_ping'` or `'/_ping'` into a pattern. */
function fromString(text: string): RequestPattern {
  const m = /^\s*(?:([A-Za-z]+|\*)\s+)?(\/\S*)\s*$/.exec(text)
  if (!m) throw new InvalidInputError(`Invalid request pattern ${JSON.stringify(text)}: expected "METHOD /path" or "/path", e.g. "POST /images/*/push".`)
  return m[1] ? { method: m[1], path: m[2] } : { path: m[2] }
}

/** Does `actual` (parsed JSON) contain `expected`, as `toMatchObject` reads it? */
function contains(actual: unknown, expected: unknown): boolean {
  if (expected === null || typeof expected !== 'object') return Object.is(actual, expected)
  if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => contains(actual[i], e))
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false
  return Object.entries(expected).every(([k, v]) => Object.hasOwn(actual, k) && contains((actual as Record<string, unknown>)[k], v))
}

const PATTERN_FIELDS = new Set(['method', 'path', 'query', 'headers', 'body', 'client', 'status'])

/**
 * Compiles a pattern. `regex` turns a path pattern's source into a tester: native RegExp for patterns written in
 * code, re2js (linear time) for patterns that arrive over the admin API.
 */
export function compilePattern(input: RequestPattern | string, regex: (source: string) => Tester = (s) => new RegExp(s)): CompiledPattern {
  const p = typeof input === 'string' ? fromString(input) : input
  if (p === null || typeof p !== 'object' || Array.isArray(p)) throw new InvalidInputError('A request pattern must be an object like { method: "GET", path: "/_ping" } or a string "GET /_ping".')
  const unknown = Object.keys(p).find((k) => !PATTERN_FIELDS.has(k))
  if (unknown !== undefined) throw new InvalidInputError(`Unknown request pattern field "${unknown}"; allowed: ${[...PATTERN_FIELDS].join(', ')}.`)
  const method = p.method === undefined || p.method === '*' ? undefined : p.method.toUpperCase()
  const path: Tester | undefined = p.path === undefined ? undefined : p.path instanceof RegExp ? p.path : /[*:]/.test(p.path) ? regex(pathSource(p.path)) : { test: (t) => t === p.path }
  const values = (rec: Record<string, string | RegExp> | undefined, lower: boolean) =>
    Object.entries(rec ?? {}).map(([k, v]) => [lower ? k.toLowerCase() : k, v] as const)
  const query = values(p.query, false)
  const headers = values(p.headers, true)
  const test = (expected: string | RegExp, actual: string | undefined) => actual !== undefined && (expected instanceof RegExp ? expected.test(actual) : expected === actual)
  const body = p.body
  const parts: string[] = [method ?? '*', p.path === undefined ? '*' : String(p.path)]
  if (query.length) parts.push(`query ${query.map(([k, v]) => `${k}=${shownValue(v)}`).join(' ')}`)
  if (headers.length) parts.push(`headers ${headers.map(([k, v]) => `${k}: ${SECRET_HEADERS.test(k) ? '(a secret)' : shownValue(v)}`).join(', ')}`)
  if (body !== undefined) parts.push(`body ${shownValue(body)}`)
  if (p.client !== undefined) parts.push(`client ${shownValue(p.client)}`)
  if (p.status !== undefined) parts.push(`status ${p.status}`)

  const bodyMatches = (text: string | undefined): boolean => {
    if (text === undefined) return false
    if (typeof body === 'string') return text === body
    if (body instanceof RegExp) return body.test(text)
    try {
      return contains(JSON.parse(text), body)
    } catch {
      return false
    }
  }

  return {
    needsBody: body !== undefined,
    plainPath: typeof p.path === 'string' && !/[*:]/.test(p.path) ? p.path : undefined,
    text: parts.join(' '),
    matches(req, text, skipBody = false) {
      if (method !== undefined && req.method !== method && req.method.toUpperCase() !== method) return false
      if (path && !path.test(req.path)) return false
      for (let i = 0; i < query.length; i++) if (!test(query[i][1], req.query.get(query[i][0]))) return false
      for (let i = 0; i < headers.length; i++) if (!test(headers[i][1], req.headers[headers[i][0]])) return false
      if (p.client !== undefined && !test(p.client, req.client)) return false
      if (p.status !== undefined && req.status !== p.status) return false
      return body === undefined || skipBody || bodyMatches(text)
    },
    mismatches(req, text) {
      const out: Mismatch[] = []
      const miss = (field: string, expected: unknown, actual: string | undefined) => out.push({ field, expected: shownValue(expected), actual: actual === undefined ? '(none)' : JSON.stringify(actual) })
      if (method !== undefined && req.method.toUpperCase() !== method) {
        miss('method', method, req.method)
      }
      if (path && !path.test(req.path)) {
        miss('path', p.path, req.path)
      }
      for (const [k, v] of query) {
        if (!test(v, req.query.get(k))) {
          miss(`query.${k}`, v, req.query.get(k))
        }
      }
      for (const [k, v] of headers) {
        if (!test(v, req.headers[k])) {
          // Never show a secret header's value, even a wrong one.
          miss(`headers.${k}`, SECRET_HEADERS.test(k) ? '(a secret)' : v, req.headers[k] === undefined ? undefined : maskHeader(k, req.headers[k]!))
        }
      }
      if (p.client !== undefined && !test(p.client, req.client)) {
        miss('client', p.client, req.client)
      }
      if (p.status !== undefined && req.status !== p.status) {
        miss('status', p.status, req.status === undefined ? undefined : String(req.status))
      }
      if (body !== undefined) {
        if (!bodyMatches(text)) miss('body', body, text === undefined ? undefined : maskBody(text.length > 200 ? `${text.slice(0, 200)}...` : text))
      }
      return out
    },
  }
}

// ---- Masking (on read only) ----

const SECRET_HEADERS = /^(authorization|proxy-authorization|x-registry-auth|x-registry-config|cookie|set-cookie)$|token|secret|passw|api-?key/i
const SECRET_KEYS = /passw|secret|token|^auth$|credential|signature/i

function maskHeader(name: string, value: string): string {
  if (!SECRET_HEADERS.test(name)) return value
  // The scheme is no secret and tells a reader what was sent: "Bearer ***", "HYPER-HMAC-SHA256 ***".
  const scheme = /^(authorization|proxy-authorization)$/i.test(name) ? /^[A-Za-z0-9_-]+(?=\s)/.exec(value)?.[0] : undefined
  return scheme ? `${scheme} ***` : '***'
}

function maskJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskJson)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_KEYS.test(k) && v !== null && typeof v !== 'object' ? '***' : maskJson(v)]))
}

/** A body with secret JSON fields (password, token, auth...) or form fields masked. */
export function maskBody(text: string): string {
  const t = text.trimStart()
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.stringify(maskJson(JSON.parse(text)))
    } catch {
      // Cut or not JSON: mask what looks like a secret field.
      return text.replace(/("[^"]*(?:passw|secret|token|auth|credential)[^"]*"\s*:\s*)"(?:[^"\\]|\\.)*"?/gi, '$1"***"')
    }
  }
  return text.replace(/((?:^|&)[^=&]*(?:passw|secret|token|credential)[^=&]*=)[^&]*/gi, '$1***')
}

/** A query parameter name that holds a secret: the names `query` masks, and API keys as headers have them. */
const isSecretParam = (name: string) => SECRET_KEYS.test(name) || /api[-_]?key/i.test(name)

/**
 * The URL with the values of secret query parameters masked, judged on their decoded names as `query` is (a pattern
 * of its own let `?auth=` and `?%74oken=` through in clear while `query` showed them masked).
 */
function maskUrl(url: string): string {
  const q = url.indexOf('?')
  if (q < 0) return url
  const pairs = url.slice(q + 1).split('&')
  return `${url.slice(0, q + 1)}${pairs
    .map((part) => {
      const eq = part.indexOf('=')
      if (eq < 0) return part
      const [name] = parseTarget(`/?${part.slice(0, eq)}`).query.keys()
      return name !== undefined && isSecretParam(name) ? `${part.slice(0, eq)}=***` : part
    })
    .join('&')}`
}

function view(r: RawRequest): RecordedRequest {
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(r.headers)) if (v !== undefined) headers[k] = maskHeader(k, v)
  const query: Record<string, string> = {}
  for (const [k, v] of queryOf(r)) query[k] = isSecretParam(k) ? '***' : v
  const out: RecordedRequest = { seq: r.seq, time: r.time, method: r.method, url: maskUrl(r.url), path: r.path, query, headers, status: r.status }
  if (r.body !== undefined) {
    out.body = maskBody(r.body)
    if (r.bodyTruncated) out.bodyTruncated = true
  }
  if (r.client !== undefined) out.client = r.client
  if (r.override !== undefined) out.override = r.override
  if (r.websocket) out.websocket = true
  return out
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** The first RECORDED_BODY_LIMIT characters as a string of their own: a slice would keep the whole body alive. */
const capBody = (text: string): string => decoder.decode(encoder.encode(text.slice(0, RECORDED_BODY_LIMIT)))

/** Edit distance of two short strings in [0, 1] (cut at 200 characters: near-miss ranking only). */
function distance(a: string, b: string): number {
  a = a.slice(0, 200)
  b = b.slice(0, 200)
  if (a === b) return 0
  const n = b.length
  let prev = Array.from({ length: n + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    for (let j = 1; j <= n; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    prev = cur
  }
  return prev[n] / Math.max(a.length, n, 1)
}

const queryOf = (r: RawRequest) => (r.query ??= parseTarget(r.url).query)
const candidateOf = (r: RawRequest): Candidate => (queryOf(r), r as Candidate)
const isCompiled = (p: RequestPattern | string | CompiledPattern): p is CompiledPattern => typeof (p as CompiledPattern).mismatches === 'function'

export function createRequestLog(limit = REQUEST_LOG_LIMIT): RequestLog {
  const ring = new Recent<RawRequest>(limit)
  let seq = 0
  const compile = (pattern: RequestPattern | string | CompiledPattern | undefined) =>
    pattern === undefined ? undefined : isCompiled(pattern) ? pattern : compilePattern(pattern)
  const matching = (pattern: RequestPattern | string | CompiledPattern | undefined) => {
    const c = compile(pattern)
    const all = ring.toArray()
    return c ? all.filter((r) => c.matches(candidateOf(r), r.body)) : all
  }
  return {
    get omitted() {
      return ring.omitted
    },
    list: (pattern) => matching(pattern).map(view),
    count: (pattern) => matching(pattern).length,
    nearMisses(pattern, max = 3) {
      const c = compile(pattern)!
      const misses: NearMiss[] = []
      for (const r of ring.toArray()) {
        const mismatches = c.mismatches(candidateOf(r), r.body)
        if (mismatches.length === 0) continue
        // Each differing field counts 1, a path that is a plain string by how far it is (a typo is close), a header,
        // query parameter or client that is there with another value half.
        let d = 0
        for (const m of mismatches) d += m.field === 'path' && c.plainPath !== undefined ? distance(c.plainPath, r.path) : m.field !== 'method' && m.field !== 'path' && m.actual !== '(none)' ? 0.5 : 1
        misses.push({ request: view(r), mismatches, distance: Math.round(d * 1000) / 1000 })
      }
      return misses.sort((a, b) => a.distance - b.distance || b.request.seq - a.request.seq).slice(0, max)
    },
    clear: () => ring.clear(),
    record(raw) {
      raw.seq = ++seq
      // Only a longer body is cut (and marked): one of exactly the limit is kept whole.
      if (raw.body !== undefined && raw.body.length > RECORDED_BODY_LIMIT) {
        raw.body = capBody(raw.body)
        raw.bodyTruncated = true
      }
      ring.push(raw)
    },
  }
}

/** One request as a line: `POST /images/app/push?tag=1.0 -> 200 (client "ci", #4)`. */
export function describeRequest(r: RecordedRequest): string {
  const extra = [r.client !== undefined ? `client ${JSON.stringify(r.client)}` : '', r.override ? `override ${r.override}` : '', `#${r.seq}`].filter(Boolean).join(', ')
  return `${r.method} ${r.url} -> ${r.status} (${extra})`
}

/** A near-miss report: the closest requests and, under each, what differed. */
export function describeNearMisses(misses: NearMiss[]): string {
  if (misses.length === 0) return '  (no requests at all)'
  return misses.map((m, i) => [`  ${i + 1}. ${describeRequest(m.request)}`, ...m.mismatches.map((x) => `       ${x.field}: expected ${x.expected}, got ${x.actual}`)].join('\n')).join('\n')
}
