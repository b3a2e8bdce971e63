// `GET /events/ws`: refuse before the upgrade, or accept and stream one text frame per event.
import type { ServiceEvent } from '../service/events'
import type { Service } from '../service/service'
import type { TimerHandle } from '../time/clock'
import { connectLatency, findAction as find, untilAborted } from './faults'
import { errorResponse, jsonError, type Target } from './http'
import { BACKLOG_CLOSE_CODE, backlogReason, EVENTS_MAX_MESSAGE, resolveLimits, type ProtocolLimits } from './limits'
import type { ProtoRequest, SocketSink, UpgradeResult } from './types'
import { parseEventsQuery, type EventsQuery, SINCE_GONE_CODE, sinceGone, follow, nextSocketId, admit, paced } from './events-common'
import { clampCloseReason, createHub, type LiveSocket } from './socket-hub'

/** `GET /events/ws`: refuse before the upgrade, or accept and stream frames. */
export async function eventsUpgrade(svc: Service, hub: ReturnType<typeof createHub>, req: ProtoRequest, target: Target, limits: ProtocolLimits = resolveLimits()): Promise<UpgradeResult> {
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
    await untilAborted(req.signal, svc.clock.lifetime)
    return { kind: 'reject', response: jsonError(503, 'stalled by an injected fault') }
  }
  const ending = find(decisions, 'close') ?? find(decisions, 'drop')
  const latency = find(decisions, 'latency')
  const format = svc.options.timeFormat
  // The open socket's closures keep what they name alive for the connection's life: the signal, not the whole request.
  const signal = req.signal

  return {
    kind: 'accept',
    open(sink: SocketSink) {
      const id = nextSocketId(svc)
      let sent = 0
      let closed = false
      let stop = () => {}
      const timers = new Set<TimerHandle>()
      const openedAt = svc.clock.now()
      const cleanup = () => {
        closed = true
        stop()
        for (const t of timers) t.cancel()
        hub.delete(live)
      }
      /**
       * `wire` is the reason the close frame carries when it differs from the one journaled and reported; it is cut to
       * the 123 bytes a close frame holds (the journal and the report keep the whole reason).
       */
      const end = (how: 'server' | 'drop', code: number, reason: string, wire = reason) => {
        if (closed) return
        cleanup()
        svc.journal.record('ws.close', { socket: id, client: key, by: how, code: how === 'drop' ? 1006 : code, reason, sent, openFor: svc.clock.now() - openedAt })
        svc.deliveries.closed(key, id, how, how === 'drop' ? 1006 : code, reason)
        if (how === 'drop') sink.drop()
        else sink.close(code, clampCloseReason(wire))
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
      const backlog = sink.backlog
      // What the client may be behind by; the replay of `since` (bounded by retention) comes on top.
      let allowance = Infinity
      const send = (e: ServiceEvent) => {
        if (closed) return
        sink.send(e.frame(format))
        sent++
        svc.deliveries.sent(key, id, e)
        if (ending && ending.action.afterMessages > 0 && sent >= ending.action.afterMessages) strike()
        // A client that stopped reading: close it before its backlog grows the server's memory without bound.
        else if (backlog !== undefined && backlog() > allowance) overflow()
      }
      const overflow = () => {
        svc.journal.record('ws.backlog', { socket: id, client: key, backlog: backlog?.(), limit: limits.maxBacklog, sent })
        live.close(BACKLOG_CLOSE_CODE, backlogReason(limits.maxBacklog))
      }
      const deliver = paced(svc, latency, (e) => {
        if (!closed) send(e)
      }, timers)
      hub.add(live)
      try {
        start()
      } catch (error) {
        // Never an exception out of open(): the transport has already switched protocols, so no HTTP answer can follow.
        svc.journal.record('ws.error', { socket: id, client: key, message: error instanceof Error ? error.message : String(error) })
        end('server', 1011, 'internal error while opening the events stream; see the journal (ws.error)')
      }
      return {
        clientClosed(code, reason) {
          if (closed) return
          cleanup()
          svc.journal.record('ws.close', { socket: id, client: key, by: 'client', code, reason, sent, openFor: svc.clock.now() - openedAt })
          svc.deliveries.closed(key, id, 'client', code, reason)
        },
        tooBig() {
          // The close frame carries the code alone, as Go's websocket servers (the real service) and ws send it; the
          // journal and the delivery report say why.
          end('server', 1009, `message too big: this websocket takes no client messages over ${EVENTS_MAX_MESSAGE} bytes`, '')
        },
      }
      function start() {
        svc.deliveries.opened(key, id, 'ws', q.since, signal)
        svc.journal.record('ws.open', { socket: id, client: key, filters: q.filter.filters, since: q.since?.toString(), until: q.until?.toString() })
        timers.add(svc.clock.schedule(svc.options.maxConnectionAgeMs, () => live.close(1000, `maximum connection age of ${svc.options.maxConnectionAge} reached; reconnect to continue`)))
        const gone = sinceGone(svc, q)
        if (gone) {
          live.close(SINCE_GONE_CODE, gone)
        } else if (ending && ending.action.afterMessages === 0 && ending.action.afterTimeMs === undefined) {
          strike()
        } else {
          if (ending?.action.afterTimeMs !== undefined) timers.add(svc.clock.schedule(ending.action.afterTimeMs, strike))
          const unfollow = follow(svc, q, deliver, () => live.close(1000, 'until reached; stream complete'))
          allowance = limits.maxBacklog + (backlog?.() ?? 0)
          // The replay may already have closed the socket (a close fault after N messages): cleanup() ran
          // before the subscription existed, so end it here or it outlives the socket.
          if (closed) unfollow()
          else stop = unfollow
        }
      }
    },
  }
}

export * from './socket-hub'
export * from './events-common'
export { eventsStream } from './events-stream'
