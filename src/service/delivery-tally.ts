// What a client was owed, sent, missed and sent twice: worked out from the event log when a report is read, so that
// delivering an event costs the tracker one array push per subscriber and nothing per tracked client.
import type { EventLog, ServiceEvent } from './events'
import { maintain, type Away, type Connection, type Tracked } from './delivery-client'
import type { DeliveryConnection, DeliveryGap, DeliveryReport, DeliverySummary, EventRef, TimelineEntry } from './delivery-types'

const iso = (ms: number) => new Date(ms).toISOString()
const ref = (e: ServiceEvent): EventRef => ({ seq: e.seq, action: e.action, container: e.name, timeNano: e.timeNano.toString(), time: iso(e.timeMs) })
const openDetail = (c: Connection) => `socket ${c.socket}${c.since !== undefined ? ` since ${c.since}` : ''}`

/**
 * Whether the client asked for an event, by the filters of the connections it had then: those open when the event
 * happened; in a gap, those still open at the last event before it (what the client was subscribed to when service
 * ended: the last to close, not the last opened, which may have been closed long before), less those the client closed
 * itself unless it closed them all; before any, the first (a `since` replay of earlier events). A named client may
 * reconnect with other filters; its first connection's did not judge the rest. Events come in log order, so one pass
 * walks the connections along with them.
 */
function wanted(t: Tracked, connections: Connection[]): (e: ServiceEvent) => boolean {
  if (connections.every((c) => c.filter === t.filter)) return (e) => t.filter.matches(e)
  let last = 0
  /** Whether a connection closed at `endSeq` was still open when service ended, and was asked (`goodbye`) or not. */
  const endedWith = (e: ServiceEvent, endSeq: number, goodbye: boolean) => {
    let found = false
    for (let i = 0; i <= last; i++) {
      const c = connections[i]
      if (c.closeSeq !== endSeq || (c.closedBy === 'client' && c.code !== 1006) !== goodbye) continue
      found = true
      if (c.filter.matches(e)) return true
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
        if (c.filter.matches(e)) return true
      } else if (c.closeSeq > endSeq) endSeq = c.closeSeq
    }
    if (any) return false
    if (endSeq < 0) return connections[0].filter.matches(e)
    return endedWith(e, endSeq, false) ?? endedWith(e, endSeq, true) ?? false
  }
}


/**
 * What the client was owed and sent, among the retained events: one walk over the events and the client's stretches
 * away together, both in log order, so a report costs O(retained events + connections).
 */
function tally(t: Tracked, log: EventLog, now: number) {
  // Stryker disable next-line CallExpression: maintain in a report is memory-only work
  maintain(t, log)
  const retained = log.events
  // The report covers the events the log still retains, as `expected` can only know those: sends of older
  // events are left out (sends of retained events that were not owed are counted: `delivered` may exceed `expected`).
  // Stryker disable next-line ArithmeticOperator: an empty log gives an empty times array either way
  const oldestSeq = retained[0]?.seq ?? log.lastSeq + 1
  const times = new Uint32Array(retained.length)
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a typed array ignores a write at a negative index (a send of an event the log dropped)
  if (t.counts) for (const [seq, n] of t.counts) if (seq >= oldestSeq) times[seq - oldestSeq] += n
  for (let i = t.head; i < t.end; i++) {
    const at = t.sent[i] - oldestSeq
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a typed array ignores a write at a negative index (a send of an event the log dropped)
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
  const wants = wanted(t, connections)
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
        if (b?.sinceNano === undefined || e.timeNano < b.sinceNano || (b.untilNano !== undefined && e.timeNano > b.untilNano) || !b.filter.matches(e)) continue
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
  // Stryker disable next-line EqualityOperator: one step past the end reads undefined, which counts as neither
  for (let i = 0; i < times.length; i++) {
    if (times[i] > 0) delivered++
    if (times[i] > 1) duplicates.push(i)
  }
  return { now, retained, times, connections, missed, expected, delivered, duplicates, spans }
}

/** The counts of a client's report, without its lists. */
export function summaryOf(t: Tracked, log: EventLog, now: number): DeliverySummary {
  const r = tally(t, log, now)
  return { client: t.key, expected: r.expected, delivered: r.delivered, missed: r.missed.length, duplicates: r.duplicates.length, connections: t.connections.length, refusals: t.refusals?.length ?? 0 }
}

/** A client's report; `startedAt`: the clock time the fake started (a timeline line's `elapsedMs` counts from it). */
export function reportOf(t: Tracked, log: EventLog, now: number, startedAt: number): DeliveryReport {
  const { retained, times, connections, missed, expected, delivered, duplicates, spans } = tally(t, log, now)
  const timeline = t.timeline.toArray().map(({ atMs, kind, detail }): TimelineEntry => ({ at: iso(atMs), elapsedMs: atMs - startedAt, kind, detail: typeof detail === 'string' ? detail : openDetail(detail) }))
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
}
