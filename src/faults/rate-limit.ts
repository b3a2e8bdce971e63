import { FieldError } from '../service/errors'
import type { SchemaCheck } from './rule'
import type { Journal } from '../service/journal'
import { durationProblem, MAX_DURATION_MS, shownValue, toMs, type Duration } from '../time/duration'

/** Which requests a rate limit counts. */
export type RateLimitRoute = 'events' | 'push' | '*'

/** One limit: `limit` requests per `window` of clock time, as a token bucket of size `burst`. */
export interface RateLimitRule {
  /** `events` (the websocket and Docker's `/events`), `push`, or `*` for both. @default '*' */
  route?: RateLimitRoute
  /** Requests allowed per window (the bucket refills at `limit / window`). */
  limit: number
  /** The window, a duration like `'10s'`. */
  window: Duration
  /** Bucket size: how many requests may come at once. @default limit */
  burst?: number
  /** `client`: one bucket per client (its id, else its address); `route`: one bucket shared by everyone. @default 'client' */
  per?: 'client' | 'route'
  /** Body message of the 429; not empty. */
  message?: string
}

/** Rate limits in code, scenario files (`rateLimit:`) and the admin API (`POST /_dockside/rate-limit`). */
export type RateLimitConfig = RateLimitRule | RateLimitRule[]

/** A token bucket as the dashboard shows it. */
export interface RateLimitBucket {
  rule: number
  route: string
  client: string
  /** Requests it would let through now (whole tokens). */
  tokens: number
  /** The bucket's size (the rule's burst, else its limit). */
  burst: number
}

export type RateLimitVerdict =
  | { allowed: true }
  | { allowed: false; rule: number; retryAfterMs: number; retryAfter: number; message: string }

export interface RateLimiter {
  /** Replaces the limits (`undefined` or `[]` turns limiting off) and empties every bucket. */
  set(config: RateLimitConfig | undefined): void
  /** The limits in force. */
  get(): RateLimitRule[]
  /** Each bucket in use: its rule, route, client (`*` when shared) and the requests it would let through now. */
  buckets(): RateLimitBucket[]
  /** Counts one request; answers whether it may pass and, if not, exactly when a retry will. */
  check(route: Exclude<RateLimitRoute, '*'>, client: string): RateLimitVerdict
}

/** What is wrong with a window (a duration above 0, at most 100 years), or undefined when it is one. */
function windowProblem(window: unknown): string | undefined {
  const problem = durationProblem(window)
  if (problem?.kind === 'long') return `${shownValue(window)} is longer than the 100-year maximum; must be a duration above 0, at most ${MAX_DURATION_MS} ms (100 years, "36500d"), like "10s"`
  // Without the schema (createService alone) a missing or malformed window lands here too: named like a 0.
  if (problem || !(toMs(window as Duration) > 0)) return 'must be a duration above 0, like "10s"'
  return undefined
}

/**
 * Validates limits at the boundary: field names and types against the schema (`check`, the one source of
 * them), then what it cannot say (a window above 0 and at most 100 years). Errors are FieldErrors naming the path, e.g. `[1].window`.
 */
export function validateRateLimit(config: unknown, check?: SchemaCheck): RateLimitRule[] {
  if (config === undefined || config === null) return []
  check?.('rateLimitConfig', config, 'rate limit')
  const list = Array.isArray(config) ? config : [config]
  return list.map((raw, i) => {
    const at = (field: string) => (Array.isArray(config) ? `[${i}]${field ? `.${field}` : ''}` : field)
    if (!raw || typeof raw !== 'object') throw new FieldError(at(''), 'must be a rate limit like {"route":"events","limit":5,"window":"10s"}', 'rate limit')
    const r = raw as RateLimitRule
    const problem = windowProblem(r.window)
    if (problem) throw new FieldError(at('window'), problem, 'rate limit')
    for (const field of ['limit', 'burst'] as const) {
      const v = r[field]
      if (typeof v === 'number' && !Number.isFinite(v)) throw new FieldError(at(field), `must be a finite whole number, not ${v}`, 'rate limit')
    }
    if (r.message === '') throw new FieldError(at('message'), "must be a non-empty string: the 429's JSON message (leave it out for the default, which names the limit)", 'rate limit')
    return { ...r }
  })
}

/**
 * A token bucket on the clock, kept exact as GCRA: each request moves a theoretical arrival time
 * by `window / limit`; a request is refused while it is earlier than that time minus the burst's tolerance,
 * and `Retry-After` is that difference rounded up to whole seconds, so a retry at `Retry-After` passes.
 */
export function createRateLimiter(deps: { now: () => number; journal: Journal; check?: SchemaCheck }): RateLimiter {
  let rules: RateLimitRule[] = []
  let buckets = new Map<string, number>()
  return {
    set(config) {
      rules = validateRateLimit(config, deps.check)
      buckets = new Map()
      deps.journal.record('ratelimit.set', { rules })
    },
    get: () => rules.map((r) => ({ ...r })),
    buckets() {
      const now = deps.now()
      return [...buckets].map(([key, tat]) => {
        const [i, route, ...client] = key.split('|')
        const r = rules[Number(i)]
        const interval = toMs(r.window) / r.limit
        const burst = r.burst ?? r.limit
        // GCRA: the bucket is full once `tat` is in the past; each interval ahead of now is one token used.
        const tokens = Math.max(0, Math.min(burst, Math.floor(burst - Math.max(0, tat - now) / interval + 1e-9)))
        return { rule: Number(i), route, client: client.join('|'), tokens, burst }
      })
    },
    check(route, client) {
      const now = deps.now()
      // Tokens are taken only once every rule allows the request: a request one rule refused used the others' tokens,
      // so a retry at its Retry-After met another rule's 429. Refused by several, the answer is the longest wait: a
      // client that waits what Retry-After says then passes them all.
      const taken: [key: string, tat: number, rule: number][] = []
      let refusedBy = -1
      let refusedUntil = now
      for (let i = 0; i < rules.length; i++) {
        const r = rules[i]
        if ((r.route ?? '*') !== '*' && r.route !== route) continue
        const interval = toMs(r.window) / r.limit
        const tolerance = interval * ((r.burst ?? r.limit) - 1)
        const key = `${i}|${route}|${(r.per ?? 'client') === 'client' ? client : '*'}`
        const tat = Math.max(buckets.get(key) ?? now, now)
        const allowedAt = tat - tolerance
        if (now < allowedAt) {
          if (allowedAt > refusedUntil) {
            refusedBy = i
            refusedUntil = allowedAt
          }
        } else taken.push([key, tat + interval, i])
      }
      if (refusedBy >= 0) {
        const r = rules[refusedBy]
        const retryAfterMs = refusedUntil - now
        const retryAfter = Math.ceil(retryAfterMs / 1000 - 1e-9)
        deps.journal.record('ratelimit', { route, client, rule: refusedBy, allowed: false, retryAfterMs })
        return { allowed: false, rule: refusedBy, retryAfterMs, retryAfter, message: r.message ?? `too many requests: ${r.limit} per ${r.window}${(r.per ?? 'client') === 'client' ? ' per client' : ''} on ${route}; retry in ${retryAfter}s` }
      }
      for (const [key, tat, i] of taken) {
        buckets.set(key, tat)
        deps.journal.record('ratelimit', { route, client, rule: i, allowed: true })
      }
      return { allowed: true }
    },
  }
}
