import { InvalidInputError } from '../service/errors'
import type { Journal } from '../service/journal'
import { toMs, type Duration } from '../time/duration'

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
  /** Body message of the 429. */
  message?: string
}

/** Rate limits in code, scenario files (`rateLimit:`) and the admin API (`POST /_dockside/rate-limit`). */
export type RateLimitConfig = RateLimitRule | RateLimitRule[]

export type RateLimitVerdict =
  | { allowed: true }
  | { allowed: false; rule: number; retryAfterMs: number; retryAfter: number; message: string }

export interface RateLimiter {
  /** Replaces the limits (`undefined` or `[]` turns limiting off) and empties every bucket. */
  set(config: RateLimitConfig | undefined): void
  /** The limits in force. */
  get(): RateLimitRule[]
  /** Counts one request; answers whether it may pass and, if not, exactly when a retry will. */
  check(route: Exclude<RateLimitRoute, '*'>, client: string): RateLimitVerdict
}

/** Validates limits at the boundary; messages name the field and what is allowed. */
export function validateRateLimit(config: unknown): RateLimitRule[] {
  if (config === undefined || config === null) return []
  const list = Array.isArray(config) ? config : [config]
  return list.map((raw, i) => {
    const where = list.length > 1 ? `rate limit [${i}]` : 'rate limit'
    if (!raw || typeof raw !== 'object') throw new InvalidInputError(`A ${where} must be an object like {"route":"events","limit":5,"window":"10s"}.`)
    const r = raw as RateLimitRule
    for (const k of Object.keys(r)) {
      if (!['route', 'limit', 'window', 'burst', 'per', 'message'].includes(k)) throw new InvalidInputError(`Unknown ${where} field "${k}". Allowed: route, limit, window, burst, per, message.`)
    }
    if (r.route !== undefined && !['events', 'push', '*'].includes(r.route)) throw new InvalidInputError(`Invalid ${where} "route": ${JSON.stringify(r.route)}. Allowed: events, push, *.`)
    if (!(Number.isInteger(r.limit) && r.limit >= 1)) throw new InvalidInputError(`Invalid ${where} "limit": ${JSON.stringify(r.limit)}. Expected an integer >= 1 (requests per window).`)
    if (r.window === undefined) throw new InvalidInputError(`A ${where} needs "window": a duration like "10s".`)
    if (!(toMs(r.window, `${where} "window"`) > 0)) throw new InvalidInputError(`Invalid ${where} "window": it must be above 0.`)
    if (r.burst !== undefined && !(Number.isInteger(r.burst) && r.burst >= 1)) throw new InvalidInputError(`Invalid ${where} "burst": ${JSON.stringify(r.burst)}. Expected an integer >= 1.`)
    if (r.per !== undefined && !['client', 'route'].includes(r.per)) throw new InvalidInputError(`Invalid ${where} "per": ${JSON.stringify(r.per)}. Allowed: client, route.`)
    return { ...r }
  })
}

/**
 * A token bucket on the clock, kept exact as GCRA: each request moves a theoretical arrival time
 * by `window / limit`; a request is refused while it is earlier than that time minus the burst's tolerance,
 * and `Retry-After` is that difference rounded up to whole seconds, so a retry at `Retry-After` passes.
 */
export function createRateLimiter(deps: { now: () => number; journal: Journal }): RateLimiter {
  let rules: RateLimitRule[] = []
  let buckets = new Map<string, number>()
  return {
    set(config) {
      rules = validateRateLimit(config)
      buckets = new Map()
      deps.journal.record('ratelimit.set', { rules })
    },
    get: () => rules.map((r) => ({ ...r })),
    check(route, client) {
      const now = deps.now()
      for (let i = 0; i < rules.length; i++) {
        const r = rules[i]
        if ((r.route ?? '*') !== '*' && r.route !== route) continue
        const interval = toMs(r.window) / r.limit
        const tolerance = interval * ((r.burst ?? r.limit) - 1)
        const key = `${i}|${route}|${(r.per ?? 'client') === 'client' ? client : '*'}`
        const tat = Math.max(buckets.get(key) ?? now, now)
        const allowedAt = tat - tolerance
        if (now < allowedAt) {
          const retryAfterMs = allowedAt - now
          const retryAfter = Math.ceil(retryAfterMs / 1000 - 1e-9)
          deps.journal.record('ratelimit', { route, client, rule: i, allowed: false, retryAfterMs })
          return { allowed: false, rule: i, retryAfterMs, retryAfter, message: r.message ?? `too many requests: ${r.limit} per ${r.window}${(r.per ?? 'client') === 'client' ? ' per client' : ''} on ${route}; retry in ${retryAfter}s` }
        }
        buckets.set(key, tat + interval)
        deps.journal.record('ratelimit', { route, client, rule: i, allowed: true })
      }
      return { allowed: true }
    },
  }
}
