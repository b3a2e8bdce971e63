// Docker's `GET /events`: the same events as JSON lines over a chunked HTTP response.
import type { ServiceEvent } from '../../service/events'
import type { Service } from '../../core/service'
import type { TimerHandle } from '../../time/clock'
import { SERVER_SHUTDOWN, TransportReset } from '../types'
import { SHUTDOWN_REASON } from '../../service/close-code'
import { connectLatency, findAction as find } from '../faults'
import { jsonError, queryRefusal, type Target } from '../http'
import { BACKLOG_CLOSE_CODE, backlogReason, resolveLimits, type ProtocolLimits } from '../limits'
import type { ProtoRequest, ProtoResponse } from '../types'
import { parseEventsQuery, sinceGone, follow, unfollow, nextSocketId, admit, paced, replaySince } from './common'
import type { createHub, LiveStream } from './socket-hub'

/** What a stream needs of the hub: to be in it while it is open. */
type StreamHub = Pick<ReturnType<typeof createHub>, 'addStream' | 'deleteStream'>

/** Why a stream cut by `dropAll()` (a drop of every socket) ended, in the delivery report. */
const STREAM_DROPPED = 'events stream dropped: the connection was reset with no clean end'

/**
 * Docker's `GET /events`: the same events as JSON lines over a chunked HTTP response. With `hub`, the stream is one of
 * the fake's live connections: a maintenance restart or `closeAll` ends it cleanly, `dropAll` cuts it.
 */
export async function eventsStream(svc: Service, req: ProtoRequest, target: Target, limits: ProtocolLimits = resolveLimits(), hub?: StreamHub): Promise<ProtoResponse> {
  // The daemon's getEvents reads its form first: a query Go cannot read is its 400.
  const unreadable = queryRefusal(target)
  if (unreadable) return unreadable
  const q = parseEventsQuery(req, target)
  const { key, response, decisions } = admit(svc, req, target, q)
  if (response) return response
  if (!(await connectLatency(svc, decisions, req.signal))) return jsonError(503, 'the client went away during injected connect latency')
  const gone = sinceGone(svc, q)
  if (gone) {
    svc.deliveries.refused(key, 410, gone, undefined, req.signal, replaySince(q), q.until)
    return jsonError(410, gone)
  }
  const stall = find(decisions, 'stall')
  const ending = find(decisions, 'close') ?? find(decisions, 'drop')
  const latency = find(decisions, 'latency')
  const id = nextSocketId(svc)
  // Ends the connection at once, even while the transport waits for the client to read: a client more than maxBacklog
  // behind, or a drop of every socket (see `live.drop`).
  const abort = new AbortController()
  async function* lines(): AsyncGenerator<string> {
    const queue: ServiceEvent[] = []
    // Bytes of the lines in `queue`: what the client is behind by, beyond the one chunk the transport holds.
    let queued = 0
    let overflowed = false
    let done = false
    let wake: (() => void) | undefined
    const poke = () => {
      wake?.()
      wake = undefined
    }
    let sent = 0
    let how = 'server' as 'server' | 'client' | 'drop'
    let ended = { code: 1000, reason: 'stream ended' }
    let stop = () => {}
    const timers = new Set<TimerHandle>()
    const overflow = () => {
      overflowed = true
      svc.journal.record('stream.backlog', { socket: id, client: key, backlog: queued, limit: limits.maxBacklog, sent })
      ended = { code: BACKLOG_CLOSE_CODE, reason: backlogReason(limits.maxBacklog) }
      svc.deliveries.closed(key, id, 'server', ended.code, ended.reason)
      hub?.deleteStream(live)
      queue.length = 0
      queued = 0
      stop()
      abort.abort()
      poke()
    }
    /** Takes the queued events the stream may still send (a close-after-N fault caps them), counted as sent. */
    const take = () => {
      const limit = ending && ending.action.afterMessages > 0 ? ending.action.afterMessages - sent : Infinity
      const batch = queue.splice(0).slice(0, limit)
      queued = 0
      for (const e of batch) svc.deliveries.sent(key, id, e)
      sent += batch.length
      return batch.map((e) => e.dockerLine()).join('')
    }
    /** Set when the hub closed the stream: its last lines, then the clean end. */
    let last: string | undefined
    /** Set when the hub dropped the stream: a reset, nothing more. */
    let cut = false
    /** Waiting for an event (not for the transport to take a chunk). */
    let parked = false
    let stopTimer = () => {}
    /** The hub's close or drop: from now on nothing reaches the stream, and the report says so at once (as for a websocket). */
    const shut = (by: 'server' | 'drop', code: number, reason: string) => {
      hub?.deleteStream(live)
      stop()
      stopTimer()
      for (const t of timers) t.cancel()
      how = by
      ended = { code, reason }
      done = true
      svc.deliveries.closed(key, id, by, code, reason)
    }
    const live: LiveStream = {
      id,
      client: q.client,
      close(code, reason) {
        if (last !== undefined || cut || overflowed) return
        // HTTP has no close code: the response ends cleanly, as a daemon restart ends it. The lines already queued go
        // first, as a websocket's frames come before its close frame, and count as sent before the close is reported.
        last = take()
        shut('server', code, reason)
        poke()
      },
      drop() {
        if (last !== undefined || cut || overflowed) return
        cut = true
        queue.length = 0
        queued = 0
        shut('drop', 1006, STREAM_DROPPED)
        // Waiting for an event: the stream throws the reset itself (its reason reaches in-process clients). Waiting for
        // the client to read what the transport holds: end the connection now, as for a client too far behind.
        if (parked) poke()
        else abort.abort()
      },
    }
    svc.deliveries.opened(key, id, 'stream', replaySince(q), req.signal, q.until, q.filter)
    // In the hub before the replay: a close fault or `until` reached during it takes the stream out again.
    hub?.addStream(live)
    const finish = () => {
      hub?.deleteStream(live)
      done = true
      poke()
    }
    let replaying = true
    if (!stall) {
      const following = follow(svc, q, {
        filter: q.filter,
        deliver: paced(
          svc,
          latency,
          (e) => {
            if (overflowed || cut || last !== undefined) return
            queue.push(e)
            // The replay of `since` is bounded by retention and not counted: only live events can pile up without end.
            // Nor is what comes while the stream waits for events (`parked`): the transport takes it all at its next
            // turn, so a burst from one turn is no backlog. Behind is what piles up while the transport cannot write.
            const bytes = e.dockerLine().length
            if (!replaying && (queued += bytes) > limits.maxBacklog && !parked) overflow()
            else poke()
          },
          timers,
        ),
      }, finish)
      stop = () => unfollow(svc, following)
    }
    replaying = false
    const onAbort = finish
    req.signal.addEventListener('abort', onAbort, { once: true })
    // A reset or close of the fake disposes this service's clock: the stream ends instead of waiting forever.
    svc.clock.lifetime.addEventListener('abort', onAbort, { once: true })
    try {
      // An empty first chunk makes the transport flush headers before the first event.
      yield ''
      const strikeNow = () => {
        const a = ending!.action
        if (a.kind === 'drop') {
          how = 'drop'
          ended = { code: 1006, reason: 'events stream dropped by an injected fault' }
          throw new TransportReset(ended.reason)
        }
        // HTTP has no close code: the stream ends cleanly, and the report keeps the fault's code and reason.
        if (a.kind === 'close') ended = { code: a.code, reason: a.reason }
      }
      let struck = false
      // The hub may have closed or dropped the stream while the transport flushed the headers: the loop ends it.
      if (!cut && last === undefined) {
        if (ending && ending.action.afterMessages === 0 && ending.action.afterTimeMs === undefined) return strikeNow()
        const timer = ending?.action.afterTimeMs !== undefined ? svc.clock.schedule(ending.action.afterTimeMs, () => ((struck = true), (done = true), poke())) : undefined
        stopTimer = () => timer?.cancel()
      }
      while (true) {
        if (overflowed || cut) throw new TransportReset(ended.reason)
        if (last !== undefined) {
          if (last) yield last
          return
        }
        if (struck) return strikeNow()
        if (queue.length) {
          const text = take()
          if (text) yield text
          if (ending && ending.action.afterMessages > 0 && sent >= ending.action.afterMessages) return strikeNow()
          continue
        }
        if (done) {
          // The transport shutting down ends the stream as the server's close; any other abort is the client leaving.
          if (req.signal.aborted && req.signal.reason === SERVER_SHUTDOWN) ended = { code: 1001, reason: SHUTDOWN_REASON }
          else if (req.signal.aborted) how = 'client'
          return
        }
        parked = true
        await new Promise<void>((r) => (wake = r))
        parked = false
      }
    } finally {
      hub?.deleteStream(live)
      stop()
      stopTimer()
      for (const t of timers) t.cancel()
      req.signal.removeEventListener('abort', onAbort)
      svc.clock.lifetime.removeEventListener('abort', onAbort)
      // Once per connection: a close the hub already reported is not reported again.
      svc.deliveries.closed(key, id, how, how === 'drop' ? 1006 : ended.code, how === 'client' ? 'client went away' : ended.reason)
    }
  }
  return { status: 200, headers: { 'content-type': 'application/json' }, body: lines(), abort: abort.signal }
}
