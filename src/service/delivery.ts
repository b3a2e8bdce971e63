import { NotFoundError } from './errors'
import { Recent } from './recent'
import { msToNano, type EventLog, type ServiceEvent } from './events'
import { compileFilters, type CompiledFilter, type Filters } from './filters'

/** An event as a delivery report names it. */
export interface EventRef {
  seq: number
  action: string
  container: string
  /** Epoch nanoseconds, as the frame's `timeNano` (a string: it exceeds 2^53). */
  timeNano: string
  /** ISO time. */
  time: string
}

/** One connection of a client, as the fake saw it. */
export interface DeliveryConnection {
  socket: number
  /** `ws` (`/events/ws`) or `stream` (Docker's `/events`). */
  via: 'ws' | 'stream'
  openedAt: string
  closedAt?: string
  /** Who ended it: `server` (a close frame), `drop` (no close frame, the client saw 1006), `client`. */
  closedBy?: 'server' | 'client' | 'drop'
  code?: number
  reason?: string
  /**
   * Where its replay started (epoch ns as a string): the `since` it asked for, or `"0"` for an `until` without a `since`,
   * which replays everything the log keeps (as Docker does). Absent: no replay.
   */
  since?: string
  /** Frames sent on this connection. */
  sent: number
}

/** One line of a client's reconnect timeline. */
export interface TimelineEntry {
  /** Clock time, ISO. */
  at: string
  /** Milliseconds since the clock started. */
  elapsedMs: number
  /** `abandoned`: the attempt ended before the handshake was answered (a stall, or the client gave up). */
  kind: 'attempt' | 'open' | 'refused' | 'abandoned' | 'close' | 'drop'
  detail: string
}

/** A stretch without a connection. */
export interface DeliveryGap {
  from: string
  /** The next connection's opening; for an `ongoing` gap, the time the report was read. */
  to: string
  ms: number
  /** Events owed in this stretch that never reached the client. */
  missed: number
  /** The client has had no connection since `from`, and is still owed events (see docs/chaos.md). */
  ongoing?: true
}

/** What the fake delivered to one client across all its reconnects. */
export interface DeliveryReport {
  client: string
  /**
   * Events the client should have seen: matching its filters, from its first connect (or first refusal, or earlier
   * `since`) until the report is read, except the stretches from its own close (a close frame) to its next attempt;
   * among the events the log still retains (`retainEvents`, `retainEventsFor`): the report covers that window.
   */
  expected: number
  /** Distinct events it was sent, in the same retained window, owed or not (so it may exceed `expected`). */
  delivered: number
  /** Expected events never sent to it. */
  missed: EventRef[]
  /** Events sent to it more than once, with how often (in the same retained window). */
  duplicates: (EventRef & { times: number })[]
  /** Its connections, the last {@link DELIVERY_LIMITS}`.connections` of them. */
  connections: DeliveryConnection[]
  /** Its refused attempts, the last {@link DELIVERY_LIMITS}`.refusals` of them. */
  refusals: { at: string; status: number; retryAfter?: number; reason: string }[]
  /** Time between each end of service (a close, drop or refusal that left it with no connection) and the client's next attempt, in ms of clock time. */
  backoffMs: number[]
  /** Stretches without a connection, with the events missed in each; the last one is `ongoing` while the client is owed events and away. */
  gaps: DeliveryGap[]
  /** Its reconnect timeline, the last {@link DELIVERY_LIMITS}`.timeline` lines. */
  timeline: TimelineEntry[]
  /**
   * How many of the oldest connections, refusals and timeline lines were dropped to keep memory bounded. With
   * connections dropped, the report covers the window of the kept history: owed from the oldest kept connection's
   * opening (and its `since`); the stretches of dropped connections are not counted.
   */
  omitted: { connections: number; refusals: number; timeline: number }
}

/** A report's counts, as `GET /_dockside/deliveries` lists them per client. */
export interface DeliverySummary {
  client: string
  expected: number
  delivered: number
  missed: number
  duplicates: number
  connections: number
  refusals: number
}

/** How much delivery history the fake keeps (oldest dropped first, counted in the report's `omitted`). */
export const DELIVERY_LIMITS = {
  /** Connections kept per client. */
  connections: 1_000,
  /** Refusals kept per client. */
  refusals: 1_000,
  /** Timeline lines kept per client. */
  timeline: 1_000,
  /** Clients tracked at once; the client idle the longest (no open or pending connection) is forgotten first. */
  clients: 1_000,
} as const

/**
 * A stretch without a connection, from the end of service (a close, a drop, a first refusal) on. After the client's
 * own close (`clean`), it is owed nothing until its first attempt after that close (`back`); otherwise `back` is
 * where the stretch began. Positions are log positions (the last seq at that moment) with their clock times.
 */
interface Away {
  fromMs: number
  fromSeq: number
  clean: boolean
  backMs?: number
  backSeq?: number
}

/** A connection as tracked: with the clock times and the log positions (last seq) of its open and close (ISO times are written when a report is read). */
type Connection = Omit<DeliveryConnection, 'openedAt' | 'closedAt'> & {
  openMs: number
  closeMs?: number
  openSeq: number
  closeSeq?: number
  sinceNano?: bigint
  /** The `until` it asked for: nothing after it is owed through this connection. */
  untilNano?: bigint
  /** The stretch without a connection that this one ended (none when another connection was open). */
  away?: Away
  /** The filters it asked with: a named client may change them from one connection to the next. */
  filters: Filters
  /** Its client: what a send on it counts toward, without a lookup by key (see {@link DeliveryTracker.sentOn}). */
  owner: Tracked
}

/** An open connection as {@link DeliveryTracker.opened} returns it, for {@link DeliveryTracker.sentOn}. */
export interface OpenedConnection {
  readonly socket: number
}

/**
 * A timeline line as kept: its clock time in ms (`at` and `elapsedMs` are written when a report is read). An `open`
 * line's detail is its connection, written out then too.
 */
interface Line {
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
class Tracked {
  /** Whether the client is owed anything yet: its first open, refusal or abandoned attempt. */
  started = false
  /** With `since`: the first owed event time; without, events after `startSeq` are owed. */
  startNano: bigint | undefined = undefined
  /** With `until` on the first connection: no event of its replay after this time is owed. */
  startUntil: bigint | undefined = undefined
  startSeq = 0
  /** The client's filters compiled, when a report is first read (the connection's own compiled copy serves delivery). */
  /** Its filters compiled as each way reads them: the websocket's, whose `image` filter also takes ids, and GET /events'. */
  filter: { ws?: CompiledFilter; stream?: CompiledFilter } = {}
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
    /** The client's filters as given (compiled into `filter` when a report is read). */
    readonly filters: Filters,
    limits: { connections: number; timeline: number },
  ) {
    this.connections = new Recent(limits.connections)
    this.timeline = new Recent(limits.timeline)
  }
}

/** Tracks each events client across reconnects: fed by the protocol, read by `fake.deliveries` and the admin API. */
export interface DeliveryTracker {
  /** The client's key: its id (`X-Dockside-Client` / `client` query), else its address and filters. */
  identify(input: { client?: string; filters: Filters; address?: string }): string
  /** Whether the client connected (or tried to) before. */
  known(key: string): boolean
  /**
   * A connect attempt: it holds the key until it is opened or refused, or `signal` aborts first (the attempt was
   * abandoned: a stall, or the client gave up). `since` and `until` are the replay it asks for, as {@link opened}
   * takes them: owed if it is abandoned before the client ever got in.
   */
  attempt(key: string, filters: Filters, signal?: AbortSignal, since?: bigint, until?: bigint): void
  /**
   * A refused attempt; `signal` names the attempt (else the oldest pending one). `since` and `until` are the replay it
   * asked for: refused before the client ever got in, it is owed as a first connection's would be (a client that asked
   * to resume from `since` and never got in never got those events).
   */
  refused(key: string, status: number, reason: string, retryAfter?: number, signal?: AbortSignal, since?: bigint, until?: bigint): void
  /**
   * An opened connection; `signal` names the attempt (else the oldest pending one). With `until` (epoch ns), the
   * connection asked for nothing after it: events after `until` are not owed through it, and its close by the server
   * once the clock has reached `until` (1000, "stream complete") is the end the client asked for, like its own close.
   */
  opened(key: string, socket: number, via: 'ws' | 'stream', since: bigint | undefined, signal?: AbortSignal, until?: bigint, filters?: Filters): OpenedConnection
  sent(key: string, socket: number, event: ServiceEvent): void
  /**
   * An event sent on a connection {@link opened} returned, until it is closed: as {@link sent}, without looking the
   * client and the connection up (this runs once per event per subscriber).
   */
  sentOn(connection: OpenedConnection, event: ServiceEvent): void
  /** A connection's end; `atSeq`: the last event of the log it lived through (else the log's last). */
  closed(key: string, socket: number, by: 'server' | 'client' | 'drop', code: number, reason: string, atSeq?: number): void
  /** Client keys, in the order they first came. */
  clients(): string[]
  /** The report of one client (its id or key). */
  report(client: string): DeliveryReport
  /** The counts of a client's report, without its lists: O(retained events + connections), for the summary of every client. */
  summary(client: string): DeliverySummary
  /** Clients forgotten to stay within {@link DELIVERY_LIMITS}`.clients`. */
  readonly forgottenClients: number
}

// Connections that send the same filters text share one Filters object (the protocol keeps their compiled filter):
// its canonical form is worked out once, not sorted and serialised on every connect.
const canonicalForms = new WeakMap<Filters, string>()
function canonical(filters: Filters): string {
  let form = canonicalForms.get(filters)
  if (form === undefined) canonicalForms.set(filters, (form = canonicalForm(filters)))
  return form
}

function canonicalForm(filters: Filters): string {
  const out: Record<string, string[]> = {}
  for (const k of Object.keys(filters).sort()) out[k] = [...(filters[k as keyof Filters] ?? [])].sort()
  return JSON.stringify(out)
}

/**
 * The `n` of an anonymous key's ` #n` suffix, 1 without one: read from the end without a regular expression or a
 * match array (it runs at every close of an anonymous client).
 */
// Stryker disable all: the ordinal only lowers the hint of where identify starts looking; a wrong one gives the same
// keys (identify skips busy ones), as the hint's own mutants do (see lowerHint)
function ordinal(key: string): number {
  let i = key.length
  let n = 0
  let scale = 1
  while (i > 0) {
    const d = key.charCodeAt(i - 1) - 48
    if (d < 0 || d > 9) break
    n += d * scale
    scale *= 10
    i--
  }
  return i < key.length && i >= 2 && key.charCodeAt(i - 1) === 35 && key.charCodeAt(i - 2) === 32 ? n : 1
}
// Stryker restore all

/** Sends are checked against the log's retention every this many pushes. */
const MAINTAIN_EVERY = 1024

export function createDeliveryTracker(deps: { log: EventLog; now: () => number; startedAt: number; limits?: Partial<Record<keyof typeof DELIVERY_LIMITS, number>> }): DeliveryTracker {
  const limits = { ...DELIVERY_LIMITS, ...deps.limits }
  /** In order of activity: a client moves to the end at each attempt and when it becomes idle, so the first idle one is the one idle the longest. */
  const tracked = new Map<string, Tracked>()
  let forgottenClients = 0
  let arrivals = 0
  /** The last forgotten keys (at most `limits.clients`), so that asking for one says it was forgotten. */
  const forgotten = new Set<string>()
  const iso = (ms: number) => new Date(ms).toISOString()
  const ref = (e: ServiceEvent): EventRef => ({ seq: e.seq, action: e.action, container: e.name, timeNano: e.timeNano.toString(), time: iso(e.timeMs) })
  const note = (t: Tracked, kind: TimelineEntry['kind'], detail: string | Connection) => {
    t.timeline.push({ atMs: deps.now(), kind, detail })
  }
  const openDetail = (c: Connection) => `socket ${c.socket}${c.since !== undefined ? ` since ${c.since}` : ''}`
  const get = (key: string) => {
    const t = tracked.get(key)
    if (!t) {
      const hint = 'Give clients an id with the X-Dockside-Client header or the "client" query parameter.'
      if (forgotten.has(key)) {
        throw new NotFoundError(`Events client "${key}" was forgotten: the fake tracks at most ${limits.clients} clients, and forgets the one idle the longest (no open or pending connection) first; ${forgottenClients} client(s) were forgotten so far.`)
      }
      const forgot = forgottenClients ? ` ${forgottenClients} idle client(s) were forgotten: the fake tracks at most ${limits.clients} clients.` : ''
      throw new NotFoundError(`No events client "${key}". Known clients: ${[...tracked.keys()].map((k) => JSON.stringify(k)).join(', ') || '(none yet)'}.${forgot} ${hint}`)
    }
    return t
  }
  const openOf = (t: Tracked, socket: number) => (t.one?.socket === socket ? t.one : t.more?.get(socket))
  const busy = (t: Tracked) => t.connected > 0 || t.pending !== undefined
  /**
   * Clients that were idle when last touched, in that order (some may have become busy since: those are skipped and
   * dropped when met), so forgetting the one idle the longest never walks past every open client.
   */
  const idle = new Set<string>()
  /**
   * Per anonymous base key, the lowest `#n` that may be free: every `base #k` below it is busy. Raised by identify,
   * lowered when one of those clients becomes idle, so that opening the n-th identical anonymous connection does not
   * walk past the n - 1 open ones.
   */
  const hints = new Map<string, number>()
  /**
   * The anonymous base key of an address and a filters' canonical form: the last one made is given again, so that a
   * run of connections from one address with the same filters hashes one string for `hints`, not a new one each.
   */
  let lastAddress: string | undefined
  let lastForm: string | undefined
  let lastBase = ''
  const baseKey = (address: string, form: string) => {
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: remaking the same string gives the same key
    if (address !== lastAddress || form !== lastForm) {
      lastAddress = address
      lastForm = form
      lastBase = `${address} ${form}`
    }
    return lastBase
  }
  const lowerHint = (key: string) => {
    const n = ordinal(key)
    const base = n === 1 ? key : key.slice(0, key.lastIndexOf(' #'))
    const h = hints.get(base)
    if (h === undefined) return
    // Stryker disable next-line ConditionalExpression,EqualityOperator: the hint only says where identify starts looking; lower or none gives the same key (busy keys are skipped)
    if (n <= 1) hints.delete(base)
    else if (n < h) hints.set(base, n)
  }
  /** Moves the client to the end of the activity order (O(1)). */
  const touch = (t: Tracked) => {
    tracked.delete(t.key)
    tracked.set(t.key, t)
    idle.delete(t.key)
    if (!busy(t)) {
      idle.add(t.key)
      lowerHint(t.key)
    }
  }
  /** The client is owed events from now on (its first open, refusal or abandoned attempt). */
  const start = (t: Tracked, now: number, since?: bigint, until?: bigint) => {
    if (t.started) return
    t.started = true
    t.startSeq = deps.log.lastSeq
    t.startNano = since
    t.startUntil = until
  }
  /** Service ended and no connection is left: a stretch away begins after `seq` (owed from its start unless `clean`). */
  const leave = (t: Tracked, now: number, clean: boolean, seq = deps.log.lastSeq) => {
    t.away = clean ? { fromMs: now, fromSeq: seq, clean } : { fromMs: now, fromSeq: seq, clean, backMs: now, backSeq: seq }
  }
  /** The seq of the last event stamped at or before `nano` (events are in time order: a walk back from the newest). */
  const lastSeqThrough = (nano: bigint) => {
    const events = deps.log.events
    let i = events.length - 1
    while (i >= 0 && events[i]!.timeNano > nano) i--
    return i >= 0 ? events[i]!.seq : deps.log.oldestSeq - 1
  }
  /** The client is trying again: after its own close, what it is owed starts again here (its first attempt since). */
  const comeBack = (t: Tracked, now: number) => {
    if (t.away && t.away.backSeq === undefined) {
      t.away.backMs = now
      t.away.backSeq = deps.log.lastSeq
    }
  }
  /**
   * Before the client ever got in, the first replay it asked for (a `since`, or an `until` alone) is owed, whether the
   * attempt that asked was opened, refused or abandoned: a 410 on `GET /events` owes what a 4410 on the websocket does.
   */
  const oweFirstReplay = (t: Tracked, since: bigint | undefined, until: bigint | undefined) => {
    if (t.connections.length === 0 && t.connections.omitted === 0 && t.startNano === undefined) {
      t.startNano = since
      t.startUntil = until
    }
  }
  /**
   * A refusal or an abandoned attempt: no service. Before the first connection, a stretch away begins: owed, unless the
   * attempt asked for nothing after an `until` already past (a replay only, as `docker events --since --until`), when
   * nothing after `until` is, as after a first connection that completed at its `until`.
   */
  const unserved = (t: Tracked, now: number, since?: bigint, until?: bigint) => {
    start(t, now)
    oweFirstReplay(t, since, until)
    comeBack(t, now)
    if (!t.away && t.connected === 0) {
      if (until !== undefined && until <= msToNano(now) && t.pending === undefined) leave(t, now, true, lastSeqThrough(until))
      else leave(t, now, false)
    }
    t.lastEndMs = now
  }
  /** Settles the attempt of `signal` (opened or refused), or else the oldest pending one. */
  const settle = (t: Tracked, signal: AbortSignal | undefined) => {
    const pending = t.pending
    if (!pending) return
    const s = signal && pending.has(signal) ? signal : pending.keys().next().value!
    pending.get(s)!()
    drop(t, s)
  }
  /** Ends a pending attempt; an idle client keeps no empty map (thousands of open anonymous clients are idle records). */
  const drop = (t: Tracked, signal: AbortSignal) => {
    t.pending!.delete(signal)
    if (t.pending!.size === 0) t.pending = undefined
  }
  const forgetIdle = (keep: string) => {
    // Under the limit (nearly always), no iterator over the idle clients is made.
    // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: the loop checks the same first
    if (tracked.size <= limits.clients) return
    for (const key of idle) {
      if (tracked.size <= limits.clients) return
      const t = tracked.get(key)
      if (!t || busy(t)) {
        // Stryker disable next-line CallExpression: idle keys are cleaned lazily; a busy or forgotten key is skipped when met
        idle.delete(key)
        continue
      }
      if (key === keep) continue
      tracked.delete(key)
      // Stryker disable next-line CallExpression: idle keys are cleaned lazily; a busy or forgotten key is skipped when met
      idle.delete(key)
      // Stryker disable next-line CallExpression: a forgotten key is at or above its hint (identify never passes an idle key)
      lowerHint(key)
      forgotten.add(key)
      if (forgotten.size > limits.clients) forgotten.delete(forgotten.values().next().value!)
      forgottenClients++
    }
  }

  // What a client was owed is computed from the event log when a report is asked for, so delivering an
  // event costs the tracker one array push per subscriber and nothing per tracked client.
  // Stryker disable next-line BlockStatement: maintain only folds and compacts what was sent (memory); a report is exact either way
  const maintain = (t: Tracked) => {
    // The oldest retained seq, without copying the log (this runs every MAINTAIN_EVERY sends of every subscriber).
    const oldest = deps.log.oldestSeq
    // Stryker disable next-line ArithmeticOperator: memory only (when maintain folds); a report is exact either way
    const retained = deps.log.lastSeq - oldest + 1
    // Sends of events the log dropped are skipped at the front (each is passed once: amortised O(1)).
    // Stryker disable next-line UpdateOperator: memory only (sends of dropped events are also left out by the report's retained window)
    while (t.head < t.end && t.sent[t.head] < oldest) t.head++
    // Stryker disable next-line ArithmeticOperator: memory only (when maintain folds); a report is exact either way
    const live = t.end - t.head
    // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement,ArithmeticOperator: memory only (when maintain folds); a report is exact either way
    if (live > 2 * retained + MAINTAIN_EVERY) {
      // More sends than retained events: replays sent events again. Fold them into counts (at most one per retained event).
      const counts = (t.counts ??= new Map())
      for (let i = t.head; i < t.end; i++) {
        const seq = t.sent[i]
        if (seq >= oldest) counts.set(seq, (counts.get(seq) ?? 0) + 1)
      }
      t.sent = NO_SENDS
      t.head = t.end = 0
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
  const trim = (t: Tracked) => {
    maintain(t)
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator,ArithmeticOperator: memory only
    if (t.end - t.head < t.sent.length / 2) {
      // Stryker disable next-line MethodExpression: memory only
      t.sent = t.end === t.head ? NO_SENDS : t.sent.slice(t.head, t.end)
      t.end -= t.head
      t.head = 0
    }
  }

  /** Room for one more send: the live sends slide to the front when that frees half the list, else it doubles. */
  const makeRoom = (t: Tracked) => {
    const live = t.end - t.head
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

  /**
   * What the client was owed and sent, among the retained events: one walk over the events and the client's stretches
   * away together, both in log order, so a report costs O(retained events + connections).
   */
  /**
   * Whether the client asked for an event, by the filters of the connections it had then: those open when the event
   * happened; in a gap, those still open at the last event before it (what the client was subscribed to when service
   * ended: the last to close, not the last opened, which may have been closed long before), less those the client closed
   * itself unless it closed them all; before any, the first (a `since` replay of earlier events). A named client may
   * reconnect with other filters; its first connection's did not judge the rest. Events come in log order, so one pass
   * walks the connections along with them.
   */
  const wanted = (t: Tracked, connections: Connection[], of: (c: Connection) => CompiledFilter): ((e: ServiceEvent) => boolean) => {
    const via = connections[0]?.via ?? 'ws'
    if (connections.every((c) => c.filters === t.filters && c.via === via)) {
      const only = compiledOf(t, via)
      return (e) => only.matches(e)
    }
    let last = 0
    /** Whether a connection closed at `endSeq` was still open when service ended, and was asked (`goodbye`) or not. */
    const endedWith = (e: ServiceEvent, endSeq: number, goodbye: boolean) => {
      let found = false
      for (let i = 0; i <= last; i++) {
        const c = connections[i]
        if (c.closeSeq !== endSeq || (c.closedBy === 'client' && c.code !== 1006) !== goodbye) continue
        found = true
        if (of(c).matches(e)) return true
      }
      return found ? false : undefined
    }
    return (e) => {
      while (last + 1 < connections.length && connections[last + 1].openSeq < e.seq) last++
      let any = false
      // The last close before the event, of the connections opened before it.
      let endSeq = -1
      for (let i = 0; i <= last; i++) {
        const c = connections[i]
        if (c.openSeq >= e.seq) continue
        if (c.closeSeq === undefined || c.closeSeq >= e.seq) {
          any = true
          if (of(c).matches(e)) return true
        } else if (c.closeSeq > endSeq) endSeq = c.closeSeq
      }
      if (any) return false
      if (endSeq < 0) return of(connections[0]).matches(e)
      return endedWith(e, endSeq, false) ?? endedWith(e, endSeq, true) ?? false
    }
  }

  /** A client's first filters compiled for a way in, once for good. */
  const compiledOf = (t: Tracked, via: 'ws' | 'stream') => (t.filter[via] ??= compileFilters(t.filters, { imageIds: via === 'ws' }))
  /** A connection's filters compiled, once per report for each filters object and way in (the client's first ones once for good). */
  const filtersOf = (t: Tracked) => {
    const compiled = { ws: new Map<Filters, CompiledFilter>(), stream: new Map<Filters, CompiledFilter>() }
    return (c: Connection) => {
      let f = compiled[c.via].get(c.filters)
      if (f === undefined) compiled[c.via].set(c.filters, (f = c.filters === t.filters ? compiledOf(t, c.via) : compileFilters(c.filters, { imageIds: c.via === 'ws' })))
      return f
    }
  }

  /** One send to the client (one array push: this is on the delivery path). */
  const record = (t: Tracked, event: ServiceEvent) => {
    if (t.end === t.sent.length) makeRoom(t)
    t.sent[t.end++] = event.seq
    // Stryker disable next-line CallExpression,EqualityOperator,ArithmeticOperator: how often sends run maintain (memory only)
    if (t.end % MAINTAIN_EVERY === 0) maintain(t)
  }

  const tally = (t: Tracked) => {
    const now = deps.now()
    // Stryker disable next-line CallExpression: maintain in a report is memory-only work
    maintain(t)
    const retained = deps.log.events
    // The report covers the events the log still retains, as `expected` can only know those: sends of older
    // events are left out (sends of retained events that were not owed are counted: `delivered` may exceed `expected`).
    // Stryker disable next-line ArithmeticOperator: an empty log gives an empty times array either way
    const oldestSeq = retained[0]?.seq ?? deps.log.lastSeq + 1
    const times = new Uint32Array(retained.length)
    if (t.counts) for (const [seq, n] of t.counts) if (seq >= oldestSeq) times[seq - oldestSeq] += n
    for (let i = t.head; i < t.end; i++) {
      const at = t.sent[i] - oldestSeq
      if (at >= 0) times[at]++
    }
    const connections = t.connections.toArray()
    // With older connections dropped, the report covers the window of the kept history: owed from the oldest kept
    // connection's opening (and its `since`), so the stretches of dropped connections never come back as missed.
    const windowed = t.connections.omitted > 0 && connections.length > 0
    const startSeq = windowed ? connections[0].openSeq : t.startSeq
    const startNano = windowed ? connections[0].sinceNano : t.startNano
    const startUntil = windowed ? connections[0].untilNano : t.startUntil
    // Stretches without a connection, in log order. The part that began with the client's own close (a close frame)
    // and ran until its next attempt is not owed: the client chose to be away, and a report read later must not change
    // its mind about it. Only what the returning connection's `since` asks to replay is owed again. The rest is a gap.
    // `back` is the returning connection: its `since` replay, up to its `until`, through its filters, is what is owed.
    const excused: { after: number; through: number; back: Connection | undefined }[] = []
    const spans: { fromMs: number; toMs: number; fromSeq: number; toSeq: number; ongoing: boolean; missed: number }[] = []
    const stretch = (a: Away, toMs: number, toSeq: number, back: Connection | undefined) => {
      const ongoing = back === undefined
      if (a.clean) excused.push({ after: a.fromSeq, through: a.backSeq ?? toSeq, back })
      // Stryker disable next-line LogicalOperator: backSeq and backMs are always set together
      if (a.backSeq === undefined || a.backMs === undefined) return
      if (ongoing || toMs > a.backMs || toSeq > a.backSeq) spans.push({ fromMs: a.backMs, toMs, fromSeq: a.backSeq, toSeq, ongoing, missed: 0 })
    }
    if (t.started) {
      for (let i = windowed ? 1 : 0; i < connections.length; i++) {
        const c = connections[i]
        if (c.away) stretch(c.away, c.openMs, c.openSeq, c)
      }
      // Stryker disable next-line LogicalOperator: a client that has started has a connection or a stretch away, never both, never neither
      if (t.away && t.connected === 0) stretch(t.away, now, Infinity, undefined)
    }
    const missed: ServiceEvent[] = []
    let expected = 0
    let xi = 0
    let si = 0
    const filterOf = filtersOf(t)
    const wants = wanted(t, connections, filterOf)
    if (t.started) {
      for (const e of retained) {
        // Owed: what came after the first opening, and what its `since` asked to replay (up to its `until`).
        if (!(e.seq > startSeq || (startNano !== undefined && e.timeNano >= startNano && (startUntil === undefined || e.timeNano <= startUntil)))) continue
        while (xi < excused.length && excused[xi].through < e.seq) xi++
        const x = excused[xi]
        if (x !== undefined && e.seq > x.after) {
          // Away by choice: owed again only what the returning connection's `since` asked to replay, up to its `until`,
          // through its own filters (a named client that came back asking for other events was not owed the old ones).
          const b = x.back
          if (b?.sinceNano === undefined || e.timeNano < b.sinceNano || (b.untilNano !== undefined && e.timeNano > b.untilNano) || !filterOf(b).matches(e)) continue
        } else if (!wants(e)) continue
        expected++
        if (times[e.seq - oldestSeq] > 0) continue
        missed.push(e)
        while (si < spans.length && spans[si].toSeq < e.seq) si++
        if (si < spans.length && e.seq > spans[si].fromSeq) spans[si].missed++
      }
    }
    let delivered = 0
    const duplicates: number[] = []
    for (let i = 0; i < times.length; i++) {
      if (times[i] > 0) delivered++
      if (times[i] > 1) duplicates.push(i)
    }
    return { now, retained, times, connections, missed, expected, delivered, duplicates, spans }
  }

  return {
    identify({ client, filters, address }) {
      if (client !== undefined) return client
      // Without an id, a client is its address and filters; connections open (or opening) at the same time are
      // different clients (#2, #3, ...), and a reconnect resumes the first such client with no connection.
      const base = baseKey(address ?? 'local', canonical(filters))
      for (let n = hints.get(base) ?? 1; ; n++) {
        const key = n === 1 ? base : `${base} #${n}`
        const t = tracked.get(key)
        if (!t || !busy(t)) {
          // Stryker disable next-line ConditionalExpression,CallExpression,EqualityOperator: the hint only says where identify starts looking; lower or none gives the same key
          if (n > 1) hints.set(base, n)
          return key
        }
      }
    },
    known: (key) => tracked.has(key),
    attempt(key, filters, signal, since, until) {
      let t = tracked.get(key)
      if (!t) {
        t = new Tracked(key, arrivals++, filters, limits)
        tracked.set(key, t)
        idle.add(key)
        forgotten.delete(key)
        forgetIdle(key)
      } else touch(t)
      const now = deps.now()
      comeBack(t, now)
      note(t, 'attempt', t.lastEndMs === undefined ? 'first connect' : `reconnect after ${now - t.lastEndMs} ms`)
      if (!signal || signal.aborted || t.pending?.has(signal)) return
      const tt = t
      const onAbort = () => {
        drop(tt, signal)
        // Never answered (a stall), or the client gave up first: the client got no service, as after a refusal.
        unserved(tt, deps.now(), since, until)
        if (!busy(tt)) touch(tt)
        note(tt, 'abandoned', 'the attempt ended before the handshake was answered')
      }
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: the value kept in pending removes the listener, and an abort fires once
      signal.addEventListener('abort', onAbort, { once: true })
      ;(t.pending ??= new Map()).set(signal, () => signal.removeEventListener('abort', onAbort))
    },
    refused(key, status, reason, retryAfter, signal, since, until) {
      const t = get(key)
      const now = deps.now()
      settle(t, signal)
      ;(t.refusals ??= new Recent(limits.refusals)).push({ at: iso(now), status, retryAfter, reason })
      unserved(t, now, since, until)
      if (!busy(t)) touch(t)
      note(t, 'refused', `${status}${retryAfter !== undefined ? ` retry-after ${retryAfter}s` : ''}: ${reason}`)
    },
    opened(key, socket, via, since, signal, until, filters) {
      const t = get(key)
      const now = deps.now()
      settle(t, signal)
      // Owed: what happens from now on, plus what `since` asks to replay (up to `until`).
      start(t, now, since, until)
      // Refused (or left unanswered) before it ever got in: its first connection's `since` replay is owed all the same.
      oweFirstReplay(t, since, until)
      // Stryker disable next-line CallExpression: attempt (always called first, by admit) already set the return point
      comeBack(t, now)
      const c: Connection = { socket, via, openMs: now, openSeq: deps.log.lastSeq, since: since?.toString(), sinceNano: since, untilNano: until, sent: 0, away: t.away, filters: filters ?? t.filters, owner: t }
      t.away = undefined
      t.connections.push(c)
      // Stryker disable next-line EqualityOperator: whether one or more holds an open connection is memory only; openOf looks in both
      if (t.one === undefined && t.more === undefined) t.one = c
      else {
        const more = (t.more ??= new Map())
        if (t.one !== undefined) more.set(t.one.socket, t.one)
        t.one = undefined
        more.set(socket, c)
      }
      t.connected++
      note(t, 'open', c)
      return c
    },
    sent(key, socket, event) {
      const t = tracked.get(key)
      if (!t) return
      record(t, event)
      const c = openOf(t, socket)
      if (c) c.sent++
    },
    sentOn(connection, event) {
      const c = connection as Connection
      // A closed connection counts no more sends (as sent() finds no open connection); its client still does.
      record(c.owner, event)
      if (c.closeMs === undefined) c.sent++
    },
    closed(key, socket, by, code, reason, atSeq) {
      const t = tracked.get(key)
      const c = t && openOf(t, socket)
      if (!t || !c) return
      if (t.one === c) t.one = undefined
      else {
        t.more!.delete(socket)
        if (t.more!.size === 0) t.more = undefined
      }
      // A client that is gone sends nothing more that would trim its history: trim it now.
      // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator,CallExpression: the trim at the last close is memory only
      if (t.one === undefined && t.more === undefined) trim(t)
      const now = deps.now()
      // Field by field: no object for Object.assign to copy from (this runs at every close).
      c.closeMs = now
      c.closeSeq = atSeq ?? deps.log.lastSeq
      c.closedBy = by
      c.code = code
      c.reason = reason
      t.connected--
      t.lastEndMs = now
      // Only a close the client asked for ends what it is owed: its own close frame (1006 from the client did not say
      // goodbye), or the server's complete close once the clock reached the `until` it asked for, or any end once the
      // clock is past that `until` (a replay only, ended by a 4410 or a fault: nothing after `until` was asked for). An
      // attempt already under way means it is not away by choice.
      const completed = c.untilNano !== undefined && (by === 'server' && code === 1000 ? now >= Number(c.untilNano / 1_000_000n) : c.untilNano <= msToNano(now))
      const asked = (by === 'client' && code !== 1006) || completed
      // A stream that completed at its `until` served the client up to `until`, not up to its close: events stamped
      // between (a mid-millisecond `until` completes at the next millisecond) were never asked for, and are not owed.
      if (t.connected === 0) leave(t, now, asked && t.pending === undefined, completed ? lastSeqThrough(c.untilNano!) : atSeq)
      if (!busy(t)) touch(t)
      note(t, by === 'drop' ? 'drop' : 'close', `socket ${socket} ${by === 'drop' ? 'dropped (no close frame, 1006)' : `closed by ${by} ${code}${reason ? ` "${reason}"` : ''}`}`)
    },
    clients: () => [...tracked.values()].sort((a, b) => a.order - b.order).map((t) => t.key),
    get forgottenClients() {
      return forgottenClients
    },
    summary(client) {
      const t = get(client)
      const r = tally(t)
      return { client: t.key, expected: r.expected, delivered: r.delivered, missed: r.missed.length, duplicates: r.duplicates.length, connections: t.connections.length, refusals: t.refusals?.length ?? 0 }
    },
    report(client) {
      const t = get(client)
      const { now, retained, times, connections, missed, expected, delivered, duplicates, spans } = tally(t)
      const timeline = t.timeline.toArray().map(({ atMs, kind, detail }): TimelineEntry => ({ at: iso(atMs), elapsedMs: atMs - deps.startedAt, kind, detail: typeof detail === 'string' ? detail : openDetail(detail) }))
      // Backoff runs from an end of service: a close, drop, refusal or abandoned attempt that left the client with no
      // connection (a socket closed after its replacement opened ended nothing). Connections open before the oldest
      // kept line: those open now, less what the kept lines opened, plus what they closed.
      let open = t.connected
      for (const entry of timeline) open += entry.kind === 'open' ? -1 : entry.kind === 'close' || entry.kind === 'drop' ? 1 : 0
      const backoffMs: number[] = []
      let ends: number[] = []
      for (const entry of timeline) {
        if (entry.kind === 'attempt') {
          for (const end of ends) backoffMs.push(entry.elapsedMs - end)
          ends = []
        } else if (entry.kind === 'open') open++
        else {
          if (entry.kind === 'close' || entry.kind === 'drop') open--
          if (open === 0) ends.push(entry.elapsedMs)
        }
      }
      const gaps: DeliveryGap[] = spans.map(({ fromMs, toMs, ongoing, missed: n }) => {
        const to = ongoing ? now : toMs
        return { from: iso(fromMs), to: iso(to), ms: to - fromMs, missed: n, ...(ongoing ? { ongoing: true as const } : {}) }
      })
      return {
        client: t.key,
        expected,
        delivered,
        missed: missed.map(ref),
        duplicates: duplicates.map((i) => ({ ...ref(retained[i]), times: times[i] })),
        connections: connections.map(({ socket, via, openMs, since, sent, closeMs, closedBy, code, reason }): DeliveryConnection => ({
          socket,
          via,
          openedAt: iso(openMs),
          since,
          sent,
          ...(closeMs === undefined ? {} : { closedAt: iso(closeMs), closedBy, code, reason }),
        })),
        refusals: t.refusals?.toArray() ?? [],
        backoffMs,
        gaps,
        timeline,
        omitted: { connections: t.connections.omitted, refusals: t.refusals?.omitted ?? 0, timeline: t.timeline.omitted },
      }
    },
  }
}
