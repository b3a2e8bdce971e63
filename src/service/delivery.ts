import { NotFoundError } from './errors'
import type { EventLog, ServiceEvent } from './events'
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
  /** The `since` it asked for (epoch ns as a string). */
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
  kind: 'attempt' | 'open' | 'refused' | 'close' | 'drop'
  detail: string
}

/** What the fake delivered to one client across all its reconnects. */
export interface DeliveryReport {
  client: string
  /** Events the client should have seen: matching its filters, from its first connect (or earlier `since`) to its last. */
  expected: number
  /** Distinct events it was sent. */
  delivered: number
  /** Expected events never sent to it. */
  missed: EventRef[]
  /** Events sent to it more than once, with how often. */
  duplicates: (EventRef & { times: number })[]
  connections: DeliveryConnection[]
  refusals: { at: string; status: number; retryAfter?: number; reason: string }[]
  /** Time between each end of service (close, drop, refusal) and the client's next attempt, in ms of clock time. */
  backoffMs: number[]
  /** Stretches without a connection, with the events missed in each. */
  gaps: { from: string; to: string; ms: number; missed: number }[]
  timeline: TimelineEntry[]
}

interface Tracked {
  key: string
  filter: CompiledFilter
  /** With `since`: the first owed event time; without, events after `startSeq` are owed. */
  startNano: bigint | undefined
  startSeq: number
  /** Matching events seen by the log since tracking started (or replayed to it). */
  matching: Map<number, ServiceEvent>
  sentCount: Map<number, number>
  connections: (DeliveryConnection & { openMs: number; closeMs?: number })[]
  refusals: DeliveryReport['refusals']
  timeline: TimelineEntry[]
  connected: number
  lastEndMs?: number
}

/** Tracks each events client across reconnects: fed by the protocol, read by `fake.deliveries` and the admin API. */
export interface DeliveryTracker {
  /** The client's key: its id (`X-Dockside-Client` / `client` query), else its address and filters. */
  identify(input: { client?: string; filters: Filters; address?: string }): string
  /** Whether the client connected (or tried to) before. */
  known(key: string): boolean
  attempt(key: string, filters: Filters): void
  refused(key: string, status: number, reason: string, retryAfter?: number): void
  opened(key: string, socket: number, via: 'ws' | 'stream', since: bigint | undefined): void
  sent(key: string, socket: number, event: ServiceEvent): void
  closed(key: string, socket: number, by: 'server' | 'client' | 'drop', code: number, reason: string): void
  /** Client keys, in the order they first came. */
  clients(): string[]
  /** The report of one client (its id or key). */
  report(client: string): DeliveryReport
}

function canonical(filters: Filters): string {
  const out: Record<string, string[]> = {}
  for (const k of Object.keys(filters).sort()) out[k] = [...(filters[k as keyof Filters] ?? [])].sort()
  return JSON.stringify(out)
}

export function createDeliveryTracker(deps: { log: EventLog; now: () => number; startedAt: number }): DeliveryTracker {
  const tracked = new Map<string, Tracked>()
  const iso = (ms: number) => new Date(ms).toISOString()
  const ref = (e: ServiceEvent): EventRef => ({ seq: e.seq, action: e.action, container: e.name, timeNano: e.timeNano.toString(), time: iso(e.timeMs) })
  const note = (t: Tracked, kind: TimelineEntry['kind'], detail: string) => {
    const now = deps.now()
    t.timeline.push({ at: iso(now), elapsedMs: now - deps.startedAt, kind, detail })
  }
  const get = (key: string) => {
    const t = tracked.get(key)
    if (!t) throw new NotFoundError(`No events client "${key}". Known clients: ${[...tracked.keys()].map((k) => JSON.stringify(k)).join(', ') || '(none yet)'}. Give clients an id with the X-Dockside-Client header or the "client" query parameter.`)
    return t
  }

  // One subscriber for every client: an event is recorded for each tracked client whose filters match.
  deps.log.subscribe({
    filter: compileFilters({}),
    deliver(e) {
      for (const t of tracked.values()) if (t.connections.length && t.filter.matches(e)) t.matching.set(e.seq, e)
    },
  })

  return {
    identify: ({ client, filters, address }) => client ?? `${address ?? 'local'} ${canonical(filters)}`,
    known: (key) => tracked.has(key),
    attempt(key, filters) {
      let t = tracked.get(key)
      if (!t) {
        t = { key, filter: compileFilters(filters), startNano: undefined, startSeq: 0, matching: new Map(), sentCount: new Map(), connections: [], refusals: [], timeline: [], connected: 0 }
        tracked.set(key, t)
      }
      const now = deps.now()
      note(t, 'attempt', t.lastEndMs === undefined ? 'first connect' : `reconnect after ${now - t.lastEndMs} ms`)
    },
    refused(key, status, reason, retryAfter) {
      const t = get(key)
      const now = deps.now()
      t.refusals.push({ at: iso(now), status, retryAfter, reason })
      t.lastEndMs = now
      note(t, 'refused', `${status}${retryAfter !== undefined ? ` retry-after ${retryAfter}s` : ''}: ${reason}`)
    },
    opened(key, socket, via, since) {
      const t = get(key)
      const now = deps.now()
      if (t.connections.length === 0) {
        // Owed: what happens from now on, plus what `since` asks to replay.
        t.startSeq = deps.log.lastSeq
        t.startNano = since
        if (since !== undefined) for (const e of deps.log.betweenNano(since)) if (t.filter.matches(e)) t.matching.set(e.seq, e)
      }
      t.connections.push({ socket, via, openedAt: iso(now), openMs: now, since: since?.toString(), sent: 0 })
      t.connected++
      note(t, 'open', `socket ${socket}${since !== undefined ? ` since ${since}` : ''}`)
    },
    sent(key, socket, event) {
      const t = tracked.get(key)
      if (!t) return
      t.matching.set(event.seq, event)
      t.sentCount.set(event.seq, (t.sentCount.get(event.seq) ?? 0) + 1)
      const c = t.connections.findLast((x) => x.socket === socket)
      if (c) c.sent++
    },
    closed(key, socket, by, code, reason) {
      const t = tracked.get(key)
      const c = t?.connections.findLast((x) => x.socket === socket)
      if (!t || !c || c.closedAt !== undefined) return
      const now = deps.now()
      Object.assign(c, { closedAt: iso(now), closeMs: now, closedBy: by, code, reason })
      t.connected--
      t.lastEndMs = now
      note(t, by === 'drop' ? 'drop' : 'close', `socket ${socket} ${by === 'drop' ? 'dropped (no close frame, 1006)' : `closed by ${by} ${code}${reason ? ` "${reason}"` : ''}`}`)
    },
    clients: () => [...tracked.keys()],
    report(client) {
      const t = get(client)
      const now = deps.now()
      // The client is owed what happened between its first connect and its last moment of service.
      const endMs = t.connected > 0 || t.connections.length === 0 ? now : Math.max(...t.connections.map((c) => c.closeMs ?? now))
      const endNano = BigInt(Math.floor(endMs)) * 1_000_000n + 999_999n
      const expected = [...t.matching.values()].filter((e) => t.connections.length > 0 && (e.seq > t.startSeq || (t.startNano !== undefined && e.timeNano >= t.startNano)) && e.timeNano <= endNano && t.filter.matches(e)).sort((a, b) => a.seq - b.seq)
      const missed = expected.filter((e) => !t.sentCount.has(e.seq))
      const duplicates = [...t.sentCount].filter(([, n]) => n > 1).map(([seq, times]) => ({ ...ref(t.matching.get(seq)!), times }))
      const backoffMs: number[] = []
      t.timeline.forEach((entry, i) => {
        if (entry.kind !== 'refused' && entry.kind !== 'close' && entry.kind !== 'drop') return
        const next = t.timeline.slice(i + 1).find((x) => x.kind === 'attempt')
        if (next) backoffMs.push(next.elapsedMs - entry.elapsedMs)
      })
      const gaps: DeliveryReport['gaps'] = []
      const conns = [...t.connections].sort((a, b) => a.openMs - b.openMs)
      for (let i = 1; i < conns.length; i++) {
        const from = Math.max(...conns.slice(0, i).map((c) => c.closeMs ?? Infinity))
        const to = conns[i].openMs
        if (from === Infinity || to <= from) continue
        const fromNano = BigInt(Math.floor(from)) * 1_000_000n
        const toNano = BigInt(Math.floor(to)) * 1_000_000n
        gaps.push({ from: iso(from), to: iso(to), ms: to - from, missed: missed.filter((e) => e.timeNano >= fromNano && e.timeNano < toNano).length })
      }
      return {
        client: t.key,
        expected: expected.length,
        delivered: t.sentCount.size,
        missed: missed.map(ref),
        duplicates,
        connections: t.connections.map(({ openMs: _o, closeMs: _c, ...c }) => ({ ...c })),
        refusals: [...t.refusals],
        backoffMs,
        gaps,
        timeline: [...t.timeline],
      }
    },
  }
}
