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
  /**
   * Events the client should have seen: matching its filters, from its first connect (or earlier `since`) to its last,
   * among the events the log still retains (`retainEvents`, `retainEventsFor`): the report covers that window.
   */
  expected: number
  /** Distinct events it was sent, in the same retained window. */
  delivered: number
  /** Expected events never sent to it. */
  missed: EventRef[]
  /** Events sent to it more than once, with how often (in the same retained window). */
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
  /** Every frame sent to it, in order (one array push per delivery: this is on the hot path). */
  sent: ServiceEvent[]
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

  // What a client was owed is computed from the event log when a report is asked for, so delivering an
  // event costs the tracker one array push per subscriber and nothing per tracked client.
  const trim = (t: Tracked) => {
    // Bounded memory on long-running servers: forget sends of events the log no longer retains.
    const oldest = deps.log.events[0]?.seq ?? 0
    if (t.sent.length > 0 && t.sent[0].seq < oldest) t.sent = t.sent.filter((e) => e.seq >= oldest)
  }

  return {
    identify({ client, filters, address }) {
      if (client !== undefined) return client
      // Without an id, a client is its address and filters; connections open at the same time are different
      // clients (#2, #3, ...), and a reconnect resumes the first such client that has no open connection.
      const base = `${address ?? 'local'} ${canonical(filters)}`
      for (let n = 1; ; n++) {
        const key = n === 1 ? base : `${base} #${n}`
        const t = tracked.get(key)
        if (!t || t.connected === 0) return key
      }
    },
    known: (key) => tracked.has(key),
    attempt(key, filters) {
      let t = tracked.get(key)
      if (!t) {
        t = { key, filter: compileFilters(filters), startNano: undefined, startSeq: 0, sent: [], connections: [], refusals: [], timeline: [], connected: 0 }
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
      }
      t.connections.push({ socket, via, openedAt: iso(now), openMs: now, since: since?.toString(), sent: 0 })
      t.connected++
      note(t, 'open', `socket ${socket}${since !== undefined ? ` since ${since}` : ''}`)
    },
    sent(key, socket, event) {
      const t = tracked.get(key)
      if (!t) return
      t.sent.push(event)
      const last = t.connections[t.connections.length - 1]
      const c = last?.socket === socket ? last : t.connections.findLast((x) => x.socket === socket)
      if (c) c.sent++
      if ((t.sent.length & 0xfff) === 0) trim(t)
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
      const sentCount = new Map<number, { event: ServiceEvent; times: number }>()
      const retained = deps.log.events
      // The report covers the events the log still retains, as `expected` can only know those: sends of older
      // events are left out (and trimmed from memory now and then), so `delivered` never exceeds `expected`.
      const oldestSeq = retained[0]?.seq ?? deps.log.lastSeq + 1
      for (const e of t.sent) {
        if (e.seq < oldestSeq) continue
        const seen = sentCount.get(e.seq)
        if (seen) seen.times++
        else sentCount.set(e.seq, { event: e, times: 1 })
      }
      const expected = t.connections.length === 0 ? [] : retained.filter((e) => (e.seq > t.startSeq || (t.startNano !== undefined && e.timeNano >= t.startNano)) && e.timeNano <= endNano && t.filter.matches(e))
      const missed = expected.filter((e) => !sentCount.has(e.seq))
      const duplicates = [...sentCount.values()].filter((x) => x.times > 1).sort((a, b) => a.event.seq - b.event.seq).map((x) => ({ ...ref(x.event), times: x.times }))
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
        delivered: sentCount.size,
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
