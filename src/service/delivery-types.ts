// What a delivery report says, and the tracker that writes it: the types `fake.deliveries`, the admin API and the
// matchers read, apart from how the tracker keeps its history (delivery-client.ts) and counts (delivery-tally.ts).
import type { ServiceEvent } from './events'
import type { CompiledFilter, Filters } from './filters'

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

/** An open connection as {@link DeliveryTracker.opened} returns it, for {@link DeliveryTracker.sentOn}. */
export interface OpenedConnection {
  readonly socket: number
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
  attempt(key: string, filter: CompiledFilter, signal?: AbortSignal, since?: bigint, until?: bigint): void
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
  opened(key: string, socket: number, via: 'ws' | 'stream', since: bigint | undefined, signal?: AbortSignal, until?: bigint, filter?: CompiledFilter): OpenedConnection
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
