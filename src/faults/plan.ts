import { InvalidInputError } from '../service/errors'
import type { Journal } from '../service/journal'
import type { RandomSource } from '../service/random'
import { toMs, type Duration } from '../time/duration'

/**
 * Where a fault rule applies.
 * - `events`: a connection to the events stream (`/events/ws`, and Docker's `/events`)
 * - `push`: an image push request
 */
export type FaultSite = 'events' | 'push'
export const FAULT_SITES: readonly FaultSite[] = ['events', 'push']

/** What a rule matches beyond its site; every given field must match. */
export interface FaultMatch {
  /** Image name (push), exact or without its tag. */
  image?: string
  /** Client id (the `X-Dockside-Client` header or `client` query parameter). */
  client?: string
}

/**
 * One fault rule, in the syntax the library, scenario files and the admin API share.
 * Exactly one action: `reply`, `error`, or `close`.
 */
export interface FaultRule {
  /** Optional name for the journal and `pending()`. @default `rule-N` */
  id?: string
  on: FaultSite
  match?: FaultMatch
  /** Answer this HTTP status instead of serving (400, 404, 429, 500 or 503). */
  reply?: number
  /** `Retry-After` seconds with a 429/503 reply. @default 1 for 429 and 503 */
  retryAfter?: number
  /** Body message of a reply, or the text of an `error` line. */
  message?: string
  /** Push only: an in-stream error line with this text (`errorDetail.message` and `error`). */
  error?: string
  /** Push only: emit the error after this many layers were pushed. @default 0 */
  afterLayer?: number
  /** Push only: emit the error once this many bytes were pushed. */
  afterBytes?: number
  /** Events only: close the socket with this code and reason. */
  close?: { code: number; reason?: string }
  /** Events only: close after this many messages were sent. @default 0 (right after the upgrade) */
  afterMessages?: number
  /** How many times the rule fires; `Infinity` (or `'always'`) to persist. @default 1 */
  times?: number | 'always'
  /** Let this many matches pass before the rule may fire. @default 0 */
  after?: number
  /** Fire on every nth match only. @default 1 */
  every?: number
  /** Fire with this seeded probability (0..1). @default 1 */
  probability?: number
  /** Only from this clock time (elapsed since the clock started). */
  from?: Duration
  /** Only until this clock time (elapsed since the clock started). */
  until?: Duration
}

/** The action a fault decision carries to a way in. */
export type FaultAction =
  | { kind: 'reply'; status: number; message: string; retryAfter?: number }
  | { kind: 'error'; message: string; afterLayer: number; afterBytes?: number }
  | { kind: 'close'; code: number; reason: string; afterMessages: number }

export interface FaultHandle {
  readonly id: string
  readonly rule: Readonly<FaultRule>
  /** How many times the rule fired. */
  readonly fired: number
  /** How many times it matched (fired or not). */
  readonly matched: number
  /** Sets how many times the rule fires. */
  times(n: number): FaultHandle
  /** Makes the rule fire every time it matches. */
  persist(): FaultHandle
  remove(): void
}

export interface FaultContext {
  image?: string
  client?: string
}

export interface FaultPlan {
  add(rule: FaultRule): FaultHandle
  list(): FaultHandle[]
  remove(id: string): boolean
  clear(): void
  /** Rules that never fired. */
  pending(): FaultHandle[]
  /** Throws with a readable table when any rule never fired. */
  assertAllFired(): void
  /** Decides whether a fault applies at `site`; records the decision in the journal. */
  decide(site: FaultSite, context?: FaultContext): { rule: FaultHandle; action: FaultAction } | undefined
}

const REPLY_STATUSES = [400, 404, 429, 500, 503]

/** Validates a rule at the boundary; messages name the field and what is allowed. */
export function validateRule(rule: FaultRule): FaultRule {
  if (!rule || typeof rule !== 'object') throw new InvalidInputError('A fault rule must be an object like {"on":"events","reply":429}.')
  if (!FAULT_SITES.includes(rule.on)) throw new InvalidInputError(`Invalid fault "on": ${JSON.stringify(rule.on)}. Allowed: ${FAULT_SITES.join(', ')}.`)
  const actions = (['reply', 'error', 'close'] as const).filter((a) => rule[a] !== undefined)
  if (actions.length !== 1) throw new InvalidInputError(`A fault rule needs exactly one action of "reply", "error" or "close"; got ${actions.length ? actions.join(', ') : 'none'}.`)
  if (rule.reply !== undefined && !REPLY_STATUSES.includes(rule.reply)) throw new InvalidInputError(`Invalid fault "reply": ${rule.reply}. Allowed statuses: ${REPLY_STATUSES.join(', ')}.`)
  if (rule.error !== undefined && rule.on !== 'push') throw new InvalidInputError('A fault "error" line applies to "push" only.')
  if (rule.error !== undefined && typeof rule.error !== 'string') throw new InvalidInputError('A fault "error" must be the text of the error line.')
  if (rule.close !== undefined) {
    if (rule.on !== 'events') throw new InvalidInputError('A fault "close" applies to "events" only.')
    const c = rule.close.code
    if (!Number.isInteger(c) || !(c === 1000 || (c >= 1001 && c <= 1014 && ![1004, 1005, 1006].includes(c)) || (c >= 3000 && c <= 4999))) {
      throw new InvalidInputError(`Invalid close code ${c}: expected 1000-1003, 1007-1014 or 3000-4999.`)
    }
  }
  for (const k of ['afterLayer', 'afterBytes', 'afterMessages', 'after', 'retryAfter'] as const) {
    const v = rule[k]
    if (v !== undefined && !(Number.isInteger(v) && v >= 0)) throw new InvalidInputError(`Invalid fault "${k}": ${v}. Expected an integer >= 0.`)
  }
  if (rule.every !== undefined && !(Number.isInteger(rule.every) && rule.every >= 1)) throw new InvalidInputError(`Invalid fault "every": ${rule.every}. Expected an integer >= 1.`)
  if (rule.probability !== undefined && !(rule.probability >= 0 && rule.probability <= 1)) throw new InvalidInputError(`Invalid fault "probability": ${rule.probability}. Expected a number from 0 to 1.`)
  const t = rule.times
  if (t !== undefined && t !== 'always' && !(t === Infinity || (Number.isInteger(t) && t >= 1))) throw new InvalidInputError(`Invalid fault "times": ${t}. Expected an integer >= 1 or "always".`)
  if (rule.from !== undefined) toMs(rule.from, 'fault "from"')
  if (rule.until !== undefined) toMs(rule.until, 'fault "until"')
  return rule
}

function actionOf(rule: FaultRule): FaultAction {
  if (rule.reply !== undefined) {
    const status = rule.reply
    const retryAfter = rule.retryAfter ?? (status === 429 || status === 503 ? 1 : undefined)
    const message = rule.message ?? (status === 429 ? 'too many requests' : status === 503 ? 'service unavailable' : status === 500 ? 'internal server error (injected fault)' : status === 404 ? 'not found (injected fault)' : 'bad request (injected fault)')
    return { kind: 'reply', status, message, retryAfter }
  }
  if (rule.error !== undefined) return { kind: 'error', message: rule.error, afterLayer: rule.afterLayer ?? 0, afterBytes: rule.afterBytes }
  const close = rule.close!
  return { kind: 'close', code: close.code, reason: close.reason ?? `closed by fault ${rule.id}`, afterMessages: rule.afterMessages ?? 0 }
}

export function createFaultPlan(deps: { journal: Journal; random: RandomSource; elapsed: () => number }): FaultPlan {
  let rules: (FaultHandle & { state: { fired: number; matched: number; times: number } })[] = []
  let counter = 0

  const plan: FaultPlan = {
    add(input) {
      const rule = validateRule({ ...input })
      const id = rule.id ?? `rule-${++counter}`
      if (rules.some((r) => r.id === id)) throw new InvalidInputError(`A fault rule with id "${id}" already exists.`)
      rule.id = id
      const state = { fired: 0, matched: 0, times: rule.times === 'always' ? Infinity : (rule.times ?? 1) }
      const handle = {
        id,
        rule,
        state,
        get fired() { return state.fired },
        get matched() { return state.matched },
        times(n: number) { state.times = n; return handle },
        persist() { state.times = Infinity; return handle },
        remove() { plan.remove(id) },
      }
      rules.push(handle)
      return handle
    },
    list: () => [...rules],
    remove(id) {
      const before = rules.length
      rules = rules.filter((r) => r.id !== id)
      return rules.length < before
    },
    clear() {
      rules = []
    },
    pending: () => rules.filter((r) => r.fired === 0),
    assertAllFired() {
      const p = plan.pending()
      if (p.length === 0) return
      const rows = p.map((r) => `  ${r.id.padEnd(12)} on ${r.rule.on.padEnd(7)} ${JSON.stringify(r.rule)}  (matched ${r.matched}, fired 0)`)
      throw new Error(`${p.length} fault rule(s) never fired:\n${rows.join('\n')}`)
    },
    decide(site, context = {}) {
      const now = deps.elapsed()
      for (const r of rules) {
        const rule = r.rule
        if (rule.on !== site || r.state.fired >= r.state.times) continue
        const m = rule.match
        if (m?.image !== undefined && context.image !== m.image && context.image?.replace(/:[^:/]+$/, '') !== m.image) continue
        if (m?.client !== undefined && context.client !== m.client) continue
        if (rule.from !== undefined && now < toMs(rule.from)) continue
        if (rule.until !== undefined && now >= toMs(rule.until)) continue
        const n = ++r.state.matched
        const after = rule.after ?? 0
        if (n <= after) continue
        if ((n - after - 1) % (rule.every ?? 1) !== 0) continue
        if (rule.probability !== undefined && rule.probability < 1) {
          const draw = deps.random.float()
          const fires = draw < rule.probability
          deps.journal.record('fault.draw', { rule: r.id, site, draw, probability: rule.probability, fires })
          if (!fires) continue
        }
        r.state.fired++
        const action = actionOf(rule)
        deps.journal.record('fault', { rule: r.id, site, action: action.kind, ...context, detail: action })
        return { rule: r, action }
      }
      return undefined
    },
  }
  return plan
}
