// What both events endpoints share: the query (filters, since/until, client), admission (rate limit,
// fault replies), replay-then-follow of the event log, and per-event pacing.
import type { FaultDecision } from '../../faults/plan'
import { DocksideError, InvalidInputError } from '../../service/errors'
import { msToNano, type ServiceEvent, type Subscriber } from '../../service/events'
import type { Service } from '../../core/service'
import type { TimerHandle } from '../../time/clock'
import { compileFilters, parseFilters, type CompiledFilter } from '../../service/filters'
import { findAction as find, refusalResponse } from '../faults'
import { dockerFiltersText } from '../filters'
import { formatTimestamp, fractionNano, goTimestampError, MAX_TIMESTAMP_SECONDS, MIN_TIMESTAMP_SECONDS, parseTimestampNano } from '../timestamps'
import { type Target } from '../http'
import type { ProtoRequest, ProtoResponse } from '../types'

/** What an events request asked for, validated once at connect. */
export interface EventsQuery {
  filter: CompiledFilter
  since: bigint | undefined
  until: bigint | undefined
  client: string | undefined
}

/** How many distinct `filters` texts keep their compiled filter for the next connection that sends the same. */
const COMPILED_KEPT = 256
const compiled = new Map<string, CompiledFilter>()
/** The filter of a connection that sent none, per way in: one for every such connection. */
const unfiltered: Partial<Record<'d' | 'w', CompiledFilter>> = {}

/**
 * The compiled filter of a subscriber's `filters` text (`docker`: as Docker's `GET /events` reads it, else as the
 * events websocket and the dashboard's live feed do): the one place a subscriber's filter is compiled; the delivery
 * tracker and the event log are handed this one. Connections that send the same text (a fleet of identical clients, every
 * reconnect) share one: a compiled filter is immutable, and each copy was ~1 KB per open socket and a parse and
 * compile per connect.
 */
export function subscriberFilter(text: string | null | undefined, docker: boolean): CompiledFilter {
  // The websocket's `image` filter also takes image ids (the service's own client documents "imageid or name").
  // Stryker disable next-line StringLiteral,ObjectLiteral,BooleanLiteral: with no text parseFilters gives {} whatever `docker`, compileFilters reads imageIds only for an image filter, and any two keys keep the ways' slots apart
  if (text === null || text === undefined) return (unfiltered[docker ? 'd' : 'w'] ??= compileFilters(parseFilters(text, { docker }), { imageIds: !docker }))
  const key = docker ? `d${text}` : `w${text}`
  let filter = compiled.get(key)
  if (filter === undefined) {
    filter = compileFilters(parseFilters(text, { docker }), { imageIds: !docker })
    if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value!)
    compiled.set(key, filter)
  }
  return filter
}

export function parseEventsQuery(req: ProtoRequest, target: Target): EventsQuery {
  const sent = target.query.get('filters')
  // Docker's GET /events reads JSON null as no filter (filters.FromJSON); the websocket keeps its own rules.
  const docker = target.path === '/events'
  // Docker's getEvents reads since, until and their order before the filters: its errors come in that order.
  const times = () => {
    const since = timestampOf('since', target, docker)
    const until = timestampOf('until', target, docker)
    if (since !== undefined && until !== undefined && until < since) {
      const error = new InvalidInputError(`Invalid "until" ${target.query.get('until')}: it is before "since" ${target.query.get('since')}.`)
      // On Docker's route, the daemon's words (daemon/events.go: "`since` time (%s) cannot be after `until` time (%s)").
      throw docker ? error.onWire(`\`since\` time (${target.query.get('since')}) cannot be after \`until\` time (${target.query.get('until')})`) : error
    }
    return { since, until }
  }
  const early = docker ? times() : undefined
  // On Docker's route, the filters as its filters.FromJSON reads them (JSON null is none), its refusals in its words.
  const text = docker ? dockerFiltersText(sent, target.version, (raw) => parseFilters(raw, { docker })) : sent
  const filter = subscriberFilter(text, docker)
  const { since, until } = early ?? times()
  return { filter, since, until, client: req.headers['x-dockside-client'] ?? target.query.get('client') }
}

/**
 * A `since`/`until` of the query. A value the daemon's parseTimestamp cannot read is, on Docker's route, its plain
 * strconv error, a 500 in every API version (getEvents returns it unclassed); dockside's help goes in the hint.
 */
function timestampOf(name: 'since' | 'until', target: Target, docker: boolean): bigint | undefined {
  const value = target.query.get(name)
  // The daemon's eventTime reads a time whose seconds are -1 (`-1`, `-1.5`) as none given: ParseTimestamps' default.
  if (docker && value !== undefined && /^-0*1(?:\.|$)/.test(value) && goTimestampError(value) === undefined) return undefined
  try {
    return parseTimestampNano(name, value)
  } catch (error) {
    if (!docker || !(error instanceof DocksideError) || !value) throw error
    const goError = goTimestampError(value)
    if (goError !== undefined) throw error.onWire(goError, 500)
    // A time the daemon reads (any int64 of seconds, a `+` sign, a signed fraction: `5.-1` is 4.99 s, its sign counted in
    // the fraction's length) that the fake cannot hold: the nearest it can, as a time before 1677 or after 9999 selects
    // the same events (all of them, or none yet).
    const m = /^([+-]?)(\d+)(?:\.([+-]?\d+))?$/.exec(value)!
    const seconds = BigInt(`${m[1] === '-' ? '-' : ''}${m[2]}`)
    const clamped = seconds > MAX_TIMESTAMP_SECONDS ? MAX_TIMESTAMP_SECONDS : seconds < MIN_TIMESTAMP_SECONDS ? MIN_TIMESTAMP_SECONDS : seconds
    return clamped * 1_000_000_000n + (clamped === seconds ? fractionNano(m[3] ?? '') : 0n)
  }
}

/** Close code when `since` reaches before what the log still retains (4000 + HTTP 410 Gone). */
export const SINCE_GONE_CODE = 4410

/** Why a `since` cannot be replayed without a gap, or undefined when it can. */
export function sinceGone(svc: Service, q: EventsQuery): string | undefined {
  if (q.since === undefined) return undefined
  const evicted = svc.log.evictedThroughNano
  if (evicted === 0n || q.since > evicted) return undefined
  return `since ${formatTimestamp(q.since)} is older than retention; resume with since=${formatTimestamp(evicted + 1n)} or later`
}

/**
 * Where the replay starts, or undefined for none: `since`, else with `until` alone the oldest retained event (0), as
 * Docker's daemon replays its buffer up to `until` when either bound is given and nothing when neither is
 * (daemon/events/events.go, loadBufferedEvents). What the log dropped was never asked for, so this is no gap (no 410).
 * The delivery report owes the client what it replays.
 */
export const replaySince = (q: EventsQuery): bigint | undefined => q.since ?? (q.until === undefined ? undefined : 0n)

/**
 * Replays retained events (from {@link replaySince}), then follows live ones, until `until` passes (under a
 * {@link paced} latency, once the events it holds back have left) or the stream is stopped. `subscriber` is given the
 * events (with the query's filter): an events socket is its own subscriber, so an idle one keeps no closure for it. Returns what stops it: the subscriber itself when it is the log's (remove it with
 * `log.unsubscribe`), else a function.
 */
export function follow(svc: Service, q: EventsQuery, subscriber: Subscriber, onComplete: () => void): Subscriber | (() => void) {
  const after = afterPaced.get(subscriber.deliver)
  const onUntil = after ? () => after(onComplete) : onComplete
  // Replay and subscription happen in one synchronous step: no event can fall between them or come twice.
  const from = replaySince(q)
  if (from !== undefined) {
    for (const e of svc.log.betweenNano(from, q.until)) if (q.filter.matches(e)) subscriber.deliver(e)
  }
  if (q.until === undefined) {
    svc.log.subscribe(subscriber)
    return subscriber
  }
  const now = svc.clock.now()
  // An `until` that is not after now ends the stream at once, after the replay: Docker waits `until - now`, nothing
  // here. A timer of no delay would instead wait for the next advance of a virtual clock (`until` = the clock's time
  // stayed open until the clock moved).
  if (q.until <= msToNano(now)) {
    onUntil()
    return () => {}
  }
  const until = q.until
  // The stream completes when the clock reaches `until`: at the first millisecond at or after it. A timer at the
  // millisecond that holds a mid-millisecond `until` (its floor) fired before `until` was reached: on a virtual clock
  // the events of that instant, stamped up to `until` 1 ns apart, came after the close and were never sent.
  const completeAtMs = Number((until + 999_999n) / 1_000_000n)
  // A wait the client is blocked on: the auto clock skips to it (a replayed recording's day of events, in milliseconds).
  const untilTimer = svc.clock.schedule(Math.max(0, completeAtMs - now), onUntil, 'wait')
  const unsubscribe = svc.log.subscribe({
    filter: subscriber.filter,
    deliver: (e) => {
      if (e.timeNano <= until) subscriber.deliver(e)
    },
  })
  return () => {
    untilTimer.cancel()
    unsubscribe()
  }
}

// Socket ids count per service, so the same script gives the same ids in every fake and after reset().
const socketIds = new WeakMap<Service, number>()
export const nextSocketId = (svc: Service) => {
  const id = (socketIds.get(svc) ?? 0) + 1
  socketIds.set(svc, id)
  return id
}

/** The client's key for rate limits: its id, else its address. */
export const clientKey = (req: ProtoRequest, q: EventsQuery) => q.client ?? req.remoteAddress ?? 'local'

/**
 * Counts a connect attempt of an events client, then applies the rate limit and fault replies:
 * the client's delivery key, the refusal to answer (undefined to serve) and the faults decided for it.
 */
export function admit(svc: Service, req: ProtoRequest, target: Target, q: EventsQuery): { key: string; response?: ProtoResponse & { body: string }; decisions: readonly FaultDecision[] } {
  const key = svc.deliveries.identify({ client: q.client, filters: q.filter.filters, address: req.remoteAddress })
  const reconnect = svc.deliveries.known(key)
  const since = replaySince(q)
  svc.deliveries.attempt(key, q.filter, req.signal, since, q.until)
  const verdict = svc.rateLimit.check('events', clientKey(req, q))
  if (!verdict.allowed) {
    svc.deliveries.refused(key, 429, verdict.message, verdict.retryAfter, req.signal, since, q.until)
    return { key, response: refusalResponse(429, verdict.message, verdict.retryAfter), decisions: [] }
  }
  const all = svc.faults.decideAll('events', { route: target.path, client: q.client, filters: q.filter.filters, reconnect })
  const reply = find(all, 'reply')?.action
  if (reply) {
    svc.deliveries.refused(key, reply.status, reply.message, reply.retryAfter, req.signal, since, q.until)
    return { key, response: refusalResponse(reply.status, reply.message, reply.retryAfter), decisions: all }
  }
  return { key, decisions: all }
}

/**
 * Wraps `deliver` with a `latency` decision's per-event delay (plus its seeded jitter, one draw per event) on the clock.
 * Order is kept: each event leaves no earlier than the one before it. Timers in flight are kept in `timers` for cleanup.
 */
export function paced(svc: Service, latency: ReturnType<typeof find<'latency'>>, deliver: (e: ServiceEvent) => void, timers: Set<TimerHandle>) {
  const l = latency?.action
  if (!latency || !l || (l.perEventMs === 0 && l.jitterMs === 0)) return deliver
  let lastAt = 0
  let inFlight = 0
  const later = (e: ServiceEvent) => {
    const now = svc.clock.now()
    const at = Math.max(lastAt, now + l.perEventMs + svc.faults.jitter(latency.rule.id, l.jitterMs, `event ${e.seq}`))
    lastAt = at
    inFlight++
    // A fired timer leaves the set: a long stream under latency keeps only the events still in flight.
    const timer = svc.clock.schedule(at - now, () => {
      // Stryker disable next-line CallExpression: a fired timer left in the set only costs memory (cancelling it at cleanup is a no-op)
      timers.delete(timer)
      inFlight--
      deliver(e)
    }, 'wait')
    timers.add(timer)
  }
  // `until` ends the stream after the events it owes: a latency delays them, it never drops them.
  afterPaced.set(later, (then) => {
    if (inFlight === 0) return then()
    const timer = svc.clock.schedule(lastAt - svc.clock.now(), () => {
      // Stryker disable next-line CallExpression: a fired timer left in the set only costs memory (cancelling it at cleanup is a no-op)
      timers.delete(timer)
      then()
    }, 'wait')
    timers.add(timer)
  })
  return later
}

/** For a deliver made by {@link paced}: runs `then` once every event it holds back has been delivered. */
const afterPaced = new WeakMap<(e: ServiceEvent) => void, (then: () => void) => void>()

/** Stops what {@link follow} started. */
export function unfollow(svc: Service, stop: Subscriber | (() => void)) {
  if (typeof stop === 'function') stop()
  else svc.log.unsubscribe(stop)
}
