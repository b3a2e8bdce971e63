// One tracked events client as the delivery tracker keeps it: its connections, its stretches away, its timeline, and
// the sequence numbers of what it was sent, kept within the log's retention (this is on the delivery path).
import type { EventLog, ServiceEvent } from './events'
import type { CompiledFilter } from './filters'
import { Recent } from './recent'
import type { DeliveryConnection, DeliveryReport, TimelineEntry } from './delivery-types'

/**
 * A stretch without a connection, from the end of service (a close, a drop, a first refusal) on. After the client's
 * own close (`clean`), it is owed nothing until its first attempt after that close (`back`); otherwise `back` is
 * where the stretch began. Positions are log positions (the last seq at that moment) with their clock times.
 */
export interface Away {
  fromMs: number
  fromSeq: number
  clean: boolean
  backMs?: number
  backSeq?: number
}

/** A connection as tracked: with the clock times and the log positions (last seq) of its open and close (ISO times are written when a report is read). */
export type Connection = Omit<DeliveryConnection, 'openedAt' | 'closedAt'> & {
  openMs: number
  closeMs?: number
  openSeq: number
  closeSeq?: number
  sinceNano?: bigint
  /** The `until` it asked for: nothing after it is owed through this connection. */
  untilNano?: bigint
  /** The stretch without a connection that this one ended (none when another connection was open). */
  away?: Away
  /**
   * The filter it asked with, as the protocol compiled it at connect (a named client may change it from one connection
   * to the next; the websocket's `image` filter also takes ids, GET /events' does not).
   */
  filter: CompiledFilter
  /** Its client: what a send on it counts toward, without a lookup by key (see {@link DeliveryTracker.sentOn}). */
  owner: Tracked
}

/**
 * A timeline line as kept: its clock time in ms (`at` and `elapsedMs` are written when a report is read). An `open`
 * line's detail is its connection, written out then too.
 */
export interface Line {
  atMs: number
  kind: TimelineEntry['kind']
  detail: string | Connection
}

/** Sends of a client that has been sent nothing yet: one shared empty list (replaced at the first send). */
const NO_SENDS = new Float64Array(0)

/**
 * A tracked client. A class with every field set in its constructor, so that each of thousands of idle anonymous
 * clients is one object of fixed layout (an object literal that gained fields later kept a second properties array).
 */
export class Tracked {
  /** Whether the client is owed anything yet: its first open, refusal or abandoned attempt. */
  started = false
  /** With `since`: the first owed event time; without, events after `startSeq` are owed. */
  startNano: bigint | undefined = undefined
  /** With `until` on the first connection: no event of its replay after this time is owed. */
  startUntil: bigint | undefined = undefined
  startSeq = 0
  /**
   * Sequence numbers of the events sent to it, in order, from `head` to `end` (one store per delivery: this is on the
   * hot path). Numbers, not the events: a client that left must not keep events the log dropped alive. Sends of
   * events the log dropped are skipped at the front; when replays pile up sends of retained events, they are folded
   * into `counts`, so memory follows the log's retention either way. {@link NO_SENDS} until the first send. A typed
   * array, not an Array: a push onto an Array of thousands of numbers cost ~60 ns more per delivery (its growth and
   * the collector's walk over every element), a third of an in-process delivery.
   */
  sent = NO_SENDS
  head = 0
  end = 0
  /** Made when replays first fold sends into it. */
  counts: Map<number, number> | undefined = undefined
  /**
   * Its open connection when it has one (most clients: thousands of idle anonymous clients keep no map each), else
   * undefined; from a second at once on, all of them by socket id in `more`.
   */
  one: Connection | undefined = undefined
  more: Map<number, Connection> | undefined = undefined
  /** Made at the first refusal. */
  refusals: Recent<DeliveryReport['refusals'][number]> | undefined = undefined
  connected = 0
  /**
   * Attempts not yet opened, refused or abandoned, by their request's signal: they hold the key, so concurrent
   * anonymous attempts get keys of their own. The value stops listening for the abort.
   */
  pending: Map<AbortSignal, () => void> | undefined = undefined
  lastEndMs: number | undefined = undefined
  /** The stretch without a connection the client is in (undefined while connected, or before it started). */
  away: Away | undefined = undefined
  readonly connections: Recent<Connection>
  readonly timeline: Recent<Line>
  constructor(
    readonly key: string,
    /** Order of first appearance (the tracked map is kept in order of activity). */
    readonly order: number,
    /** The filter of its first attempt, as the protocol compiled it (what a report judges by before any connection). */
    readonly filter: CompiledFilter,
    limits: { connections: number; timeline: number },
  ) {
    this.connections = new Recent(limits.connections)
    this.timeline = new Recent(limits.timeline)
  }
}

/** Sends are checked against the log's retention every this many pushes. */
const MAINTAIN_EVERY = 1024

// What a client was owed is computed from the event log when a report is asked for, so delivering an
// event costs the tracker one array push per subscriber and nothing per tracked client.
// Stryker disable next-line BlockStatement: maintain only folds and compacts what was sent (memory); a report is exact either way
export function maintain(t: Tracked, log: EventLog): void {
  // The oldest retained seq, without copying the log (this runs every MAINTAIN_EVERY sends of every subscriber).
  const oldest = log.oldestSeq
  // Stryker disable next-line ArithmeticOperator: memory only (when maintain folds); a report is exact either way
  const retained = log.lastSeq - oldest + 1
  // Sends of events the log dropped are skipped at the front (each is passed once: amortised O(1)).
  // Stryker disable next-line UpdateOperator,ConditionalExpression: memory only (sends of dropped events are also left out by the report's retained window)
  while (t.head < t.end && t.sent[t.head] < oldest) t.head++
  // Stryker disable next-line ArithmeticOperator: memory only (when maintain folds); a report is exact either way
  const live = t.end - t.head
  // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement,ArithmeticOperator: memory only (when maintain folds); a report is exact either way
  if (live > 2 * retained + MAINTAIN_EVERY) {
    // More sends than retained events: replays sent events again. Fold them into counts (at most one per retained event).
    const counts = (t.counts ??= new Map())
    for (let i = t.head; i < t.end; i++) {
      const seq = t.sent[i]
      // Stryker disable next-line ConditionalExpression: memory only (the report skips the counts of events the log dropped)
      if (seq >= oldest) counts.set(seq, (counts.get(seq) ?? 0) + 1)
    }
    t.sent = NO_SENDS
    t.head = t.end = 0
    // Stryker disable next-line all: memory only (counts of dropped events are pruned; the report skips them either way)
    if (counts.size > retained + MAINTAIN_EVERY) for (const seq of counts.keys()) if (seq < oldest) counts.delete(seq)
    return
  }
}

/**
 * A client left with no connection sends nothing more: its list keeps only its live sends, at their size. (While it
 * is sent to, {@link makeRoom} reuses the list instead: a list cut to size would have to grow again at the next send,
 * on every subscriber of the same events at once.)
 */
// Stryker disable next-line BlockStatement: memory only (the sends between head and end stay in order)
export function trim(t: Tracked, log: EventLog): void {
  maintain(t, log)
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator,ArithmeticOperator,BlockStatement: memory only
  if (t.end - t.head < t.sent.length / 2) {
    // Stryker disable next-line MethodExpression,ConditionalExpression: memory only (an empty slice or the shared empty list)
    t.sent = t.end === t.head ? NO_SENDS : t.sent.slice(t.head, t.end)
    t.end -= t.head
    t.head = 0
  }
}

/** Room for one more send: the live sends slide to the front when that frees half the list, else it doubles. */
function makeRoom(t: Tracked): void {
  const live = t.end - t.head
  // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: memory only (with sends skipped at the front a slide always leaves room; a new list always does)
  if (t.head > 0 && live * 2 <= t.sent.length) t.sent.copyWithin(0, t.head, t.end)
  else {
    // Stryker disable next-line ArithmeticOperator,MethodExpression: memory only (any larger size holds them)
    const next = new Float64Array(Math.max(16, t.sent.length * 2))
    next.set(t.sent.subarray(t.head, t.end))
    t.sent = next
  }
  t.head = 0
  t.end = live
}

/** One send to the client (one array push: this is on the delivery path). */
export function record(t: Tracked, event: ServiceEvent, log: EventLog): void {
  if (t.end === t.sent.length) makeRoom(t)
  t.sent[t.end++] = event.seq
  // Stryker disable next-line CallExpression,EqualityOperator,ArithmeticOperator,ConditionalExpression: how often sends run maintain (memory only)
  if (t.end % MAINTAIN_EVERY === 0) maintain(t, log)
}
