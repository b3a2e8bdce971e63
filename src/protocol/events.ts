import type { FaultDecision } from '../faults/plan'
import { checkCloseCode } from '../service/close-code'
import { InvalidInputError } from '../service/errors'
import type { ServiceEvent } from '../service/events'
import { compileFilters, parseFilters, type CompiledFilter } from '../service/filters'
import type { Service } from '../service/service'
import type { TimerHandle } from '../time/clock'
import { connectLatency, findAction as find, refusalResponse, untilAborted } from './faults'
import { errorResponse, jsonError, type Target } from './http'
import type { ProtoRequest, ProtoResponse, SocketSink, UpgradeResult } from './types'
import { TransportReset } from './types'

/** A live events websocket, as the hub tracks it. */
export interface LiveSocket {
  readonly id: number
  readonly client: string | undefined
  readonly filters: CompiledFilter['filters']
  /** Messages sent so far. */
  readonly sent: number
  /** Closes from the server side with a close frame. */
  close(code: number, reason: string): void
  /** Ends the socket with no close frame (the client sees 1006). */
  drop(): void
}

/** The set of live events sockets of one service. */
export interface SocketHub {
  readonly sockets: ReadonlySet<LiveSocket>
  /** Closes every live events socket; returns how many were closed. */
  closeAll(code: number, reason: string): number
  /** Drops every live events socket with no close frame; returns how many. */
  dropAll(): number
}

export function createHub(): SocketHub & { add(s: LiveSocket): void; delete(s: LiveSocket): void } {
  const sockets = new Set<LiveSocket>()
  return {
    sockets,
    add: (s) => sockets.add(s),
    delete: (s) => sockets.delete(s),
    closeAll(code, reason) {
      // Checked here, the one place every close path goes through (library, admin API, timeline).
      checkCloseCode(code, reason)
      const all = [...sockets]
      for (const s of all) s.close(code, reason)
      return all.length
    },
    dropAll() {
      const all = [...sockets]
      for (const s of all) s.drop()
      return all.length
    },
  }
}

/** A maintenance restart: closes every events socket with 1001 and journals it; returns how many closed. */
export function maintenanceRestart(svc: Service, hub: SocketHub): number {
  const closed = hub.closeAll(1001, 'server restarting for maintenance; reconnect to continue')
  svc.journal.record('maintenance.restart', { closed })
  return closed
}

const TIMESTAMP = /^(\d+)(?:\.(\d{1,9}))?$/

/** Parses Docker's `sec[.nanos]` timestamps into epoch milliseconds. */
export function parseTimestamp(name: string, value: string | undefined): number | undefined {
  const nano = parseTimestampNano(name, value)
  return nano === undefined ? undefined : Number(nano) / 1e6
}

/** Parses Docker's `sec[.nanos]` timestamps into exact epoch nanoseconds. */
export function parseTimestampNano(name: string, value: string | undefined): bigint | undefined {
  if (value === undefined || value === '') return undefined
  const m = TIMESTAMP.exec(value)
  if (!m) throw new InvalidInputError(`Invalid "${name}" ${JSON.stringify(value)}: expected Unix time as seconds[.nanoseconds], e.g. 1767225600 or 1767225600.000000001.`)
  return BigInt(m[1]) * 1_000_000_000n + BigInt((m[2] ?? '').padEnd(9, '0') || '0')
}

/** Formats epoch nanoseconds as Docker's `sec.nanos`. */
export const formatTimestamp = (nano: bigint) => `${nano / 1_000_000_000n}.${String(nano % 1_000_000_000n).padStart(9, '0')}`

/** What an events request asked for, validated once at connect. */
export interface EventsQuery {
  filter: CompiledFilter
  since: bigint | undefined
  until: bigint | undefined
  client: string | undefined
}

export function parseEventsQuery(req: ProtoRequest, target: Target): EventsQuery {
  const filter = compileFilters(parseFilters(target.query.get('filters')))
  const since = parseTimestampNano('since', target.query.get('since'))
  const until = parseTimestampNano('until', target.query.get('until'))
  if (since !== undefined && until !== undefined && until < since) {
    throw new InvalidInputError(`Invalid "until" ${target.query.get('until')}: it is before "since" ${target.query.get('since')}.`)
  }
  return { filter, since, until, client: req.headers['x-dockside-client'] ?? target.query.get('client') }
}

/** Close code when `since` reaches before what the log still retains (4000 + HTTP 410 Gone). */
export const SINCE_GONE_CODE = 4410

/** Why a `since` cannot be replayed without a gap, or undefined when it can. */
function sinceGone(svc: Service, q: EventsQuery): string | undefined {
  if (q.since === undefined) return undefined
  const evicted = svc.log.evictedThroughNano
  if (evicted === 0n || q.since > evicted) return undefined
  return `since ${formatTimestamp(q.since)} is older than retention; resume with since=${formatTimestamp(evicted + 1n)} or later`
}

/** Replays retained events, then follows live ones, until `until` passes or the stream is stopped. */
function follow(svc: Service, q: EventsQuery, deliver: (e: ServiceEvent) => void, onUntil: () => void) {
  // Replay and subscription happen in one synchronous step: no event can fall between them or come twice.
  if (q.since !== undefined) {
    for (const e of svc.log.betweenNano(q.since, q.until)) if (q.filter.matches(e)) deliver(e)
  }
  let untilTimer: TimerHandle | undefined
  let live = deliver
  if (q.until !== undefined) {
    const untilMs = Number(q.until / 1_000_000n)
    const now = svc.clock.now()
    if (q.until < BigInt(Math.floor(now)) * 1_000_000n) {
      onUntil()
      return () => {}
    }
    const until = q.until
    live = (e) => {
      if (e.timeNano <= until) deliver(e)
    }
    untilTimer = svc.clock.schedule(Math.max(0, untilMs - now), onUntil)
  }
  const unsubscribe = svc.log.subscribe({ filter: q.filter, deliver: (e) => live(e) })
  return () => {
    untilTimer?.cancel()
    unsubscribe()
  }
}

// Socket ids count per service, so the same script gives the same ids in every fake and after reset().
const socketIds = new WeakMap<Service, number>()
const nextSocketId = (svc: Service) => {
  const id = (socketIds.get(svc) ?? 0) + 1
  socketIds.set(svc, id)
  return id
}

/** The client's key for rate limits: its id, else its address. */
const clientKey = (req: ProtoRequest, q: EventsQuery) => q.client ?? req.remoteAddress ?? 'local'

/**
 * Counts a connect attempt of an events client, then applies the rate limit and fault replies:
 * the client's delivery key, the refusal to answer (undefined to serve) and the faults decided for it.
 */
function admit(svc: Service, req: ProtoRequest, target: Target, q: EventsQuery): { key: string; response?: ProtoResponse & { body: string }; decisions: FaultDecision[] } {
  const key = svc.deliveries.identify({ client: q.client, filters: q.filter.filters, address: req.remoteAddress })
  const reconnect = svc.deliveries.known(key)
  svc.deliveries.attempt(key, q.filter.filters)
  const verdict = svc.rateLimit.check('events', clientKey(req, q))
  if (!verdict.allowed) {
    svc.deliveries.refused(key, 429, verdict.message, verdict.retryAfter)
    return { key, response: refusalResponse(429, verdict.message, verdict.retryAfter), decisions: [] }
  }
  const all = svc.faults.decideAll('events', { route: target.path, client: q.client, filters: q.filter.filters, reconnect })
  const reply = find(all, 'reply')?.action
  if (reply) {
    svc.deliveries.refused(key, reply.status, reply.message, reply.retryAfter)
    return { key, response: refusalResponse(reply.status, reply.message, reply.retryAfter), decisions: all }
  }
  return { key, decisions: all }
}

/**
 * Wraps `deliver` with a `latency` decision's per-event delay (plus its seeded jitter, one draw per event) on the clock.
 * Order is kept: each event leaves no earlier than the one before it. Timers go into `timers` for cleanup.
 */
function paced(svc: Service, latency: ReturnType<typeof find<'latency'>>, deliver: (e: ServiceEvent) => void, timers: TimerHandle[]) {
  const l = latency?.action
  if (!latency || !l || (l.perEventMs === 0 && l.jitterMs === 0)) return deliver
  let lastAt = 0
  return (e: ServiceEvent) => {
    const now = svc.clock.now()
    const at = Math.max(lastAt, now + l.perEventMs + svc.faults.jitter(latency.rule.id, l.jitterMs, `event ${e.seq}`))
    lastAt = at
    timers.push(svc.clock.schedule(at - now, () => deliver(e), 'wait'))
  }
}

/** `GET /events/ws`: refuse before the upgrade, or accept and stream frames. */
export async function eventsUpgrade(svc: Service, hub: ReturnType<typeof createHub>, req: ProtoRequest, target: Target): Promise<UpgradeResult> {
  let q: EventsQuery
  try {
    q = parseEventsQuery(req, target)
  } catch (error) {
    return { kind: 'reject', response: errorResponse(error) }
  }
  const { key, response, decisions } = admit(svc, req, target, q)
  if (response) return { kind: 'reject', response }
  if (!(await connectLatency(svc, decisions, req.signal))) return { kind: 'reject', response: jsonError(503, 'the client went away during injected connect latency') }
  if (find(decisions, 'stall')) {
    // The handshake is never answered: the client's connect timeout is what gets tested.
    await untilAborted(req.signal)
    return { kind: 'reject', response: jsonError(503, 'stalled by an injected fault') }
  }
  const ending = find(decisions, 'close') ?? find(decisions, 'drop')
  const latency = find(decisions, 'latency')
  const format = svc.options.timeFormat

  return {
    kind: 'accept',
    open(sink: SocketSink) {
      const id = nextSocketId(svc)
      let sent = 0
      let closed = false
      let stop = () => {}
      const timers: TimerHandle[] = []
      const openedAt = svc.clock.now()
      const cleanup = () => {
        closed = true
        stop()
        for (const t of timers) t.cancel()
        hub.delete(live)
      }
      const end = (how: 'server' | 'drop', code: number, reason: string) => {
        if (closed) return
        cleanup()
        svc.journal.record('ws.close', { socket: id, client: key, by: how, code: how === 'drop' ? 1006 : code, reason, sent, openFor: svc.clock.now() - openedAt })
        svc.deliveries.closed(key, id, how, how === 'drop' ? 1006 : code, reason)
        if (how === 'drop') sink.drop()
        else sink.close(code, reason)
      }
      const live: LiveSocket = {
        id,
        client: q.client,
        filters: q.filter.filters,
        get sent() {
          return sent
        },
        close: (code, reason) => end('server', code, reason),
        drop: () => end('drop', 1006, 'dropped with no close frame'),
      }
      const strike = () => {
        const a = ending!.action
        if (a.kind === 'close') live.close(a.code, a.reason)
        else live.drop()
      }
      const send = (e: ServiceEvent) => {
        if (closed) return
        sink.send(e.frame(format))
        sent++
        svc.deliveries.sent(key, id, e)
        if (ending && ending.action.afterMessages > 0 && sent >= ending.action.afterMessages) strike()
      }
      const deliver = paced(svc, latency, (e) => {
        if (!closed) send(e)
      }, timers)
      hub.add(live)
      svc.deliveries.opened(key, id, 'ws', q.since)
      svc.journal.record('ws.open', { socket: id, client: key, filters: q.filter.filters, since: q.since?.toString(), until: q.until?.toString() })
      timers.push(svc.clock.schedule(svc.options.maxConnectionAgeMs, () => live.close(1000, `maximum connection age of ${svc.options.maxConnectionAge} reached; reconnect to continue`)))
      const gone = sinceGone(svc, q)
      if (gone) {
        live.close(SINCE_GONE_CODE, gone)
      } else if (ending && ending.action.afterMessages === 0 && ending.action.afterTimeMs === undefined) {
        strike()
      } else {
        if (ending?.action.afterTimeMs !== undefined) timers.push(svc.clock.schedule(ending.action.afterTimeMs, strike))
        stop = follow(svc, q, deliver, () => live.close(1000, 'until reached; stream complete'))
      }
      return {
        clientClosed(code, reason) {
          if (closed) return
          cleanup()
          svc.journal.record('ws.close', { socket: id, client: key, by: 'client', code, reason, sent, openFor: svc.clock.now() - openedAt })
          svc.deliveries.closed(key, id, 'client', code, reason)
        },
      }
    },
  }
}

/** Docker's `GET /events`: the same events as JSON lines over a chunked HTTP response. */
export async function eventsStream(svc: Service, req: ProtoRequest, target: Target): Promise<ProtoResponse> {
  const q = parseEventsQuery(req, target)
  const { key, response, decisions } = admit(svc, req, target, q)
  if (response) return response
  if (!(await connectLatency(svc, decisions, req.signal))) return jsonError(503, 'the client went away during injected connect latency')
  const gone = sinceGone(svc, q)
  if (gone) return jsonError(410, gone)
  const stall = find(decisions, 'stall')
  const ending = find(decisions, 'close') ?? find(decisions, 'drop')
  const latency = find(decisions, 'latency')
  const format = svc.options.timeFormat
  const id = nextSocketId(svc)
  async function* lines(): AsyncGenerator<string> {
    const queue: ServiceEvent[] = []
    let done = false
    let wake: (() => void) | undefined
    const poke = () => {
      wake?.()
      wake = undefined
    }
    svc.deliveries.opened(key, id, 'stream', q.since)
    const timers: TimerHandle[] = []
    const stop = stall
      ? () => {}
      : follow(
          svc,
          q,
          paced(
            svc,
            latency,
            (e) => {
              queue.push(e)
              poke()
            },
            timers,
          ),
          () => {
            done = true
            poke()
          },
        )
    const onAbort = () => {
      done = true
      poke()
    }
    req.signal.addEventListener('abort', onAbort, { once: true })
    // A reset or close of the fake disposes this service's clock: the stream ends instead of waiting forever.
    svc.clock.lifetime.addEventListener('abort', onAbort, { once: true })
    let sent = 0
    let how = 'server' as 'server' | 'client' | 'drop'
    let ended = { code: 1000, reason: 'stream ended' }
    let stopTimer = () => {}
    try {
      // An empty first chunk makes the transport flush headers before the first event.
      yield ''
      const strikeNow = () => {
        const a = ending!.action
        if (a.kind === 'drop') {
          how = 'drop'
          throw new TransportReset('events stream dropped by an injected fault')
        }
        // HTTP has no close code: the stream ends cleanly, and the report keeps the fault's code and reason.
        if (a.kind === 'close') ended = { code: a.code, reason: a.reason }
      }
      if (ending && ending.action.afterMessages === 0 && ending.action.afterTimeMs === undefined) return strikeNow()
      let struck = false
      const timer = ending?.action.afterTimeMs !== undefined ? svc.clock.schedule(ending.action.afterTimeMs, () => ((struck = true), (done = true), poke())) : undefined
      stopTimer = () => timer?.cancel()
      while (true) {
        if (struck) return strikeNow()
        if (queue.length) {
          const limit = ending && ending.action.afterMessages > 0 ? ending.action.afterMessages - sent : Infinity
          const batch = queue.splice(0).slice(0, limit)
          for (const e of batch) svc.deliveries.sent(key, id, e)
          sent += batch.length
          if (batch.length) yield batch.map((e) => e.dockerLine(format)).join('')
          if (ending && ending.action.afterMessages > 0 && sent >= ending.action.afterMessages) return strikeNow()
          continue
        }
        if (done) {
          if (req.signal.aborted) how = 'client'
          return
        }
        await new Promise<void>((r) => (wake = r))
      }
    } finally {
      stop()
      stopTimer()
      for (const t of timers) t.cancel()
      req.signal.removeEventListener('abort', onAbort)
      svc.clock.lifetime.removeEventListener('abort', onAbort)
      svc.deliveries.closed(key, id, how, how === 'drop' ? 1006 : ended.code, how === 'client' ? 'client went away' : ended.reason)
    }
  }
  return { status: 200, headers: { 'content-type': 'application/json' }, body: lines() }
}
