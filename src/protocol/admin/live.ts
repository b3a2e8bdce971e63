// The dashboard's side of the admin API: the live feed (server-sent events), clock pause/resume/speed, a scenario's
// continue, and the dashboard's own files. Everything the dashboard *does* goes through the documented admin routes.
import { InvalidInputError, NotFoundError } from '../../service/errors'
import { EVERY_EVENT } from '../../service/filters'
import { subscriberFilter } from '../events/common'
import type { Service } from '../../core/service'
import type { SocketHub } from '../events/socket-hub'
import { json, type Target } from '../http'
import type { ProtocolHost } from '../host'
import type { ProtoRequest, ProtoResponse } from '../types'

/** A file of the dashboard, as the host serves it (read lazily, on the first request). */
export type { UiAsset } from '../host'

/** Continues a scenario paused at a step (or a clock paused from the dashboard); returns whether it was paused. */
export function continueScenario(svc: Service): boolean {
  const was = svc.clock.paused
  svc.clock.resume()
  if (was) svc.journal.record('scenario.continue', {})
  return was
}

/** Events sent with the first snapshot (the most recent that match the filter), and the most a feed holds unsent. */
export const LIVE_BACKLOG = 200
/** Captions kept for the dashboard. */
const CAPTIONS_KEPT = 20
/** How far back (clock time) the feed's container timeline goes. */
export const LIVE_TIMELINE_MS = 120_000
/** Spans kept per container in the timeline (the most recent). */
const TIMELINE_SPANS_KEPT = 50

/** Admin routes this module serves, for the admin API's "no such route" message. */
export const LIVE_ROUTES = [
  'GET /_dockside/live[?filters=...][&ack=1] (server-sent events), POST /_dockside/live/ack',
  'POST /_dockside/clock/pause|resume, POST /_dockside/clock/speed',
  'POST /_dockside/scenario/continue',
  'GET /_dockside/ui (the dashboard)',
]

/** The clock as the admin API shows it: one reading, so `now`, `nowMs` and `elapsedMs` agree (a fast real clock moves between two). */
/** A container as the admin API shows it (GET /_dockside/containers, the live feed's state). */
export const containerJson = (c: ReturnType<Service['containers']['list']>[number]) => ({
  id: c.id,
  name: c.name,
  image: c.image,
  labels: c.labels,
  instanceType: c.instanceType,
  state: c.state,
  exitCode: c.exitCode,
})

export const clockJson = (svc: Service) => {
  const now = svc.clock.now()
  return { mode: svc.clock.mode, now: new Date(now).toISOString(), nowMs: now, elapsedMs: now - svc.clock.startedAt, pending: svc.clock.pending, paused: svc.clock.paused, speed: svc.clock.speed }
}

type FaultEntry = ReturnType<Service['faults']['list']>[number]

/**
 * A rule's effective schedule, as the plan keeps it: how many times it fires (its own `times`, else its action's
 * default: `latency` always, `refuse: N` N times, the rest once; `handle.times(n)`/`persist()` change it later) and its
 * window of clock time.
 */
function scheduleOf(f: FaultEntry): { times: number; fromMs: number; untilMs: number } {
  return { times: f.limit, ...f.window }
}

/**
 * A fault rule as the live feed shows it: the rule, its counts, and what the server says of it: `timesTotal` (how many
 * times it fires, `'always'`), `remaining` (fires left, `'always'`) and `status`: `scheduled` (its window has not
 * opened), `pending` (never fired), `fired` (fired, fires left), `spent` (fired all its times) or `ended` (its window
 * closed with fires left: it never fires again).
 */
export function liveFaultJson(f: FaultEntry, elapsedMs: number) {
  const { times, fromMs, untilMs } = scheduleOf(f)
  const left = Math.max(0, times - f.fired)
  const status = left === 0 ? 'spent' : elapsedMs >= untilMs ? 'ended' : elapsedMs < fromMs ? 'scheduled' : f.fired === 0 ? 'pending' : 'fired'
  return { ...f.rule, fired: f.fired, matched: f.matched, timesTotal: times === Infinity ? ('always' as const) : times, remaining: left === Infinity ? ('always' as const) : left, status }
}

/**
 * Each container's running spans over the last {@link LIVE_TIMELINE_MS} of clock time, from the whole event log (not
 * the feed's filter): `[start, end]` in epoch ms, `end` null while it runs. `knownFromMs` is where the history the
 * log still holds begins (the window's start, or later when the log dropped older events): a span that began before
 * it starts there.
 */
function timelineOf(svc: Service, now: number) {
  const fromMs = Math.max(now - LIVE_TIMELINE_MS, svc.clock.startedAt)
  const evicted = svc.log.evictedThroughNano
  const knownFromMs = Math.max(fromMs, evicted > 0n ? Number(evicted / 1_000_000n) : fromMs)
  const containers = svc.containers.list()
  const byId = new Map<string, [number, number | null][]>(containers.map((c) => [c.id, []]))
  const open = new Map<string, number>()
  for (const e of svc.log.between(knownFromMs)) {
    const spans = byId.get(e.id)
    if (!spans) continue
    if (e.action === 'start') open.set(e.id, e.timeMs)
    else {
      spans.push([open.get(e.id) ?? knownFromMs, e.timeMs])
      open.delete(e.id)
    }
  }
  const spans: Record<string, [number, number | null][]> = {}
  for (const c of containers) {
    const list = byId.get(c.id)!
    if (c.state === 'running') list.push([open.get(c.id) ?? c.startedAt ?? knownFromMs, null])
    if (list.length) spans[c.id] = list.slice(-TIMELINE_SPANS_KEPT)
  }
  // Where the whole log's history begins once it has dropped older events (null: it holds every event): the delivery
  // counts cover only what it holds.
  return { fromMs, toMs: now, knownFromMs, heldFromMs: evicted > 0n ? Number(evicted / 1_000_000n) : null, spans }
}

/**
 * The share of the host's time one feed may spend counting deliveries: counting walks the retained events once per
 * client (1,000 clients and 10,000 events: ~200 ms), and a state goes out every 100 ms while things happen. A count
 * that took `cost` ms is reused until `cost / DELIVERY_COUNT_SHARE` ms of host time have passed since it was made, and
 * the state says when it was counted (`deliveriesAt`): a demo with thousands of clients slows the counts, not the fake.
 * A small fake (a count well under a millisecond) is counted afresh in every state.
 */
const DELIVERY_COUNT_SHARE = 0.1

/** One feed's last delivery counts: the fake clock's time they are of, and what counting them cost (host ms). */
interface DeliveryCounts {
  rows: ReturnType<typeof deliveryRows>
  atMs: number
  madeAt: number
  costMs: number
}

/** The delivery counts for a state: the last ones while they are within the feed's share of the host's time. */
function deliveryCounts(svc: Service, host: ProtocolHost, nowMs: number, last: DeliveryCounts | undefined): DeliveryCounts {
  // A host that keeps no time (a bare protocol) gets fresh counts in every state.
  if (!host.hostNow) return { rows: deliveryRows(svc), atMs: nowMs, madeAt: 0, costMs: 0 }
  const now = host.hostNow()
  if (last && now - last.madeAt < last.costMs / DELIVERY_COUNT_SHARE) return last
  const rows = deliveryRows(svc)
  return { rows, atMs: nowMs, madeAt: now, costMs: host.hostNow() - now }
}

/** GET /_dockside/deliveries' counts of every client, and its open connections. */
function deliveryRows(svc: Service) {
  return svc.deliveries.clients().map((c) => {
    const report = svc.deliveries.report(c)
    const open = report.connections.filter((x) => x.closedAt === undefined)
    const gaps = report.gaps
    return {
      // GET /_dockside/deliveries' counts, from the report (a summary would walk the log a second time per client).
      client: report.client,
      expected: report.expected,
      delivered: report.delivered,
      missed: report.missed.length,
      duplicates: report.duplicates.length,
      connections: report.connections.length,
      refusals: report.refusals.length,
      gaps: gaps.length,
      away: gaps.some((g) => g.ongoing === true),
      // Connections open now, websockets and `GET /events` streams alike.
      open: open.length,
      openVia: { ws: open.filter((x) => x.via === 'ws').length, stream: open.filter((x) => x.via === 'stream').length },
    }
  })
}

/** What the feed tracks of the clock beyond its reading: whether a timeline step (not a clock pause) paused it. */
const PAUSES = new Set(['scenario.pause', 'clock.pause', 'clock.resume', 'scenario.continue'])

/** The clock of a state: while paused, `pausedBy` says whether a timeline step (`step`) or a clock pause (`clock`) did it. */
function pausedBy(clock: ReturnType<typeof clockJson>, lastPause: string | undefined): ReturnType<typeof clockJson> & { pausedBy?: 'step' | 'clock' } {
  return clock.paused ? { ...clock, pausedBy: lastPause === 'scenario.pause' ? 'step' : 'clock' } : clock
}

/** A `state` of the live feed, as the dashboard reads it (src/ui/app.ts imports this type: the two cannot drift). */
export type LiveState = ReturnType<typeof snapshot>

/** Everything the dashboard shows but the event stream, in one JSON value. */
function snapshot(svc: Service, host: ProtocolHost, hub: SocketHub, captions: readonly { seq: number; time: number; text: string }[], extra: { seq: number; feed?: string; lastPause?: string; counts: { last?: DeliveryCounts } }) {
  const clock = clockJson(svc)
  const counts = (extra.counts.last = deliveryCounts(svc, host, clock.nowMs, extra.counts.last))
  return {
    seq: extra.seq,
    ...(extra.feed === undefined ? {} : { feed: extra.feed }),
    // `pausedBy`: `step` when a timeline step with `pause: true` paused the clock (the dashboard's Continue), else `clock`.
    clock: pausedBy(clock, extra.lastPause),
    seed: svc.random.seed,
    containers: svc.containers.list().map((c) => ({ ...containerJson(c), startedAt: c.startedAt })),
    timeline: timelineOf(svc, clock.nowMs),
    pushes: svc.pushes.list(),
    sockets: [...hub.sockets].map((s) => ({ id: s.id, client: s.client, filters: s.filters, sent: s.sent })),
    deliveries: counts.rows,
    // The fake clock's time the counts are of, and the host time before they are made again (they took that long).
    deliveriesAt: counts.atMs,
    deliveriesRecountMs: Math.round(counts.costMs / DELIVERY_COUNT_SHARE),
    faults: svc.faults.list().map((f) => liveFaultJson(f, clock.elapsedMs)),
    rateLimit: { rules: svc.rateLimit.get(), buckets: svc.rateLimit.buckets() },
    captions,
  }
}

/** The feeds that wait for the page's acknowledgement (`?ack=1`), by id, per fake (its hub outlives a reset). */
const ackFeeds = new WeakMap<SocketHub, Map<string, (seq: number) => string | undefined>>()
/** Feeds opened per fake (by its hub), as socket ids are counted: `live-1` is a fake's first, whatever ran before it. */
const feedCounts = new WeakMap<SocketHub, number>()

/**
 * `GET /_dockside/live`: a text/event-stream of `state` (the snapshot above, whenever something changed) and `events`
 * (new events matching `filters`, the same syntax as `/events/ws`, as the websocket's frames). Changes are coalesced:
 * at most one snapshot per `host.pace()` (100 ms on a real host), plus one a second while nothing happens (the
 * clock and the rate limiter's buckets move on their own). Every event wakes it, whatever `filters` lets through, and
 * what changes with no event, journal entry or push (see `unwatched`) is looked at every pace. Snapshots are made when
 * the transport takes the next chunk (it waits for the client to read): a slow reader skips the states in between,
 * never queues them.
 *
 * With `?ack=1` (the dashboard) each state carries `feed` and `seq`, and the next is sent only once the reader has
 * acknowledged the last (`POST /_dockside/live/ack`): over a slow link, a proxy or a tunnel (whose buffers hide a
 * slow reader from the server) the reader is never more than one snapshot behind. Events not yet sent are bounded by
 * {@link LIVE_BACKLOG}: past it the oldest are dropped and an `event: skipped` says how many.
 *
 * The stream ends (cleanly) when the fake is reset or closed; the browser's EventSource reconnects by itself.
 */
function liveFeed(svc: Service, host: ProtocolHost, hub: SocketHub, req: ProtoRequest, target: Target): ProtoResponse {
  // The dashboard's feed filters as the events websocket does, with the same compiled filter for the same text.
  const filter = subscriberFilter(target.query.get('filters'), false)
  const ackParam = target.query.get('ack')
  if (ackParam !== undefined && ackParam !== '1' && ackParam !== '0') throw new InvalidInputError(`Invalid "ack" ${JSON.stringify(ackParam)}: expected 1 (send each state only once the last was acknowledged with POST /_dockside/live/ack) or 0.`)
  let feed: string | undefined
  if (ackParam === '1') {
    const n = (feedCounts.get(hub) ?? 0) + 1
    feedCounts.set(hub, n)
    feed = `live-${n}`
  }
  const format = svc.options.timeFormat
  const captions = svc.journal.entries.filter((e) => e.type === 'say').slice(-CAPTIONS_KEPT).map((e) => ({ seq: e.seq, time: e.time, text: String(e.text) }))
  const lastPause = svc.journal.entries.findLast((e) => PAUSES.has(e.type))?.type
  const clockState = { lastPause }
  const counts: { last?: DeliveryCounts } = {}
  const backlog = svc.log.events.filter((e) => filter.matches(e)).slice(-LIVE_BACKLOG)
  const pending: string[] = backlog.map((e) => e.frame(format))
  let skipped = 0
  let dirty = true
  let seq = 0
  let acked = 0
  let wake: (() => void) | undefined
  const rouse = () => {
    const w = wake
    wake = undefined
    w?.()
  }
  const poke = () => {
    dirty = true
    rouse()
  }
  const offs = [
    svc.journal.subscribe((entry) => {
      if (entry.type === 'say') {
        captions.push({ seq: entry.seq, time: entry.time, text: String(entry.text) })
        if (captions.length > CAPTIONS_KEPT) captions.shift()
      }
      if (PAUSES.has(entry.type)) clockState.lastPause = entry.type
      poke()
    }),
    // One array push per matching event: the frame string is the one every websocket subscriber shares. A reader that
    // does not keep up holds the last LIVE_BACKLOG, not every event since it fell behind. Every event wakes the feed,
    // whatever its filter: the containers and their timeline changed even when the event list did not.
    svc.log.subscribe({
      // Every event (each wakes the feed), matched against the feed's own filter as it arrives.
      filter: EVERY_EVENT,
      deliver: (e) => {
        if (filter.matches(e) && pending.push(e.frame(format)) > LIVE_BACKLOG) {
          pending.shift()
          skipped++
        }
        poke()
      },
    }),
    svc.pushes.subscribe(poke),
  ]
  if (feed !== undefined) {
    let feeds = ackFeeds.get(hub)
    if (!feeds) ackFeeds.set(hub, (feeds = new Map()))
    feeds.set(feed, (n) => {
      if (n > seq) return `state ${n} of feed ${feed} was not sent yet: the last sent is ${seq}`
      if (n > acked) acked = n
      rouse()
      return undefined
    })
    offs.push(() => ackFeeds.get(hub)?.delete(feed))
  }
  const waitingForAck = () => feed !== undefined && acked < seq
  const ended = () => req.signal.aborted || svc.clock.lifetime.aborted
  // What the state shows that changes with no event, journal entry or push to wake the feed: a clock moved by code (a
  // test's `fake.clock.advance()`; a running real or auto clock the page moves on itself), the open connections (a
  // `GET /events` stream that ends; each is a subscriber of the log), the containers (a stopped one removed through its
  // handle) and the fault plan (a rule removed through its handle). Looked at every pace while idle, so the page shows
  // it then, not at the idle second.
  const unwatched = () => {
    const c = svc.clock
    let key = `${c.mode === 'virtual' || c.paused ? c.now() : ''}|${svc.log.subscriberCount}|${svc.containers.list().length}`
    for (const f of svc.faults.list()) key += `|${f.id}:${f.fired}:${f.matched}:${f.limit}`
    return key
  }
  let shownKey = ''
  let round = 0
  /** Resolves at the first pace that finds `unwatched()` changed (given up once a later idle wait begins). */
  const changed = async (pace: (ms: number) => Promise<void>) => {
    const mine = ++round
    do {
      await pace(100)
    } while (mine === round && !ended() && unwatched() === shownKey)
  }
  req.signal.addEventListener('abort', rouse)
  svc.clock.lifetime.addEventListener('abort', rouse)
  async function* stream(): AsyncGenerator<string> {
    try {
      yield 'retry: 1000\n\n'
      while (!ended()) {
        if (waitingForAck()) {
          // The last state is not acknowledged: nothing more is sent (changes pile up as `dirty`, events in `pending`).
          await new Promise<void>((resolve) => (wake = resolve))
          continue
        }
        if (!dirty) {
          const quiet = new Promise<void>((resolve) => (wake = resolve))
          await (host.pace ? Promise.race([quiet, host.pace(1000), changed(host.pace)]) : quiet)
          wake = undefined
          if (ended() || waitingForAck()) continue
        }
        dirty = false
        seq++
        shownKey = unwatched()
        let chunk = `event: state\ndata: ${JSON.stringify(snapshot(svc, host, hub, captions, { seq, feed, lastPause: clockState.lastPause, counts }))}\n\n`
        if (skipped) chunk += `event: skipped\ndata: ${JSON.stringify({ events: skipped })}\n\n`
        skipped = 0
        if (pending.length) chunk += `event: events\ndata: [${pending.splice(0).join(',')}]\n\n`
        yield chunk
        // Coalesce what happens meanwhile into the next snapshot.
        if (host.pace) await host.pace(100)
        else for (let i = 0; i < 3; i++) await Promise.resolve()
      }
    } finally {
      for (const off of offs) off()
      req.signal.removeEventListener('abort', rouse)
      svc.clock.lifetime.removeEventListener('abort', rouse)
    }
  }
  return { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' }, body: stream() }
}

/** `POST /_dockside/live/ack` `{"feed": "live-3", "seq": 12}`: the reader of an `?ack=1` feed has state `seq`. */
async function ackFeed(hub: SocketHub, req: ProtoRequest): Promise<ProtoResponse> {
  const raw = (await req.body()).trim()
  let body: unknown
  try {
    body = JSON.parse(raw)
  } catch {
    throw new InvalidInputError(`The request body is not valid JSON (${raw.length} bytes). Send {"feed": "live-1", "seq": 3}: the feed and seq of the last state read.`)
  }
  const { feed, seq } = (body ?? {}) as { feed?: unknown; seq?: unknown }
  if (typeof feed !== 'string' || feed === '') throw new InvalidInputError(`Invalid "feed" ${JSON.stringify(feed) ?? '(missing)'}: expected the "feed" string of the state read (GET /_dockside/live?ack=1).`)
  if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 1) throw new InvalidInputError(`Invalid "seq" ${JSON.stringify(seq) ?? '(missing)'}: expected the "seq" of the state read, an integer >= 1.`)
  const ack = ackFeeds.get(hub)?.get(feed)
  // A feed that has ended (the reader left, the fake was reset) has nothing to wait for: not an error.
  if (!ack) return json(200, { acked: false })
  const problem = ack(seq)
  if (problem) throw new InvalidInputError(`Invalid "seq" ${seq}: ${problem}.`)
  return json(200, { acked: true })
}

/** A decimal number as JSON writes one (with an optional leading `+` or `.5`-style fraction a query may carry). */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/

/** Reads `{"speed": N}` from the body (or `?speed=`), checked against the schema. */
async function readSpeed(svc: Service, req: ProtoRequest, target: Target): Promise<number> {
  const raw = (await req.body()).trim()
  let body: unknown = {}
  if (raw !== '') {
    try {
      body = JSON.parse(raw)
    } catch {
      throw new InvalidInputError(`The request body is not valid JSON (${raw.length} bytes). Send {"speed": 2}.`)
    }
  }
  const query = target.query.get('speed')
  if (raw === '' && query !== undefined) {
    // A decimal number only (as JSON writes one): Number() also read `0x10` as 16 and `0b11` as 3. A blank value is
    // Number('') = 0: refused as not above 0.
    const n = DECIMAL.test(query.trim()) ? Number(query) : NaN
    if (!(n > 0) || !Number.isFinite(n)) throw new InvalidInputError(`Invalid "speed" ${JSON.stringify(query)}: expected a number above 0, like 2 or 0.5.`)
    // The same bounds as the body's (the schema's maximum included).
    svc.check('clockSpeedBody', { speed: n }, 'query')
    return n
  }
  svc.check('clockSpeedBody', body, 'request body')
  return (body as { speed: number }).speed
}

/**
 * The routes above, or undefined when `parts` (the path after `/_dockside/`, decoded) is none of them and the rest
 * of the admin API should answer.
 */
export async function handleAdminLive(svc: Service, host: ProtocolHost, hub: SocketHub, req: ProtoRequest, target: Target, parts: string[]): Promise<ProtoResponse | undefined> {
  const [resource, action, ...rest] = parts
  const m = req.method
  if (resource === 'ui') {
    if (m !== 'GET' && m !== 'HEAD') throw new InvalidInputError(`The dashboard is read with GET, not ${m}; its actions use the admin API.`)
    const file = action === undefined || action === '' ? 'index.html' : [action, ...rest].join('/')
    const asset = await host.uiAsset?.(file)
    if (!asset) throw new NotFoundError(host.uiAsset ? `The dashboard has no file ${JSON.stringify(file)}.` : 'This fake serves no dashboard (its files were not built: run npm run build).')
    return { status: 200, headers: { 'content-type': asset.contentType, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' }, body: asset.body }
  }
  if (m === 'GET' && resource === 'live' && action === undefined) return liveFeed(svc, host, hub, req, target)
  if (m === 'POST' && resource === 'live' && action === 'ack' && rest.length === 0) return ackFeed(hub, req)
  if (m !== 'POST' || rest.length) return undefined
  if (resource === 'clock' && action === 'pause') {
    if (svc.clock.mode === 'virtual') throw new InvalidInputError('The virtual clock only moves when advanced (POST /_dockside/clock/advance): there is nothing to pause.')
    svc.clock.pause()
    svc.journal.record('clock.pause', {})
    return json(200, clockJson(svc))
  }
  if (resource === 'clock' && action === 'resume') {
    if (svc.clock.paused) {
      svc.clock.resume()
      svc.journal.record('clock.resume', {})
    }
    return json(200, clockJson(svc))
  }
  if (resource === 'clock' && action === 'speed') {
    const speed = await readSpeed(svc, req, target)
    if (svc.clock.mode !== 'real') throw new InvalidInputError(`The ${svc.clock.mode} clock has no speed: only the "real" clock runs at a speed factor (start with --clock real --speed N).`)
    // readSpeed checked it against the schema (above 0, at most 1000000): setSpeed cannot refuse it.
    svc.clock.setSpeed(speed)
    svc.journal.record('clock.speed', { speed })
    return json(200, clockJson(svc))
  }
  if (resource === 'scenario' && action === 'continue') {
    const continued = continueScenario(svc)
    return json(200, { continued, clock: clockJson(svc) })
  }
  return undefined
}
