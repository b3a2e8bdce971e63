// Docker's `GET /events`: the same events as JSON lines over a chunked HTTP response.
import type { ServiceEvent } from '../service/events'
import type { Service } from '../service/service'
import type { TimerHandle } from '../time/clock'
import { TransportReset } from './types'
import { connectLatency, findAction as find } from './faults'
import { jsonError, type Target } from './http'
import { BACKLOG_CLOSE_CODE, backlogReason, resolveLimits, type ProtocolLimits } from './limits'
import type { ProtoRequest, ProtoResponse } from './types'
import { parseEventsQuery, sinceGone, follow, unfollow, nextSocketId, admit, paced } from './events-common'

/** Docker's `GET /events`: the same events as JSON lines over a chunked HTTP response. */
export async function eventsStream(svc: Service, req: ProtoRequest, target: Target, limits: ProtocolLimits = resolveLimits()): Promise<ProtoResponse> {
  const q = parseEventsQuery(req, target)
  const { key, response, decisions } = admit(svc, req, target, q)
  if (response) return response
  if (!(await connectLatency(svc, decisions, req.signal))) return jsonError(503, 'the client went away during injected connect latency')
  const gone = sinceGone(svc, q)
  if (gone) {
    svc.deliveries.refused(key, 410, gone, undefined, req.signal)
    return jsonError(410, gone)
  }
  const stall = find(decisions, 'stall')
  const ending = find(decisions, 'close') ?? find(decisions, 'drop')
  const latency = find(decisions, 'latency')
  const format = svc.options.timeFormat
  const id = nextSocketId(svc)
  // Ends the connection at once when the client falls more than maxBacklog behind (the transport may be waiting for it to read).
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
    const overflow = () => {
      overflowed = true
      svc.journal.record('stream.backlog', { socket: id, client: key, backlog: queued, limit: limits.maxBacklog, sent })
      ended = { code: BACKLOG_CLOSE_CODE, reason: backlogReason(limits.maxBacklog) }
      svc.deliveries.closed(key, id, 'server', ended.code, ended.reason)
      queue.length = 0
      queued = 0
      stop()
      abort.abort()
      poke()
    }
    svc.deliveries.opened(key, id, 'stream', q.since, req.signal)
    const timers = new Set<TimerHandle>()
    let replaying = true
    if (!stall) {
      const following = follow(svc, q, {
        filter: q.filter,
        deliver: paced(
          svc,
          latency,
          (e) => {
            if (overflowed) return
            queue.push(e)
            // The replay of `since` is bounded by retention and not counted: only live events can pile up without end.
            if (!replaying && (queued += e.dockerLine(format).length) > limits.maxBacklog) overflow()
            else poke()
          },
          timers,
        ),
      }, () => {
        done = true
        poke()
      })
      stop = () => unfollow(svc, following)
    }
    replaying = false
    const onAbort = () => {
      done = true
      poke()
    }
    req.signal.addEventListener('abort', onAbort, { once: true })
    // A reset or close of the fake disposes this service's clock: the stream ends instead of waiting forever.
    svc.clock.lifetime.addEventListener('abort', onAbort, { once: true })
    let stopTimer = () => {}
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
      if (ending && ending.action.afterMessages === 0 && ending.action.afterTimeMs === undefined) return strikeNow()
      let struck = false
      const timer = ending?.action.afterTimeMs !== undefined ? svc.clock.schedule(ending.action.afterTimeMs, () => ((struck = true), (done = true), poke())) : undefined
      stopTimer = () => timer?.cancel()
      while (true) {
        if (overflowed) throw new TransportReset(ended.reason)
        if (struck) return strikeNow()
        if (queue.length) {
          const limit = ending && ending.action.afterMessages > 0 ? ending.action.afterMessages - sent : Infinity
          const batch = queue.splice(0).slice(0, limit)
          queued = 0
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
  return { status: 200, headers: { 'content-type': 'application/json' }, body: lines(), abort: abort.signal }
}
