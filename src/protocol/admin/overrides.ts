// Admin routes for per-test overrides and request verification: `/_dockside/overrides` and `/_dockside/requests`.
// Patterns that arrive here are compiled with re2js (linear time), never as JavaScript RegExps. See docs/admin-api.md.
import { FieldError, InvalidInputError, NotFoundError } from '../../service/errors'
import { compileGoRegexp, loadGoRegexp } from '../go/regexp'
import { json, type Target } from '../http'
import { patternFromJson, type OverrideStore } from '../requests/overrides'
import type { RequestLog } from '../requests/log'
import type { ProtoRequest, ProtoResponse } from '../types'

/** The stores these routes read and change (the protocol's). */
export interface VerifyStores {
  overrides: OverrideStore
  requests: RequestLog
}

export const VERIFY_ADMIN_ROUTES = [
  'GET|POST|DELETE /_dockside/overrides, DELETE /_dockside/overrides/{id}',
  'GET|DELETE /_dockside/requests[?method=&path=&pathPattern=&query.NAME=&header.NAME=&client=&status=&body=]',
]

async function linearRegex() {
  await loadGoRegexp()
  return (source: string) => compileGoRegexp(source)
}

const QUERY_PARAMS = ['method', 'path', 'pathPattern', 'client', 'status', 'body', 'limit', 'nearMisses']

/** `?method=POST&query.tag=1.0&header.x-dockside-client=ci` as a JSON pattern. */
function patternOf(target: Target): Record<string, unknown> {
  const pattern: Record<string, unknown> = {}
  const query: Record<string, string> = {}
  const headers: Record<string, string> = {}
  for (const [k, v] of target.query) {
    if (k.startsWith('query.') && k.length > 6) query[k.slice(6)] = v
    else if (k.startsWith('header.') && k.length > 7) headers[k.slice(7)] = v
    else if (!QUERY_PARAMS.includes(k)) {
      throw new InvalidInputError(`Unknown query parameter ${JSON.stringify(k)}; allowed: ${QUERY_PARAMS.join(', ')}, query.NAME, header.NAME.`)
    } else if (k === 'status') {
      if (!/^\d{3}$/.test(v)) throw new FieldError('status', `must be a 3-digit HTTP status, not ${JSON.stringify(v)}`, 'query')
      pattern.status = Number(v)
    } else if (k === 'body') {
      // A JSON object or array means "contains"; anything else is the exact text.
      let parsed: unknown = v
      if (/^\s*[[{]/.test(v)) {
        try {
          parsed = JSON.parse(v)
        } catch {
          // Not JSON after all: the exact text.
        }
      }
      pattern.body = parsed
    } else if (k !== 'limit' && k !== 'nearMisses') pattern[k] = v
  }
  if (Object.keys(query).length) pattern.query = query
  if (Object.keys(headers).length) pattern.headers = headers
  return pattern
}

function count(target: Target, name: string, fallback: number, max: number): number {
  const raw = target.query.get(name)
  if (raw === undefined) return fallback
  if (!/^\d+$/.test(raw) || Number(raw) > max) throw new FieldError(name, `must be an integer from 0 to ${max}, not ${JSON.stringify(raw)}`, 'query')
  return Number(raw)
}

async function readJson(req: ProtoRequest): Promise<unknown> {
  const raw = (await req.body()).trim()
  if (raw === '') throw new InvalidInputError('Send an override as JSON: {"request":{"method":"GET","path":"/_ping"},"response":{"status":503}}.')
  try {
    return JSON.parse(raw)
  } catch {
    throw new InvalidInputError(`The request body is not valid JSON (${raw.length} bytes, not shown: it may hold a secret). Send {"request":{...},"response":{...}}.`)
  }
}

/** Answers `/_dockside/overrides...` and `/_dockside/requests...`, or undefined for other resources. */
export async function handleVerifyAdmin(stores: VerifyStores, req: ProtoRequest, target: Target, parts: string[]): Promise<ProtoResponse | undefined> {
  const [resource, ref, extra] = parts
  if (resource !== 'overrides' && resource !== 'requests') return undefined
  const key = `${req.method} ${resource}${ref !== undefined ? '/:ref' : ''}${extra !== undefined ? '/more' : ''}`
  switch (key) {
    case 'GET overrides':
      return json(200, stores.overrides.list())
    case 'POST overrides': {
      const handle = stores.overrides.addJson(await readJson(req), await linearRegex())
      return json(201, stores.overrides.list().find((o) => o.id === handle.id))
    }
    case 'DELETE overrides': {
      const removed = stores.overrides.size
      stores.overrides.clear()
      return json(200, { removed })
    }
    case 'DELETE overrides/:ref':
      if (!stores.overrides.remove(ref)) throw new NotFoundError(`No such override: ${ref}. In place: ${stores.overrides.list().map((o) => o.id).join(', ') || '(none)'}.`)
      return json(200, { removed: ref })
    case 'GET requests': {
      const given = patternOf(target)
      const pattern = patternFromJson(given, 'query', await linearRegex(), 'query', true)
      const limit = count(target, 'limit', 1000, 1000)
      // Checked with or without a pattern: a bad value is a 400, never silently ignored.
      const near = count(target, 'nearMisses', 3, 50)
      const matched = stores.requests.list(pattern)
      const answer: Record<string, unknown> = { count: matched.length, omitted: stores.requests.omitted, requests: limit === 0 ? [] : matched.slice(-limit) }
      // With a pattern, the closest requests that did not match and what differed (WireMock's near misses).
      if (Object.keys(given).length > 0) answer.nearMisses = stores.requests.nearMisses(pattern, near)
      return json(200, answer)
    }
    case 'DELETE requests': {
      const removed = stores.requests.count()
      stores.requests.clear()
      return json(200, { removed })
    }
    default:
      throw new NotFoundError(`No admin route for ${req.method} ${target.path}. Routes here: ${VERIFY_ADMIN_ROUTES.join('; ')}.`)
  }
}
