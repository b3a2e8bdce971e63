import { apiAtLeast } from './api-version'
import { ConflictError, DocksideError, InvalidInputError, NotFoundError } from '../service/errors'
import { goCleanPath, goQueryError, badEscape } from './go/url'
import { BodyTooLargeError } from './limits'
import type { ProtoResponse } from './types'

/** The one table from domain errors to HTTP statuses. */
export function statusOf(error: unknown): number {
  if (error instanceof DocksideError && error.wireStatus !== undefined) return error.wireStatus
  if (error instanceof NotFoundError) return 404
  if (error instanceof BodyTooLargeError) return 413
  if (error instanceof ConflictError) return 409
  if (error instanceof InvalidInputError) return 400
  if (error instanceof RangeError) return 400
  if (error instanceof DocksideError) return 400
  return 500
}

const encoder = new TextEncoder()

/** A JSON answer with an exact `Content-Type` (Docker's CLI needs it without charset) and a Content-Length. */
export function json(status: number, value: unknown, headers: Record<string, string> = {}): ProtoResponse & { body: string } {
  const body = JSON.stringify(value)
  return {
    status,
    headers: { 'content-type': 'application/json', 'content-length': String(encoder.encode(body).length), ...headers },
    body,
  }
}

/** A JSON error `{"message": ...}`. */
export const jsonError = (status: number, message: string, headers: Record<string, string> = {}) => json(status, { message }, headers)

/** Maps any thrown error to its JSON answer. */
export function errorResponse(error: unknown) {
  const status = statusOf(error)
  const message = error instanceof Error ? error.message : String(error)
  const wire = error instanceof DocksideError ? error.wire : undefined
  if (wire !== undefined) return dockerError(status, wire, message)
  // A body over the limit was left unread: the connection cannot carry another request.
  return jsonError(status, status === 500 ? `internal error: ${message}` : message, status === 413 ? { connection: 'close' } : {})
}

/** A header value from any text: one line of printable ASCII (other characters as `\uXXXX`), at most 1 KiB. */
function headerSafe(text: string): string {
  const one = text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  return one.length > 1024 ? `${one.slice(0, 1021)}...` : one
}

/**
 * A Docker route's error as the daemon sends it: `{"message": <the daemon's text>}`, byte for byte, so a client that
 * matches the daemon's words passes on both. dockside's help goes where a person looks and a client does not: the
 * `X-Dockside-Hint` header (and the journal, the serve log and the dashboard, which show it).
 */
export function dockerError(status: number, daemonText: string, hint?: string, headers: Record<string, string> = {}) {
  return jsonError(status, daemonText, hint === undefined || hint === daemonText ? headers : { ...headers, [HINT_HEADER]: headerSafe(hint) })
}

/**
 * The status of a refusal the 20.10 daemon (API 1.41 and older) answered 500, as its errors had no class yet; the
 * Engine's errdefs.InvalidParameter makes them 400 from API 1.42 (Engine 23.0) on. A request path without a version
 * is the newest.
 */
export function invalidParameterStatus(version: string | undefined): number {
  return apiAtLeast(version, '1.42') ? 400 : 500
}

/** The header that carries dockside's help beside a Docker route's error (never read by a client). */
export const HINT_HEADER = 'x-dockside-hint'

export function text(status: number, body: string, headers: Record<string, string> = {}): ProtoResponse & { body: string } {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(encoder.encode(body).length), ...headers }, body }
}

/** A parsed request target. The query keeps each raw value too, for raw-JSON filters. Read-only: see {@link targetOf}. */
export interface Target {
  /** The request target it was parsed from (from {@link targetOf}: one string for every request with that URL). */
  readonly url: string
  /** Path without the `/v1.xx` prefix, not decoded. */
  readonly path: string
  /** The API version prefix, when given. */
  readonly version: string | undefined
  readonly query: ReadonlyMap<string, string>
  /**
   * What Go's url.ParseQuery refuses in the query (a broken `%` escape, a `;`), in its words: the daemon's routes that
   * call ParseForm answer it as a 400 (see {@link queryRefusal}). Undefined when Go reads the query.
   */
  readonly queryError?: { readonly text: string; readonly part: string }
}

function decode(value: string): string {
  // As Go's url.ParseQuery reads every value, raw JSON included (a client that sends `{"label":["v=1+2"]}` unencoded
  // asks the real service for "v=1 2"): '+' is a space, and a literal plus is %2B.
  const plus = value.replace(/\+/g, ' ')
  try {
    return decodeURIComponent(plus)
  } catch {
    return value
  }
}

/** How many request targets {@link targetOf} remembers. */
const TARGETS_KEPT = 256
const targets = new Map<string, Target>()

/**
 * {@link parseTarget}, remembered for the last {@link TARGETS_KEPT} URLs: events clients connect and reconnect with the
 * same URL, and decoding a `filters` query was a tenth of the protocol's CPU per connect. Targets are shared, so
 * nothing may change one (the type says so; override handlers get a copy of the query).
 */
export function targetOf(url: string): Target {
  let target = targets.get(url)
  if (target === undefined) {
    target = parseTarget(url)
    if (targets.size >= TARGETS_KEPT) targets.delete(targets.keys().next().value!)
    targets.set(url, target)
  }
  return target
}

export function parseTarget(url: string): Target {
  const q = url.indexOf('?')
  let path = q < 0 ? url : url.slice(0, q)
  const query = new Map<string, string>()
  if (q >= 0) {
    for (const part of url.slice(q + 1).split('&')) {
      if (!part) continue
      const eq = part.indexOf('=')
      const key = decode(eq < 0 ? part : part.slice(0, eq))
      if (!query.has(key)) query.set(key, eq < 0 ? '' : decode(part.slice(eq + 1)))
    }
  }
  const m = /^\/v(\d+(?:\.\d+)*)(?=\/)/.exec(path)
  const version = m?.[1]
  if (m) path = path.slice(m[0].length)
  const queryError = q < 0 ? undefined : goQueryError(url.slice(q + 1))
  return queryError === undefined ? { url, path, version, query } : { url, path, version, query, queryError }
}

/**
 * The daemon's 400 for a query Go cannot read, on a route that calls httputils.ParseForm (most do; `_ping`, `version`,
 * `info`, `auth` and container inspect do not): its words in the body, dockside's reading in the hint. Undefined when
 * the query reads.
 */
export function queryRefusal(target: Target): ProtoResponse | undefined {
  const error = target.queryError
  if (error === undefined) return undefined
  const part = JSON.stringify(error.part.length > 60 ? `${error.part.slice(0, 57)}...` : error.part)
  const hint = error.text.startsWith('invalid semicolon')
    ? `${error.text}: the query part ${part} holds a ";": separate query parameters with "&", and write a literal ";" in a value as %3B.`
    : `${error.text}: in the query part ${part}, a "%" must start an escape of two hex digits; write a literal "%" as %25 (encodeURIComponent does).`
  return dockerError(400, error.text, hint)
}

/**
 * What the Engine answers about a request path before any route: Go's HTTP server refuses a broken escape (a `%` not
 * followed by two hex digits; url.ParseRequestURI) with its bare `400 Bad Request` in plain text, closing the
 * connection, and gorilla/mux redirects an unclean path. Neither carries the daemon's headers. Undefined for a path
 * the routes see.
 */
export function beforeRoutes(url: string): ProtoResponse | undefined {
  const q = url.indexOf('?')
  const path = q < 0 ? url : url.slice(0, q)
  const bad = badEscape(path)
  if (bad === undefined) {
    // The Engine's router (gorilla/mux) sends a path with `//`, `.` or `..` segments to its clean form: a 301 with
    // no body and none of the daemon's headers, the query kept.
    const clean = path.startsWith('/') ? goCleanPath(path) : path
    if (clean === path || clean === '/_dockside' || clean.startsWith('/_dockside/')) return undefined
    const hint = `the Engine's router redirects ${JSON.stringify(path)} to its clean form: request ${JSON.stringify(clean)}.`
    return { status: 301, headers: { location: clean + (q < 0 ? '' : url.slice(q)), 'content-length': '0', [HINT_HEADER]: headerSafe(hint) } }
  }
  const hint = `the request path holds a broken escape ${JSON.stringify(bad)}, which Go's HTTP server refuses before any route: a "%" in a path must start an escape of two hex digits; write a literal "%" as %25 (encodeURIComponent does).`
  return text(400, '400 Bad Request', { connection: 'close', [HINT_HEADER]: hint })
}
