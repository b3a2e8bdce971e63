import { InvalidInputError } from '../service/errors'
import type { ServiceEvent } from '../service/events'
import { compileFilters, parseFilters, type CompiledFilter } from '../service/filters'
import type { Service } from '../service/service'
import type { TimerHandle } from '../time/clock'
import { errorResponse, jsonError, type Target } from './http'
import type { ProtoRequest, ProtoResponse, SocketSink, UpgradeResult } from './types'

/** A live events websocket, as the hub tracks it. */
export interface LiveSocket {
  readonly id: number
  readonly client: string | undefined
  readonly filters: CompiledFilter['filters']
  /** Messages sent so far. */
  readonly sent: number
  /** Closes from the server side with a close frame. */
  close(code: number, reason: string): void
}

/** The set of live events sockets of one service. */
export interface SocketHub {
  readonly sockets: ReadonlySet<LiveSocket>
  /** Closes every live events socket; returns how many were closed. */
  closeAll(code: number, reason: string): number
}

export function createHub(): SocketHub & { add(s: LiveSocket): void; delete(s: LiveSocket): void } {
  const sockets = new Set<LiveSocket>()
  return {
    sockets,
    add: (s) => sockets.add(s),
    delete: (s) => sockets.delete(s),
    closeAll(code, reason) {
      const all = [...sockets]
      for (const s of all) s.close(code, reason)
      return all.length
    },
  }
}

/** Parses Docker's `sec[.nanos]` timestamps into epoch milliseconds. */
export function parseTimestamp(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined
  const m = /^(\d+)(?:\.(\d{1,9}))?$/.exec(value)
  if (!m) throw new InvalidInputError(`Invalid "${name}" ${JSON.stringify(value)}: expected Unix time as seconds[.nanoseconds], e.g. 1767225600 or 1767225600.5.`)
  const nanos = Number((m[2] ?? '').padEnd(9, '0') || '0')
  return Number(m[1]) * 1000 + nanos / 1e6
}

/** What an events request asked for, validated once at connect. */
export interface EventsQuery {
  filter: CompiledFilter
  since: number | undefined
  until: number | undefined
  client: string | undefined
}

export function parseEventsQuery(req: ProtoRequest, target: Target): EventsQuery {
  const filter = compileFilters(parseFilters(target.query.get('filters')))
  const since = parseTimestamp('since', target.query.get('since'))
  const until = parseTimestamp('until', target.query.get('until'))
  if (since !== undefined && until !== undefined && until < since) {
    throw new InvalidInputError(`Invalid "until" ${target.query.get('until')}: it is before "since" ${target.query.get('since')}.`)
  }
  return { filter, since, until, client: req.headers['x-dockside-client'] ?? target.query.get('client') }
}

/** Replays retained events, then follows live ones, until `until` passes or the stream is stopped. */
function follow(svc: Service, q: EventsQuery, deliver: (e: ServiceEvent) => void, onUntil: () => void) {
  const now = svc.clock.now()
  if (q.since !== undefined) {
    for (const e of svc.log.between(q.since, q.until)) if (q.filter.matches(e)) deliver(e)
  }
  let untilTimer: TimerHandle | undefined
  if (q.until !== undefined) {
    if (q.until <= now) {
      onUntil()
      return () => {}
    }
    untilTimer = svc.clock.schedule(q.until - now, onUntil)
  }
  const unsubscribe = svc.log.subscribe({ filter: q.filter, deliver })
  return () => {
    untilTimer?.cancel()
    unsubscribe()
  }
}

let nextSocketId = 0

/** `GET /events/ws`: refuse before the upgrade, or accept and stream frames. */
export function eventsUpgrade(svc: Service, hub: ReturnType<typeof createHub>, req: ProtoRequest, target: Target): UpgradeResult {
  let q: EventsQuery
  try {
    q = parseEventsQuery(req, target)
  } catch (error) {
    return { kind: 'reject', response: errorResponse(error) }
  }
  const decision = svc.faults.decide('events', { client: q.client })
  if (decision?.action.kind === 'reply') {
    const a = decision.action
    return { kind: 'reject', response: jsonError(a.status, a.message, a.retryAfter !== undefined ? { 'retry-after': String(a.retryAfter) } : {}) }
  }
  const closeFault = decision?.action.kind === 'close' ? decision.action : undefined
  const format = svc.options.timeFormat

  return {
    kind: 'accept',
    open(sink: SocketSink) {
      const id = ++nextSocketId
      let sent = 0
      let closed = false
      let stop = () => {}
      let maxAge: TimerHandle | undefined
      const openedAt = svc.clock.now()
      const cleanup = () => {
        closed = true
        stop()
        maxAge?.cancel()
        hub.delete(live)
      }
      const live: LiveSocket = {
        id,
        client: q.client,
        filters: q.filter.filters,
        get sent() {
          return sent
        },
        close(code, reason) {
          if (closed) return
          cleanup()
          svc.journal.record('ws.close', { socket: id, by: 'server', code, reason, sent, openFor: svc.clock.now() - openedAt })
          sink.close(code, reason)
        },
      }
      const deliver = (e: ServiceEvent) => {
        if (closed) return
        sink.send(e.frame(format))
        sent++
        if (closeFault && sent >= closeFault.afterMessages) live.close(closeFault.code, closeFault.reason)
      }
      hub.add(live)
      svc.journal.record('ws.open', { socket: id, client: q.client, filters: q.filter.filters, since: q.since, until: q.until })
      const age = svc.options.maxConnectionAgeMs
      maxAge = svc.clock.schedule(age, () => live.close(1000, `maximum connection age of ${svc.options.maxConnectionAge} reached; reconnect to continue`))
      if (closeFault && closeFault.afterMessages === 0) {
        live.close(closeFault.code, closeFault.reason)
      } else {
        stop = follow(svc, q, deliver, () => live.close(1000, 'until reached; stream complete'))
      }
      return {
        clientClosed(code, reason) {
          if (closed) return
          cleanup()
          svc.journal.record('ws.close', { socket: id, by: 'client', code, reason, sent, openFor: svc.clock.now() - openedAt })
        },
      }
    },
  }
}

/** Docker's `GET /events`: the same events as JSON lines over a chunked HTTP response. */
export function eventsStream(svc: Service, req: ProtoRequest, target: Target): ProtoResponse {
  const q = parseEventsQuery(req, target)
  const decision = svc.faults.decide('events', { client: q.client })
  if (decision?.action.kind === 'reply') {
    const a = decision.action
    return jsonError(a.status, a.message, a.retryAfter !== undefined ? { 'retry-after': String(a.retryAfter) } : {})
  }
  const format = svc.options.timeFormat
  async function* lines(): AsyncGenerator<string> {
    const queue: string[] = []
    let done = false
    let wake: (() => void) | undefined
    const poke = () => {
      wake?.()
      wake = undefined
    }
    const stop = follow(
      svc,
      q,
      (e) => {
        queue.push(e.dockerLine(format))
        poke()
      },
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
    try {
      // An empty first chunk makes the transport flush headers before the first event.
      yield ''
      while (true) {
        if (queue.length) {
          yield queue.splice(0).join('')
          continue
        }
        if (done) return
        await new Promise<void>((r) => (wake = r))
      }
    } finally {
      stop()
      req.signal.removeEventListener('abort', onAbort)
    }
  }
  return { status: 200, headers: { 'content-type': 'application/json' }, body: lines() }
}
