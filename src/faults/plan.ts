import { FieldError } from '../service/errors'
import type { Journal } from '../service/journal'
import type { RandomSource } from '../service/random'
import {
  actionOf,
  describeAction,
  describeSchedule,
  matches,
  phaseOf,
  validateRule,
  windowEndedProblem,
  windowOf,
  type FaultAction,
  type FaultContext,
  type FaultRule,
  type FaultSite,
  type SchemaCheck,
} from './rule'

export * from './rule'

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
  /** How many times it fires in all, as set now (its `times`, `refuse`, `times()` or `persist()`); Infinity: every time. */
  readonly limit: number
  /** Its window of clock time, ms since the clock's start: from `fromMs`, until before `untilMs` (Infinity: no end). */
  readonly window: { readonly fromMs: number; readonly untilMs: number }
  /** Sets how many times the rule fires. */
  times(n: number): FaultHandle
  /** Makes the rule fire every time it matches. */
  persist(): FaultHandle
  remove(): void
}

export interface FaultPlan {
  /**
   * Adds a rule. Without an `id` it gets the next free `rule-N` (ids already taken, such as a `rule-1` a user chose,
   * are skipped, so the same rules added in the same order get the same ids); a chosen id already in use is refused.
   */
  add(rule: FaultRule): FaultHandle
  /**
   * Adds several rules all or nothing: every rule is checked (and ids against each other and the plan)
   * before any is added; an error's path starts with the rule's index, e.g. `[2].match.route`. Rules without an id
   * get free `rule-N` ids that skip the ids of the plan and of the whole batch.
   */
  addAll(rules: readonly FaultRule[]): FaultHandle[]
  /** Checks rules as `addAll` would, adding none. */
  validate(rules: readonly FaultRule[]): void
  list(): FaultHandle[]
  remove(id: string): boolean
  clear(): void
  /**
   * Holds `id` for a rule a scenario's timeline step adds later (`by` says which): automatic ids skip it, and an add
   * that chooses it is refused naming `by`, until {@link FaultPlan.release}. A step's id was checked against every
   * rule when the scenario was applied; without this, a `rule-N` given in between took it and the step failed.
   */
  reserve(id: string, by: string): void
  /** Frees an id {@link FaultPlan.reserve} held (the step adds its rule now). */
  release(id: string): void
  /** The ids held by {@link FaultPlan.reserve}, and by what. */
  reserved(): ReadonlyMap<string, string>
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
  decideAll(site: FaultSite, context?: FaultContext): readonly FaultDecision[]
  /** A seeded jitter draw in [0, maxMs), journaled with the rule and purpose. */
  jitter(rule: string, maxMs: number, purpose: string): number
  /**
   * A fired rule's action never took effect (a push ended before its `afterLayer`/`afterBytes`): the firing is taken
   * back, so `fired`, `pending()` and `assertAllFired()` stay true and the rule keeps its use; journaled as
   * `fault.missed` with `why`.
   */
  missed(id: string, why: string): void
}

/** A rule as the plan keeps it: its counts, and what it does and when, worked out once when it was added. */
type Entry = FaultHandle & { state: { fired: number; matched: number; times: number; action: FaultAction; fromMs: number; untilMs: number } }

/**
 * The next automatic id, `rule-N` from `counter` on, skipping ids that are taken (a user may name a rule `rule-2`):
 * the same rules added in the same order get the same ids. Returns the id and the counter it used.
 */
function freeId(counter: number, taken: (id: string) => boolean): [string, number] {
  let n = counter
  let id: string
  do id = `rule-${++n}`
  while (taken(id))
  return [id, n]
}

/** What decideAll answers when the plan has no rules: one empty list for every request (nobody writes to it). */
const NO_DECISIONS: readonly FaultDecision[] = Object.freeze([])

export function createFaultPlan(deps: { journal: Journal; random: RandomSource; elapsed: () => number; check?: SchemaCheck }): FaultPlan {
  let rules: Entry[] = []
  let counter = 0
  const held = new Map<string, string>()
  /** Refuses an id a rule has, or a pending timeline step holds. */
  const checkFree = (id: string, has: (id: string) => boolean) => {
    if (has(id)) throw new FieldError('id', `a fault rule with id "${id}" already exists`, 'fault rule')
    const by = held.get(id)
    if (by !== undefined) throw new FieldError('id', `"${id}" is held for the rule ${by} adds; choose another id, or leave "id" out for a fresh one`, 'fault rule')
  }

  /** Whether a rule applies to this request at all: its site, match, clock window, and fires left. */
  const eligible = (r: Entry, site: FaultSite, context: FaultContext, now: number) => {
    const rule = r.rule
    if (rule.on !== site || r.state.fired >= r.state.times) return false
    if (!matches(rule.match, context)) return false
    // The window was measured when the rule was added: a request never parses a rule.
    return now >= r.state.fromMs && now < r.state.untilMs
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
    const action = { ...r.state.action }
    deps.journal.record('fault', { rule: r.id, site, match: n, fired: r.state.fired, action: action.kind, ...context, detail: action })
    return action
  }

  const consider = (r: Entry, site: FaultSite, context: FaultContext, now: number) =>
    eligible(r, site, context, now) ? fires(r, ++r.state.matched, site, context) : undefined

  /** A checked copy of a rule (the caller's object is never kept nor changed). */
  const prepare = (input: FaultRule) => {
    deps.check?.('fault', input, 'fault rule')
    return validateRule({ ...input, match: input.match && { ...input.match } } as FaultRule)
  }

  /**
   * Checks a batch as addAll adds it, and the id each rule gets. The ids the batch chooses are checked in order
   * (against the plan and each other), so the first refusal is the one named; then each rule without an id gets the
   * next free `rule-N`, skipping the ids of the plan and of the whole batch (a rule named `rule-1` after an id-less one
   * is not refused because of it). Returns the ids and the counter after them.
   */
  const batchIds = (inputs: readonly FaultRule[]): { ids: string[]; next: number } => {
    if (!Array.isArray(inputs)) throw new FieldError('', 'must be a list of fault rules', 'fault rules')
    const taken = new Set(rules.map((r) => r.id))
    const chosen = inputs.map((input, i) => {
      try {
        const id = prepare(input).id
        if (id !== undefined) checkFree(id, (x) => taken.has(x))
        if (id !== undefined) taken.add(id)
        return id
      } catch (error) {
        throw error instanceof FieldError ? error.at(`[${i}]`) : error
      }
    })
    let next = counter
    const ids = chosen.map((id) => {
      if (id !== undefined) return id
      const [free, n] = freeId(next, (candidate) => taken.has(candidate) || held.has(candidate))
      next = n
      taken.add(free)
      return free
    })
    return { ids, next }
  }

  const plan: FaultPlan = {
    add(input) {
      const rule = prepare(input)
      const ended = windowEndedProblem(rule, deps.elapsed())
      if (ended) throw ended
      const taken = (id: string) => rules.some((r) => r.id === id)
      let id = rule.id
      if (id === undefined) [id, counter] = freeId(counter, (candidate) => taken(candidate) || held.has(candidate))
      else checkFree(id, taken)
      rule.id = id
      if (rule.refuse !== undefined) rule.match = { reconnect: true, ...rule.match }
      const defaultTimes = rule.latency !== undefined ? Infinity : 1
      const times = rule.refuse ?? (rule.times === 'always' ? Infinity : (rule.times ?? defaultTimes))
      const state = { fired: 0, matched: 0, times, action: actionOf(rule), ...windowOf(rule) }
      const handle: Entry = {
        id,
        rule,
        state,
        get fired() { return state.fired },
        get matched() { return state.matched },
        get limit() { return state.times },
        window: { fromMs: state.fromMs, untilMs: state.untilMs },
        times(n: number) {
          if (!(n === Infinity || (Number.isInteger(n) && n >= 1))) throw new FieldError('times', 'must be a whole number of times >= 1, or Infinity; use remove() to stop a rule', 'fault rule')
          state.times = n
          return handle
        },
        persist() { state.times = Infinity; return handle },
        remove() { plan.remove(id) },
      }
      rules.push(handle)
      deps.journal.record('fault.add', { rule: id, detail: rule })
      return handle
    },
    addAll(inputs) {
      const { ids, next } = batchIds(inputs)
      // Every window checked before any rule is added: all or nothing.
      const now = deps.elapsed()
      inputs.forEach((input, i) => {
        const ended = windowEndedProblem(input, now)
        if (ended) throw ended.at(`[${i}]`)
      })
      const handles = inputs.map((input, i) => plan.add({ ...input, id: ids[i] }))
      counter = next
      return handles
    },
    validate(inputs) {
      batchIds(inputs)
    },
    list: () => [...rules],
    remove(id) {
      const before = rules.length
      rules = rules.filter((r) => r.id !== id)
      return rules.length < before
    },
    reserve(id, by) {
      held.set(id, by)
    },
    release(id) {
      held.delete(id)
    },
    reserved() {
      return held
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
    // `times: Infinity` is `'always'` in JSON (Infinity would be null): the rules pass back to add() as they were.
    toJSON: () => rules.map((r) => (r.rule.times === Infinity ? { ...r.rule, times: 'always' as const } : { ...r.rule })),
    decide(site, context = {}) {
      const now = deps.elapsed()
      for (const r of rules) {
        const action = consider(r, site, context, now)
        if (action) return { rule: r, action }
      }
      return undefined
    },
    decideAll(site, context = {}) {
      // No rules (the usual case): nothing to decide, nothing allocated.
      if (rules.length === 0) return NO_DECISIONS
      const now = deps.elapsed()
      // Every applicable rule counts this request as a match, whatever else happens to it,
      // so `after: 2` means "from the 3rd matching request on".
      const candidates = rules.filter((r) => eligible(r, site, context, now)).map((r) => ({ r, n: ++r.state.matched, phase: phaseOf(r.state.action) }))
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
    missed(id, why) {
      const r = rules.find((x) => x.id === id)
      if (r && r.state.fired > 0) r.state.fired--
      deps.journal.record('fault.missed', { rule: id, why, fired: r?.state.fired })
    },
  }
  return plan
}
