// `GET /events/ws`: refuse before the upgrade, or accept and stream one text frame per event.
import type { ServiceEvent, Subscriber, TimeFormat } from '../../service/events'
import type { CompiledFilter } from '../../service/filters'
import type { OpenedConnection } from '../../service/delivery'
import type { FaultDecision } from '../../faults/plan'
import type { Service } from '../../core/service'
import type { TimerHandle } from '../../time/clock'
import { connectLatency, findAction as find, untilAborted } from '../faults'
import { errorResponse, jsonError, type Target } from '../http'
import { BACKLOG_CLOSE_CODE, backlogReason, EVENTS_MAX_MESSAGE, PROTOCOL_ERROR_REASONS, resolveLimits, type ProtocolLimits } from '../limits'
import type { ProtoRequest, SocketSession, SocketSink, UpgradeResult } from '../types'
import { parseEventsQuery, type EventsQuery, SINCE_GONE_CODE, sinceGone, follow, unfollow, nextSocketId, admit, paced, replaySince } from './common'
import { clampCloseReason, createHub, RESTART_REASON, type LiveSocket } from './socket-hub'

/** `GET /events/ws`: refuse before the upgrade, or accept and stream frames. */
export function eventsUpgrade(svc: Service, hub: ReturnType<typeof createHub>, req: ProtoRequest, target: Target, limits: ProtocolLimits = resolveLimits()): UpgradeResult | Promise<UpgradeResult> {
  let q: EventsQuery
  try {
    q = parseEventsQuery(req, target)
  } catch (error) {
    return { kind: 'reject', response: errorResponse(error) }
  }
  const { key, response, decisions } = admit(svc, req, target, q)
  if (response) return { kind: 'reject', response }
  // Without a fault that waits (connect latency, a stall), the answer is made at once, not through a promise: the
  // connect path of every client.
  const waited = connectLatency(svc, decisions, req.signal)
  if (waited !== true || find(decisions, 'stall')) return waitThenAccept(svc, hub, req, q, key, decisions, waited, limits)
  return accept(svc, hub, req, q, key, decisions, limits)
}

/** {@link eventsUpgrade} after an injected connect latency, or never (a stall). */
async function waitThenAccept(svc: Service, hub: ReturnType<typeof createHub>, req: ProtoRequest, q: EventsQuery, key: string, decisions: readonly FaultDecision[], waited: boolean | Promise<boolean>, limits: ProtocolLimits): Promise<UpgradeResult> {
  if (!(await waited)) return { kind: 'reject', response: jsonError(503, 'the client went away during injected connect latency') }
  if (find(decisions, 'stall')) {
    // The handshake is never answered (the client's connect timeout is what gets tested), until a maintenance
    // restart: a server going down answers what it held, as a gateway in front of it would, with a 503.
    const restarts = hub.restarts
    await untilAborted(req.signal, svc.clock.lifetime, restarts)
    if (restarts.aborted && !req.signal.aborted && !svc.clock.lifetime.aborted) {
      svc.deliveries.refused(key, 503, RESTART_REASON, undefined, req.signal, replaySince(q), q.until)
      return { kind: 'reject', response: jsonError(503, RESTART_REASON) }
    }
    return { kind: 'reject', response: jsonError(503, 'stalled by an injected fault') }
  }
  return accept(svc, hub, req, q, key, decisions, limits)
}

function accept(svc: Service, hub: ReturnType<typeof createHub>, req: ProtoRequest, q: EventsQuery, key: string, decisions: readonly FaultDecision[], limits: ProtocolLimits): UpgradeResult {
  const ending = find(decisions, 'close') ?? find(decisions, 'drop')
  const latency = find(decisions, 'latency')
  // The open socket keeps what it names alive for the connection's life: the signal, not the whole request.
  const signal = req.signal

  return {
    kind: 'accept',
    open(sink: SocketSink) {
      const socket = new EventsSocket(svc, hub, q, key, ending, limits, sink)
      socket.start(latency, signal)
      return socket
    },
  }
}

type Ending = ReturnType<typeof find<'close' | 'drop'>>

/**
 * The maximum-age closes of one clock's sockets: one clock timer for all of them, not a timer and a closure per socket
 * (an idle connection's largest cost after the socket itself). The age is fixed when the fake starts and sockets join
 * in the order they open, so the queue is in deadline order: the timer is for the oldest open socket, and when it fires
 * every socket due by then closes, oldest first. A closed socket leaves its slot until it is passed or the closed ones
 * are over half the queue, when the queue is compacted (amortised O(1) per close).
 */
class MaxAges {
  #queue: (EventsSocket | undefined)[] = []
  #head = 0
  /** Slots from `#head` on whose socket closed before its age. */
  #dead = 0
  #timer: TimerHandle | undefined
  constructor(readonly svc: Service) {}
  add(socket: EventsSocket) {
    socket.aging = true
    this.#queue.push(socket)
    if (this.#timer === undefined) this.#arm()
  }
  /** `socket` closed before its age (once per socket; a no-op for one the queue has let go). */
  remove(socket: EventsSocket) {
    if (!socket.aging) return
    socket.aging = false
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: when to compact is memory only
    if (++this.#dead * 2 <= this.#queue.length - this.#head) return
    this.#queue = this.#queue.slice(this.#head).filter((s) => s!.aging)
    this.#head = 0
    this.#dead = 0
    if (this.#queue.length === 0) {
      this.#timer?.cancel()
      this.#timer = undefined
    }
  }
  /** Schedules the timer for the oldest socket still aging (the one at `#head`: the queue passes closed ones first). */
  #arm() {
    this.#timer?.cancel()
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator,BlockStatement: when to compact is memory only
    if (this.#head * 2 >= this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head)
      this.#head = 0
    }
    const first = this.#queue[this.#head]
    const svc = this.svc
    this.#timer = first && svc.clock.schedule(Math.max(0, first.openedAt + svc.options.maxConnectionAgeMs - svc.clock.now()), this.#fire)
  }
  #fire = () => {
    const svc = this.svc
    const due = svc.clock.now() - svc.options.maxConnectionAgeMs
    this.#timer = undefined
    // Read through the fields each time: a close may compact the queue (a listener closing another socket), or a
    // reconnect may add to it.
    while (this.#head < this.#queue.length) {
      const socket = this.#queue[this.#head]!
      if (socket.aging && socket.openedAt > due) break
      this.#queue[this.#head++] = undefined
      if (!socket.aging) this.#dead--
      else {
        socket.aging = false
        socket.closeAtMaxAge()
      }
    }
    this.#arm()
  }
}

const maxAgesOf = new WeakMap<Service['clock'], MaxAges>()
function maxAges(svc: Service): MaxAges {
  let m = maxAgesOf.get(svc.clock)
  if (m === undefined) maxAgesOf.set(svc.clock, (m = new MaxAges(svc)))
  return m
}

/**
 * One open events websocket: what the hub tracks, the session the transport reports to, and the sender of the
 * events it follows. One object per socket, with its methods on the prototype: thousands of idle sockets cost their
 * fields, not a dozen closures each.
 */
class EventsSocket implements LiveSocket, SocketSession, Subscriber {
  readonly id: number
  /** The query's filter: the socket is the event log's subscriber itself (see follow). */
  readonly filter: CompiledFilter
  sent = 0
  closed = false
  /** What the client may be behind by; the replay of `since` (bounded by retention) comes on top. */
  allowance = Infinity
  readonly openedAt: number
  readonly format: TimeFormat
  /** Ends the subscription (set once it exists). */
  stop: Subscriber | (() => void) | undefined
  /** Whether it waits in its clock's maximum-age queue. */
  aging = false
  /** Timers of faults in flight (per-event latency, a close after a time), only when there are such faults. */
  timers: Set<TimerHandle> | undefined
  /** Its connection in the delivery tracker, which each send is counted on (set once opened). */
  tracked: OpenedConnection | undefined

  constructor(
    readonly svc: Service,
    readonly hub: ReturnType<typeof createHub>,
    readonly q: EventsQuery,
    readonly key: string,
    readonly ending: Ending,
    readonly limits: ProtocolLimits,
    readonly sink: SocketSink,
  ) {
    this.id = nextSocketId(svc)
    this.filter = q.filter
    this.openedAt = svc.clock.now()
    this.format = svc.options.timeFormat
  }

  get client() {
    return this.q.client
  }

  get filters() {
    return this.q.filter.filters
  }

  start(latency: ReturnType<typeof find<'latency'>>, signal: AbortSignal) {
    const { svc, q, ending } = this
    // Under per-event latency the log's subscriber is a pacer in front of the socket; else the socket itself.
    const subscriber: Subscriber = latency ? { filter: q.filter, deliver: paced(svc, latency, (e) => this.deliver(e), (this.timers ??= new Set())) } : this
    this.hub.add(this)
    try {
      this.tracked = svc.deliveries.opened(this.key, this.id, 'ws', replaySince(q), signal, q.until, q.filter)
      svc.journal.record('ws.open', { socket: this.id, client: this.key, filters: q.filter.filters, since: q.since?.toString(), until: q.until?.toString() })
      maxAges(svc).add(this)
      const gone = sinceGone(svc, q)
      if (gone) {
        this.close(SINCE_GONE_CODE, gone)
      } else if (ending && ending.action.afterMessages === 0 && ending.action.afterTimeMs === undefined) {
        this.strike()
      } else {
        if (ending?.action.afterTimeMs !== undefined) (this.timers ??= new Set()).add(svc.clock.schedule(ending.action.afterTimeMs, () => this.strike()))
        const stop = follow(svc, q, subscriber, () => this.close(1000, 'until reached; stream complete'))
        this.allowance = this.limits.maxBacklog + (this.sink.backlog?.() ?? 0)
        // The replay may already have closed the socket (a close fault after N messages): cleanup() ran
        // before the subscription existed, so end it here or it outlives the socket.
        if (this.closed) unfollow(svc, stop)
        else this.stop = stop
      }
    } catch (error) {
      // Never an exception out of open(): the transport has already switched protocols, so no HTTP answer can follow.
      svc.journal.record('ws.error', { socket: this.id, client: this.key, message: error instanceof Error ? error.message : String(error) })
      this.end('server', 1011, 'internal error while opening the events stream; see the journal (ws.error)')
    }
  }

  deliver(e: ServiceEvent) {
    if (this.closed) return
    if (this.sink.send(e.frame(this.format)) === false) {
      // The client said goodbye before this event: neither delivered nor owed.
      const bye = this.sink.goodbye?.()
      if (bye) this.clientClosed(bye.code, bye.reason, e.seq - 1)
      return
    }
    this.sent++
    this.svc.deliveries.sentOn(this.tracked!, e)
    const ending = this.ending
    if (ending && ending.action.afterMessages > 0 && this.sent >= ending.action.afterMessages) this.strike()
    // A client that stopped reading: close it before its backlog grows the server's memory without bound. Bytes held
    // back to be written together are written first: a burst a reading client takes is no backlog.
    else if (this.sink.backlog !== undefined && this.sink.backlog() > this.allowance) {
      this.sink.flush?.()
      if (this.sink.backlog() > this.allowance) this.overflow()
    }
  }

  overflow() {
    const limits = this.limits
    this.svc.journal.record('ws.backlog', { socket: this.id, client: this.key, backlog: this.sink.backlog?.(), limit: limits.maxBacklog, sent: this.sent })
    this.close(BACKLOG_CLOSE_CODE, backlogReason(limits.maxBacklog))
  }

  strike() {
    const a = this.ending!.action
    if (a.kind === 'close') this.close(a.code, a.reason)
    else this.drop()
  }

  close(code: number, reason: string) {
    this.end('server', code, reason)
  }

  closeAtMaxAge() {
    const svc = this.svc
    // A number is milliseconds: said so, or the reason reads "age of 5000" with no unit.
    const age = svc.options.maxConnectionAge
    this.close(1000, `maximum connection age of ${typeof age === 'number' ? `${age} ms` : age} reached; reconnect to continue`)
  }

  drop() {
    this.end('drop', 1006, 'dropped with no close frame')
  }

  cleanup() {
    this.closed = true
    if (this.stop) unfollow(this.svc, this.stop)
    maxAges(this.svc).remove(this)
    if (this.timers) for (const t of this.timers) t.cancel()
    this.hub.delete(this)
  }

  /**
   * `wire` is the reason the close frame carries when it differs from the one journaled and reported; it is cut to
   * the 123 bytes a close frame holds (the journal and the report keep the whole reason).
   */
  end(how: 'server' | 'drop', code: number, reason: string, wire = reason) {
    if (this.closed) return
    this.cleanup()
    const svc = this.svc
    svc.journal.record('ws.close', { socket: this.id, client: this.key, by: how, code: how === 'drop' ? 1006 : code, reason, sent: this.sent, openFor: svc.clock.now() - this.openedAt })
    svc.deliveries.closed(this.key, this.id, how, how === 'drop' ? 1006 : code, reason)
    if (how === 'drop') this.sink.drop()
    else this.sink.close(code, clampCloseReason(wire))
  }

  /** `beforeSeq`: the last event of the log the connection lived through (else the log's last). */
  clientClosed(code: number, reason: string, beforeSeq?: number) {
    if (this.closed) return
    this.cleanup()
    const svc = this.svc
    svc.journal.record('ws.close', { socket: this.id, client: this.key, by: 'client', code, reason, sent: this.sent, openFor: svc.clock.now() - this.openedAt })
    svc.deliveries.closed(this.key, this.id, 'client', code, reason, beforeSeq)
  }

  tooBig() {
    // The close frame carries the code alone, as Go's websocket servers (the real service) and ws send it; the
    // journal and the delivery report say why.
    this.end('server', 1009, `message too big: this websocket takes no client messages over ${EVENTS_MAX_MESSAGE} bytes`, '')
  }

  serverClosed(code: number, reason: string) {
    this.end('server', code, reason)
  }

  protocolError(code: 1002 | 1007 | 1008) {
    this.end('server', code, PROTOCOL_ERROR_REASONS[code])
  }
}

