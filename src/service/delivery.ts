// The delivery tracker: each events client across its reconnects, fed by the protocol at every attempt, open, send,
// refusal and close, read by `fake.deliveries`, the admin API and the matchers. What it keeps of a client is
// delivery-client.ts; the keys of clients with no id, delivery-keys.ts; a report, delivery-tally.ts.
import { NotFoundError } from './errors'
import { Recent } from './recent'
import { msToNano, type EventLog } from './events'
import { record, trim, Tracked, type Connection } from './delivery-client'
import { AnonymousKeys } from './delivery-keys'
import { reportOf, summaryOf } from './delivery-tally'
import { DELIVERY_LIMITS, type DeliveryTracker, type TimelineEntry } from './delivery-types'

export { DELIVERY_LIMITS } from './delivery-types'
export type { DeliveryConnection, DeliveryGap, DeliveryReport, DeliverySummary, DeliveryTracker, EventRef, OpenedConnection, TimelineEntry } from './delivery-types'

export function createDeliveryTracker(deps: { log: EventLog; now: () => number; startedAt: number; limits?: Partial<Record<keyof typeof DELIVERY_LIMITS, number>> }): DeliveryTracker {
  const limits = { ...DELIVERY_LIMITS, ...deps.limits }
  /** In order of activity: a client moves to the end at each attempt and when it becomes idle, so the first idle one is the one idle the longest. */
  const tracked = new Map<string, Tracked>()
  let forgottenClients = 0
  let arrivals = 0
  /** The last forgotten keys (at most `limits.clients`), so that asking for one says it was forgotten. */
  const forgotten = new Set<string>()
  const iso = (ms: number) => new Date(ms).toISOString()
  const note = (t: Tracked, kind: TimelineEntry['kind'], detail: string | Connection) => {
    t.timeline.push({ atMs: deps.now(), kind, detail })
  }
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
  const keys = new AnonymousKeys()
  /** Moves the client to the end of the activity order (O(1)). */
  const touch = (t: Tracked) => {
    tracked.delete(t.key)
    tracked.set(t.key, t)
    idle.delete(t.key)
    // Stryker disable next-line ConditionalExpression: a busy key in the idle set is skipped and dropped when met (forgetIdle), and a hint lowered for it only says where identify starts looking (busy keys are skipped)
    if (!busy(t)) {
      idle.add(t.key)
      keys.lowerHint(t.key)
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
      keys.lowerHint(key)
      forgotten.add(key)
      if (forgotten.size > limits.clients) forgotten.delete(forgotten.values().next().value!)
      forgottenClients++
    }
  }


  return {
    identify({ client, filters, address }) {
      if (client !== undefined) return client
      // Without an id, a client is its address and filters (delivery-keys.ts).
      return keys.identify(address ?? 'local', filters, (key) => {
        const t = tracked.get(key)
        return !t || !busy(t)
      })
    },
    known: (key) => tracked.has(key),
    attempt(key, filter, signal, since, until) {
      let t = tracked.get(key)
      if (!t) {
        t = new Tracked(key, arrivals++, filter, limits)
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
    opened(key, socket, via, since, signal, until, filter) {
      const t = get(key)
      const now = deps.now()
      settle(t, signal)
      // Owed: what happens from now on, plus what `since` asks to replay (up to `until`).
      start(t, now, since, until)
      // Refused (or left unanswered) before it ever got in: its first connection's `since` replay is owed all the same.
      oweFirstReplay(t, since, until)
      // Stryker disable next-line CallExpression: attempt (always called first, by admit) already set the return point
      comeBack(t, now)
      const c: Connection = { socket, via, openMs: now, openSeq: deps.log.lastSeq, since: since?.toString(), sinceNano: since, untilNano: until, sent: 0, away: t.away, filter: filter ?? t.filter, owner: t }
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
      record(t, event, deps.log)
      const c = openOf(t, socket)
      if (c) c.sent++
    },
    sentOn(connection, event) {
      const c = connection as Connection
      // A closed connection counts no more sends (as sent() finds no open connection); its client still does.
      record(c.owner, event, deps.log)
      if (c.closeMs === undefined) c.sent++
    },
    closed(key, socket, by, code, reason, atSeq) {
      const t = tracked.get(key)
      const c = t && openOf(t, socket)
      if (!t || !c) return
      if (t.one === c) t.one = undefined
      else {
        t.more!.delete(socket)
        // Stryker disable next-line ConditionalExpression: memory only (an empty map and none are read alike by openOf)
        if (t.more!.size === 0) t.more = undefined
      }
      // A client that is gone sends nothing more that would trim its history: trim it now.
      // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator,CallExpression: the trim at the last close is memory only
      if (t.one === undefined && t.more === undefined) trim(t, deps.log)
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
    summary: (client) => summaryOf(get(client), deps.log, deps.now()),
    report: (client) => reportOf(get(client), deps.log, deps.now(), deps.startedAt),
  }
}
