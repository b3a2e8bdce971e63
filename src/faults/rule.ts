import { FieldError } from '../service/errors'
import { checkCloseCode } from '../service/close-code'
import { familiarName } from '../service/images'
import type { Filters } from '../service/filters'
import type { PushFault } from '../service/push'
import { durationProblem, MAX_DURATION_MS, toMs, type Duration } from '../time/duration'

// A fault rule: its syntax (shared by the library, scenario files and the admin API), validation,
// what it does when it fires, and how it reads in a table. The plan that schedules rules is plan.ts.

/**
 * Where a fault rule applies.
 * - `events`: a connection to the events stream (`/events/ws`, and Docker's `/events`)
 * - `push`: an image push request
 */
export type FaultSite = 'events' | 'push'
export const FAULT_SITES: readonly FaultSite[] = ['events', 'push']

/** What a rule matches beyond its site; every given field must match. */
export interface FaultMatch {
  /**
   * Request path without the `/v1.xx` prefix, as the client sent it: exact, or a prefix ending in `*` (`/images/*`).
   * Names in it are not normalised: the docker CLI's push of `nginx` is `/images/docker.io/library/nginx/push`,
   * dockerode's `/images/nginx/push`. A path is what a route rule is for (a prefix such as `/images/docker.io/*` picks
   * the pushes sent that way); to match an image however it is spelled, use `image`.
   */
  route?: string
  /**
   * Image name (push), exact or without its tag. Docker Hub names match however they are spelled, as the push route
   * reads them: `docker.io/library/nginx:latest` (as the docker CLI pushes it), `nginx:latest` and `nginx` all match a
   * push of `nginx:latest`.
   */
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
 * Every field a fault rule may have on any site: what the runtime reads. A rule as written is a {@link FaultRule}, which
 * allows on each site only the fields that site reads.
 */
export interface FaultRuleFields {
  /** Optional name for the journal and `pending()`. @default the next free `rule-N` (ids in use are skipped) */
  id?: string
  on: FaultSite
  match?: FaultMatch
  /** Answer this HTTP status instead of serving (400, 404, 429, 500 or 503). */
  reply?: number
  /** Events: refuse the next N reconnects (`reply` status, default 503); sugar for `reply` + `times: N` + `match.reconnect`. */
  refuse?: number
  /** `Retry-After` seconds with a 429/503 reply: whole seconds, 0 to 100 years. @default 1 for 429 and 503 */
  retryAfter?: number
  /** The JSON `message` of a `reply` or `refuse` answer; not empty. */
  message?: string
  /** Push only: an in-stream error line with this text (`errorDetail.message` and `error`); not empty. */
  error?: string
  /** Push: where `error`, `reset`, `truncate`, `stall` or `unreachable` strike: after this many layers. @default 0 */
  afterLayer?: number
  /** Push: where `error`, `reset`, `truncate`, `stall` or `unreachable` strike: once this many bytes were pushed. */
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
  /**
   * Push only: the registry cannot be reached, as the daemon reports it. Alone, it is down from the start: the
   * `refers to` line, then `Get "http://HOST/v2/": dial tcp HOST: connect: connection refused`. With `afterLayer` or
   * `afterBytes`, it dies there mid-upload: each layer still uploading counts down `Retrying in 5 seconds` ... `1 second`,
   * then 10, 15 and 20 (the daemon's five attempts, 50 s of clock time), then `dial tcp HOST: connect: connection refused`.
   */
  unreachable?: boolean
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
  /** Only until this clock time (elapsed since the clock started); later than `from`. */
  until?: Duration
}

/** The action a fault decision carries to a way in. */
export type FaultAction =
  | { kind: 'reply'; status: number; message: string; retryAfter?: number }
  | PushFault
  | { kind: 'close'; code: number; reason: string; afterMessages: number; afterTimeMs?: number }
  | { kind: 'drop'; afterMessages: number; afterTimeMs?: number }
  | { kind: 'dribble'; lineMs: number; jitterMs: number }
  | { kind: 'latency'; connectMs: number; perEventMs: number; jitterMs: number }

/** The push faults that strike mid-stream (the model's {@link PushFault}), and the decision that carries one (the first of a push's decisions). */
export type PushStreamFault = PushFault
const PUSH_STREAM_KINDS: readonly string[] = ['error', 'reset', 'truncate', 'stall', 'unreachable'] satisfies PushStreamFault['kind'][]
export const findPushStreamFault = <D extends { action: FaultAction }>(decisions: readonly D[]): (D & { action: PushStreamFault }) | undefined =>
  decisions.find((d): d is D & { action: PushStreamFault } => PUSH_STREAM_KINDS.includes(d.action.kind))

/** What is at hand when a way in asks the plan. */
export interface FaultContext {
  route?: string
  image?: string
  client?: string
  filters?: Filters
  /** Whether this client connected before. */
  reconnect?: boolean
}

const ACTIONS = ['reply', 'refuse', 'error', 'close', 'drop', 'reset', 'truncate', 'stall', 'unreachable', 'dribble', 'latency'] as const
type ActionName = (typeof ACTIONS)[number]
// The three tables below are the one source of what each site takes: validateRule reads them at run time, and the
// type FaultRule is derived from them, so a rule the runtime would refuse for its site does not compile either.
const SITE_ACTIONS = {
  events: ['reply', 'refuse', 'close', 'drop', 'stall', 'latency'],
  push: ['reply', 'error', 'reset', 'truncate', 'stall', 'unreachable', 'dribble', 'latency'],
} as const satisfies Record<FaultSite, readonly ActionName[]>

/** The `match` fields each site's requests carry; another can never match there (a push has no filters). */
const SITE_MATCH = {
  events: ['route', 'client', 'container', 'filters', 'reconnect'],
  push: ['route', 'image', 'client'],
} as const satisfies Record<FaultSite, readonly (keyof FaultMatch)[]>

/**
 * The fields that say when or how an action strikes, and the sites and actions that read them. On any other rule one
 * was accepted and ignored: `{"on":"push","reply":500,"afterLayer":2}` answered 500 before the push began.
 */
const MODIFIERS = {
  afterMessages: { sites: ['events'], actions: ['close', 'drop'] },
  afterTime: { sites: ['events'], actions: ['close', 'drop'] },
  afterLayer: { sites: ['push'], actions: ['error', 'reset', 'truncate', 'stall', 'unreachable'] },
  afterBytes: { sites: ['push'], actions: ['error', 'reset', 'truncate', 'stall', 'unreachable'] },
  retryAfter: { sites: ['events', 'push'], actions: ['reply', 'refuse'] },
} as const satisfies Record<'afterMessages' | 'afterTime' | 'afterLayer' | 'afterBytes' | 'retryAfter', { sites: readonly FaultSite[]; actions: readonly ActionName[] }>

/** Fields a rule must not have: set, they do not compile (each is `undefined` at most). */
type Without<K extends PropertyKey> = { [P in K]?: never }
type Modifier = keyof typeof MODIFIERS
/** The actions, match fields and modifiers a site reads (from the tables above). */
type ActionOf<S extends FaultSite> = (typeof SITE_ACTIONS)[S][number]
type MatchOf<S extends FaultSite> = (typeof SITE_MATCH)[S][number]
type ModifierOf<S extends FaultSite> = { [M in Modifier]: S extends (typeof MODIFIERS)[M]['sites'][number] ? M : never }[Modifier]
/** What a site does not read: its own fields are left out and set as `never`, so setting one is a compile error. */
type NotOn<S extends FaultSite> = Exclude<ActionName, ActionOf<S>> | Exclude<Modifier, ModifierOf<S>>

/** The rule of one site: {@link FaultRuleFields} without the actions, match fields and modifiers the site does not read. */
type SiteRule<S extends FaultSite> = Omit<FaultRuleFields, 'on' | 'match' | 'latency' | NotOn<S>> &
  Without<NotOn<S>> & {
    on: S
    /** What a rule matches beyond its site; only the fields this site's requests carry. */
    match?: Pick<FaultMatch, MatchOf<S>> & Without<Exclude<keyof FaultMatch, MatchOf<S>>>
    /** Latency on connect and per event (push: on connect only; `dribble` slows push lines). */
    latency?: S extends 'push' ? Omit<FaultLatency, 'perEvent'> & Without<'perEvent'> : FaultLatency
  }

/**
 * A fault rule on the events stream (`/events/ws`, Docker's `/events`): one of `reply`, `refuse`, `close`, `drop`,
 * `stall`, `latency`. See docs/faults.md.
 */
export interface EventsFaultRule extends SiteRule<'events'> {}
/**
 * A fault rule on an image push: one of `reply`, `error`, `reset`, `truncate`, `stall`, `unreachable`, `dribble`,
 * `latency`. See docs/faults.md.
 */
export interface PushFaultRule extends SiteRule<'push'> {}

/**
 * One fault rule, in the syntax the library, scenario files and the admin API share: a union by site (`on`), so an
 * action, `match` field or modifier its site does not take is a compile error (`{ on: 'events', error: 'x' }`), as
 * it is a `FieldError` at run time (for rules read from JSON or YAML).
 * Exactly one action: `reply`, `refuse`, `error`, `close`, `drop`, `reset`, `truncate`, `stall`, `unreachable`, `dribble`
 * or `latency` (`refuse` may carry `reply` as its status).
 * @example
 * fake.faults.add({ on: 'events', reply: 429, retryAfter: 5 })
 * fake.faults.add({ on: 'push', error: 'blob upload unknown', afterLayer: 1 })
 */
export type FaultRule = EventsFaultRule | PushFaultRule

/** What is wrong with a close code and reason a server would send (RFC 6455 §7.4), as a FieldError at `code` or `reason`. */
export function closeProblem(code: unknown, reason: unknown, subject: string): FieldError | undefined {
  try {
    checkCloseCode(code, reason)
    return undefined
  } catch {
    if (typeof code !== 'number' || !Number.isInteger(code)) return new FieldError('code', 'must be an integer close code: 1000-1003, 1007-1014 or 3000-4999', subject)
    try {
      checkCloseCode(code, undefined)
    } catch {
      return new FieldError('code', `must be a close code a server may send: 1000-1003, 1007-1014 or 3000-4999 (got ${code})`, subject)
    }
    return new FieldError('reason', 'must be a string of at most 123 bytes', subject)
  }
}

/** Definitions of docs/scenario.schema.json that input is checked against. */
export type SchemaDef = 'fault' | 'faultBatch' | 'rateLimitConfig' | 'container' | 'containerBody' | 'containerStopBody' | 'image' | 'registry' | 'socketsCloseBody' | 'clockAdvanceBody' | 'clockSpeedBody'

/**
 * Checks a value's field names and types against a definition of the JSON Schema (the one source of
 * them); throws a FieldError naming the path. Injected by src/dockside.ts: the core imports no validator.
 */
export type SchemaCheck = (def: SchemaDef, value: unknown, subject: string) => void

const actionName = (rule: FaultRule): ActionName => (rule.refuse !== undefined ? 'refuse' : ACTIONS.find((a) => rule[a] !== undefined)!)

/**
 * Validates a rule at the boundary: field names and types against the schema (`check`), then what the
 * schema cannot say (which actions apply on a site, close codes). Errors are FieldErrors naming the path.
 */
export function validateRule(rule: FaultRule, check?: SchemaCheck): FaultRule {
  check?.('fault', rule, 'fault rule')
  const action = rule && typeof rule === 'object' && SITE_ACTIONS[rule.on] ? actionName(rule) : undefined
  if (!action) throw new FieldError('', 'must be a fault rule like {"on":"events","reply":429}', 'fault rule')
  if (!(SITE_ACTIONS[rule.on] as readonly ActionName[]).includes(action)) {
    throw new FieldError(action, `does not apply to "${rule.on}"; actions on "${rule.on}": ${SITE_ACTIONS[rule.on].join(', ')}`, 'fault rule')
  }
  if (rule.close !== undefined) {
    const problem = closeProblem(rule.close.code, rule.close.reason, 'fault rule')
    if (problem) throw problem.at('close')
  }
  for (const [field, value] of Object.entries(rule.match ?? {})) {
    if (value === undefined || (SITE_MATCH[rule.on] as readonly (keyof FaultMatch)[]).includes(field as keyof FaultMatch)) continue
    const why = rule.on === 'push' ? 'a push has no container, filters or reconnects' : 'an events client has no image; match its filters'
    throw new FieldError(`match.${field}`, `does not apply to "${rule.on}" (${why}), so the rule could never fire; match fields on "${rule.on}": ${SITE_MATCH[rule.on].join(', ')}`, 'fault rule')
  }
  for (const [field, takes] of Object.entries(MODIFIERS)) {
    if (rule[field as Modifier] === undefined || ((takes.sites as readonly FaultSite[]).includes(rule.on) && (takes.actions as readonly ActionName[]).includes(action))) continue
    const readers = takes.actions.map((a) => `"${a}"`).join(', ')
    throw new FieldError(field, `is read only by ${readers}${takes.sites.length === 1 ? ` on "${takes.sites[0]}"` : ''}, and this rule's action is "${action}" on "${rule.on}", so it would be ignored; drop "${field}"`, 'fault rule')
  }
  // A count of Infinity passed the schema's "integer" (YAML `.inf`, JSON `1e400`) and made a rule that never fires
  // (`after`, `afterLayer`...) or one the state and toJSON show as `null`. Only `times` may be Infinity ("always").
  for (const field of ['after', 'every', 'refuse', 'afterMessages', 'afterLayer', 'afterBytes'] as const) {
    const v = rule[field]
    if (typeof v === 'number' && !Number.isFinite(v)) throw new FieldError(field, `must be a finite whole number, not ${v}`, 'fault rule')
  }
  if (rule.on === 'push' && rule.latency?.perEvent !== undefined) throw new FieldError('latency.perEvent', 'applies to "events" only; use "dribble" to slow push lines', 'fault rule')
  if (rule.refuse !== undefined && rule.times !== undefined) throw new FieldError('times', '"refuse" already says how many times the rule fires; drop "times"', 'fault rule')
  // `refuse` is sugar for `match.reconnect: true`; a `false` there won and refused first connects, letting reconnects by.
  if (rule.refuse !== undefined && rule.match?.reconnect === false) {
    throw new FieldError('match.reconnect', `false contradicts "refuse", which refuses reconnects only (first connects pass); drop "match.reconnect", or refuse first connects with {"on":"events","reply":${rule.reply ?? 503},"times":${rule.refuse},"match":{"reconnect":false}}`, 'fault rule')
  }
  checkDurations(rule)
  if (rule.message !== undefined) {
    if (action !== 'reply' && action !== 'refuse') throw new FieldError('message', `is the JSON message of a "reply" or "refuse" answer, and this rule's action is "${action}"${action === 'error' ? ' (its text is "error")' : ''}; drop "message"`, 'fault rule')
    if (typeof rule.message !== 'string' || rule.message.length === 0) throw new FieldError('message', "must be a non-empty string: the answer's JSON message (leave it out for the status's own)", 'fault rule')
  }
  if (rule.error !== undefined && (typeof rule.error !== 'string' || rule.error.length === 0)) throw new FieldError('error', 'must be a non-empty string: the text of the error line the push gets', 'fault rule')
  if (rule.retryAfter !== undefined && !(Number.isInteger(rule.retryAfter) && rule.retryAfter >= 0 && rule.retryAfter <= MAX_RETRY_AFTER)) {
    const allowed = `must be whole seconds from 0 to ${MAX_RETRY_AFTER} (100 years)`
    throw new FieldError('retryAfter', rule.retryAfter > MAX_RETRY_AFTER ? `${rule.retryAfter} is longer than the 100-year maximum; ${allowed}` : allowed, 'fault rule')
  }
  return rule
}

/** The longest `Retry-After` a rule may send, in whole seconds: the 100 years every duration of dockside runs in. */
const MAX_RETRY_AFTER = MAX_DURATION_MS / 1000

/** A bound of a window as it reads in a message: a string as written, a number in ms. */
const bound = (value: Duration) => (typeof value === 'number' ? `${value} ms` : value)

/**
 * Every duration of a rule, checked when the rule is taken (the schema checks their form, not their range): a request
 * a rule matches must never fail because of the rule's arithmetic. Also refuses a window that never opens.
 */
function checkDurations(rule: FaultRule): void {
  const fields: [string, unknown][] = [
    ['latency.connect', rule.latency?.connect],
    ['latency.perEvent', rule.latency?.perEvent],
    ['latency.jitter', rule.latency?.jitter],
    ['dribble.line', rule.dribble?.line],
    ['dribble.jitter', rule.dribble?.jitter],
    ['afterTime', rule.afterTime],
    ['from', rule.from],
    ['until', rule.until],
  ]
  for (const [path, value] of fields) {
    const problem = value === undefined ? undefined : durationProblem(value)
    if (problem) throw new FieldError(path, problem.expected, 'fault rule')
  }
  // A window that ends at the clock's start never opens (the check below, for a window without "from").
  if (rule.from === undefined && rule.until !== undefined && toMs(rule.until) === 0) {
    throw new FieldError('until', `${bound(rule.until)} ends the window at the clock's start, so the rule could never fire; "until" must be later than 0`, 'fault rule')
  }
  if (rule.from !== undefined && rule.until !== undefined && toMs(rule.until) <= toMs(rule.from)) {
    throw new FieldError('until', `${bound(rule.until)} is not later than "from" (${bound(rule.from)}), so the rule could never fire; "until" must be later than "from"`, 'fault rule')
  }
}

/**
 * Why a rule added when the clock reads `nowMs` (since its start) could never fire because its window has ended
 * (`until` at or before now), or undefined. A rule added at run time (fake.faults.add, the admin API, a scenario applied
 * from the clock's start) was accepted and sat in pending() for ever. For a validated rule.
 */
export function windowEndedProblem(rule: FaultRule, nowMs: number): FieldError | undefined {
  if (rule.until === undefined || windowOf(rule).untilMs > nowMs) return undefined
  return new FieldError(
    'until',
    `the rule's window, from ${bound(rule.from ?? 0)} to ${bound(rule.until)} of clock time (counted from the clock's start), ended at or before now (${nowMs} ms since the clock's start), so the rule could never fire; "until" must be later than now`,
    'fault rule',
  )
}

/** A rule's window of clock time in ms, [fromMs, untilMs): from 0 and without end unless it says. For a validated rule. */
export function windowOf(rule: FaultRule): { fromMs: number; untilMs: number } {
  return { fromMs: rule.from === undefined ? 0 : toMs(rule.from), untilMs: rule.until === undefined ? Infinity : toMs(rule.until) }
}

/**
 * A rule whose `from`/`until` count from `offsetMs` of clock time (a storyboard applied from now, whose timeline and
 * fault windows count from that moment), as times since the clock's start. No time dockside takes goes past the
 * 100-year maximum, so a bound moved past it means "never": an `until` past it is no end (the window stays open), a
 * `from` past it is the maximum (the latest a rule can open). The rule given is never changed; one with no window is
 * returned as it is.
 */
export function shiftWindow(rule: FaultRule, offsetMs: number): FaultRule {
  if (offsetMs === 0 || (rule.from === undefined && rule.until === undefined)) return rule
  const out = { ...rule }
  if (rule.from !== undefined) {
    const after = toMs(rule.from, 'fault "from"')
    const from = offsetMs + after
    // Clamped to the maximum, a window applied once the clock is past it would open at once (an always-on rule where
    // the scenario asked for one later): refused instead.
    if (after > 0 && offsetMs >= MAX_DURATION_MS) {
      throw new FieldError('from', `counted from now (${offsetMs} ms of clock time, past the 100 years fault windows reach) it can never be reached; leave "from" out, or apply the rule from the clock's start`, 'fault rule')
    }
    out.from = Math.min(from, MAX_DURATION_MS)
  }
  if (rule.until !== undefined) {
    const until = offsetMs + toMs(rule.until, 'fault "until"')
    if (until > MAX_DURATION_MS) delete out.until
    else out.until = until
  }
  return out
}

/** The text of each status a rule may answer (the schema allows these five): a refusal's message names its status. */
const STATUS_TEXT: Record<number, string> = { 400: 'bad request', 404: 'not found', 429: 'too many requests', 500: 'internal server error', 503: 'service unavailable' }
const statusText = (status: number) => STATUS_TEXT[status] ?? `status ${status}`

export function actionOf(rule: FaultRule): FaultAction {
  const where = { afterLayer: rule.afterLayer ?? 0, afterBytes: rule.afterBytes }
  const afterTimeMs = rule.afterTime === undefined ? undefined : toMs(rule.afterTime)
  if (rule.reply !== undefined || rule.refuse !== undefined) {
    const status = rule.reply ?? 503
    const retryAfter = rule.retryAfter ?? (status === 429 || status === 503 ? 1 : undefined)
    const message =
      rule.message ??
      (rule.refuse !== undefined
        ? `${statusText(status)}: reconnect refused (injected fault)`
        : status === 429 || status === 503 ? statusText(status) : `${statusText(status)} (injected fault)`)
    return { kind: 'reply', status, message, retryAfter }
  }
  if (rule.error !== undefined) return { kind: 'error', message: rule.error, ...where }
  if (rule.reset) return { kind: 'reset', ...where }
  if (rule.truncate) return { kind: 'truncate', ...where }
  if (rule.stall) return { kind: 'stall', ...where }
  if (rule.unreachable) return { kind: 'unreachable', ...where, dies: rule.afterLayer !== undefined || rule.afterBytes !== undefined }
  if (rule.dribble) return { kind: 'dribble', lineMs: toMs(rule.dribble.line), jitterMs: rule.dribble.jitter === undefined ? 0 : toMs(rule.dribble.jitter) }
  if (rule.latency) {
    const l = rule.latency
    return { kind: 'latency', connectMs: l.connect === undefined ? 0 : toMs(l.connect), perEventMs: l.perEvent === undefined ? 0 : toMs(l.perEvent), jitterMs: l.jitter === undefined ? 0 : toMs(l.jitter) }
  }
  if (rule.drop) return { kind: 'drop', afterMessages: rule.afterMessages ?? 0, afterTimeMs }
  const close = rule.close!
  return { kind: 'close', code: close.code, reason: close.reason ?? `closed by fault ${rule.id}`, afterMessages: rule.afterMessages ?? 0, afterTimeMs }
}

export const phaseOf = (a: FaultAction) => (a.kind === 'reply' ? 'reply' : a.kind === 'latency' ? 'latency' : 'stream')

export function matches(m: FaultMatch | undefined, c: FaultContext): boolean {
  if (!m) return true
  if (m.route !== undefined) {
    if (c.route === undefined) return false
    if (m.route.endsWith('*') ? !c.route.startsWith(m.route.slice(0, -1)) : c.route !== m.route) return false
  }
  if (m.image !== undefined && !imageMatches(m.image, c.image)) return false
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

/**
 * A rule's `match.image` against the pushed image, exact or without the image's tag. Both are read as the push route
 * reads names (familiarName: `docker.io/library/nginx` is `nginx`), so a rule written as the CLI pushes an image
 * matches; the rule itself is kept as written (its table and toJSON show what the user gave).
 */
function imageMatches(rule: string, image: string | undefined): boolean {
  if (image === undefined) return false
  const want = familiarName(rule)
  const have = familiarName(image)
  return have === want || have.replace(/:[^:/]+$/, '') === want
}

/** A short text of a rule's action, for tables. */
export function describeAction(rule: FaultRule): string {
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

export function describeSchedule(rule: FaultRule, times: number): string {
  const parts = [times === Infinity ? 'always' : times === 1 ? 'once' : `times ${times}`]
  if (rule.after) parts.push(`after ${rule.after}`)
  if (rule.every && rule.every > 1) parts.push(`every ${rule.every}th`)
  if (rule.probability !== undefined) parts.push(`p=${rule.probability}`)
  if (rule.from !== undefined || rule.until !== undefined) parts.push(`[${rule.from ?? 0}, ${rule.until ?? '∞'})`)
  if (rule.match) parts.push(`match ${JSON.stringify(rule.match)}`)
  return parts.join(', ')
}
