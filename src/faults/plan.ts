import { InvalidInputError } from '../service/errors'
import { checkCloseCode } from '../service/close-code'
import type { Filters } from '../service/filters'
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
  /** Request path without the `/v1.xx` prefix: exact, or a prefix ending in `*` (`/images/*`). */
  route?: string
  /** Image name (push), exact or without its tag. */
  image?: string
  /** Container name or id: a push never matches; an events client matches when its `container` filter names it. */
  container?: string
  /** Client id (the `X-Dockside-Client` header or `client` query parameter). */
  client?: string
  /** Events: every listed filter value must be among the client's filters, e.g. `{ "event": ["stop"] }`. */
  filters?: Filters
  /** Events: `true` matches only clients the fake has seen connect before (reconnects); `false` only first connects. */
  reconnect?: boolean
}

/** Latency: before the answer (`connect`) and, for events, before each event (`perEvent`), each plus a seeded jitter. */
export interface FaultLatency {
  /** Delay before the upgrade or the push answer. @default 0 */
  connect?: Duration
  /** Events: delay of each event (order is kept). @default 0 */
  perEvent?: Duration
  /** A seeded random extra in [0, jitter) added to each delay. @default 0 */
  jitter?: Duration
}

/** A slow dribble of push lines: each line on its own, `line` apart (plus seeded jitter). */
export interface FaultDribble {
  /** Time between two lines. */
  line: Duration
  jitter?: Duration
}

/**
 * One fault rule, in the syntax the library, scenario files and the admin API share.
 * Exactly one action: `reply`, `refuse`, `error`, `close`, `drop`, `reset`, `truncate`, `stall`, `dribble` or `latency`
 * (`refuse` may carry `reply` as its status).
 */
export interface FaultRule {
  /** Optional name for the journal and `pending()`. @default `rule-N` */
  id?: string
  on: FaultSite
  match?: FaultMatch
  /** Answer this HTTP status instead of serving (400, 404, 429, 500 or 503). */
  reply?: number
  /** Events: refuse the next N reconnects (`reply` status, default 503); sugar for `reply` + `times: N` + `match.reconnect`. */
  refuse?: number
  /** `Retry-After` seconds with a 429/503 reply. @default 1 for 429 and 503 */
  retryAfter?: number
  /** Body message of a reply, or the text of an `error` line. */
  message?: string
  /** Push only: an in-stream error line with this text (`errorDetail.message` and `error`). */
  error?: string
  /** Push: where `error`, `reset`, `truncate` or `stall` strike: after this many layers. @default 0 */
  afterLayer?: number
  /** Push: where `error`, `reset`, `truncate` or `stall` strike: once this many bytes were pushed. */
  afterBytes?: number
  /** Events only: close the socket with this code and reason (a close frame). */
  close?: { code: number; reason?: string }
  /** Events only: end the socket abruptly with no close frame (the client sees 1006). */
  drop?: boolean
  /** Push only: reset the connection mid-stream (no final chunk; `fetch` fails with `terminated`). */
  reset?: boolean
  /** Push only: write the first half of a JSON line, then reset the connection. */
  truncate?: boolean
  /** Headers, then silence (push after `afterLayer`/`afterBytes`; events: the upgrade is never answered, `/events` sends no event). */
  stall?: boolean
  /** Push only: a slow dribble of lines. */
  dribble?: FaultDribble
  /** Latency on connect and per event. */
  latency?: FaultLatency
  /** Events: `close`/`drop` after this many messages were sent. @default 0 (right after the upgrade, unless `afterTime`) */
  afterMessages?: number
  /** Events: `close`/`drop` this long after the socket opened (clock time). */
  afterTime?: Duration
  /** How many times the rule fires; `Infinity` (or `'always'`) to persist. @default 1 (`latency`: always) */
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
  | { kind: 'reset' | 'truncate' | 'stall'; afterLayer: number; afterBytes?: number }
  | { kind: 'close'; code: number; reason: string; afterMessages: number; afterTimeMs?: number }
  | { kind: 'drop'; afterMessages: number; afterTimeMs?: number }
  | { kind: 'dribble'; lineMs: number; jitterMs: number }
  | { kind: 'latency'; connectMs: number; perEventMs: number; jitterMs: number }

/** What a way in applies: one decision per phase (reply, latency, stream). */
export interface FaultDecision {
  rule: FaultHandle
  action: FaultAction
}

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

/** What is at hand when a way in asks the plan. */
export interface FaultContext {
  route?: string
  image?: string
  client?: string
  filters?: Filters
  /** Whether this client connected before. */
  reconnect?: boolean
}

export interface FaultPlan {
  add(rule: FaultRule): FaultHandle
  list(): FaultHandle[]
  remove(id: string): boolean
  clear(): void
  /** Rules that never fired. */
  pending(): FaultHandle[]
  /** A readable table of rules: id, site, action, schedule, matched, fired. */
  table(rules?: FaultHandle[]): string
  /** Throws with a readable table when any rule never fired. */
  assertAllFired(): void
  /** The rules as JSON (for a reproduction: pass them back to `add`, with the same seed). */
  toJSON(): FaultRule[]
  /** Decides whether a fault applies at `site`; records the decision in the journal. The first firing rule wins. */
  decide(site: FaultSite, context?: FaultContext): FaultDecision | undefined
  /**
   * Every fault that applies, one per phase: a `reply` ends the search (it is all that happens);
   * otherwise the first `latency` and the first stream action (close, drop, error, reset...) each fire.
   */
  decideAll(site: FaultSite, context?: FaultContext): FaultDecision[]
  /** A seeded jitter draw in [0, maxMs), journaled with the rule and purpose. */
  jitter(rule: string, maxMs: number, purpose: string): number
}

const REPLY_STATUSES = [400, 404, 429, 500, 503]
const ACTIONS = ['reply', 'refuse', 'error', 'close', 'drop', 'reset', 'truncate', 'stall', 'dribble', 'latency'] as const
type ActionName = (typeof ACTIONS)[number]
const SITE_ACTIONS: Record<FaultSite, readonly ActionName[]> = {
  events: ['reply', 'refuse', 'close', 'drop', 'stall', 'latency'],
  push: ['reply', 'error', 'reset', 'truncate', 'stall', 'dribble', 'latency'],
}

const RULE_FIELDS: readonly string[] = ['id', 'on', 'match', ...ACTIONS, 'retryAfter', 'message', 'afterLayer', 'afterBytes', 'afterMessages', 'afterTime', 'times', 'after', 'every', 'probability', 'from', 'until']

const actionName = (rule: FaultRule): ActionName => (rule.refuse !== undefined ? 'refuse' : ACTIONS.find((a) => rule[a] !== undefined)!)

/** Validates a rule at the boundary; messages name the field and what is allowed. */
export function validateRule(rule: FaultRule): FaultRule {
  if (!rule || typeof rule !== 'object') throw new InvalidInputError('A fault rule must be an object like {"on":"events","reply":429}.')
  if (!FAULT_SITES.includes(rule.on)) throw new InvalidInputError(`Invalid fault "on": ${JSON.stringify(rule.on)}. Allowed: ${FAULT_SITES.join(', ')}.`)
  // A misspelt field (`afterLayers`, `time`) would otherwise be kept and silently ignored.
  for (const k of Object.keys(rule)) {
    if (!RULE_FIELDS.includes(k)) throw new InvalidInputError(`Unknown fault field "${k}". Allowed: ${RULE_FIELDS.join(', ')}.`)
  }
  let actions = ACTIONS.filter((a) => rule[a] !== undefined)
  if (rule.refuse !== undefined) actions = actions.filter((a) => a !== 'reply')
  if (actions.length !== 1) throw new InvalidInputError(`A fault rule needs exactly one action of ${ACTIONS.map((a) => `"${a}"`).join(', ')}; got ${actions.length ? actions.join(', ') : 'none'}.`)
  const action = actions[0]
  if (!SITE_ACTIONS[rule.on].includes(action)) {
    throw new InvalidInputError(`A fault "${action}" does not apply to "${rule.on}". Actions on "${rule.on}": ${SITE_ACTIONS[rule.on].join(', ')}.`)
  }
  if (rule.reply !== undefined && !REPLY_STATUSES.includes(rule.reply)) throw new InvalidInputError(`Invalid fault "reply": ${rule.reply}. Allowed statuses: ${REPLY_STATUSES.join(', ')}.`)
  if (rule.refuse !== undefined && !(Number.isInteger(rule.refuse) && rule.refuse >= 1)) throw new InvalidInputError(`Invalid fault "refuse": ${rule.refuse}. Expected how many reconnects to refuse, an integer >= 1.`)
  if (rule.error !== undefined && typeof rule.error !== 'string') throw new InvalidInputError('A fault "error" must be the text of the error line.')
  for (const flag of ['drop', 'reset', 'truncate', 'stall'] as const) {
    if (rule[flag] !== undefined && rule[flag] !== true) throw new InvalidInputError(`A fault "${flag}" must be true.`)
  }
  if (rule.close !== undefined) {
    checkCloseCode(rule.close?.code, rule.close?.reason, 'fault close')
  }
  if (rule.dribble !== undefined) {
    if (typeof rule.dribble !== 'object' || rule.dribble.line === undefined) throw new InvalidInputError('A fault "dribble" needs "line": the time between lines, e.g. {"line":"200ms"}.')
    toMs(rule.dribble.line, 'fault "dribble.line"')
    if (rule.dribble.jitter !== undefined) toMs(rule.dribble.jitter, 'fault "dribble.jitter"')
  }
  if (rule.latency !== undefined) {
    if (typeof rule.latency !== 'object') throw new InvalidInputError('A fault "latency" must be an object like {"connect":"2s","perEvent":"50ms","jitter":"20ms"}.')
    for (const k of ['connect', 'perEvent', 'jitter'] as const) if (rule.latency[k] !== undefined) toMs(rule.latency[k]!, `fault "latency.${k}"`)
    if (rule.on === 'push' && rule.latency.perEvent !== undefined) throw new InvalidInputError('A fault "latency.perEvent" applies to "events" only; use "dribble" to slow push lines.')
  }
  for (const k of ['afterLayer', 'afterBytes', 'afterMessages', 'after', 'retryAfter'] as const) {
    const v = rule[k]
    if (v !== undefined && !(Number.isInteger(v) && v >= 0)) throw new InvalidInputError(`Invalid fault "${k}": ${v}. Expected an integer >= 0.`)
  }
  if (rule.afterTime !== undefined) toMs(rule.afterTime, 'fault "afterTime"')
  if (rule.every !== undefined && !(Number.isInteger(rule.every) && rule.every >= 1)) throw new InvalidInputError(`Invalid fault "every": ${rule.every}. Expected an integer >= 1.`)
  if (rule.probability !== undefined && !(typeof rule.probability === 'number' && rule.probability >= 0 && rule.probability <= 1)) throw new InvalidInputError(`Invalid fault "probability": ${rule.probability}. Expected a number from 0 to 1.`)
  const t = rule.times
  if (t !== undefined && t !== 'always' && !(t === Infinity || (Number.isInteger(t) && t >= 1))) throw new InvalidInputError(`Invalid fault "times": ${t}. Expected an integer >= 1 or "always".`)
  if (rule.refuse !== undefined && t !== undefined) throw new InvalidInputError('A fault "refuse" already says how many times it fires; drop "times".')
  if (rule.from !== undefined) toMs(rule.from, 'fault "from"')
  if (rule.until !== undefined) toMs(rule.until, 'fault "until"')
  const m = rule.match
  if (m !== undefined) {
    if (typeof m !== 'object' || m === null) throw new InvalidInputError('A fault "match" must be an object of route, image, container, client, filters, reconnect.')
    for (const k of Object.keys(m)) {
      if (!['route', 'image', 'container', 'client', 'filters', 'reconnect'].includes(k)) throw new InvalidInputError(`Unknown fault match field "${k}". Allowed: route, image, container, client, filters, reconnect.`)
    }
  }
  return rule
}

function actionOf(rule: FaultRule): FaultAction {
  const where = { afterLayer: rule.afterLayer ?? 0, afterBytes: rule.afterBytes }
  const afterTimeMs = rule.afterTime === undefined ? undefined : toMs(rule.afterTime)
  if (rule.reply !== undefined || rule.refuse !== undefined) {
    const status = rule.reply ?? 503
    const retryAfter = rule.retryAfter ?? (status === 429 || status === 503 ? 1 : undefined)
    const message =
      rule.message ??
      (rule.refuse !== undefined
        ? 'service unavailable: reconnect refused (injected fault)'
        : status === 429 ? 'too many requests' : status === 503 ? 'service unavailable' : status === 500 ? 'internal server error (injected fault)' : status === 404 ? 'not found (injected fault)' : 'bad request (injected fault)')
    return { kind: 'reply', status, message, retryAfter }
  }
  if (rule.error !== undefined) return { kind: 'error', message: rule.error, ...where }
  if (rule.reset) return { kind: 'reset', ...where }
  if (rule.truncate) return { kind: 'truncate', ...where }
  if (rule.stall) return { kind: 'stall', ...where }
  if (rule.dribble) return { kind: 'dribble', lineMs: toMs(rule.dribble.line), jitterMs: rule.dribble.jitter === undefined ? 0 : toMs(rule.dribble.jitter) }
  if (rule.latency) {
    const l = rule.latency
    return { kind: 'latency', connectMs: l.connect === undefined ? 0 : toMs(l.connect), perEventMs: l.perEvent === undefined ? 0 : toMs(l.perEvent), jitterMs: l.jitter === undefined ? 0 : toMs(l.jitter) }
  }
  if (rule.drop) return { kind: 'drop', afterMessages: rule.afterMessages ?? 0, afterTimeMs }
  const close = rule.close!
  return { kind: 'close', code: close.code, reason: close.reason ?? `closed by fault ${rule.id}`, afterMessages: rule.afterMessages ?? 0, afterTimeMs }
}

const phaseOf = (a: FaultAction) => (a.kind === 'reply' ? 'reply' : a.kind === 'latency' ? 'latency' : 'stream')

function matches(m: FaultMatch | undefined, c: FaultContext): boolean {
  if (!m) return true
  if (m.route !== undefined) {
    if (c.route === undefined) return false
    if (m.route.endsWith('*') ? !c.route.startsWith(m.route.slice(0, -1)) : c.route !== m.route) return false
  }
  if (m.image !== undefined && c.image !== m.image && c.image?.replace(/:[^:/]+$/, '') !== m.image) return false
  if (m.client !== undefined && c.client !== m.client) return false
  if (m.container !== undefined && !(c.filters?.container ?? []).includes(m.container)) return false
  if (m.filters !== undefined) {
    for (const [name, values] of Object.entries(m.filters)) {
      const have = c.filters?.[name as keyof Filters] ?? []
      if (!(values ?? []).every((v) => have.includes(v))) return false
    }
  }
  if (m.reconnect !== undefined && Boolean(c.reconnect) !== m.reconnect) return false
  return true
}

/** A short text of a rule's action, for tables. */
function describeAction(rule: FaultRule): string {
  const a = actionName(rule)
  switch (a) {
    case 'reply':
      return `reply ${rule.reply}${rule.retryAfter !== undefined ? ` retry-after ${rule.retryAfter}s` : ''}`
    case 'refuse':
      return `refuse ${rule.refuse} reconnect(s) with ${rule.reply ?? 503}`
    case 'close':
      return `close ${rule.close!.code}${rule.afterMessages ? ` after ${rule.afterMessages} msg` : ''}${rule.afterTime !== undefined ? ` after ${rule.afterTime}` : ''}`
    case 'drop':
      return `drop${rule.afterMessages ? ` after ${rule.afterMessages} msg` : ''}${rule.afterTime !== undefined ? ` after ${rule.afterTime}` : ''}`
    case 'latency':
      return `latency ${JSON.stringify(rule.latency)}`
    case 'dribble':
      return `dribble ${JSON.stringify(rule.dribble)}`
    default:
      return `${a}${rule.afterBytes !== undefined ? ` after ${rule.afterBytes} B` : rule.afterLayer ? ` after layer ${rule.afterLayer}` : ''}${a === 'error' ? ` "${rule.error}"` : ''}`
  }
}

function describeSchedule(rule: FaultRule, times: number): string {
  const parts = [times === Infinity ? 'always' : times === 1 ? 'once' : `times ${times}`]
  if (rule.after) parts.push(`after ${rule.after}`)
  if (rule.every && rule.every > 1) parts.push(`every ${rule.every}th`)
  if (rule.probability !== undefined) parts.push(`p=${rule.probability}`)
  if (rule.from !== undefined || rule.until !== undefined) parts.push(`[${rule.from ?? 0}, ${rule.until ?? '∞'})`)
  if (rule.match) parts.push(`match ${JSON.stringify(rule.match)}`)
  return parts.join(', ')
}

type Entry = FaultHandle & { state: { fired: number; matched: number; times: number } }

export function createFaultPlan(deps: { journal: Journal; random: RandomSource; elapsed: () => number }): FaultPlan {
  let rules: Entry[] = []
  let counter = 0

  /** Whether a rule applies to this request at all: its site, match, clock window, and fires left. */
  const eligible = (r: Entry, site: FaultSite, context: FaultContext, now: number) => {
    const rule = r.rule
    if (rule.on !== site || r.state.fired >= r.state.times) return false
    if (!matches(rule.match, context)) return false
    if (rule.from !== undefined && now < toMs(rule.from)) return false
    if (rule.until !== undefined && now >= toMs(rule.until)) return false
    return true
  }

  /** Whether the rule's nth match fires (after, every, probability); journals every decision. */
  const fires = (r: Entry, n: number, site: FaultSite, context: FaultContext): FaultAction | undefined => {
    const rule = r.rule
    const after = rule.after ?? 0
    const skip = (why: string) => {
      deps.journal.record('fault.skip', { rule: r.id, site, match: n, why })
      return undefined
    }
    if (n <= after) return skip(`match ${n} of the first ${after} let through`)
    if ((n - after - 1) % (rule.every ?? 1) !== 0) return skip(`not an every-${rule.every}th match`)
    if (rule.probability !== undefined && rule.probability < 1) {
      const draw = deps.random.float()
      const hit = draw < rule.probability
      deps.journal.record('fault.draw', { rule: r.id, site, match: n, draw, probability: rule.probability, fires: hit })
      if (!hit) return undefined
    }
    r.state.fired++
    const action = actionOf(rule)
    deps.journal.record('fault', { rule: r.id, site, match: n, fired: r.state.fired, action: action.kind, ...context, detail: action })
    return action
  }

  const consider = (r: Entry, site: FaultSite, context: FaultContext, now: number) =>
    eligible(r, site, context, now) ? fires(r, ++r.state.matched, site, context) : undefined

  const plan: FaultPlan = {
    add(input) {
      const rule = validateRule({ ...input, match: input?.match && { ...input.match } })
      const id = rule.id ?? `rule-${++counter}`
      if (rules.some((r) => r.id === id)) throw new InvalidInputError(`A fault rule with id "${id}" already exists.`)
      rule.id = id
      if (rule.refuse !== undefined) rule.match = { reconnect: true, ...rule.match }
      const defaultTimes = rule.latency !== undefined ? Infinity : 1
      const times = rule.refuse ?? (rule.times === 'always' ? Infinity : (rule.times ?? defaultTimes))
      const state = { fired: 0, matched: 0, times }
      const handle: Entry = {
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
      deps.journal.record('fault.add', { rule: id, detail: rule })
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
    table(list = rules) {
      const rows = list.map((r) => [r.id, `on ${r.rule.on}`, describeAction(r.rule), describeSchedule(r.rule, (r as Entry).state.times), String(r.matched), String(r.fired)])
      const head = ['rule', 'site', 'action', 'schedule', 'matched', 'fired']
      const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)))
      const line = (cells: string[]) => `  ${cells.map((c, i) => c.padEnd(widths[i])).join('  ')}`.trimEnd()
      return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n')
    },
    assertAllFired() {
      const p = plan.pending()
      if (p.length === 0) return
      throw new Error(`${p.length} fault rule(s) never fired (seed ${deps.random.seed}):\n${plan.table(p)}\nCheck each rule's match and schedule against what the client did (fake.journal.ofType('fault.')).`)
    },
    toJSON: () => rules.map((r) => ({ ...r.rule })),
    decide(site, context = {}) {
      const now = deps.elapsed()
      for (const r of rules) {
        const action = consider(r, site, context, now)
        if (action) return { rule: r, action }
      }
      return undefined
    },
    decideAll(site, context = {}) {
      const now = deps.elapsed()
      // Every applicable rule counts this request as a match, whatever else happens to it,
      // so `after: 2` means "from the 3rd matching request on".
      const candidates = rules.filter((r) => eligible(r, site, context, now)).map((r) => ({ r, n: ++r.state.matched, phase: phaseOf(actionOf(r.rule)) }))
      // Replies first: a refused request sees no latency nor stream fault.
      for (const c of candidates) {
        if (c.phase !== 'reply') continue
        const action = fires(c.r, c.n, site, context)
        if (action) return [{ rule: c.r, action }]
      }
      const out: FaultDecision[] = []
      const taken = new Set<string>()
      for (const c of candidates) {
        if (c.phase === 'reply' || taken.has(c.phase)) continue
        const action = fires(c.r, c.n, site, context)
        if (!action) continue
        taken.add(c.phase)
        out.push({ rule: c.r, action })
      }
      return out
    },
    jitter(rule, maxMs, purpose) {
      if (!(maxMs > 0)) return 0
      const draw = deps.random.float()
      const ms = Math.floor(draw * maxMs)
      deps.journal.record('fault.draw', { rule, purpose, draw, jitterMs: ms })
      return ms
    },
  }
  return plan
}
