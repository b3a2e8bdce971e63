// The dashboard's side of the admin API: the live feed (server-sent events), clock pause/resume/speed, a scenario's
// continue, and the dashboard's own files. Everything the dashboard *does* goes through the documented admin routes.
import { InvalidInputError, NotFoundError } from '../service/errors'
import { compileFilters, parseFilters } from '../service/filters'
import type { Service } from '../service/service'
import type { SocketHub } from './events'
import { json, type Target } from './http'
import type { ProtocolHost } from './router'
import type { ProtoRequest, ProtoResponse } from './types'

/** A file of the dashboard, as the host serves it (read lazily, on the first request). */
export interface UiAsset {
  contentType: string
  body: string
}

/** Continues a scenario paused at a step (or a clock paused from the dashboard); returns whether it was paused. */
export function continueScenario(svc: Service): boolean {
  const was = svc.clock.paused
  svc.clock.resume()
  if (was) svc.journal.record('scenario.continue', {})
  return was
}

/** Events sent with the first snapshot (the most recent that match the filter). */
export const LIVE_BACKLOG = 200
/** Captions kept for the dashboard. */
const CAPTIONS_KEPT = 20

/** Admin routes this module serves, for the admin API's "no such route" message. */
export const LIVE_ROUTES = [
  'GET /_dockside/live[?filters=...] (server-sent events)',
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

/** Everything the dashboard shows but the event stream, in one JSON value. */
function snapshot(svc: Service, hub: SocketHub, captions: readonly { seq: number; time: number; text: string }[]) {
  return {
    clock: clockJson(svc),
    seed: svc.random.seed,
    containers: svc.containers.list().map((c) => ({ ...containerJson(c), startedAt: c.startedAt })),
    pushes: svc.pushes.list(),
    sockets: [...hub.sockets].map((s) => ({ id: s.id, client: s.client, filters: s.filters, sent: s.sent })),
    deliveries: svc.deliveries.clients().map((c) => {
      const gaps = svc.deliveries.report(c).gaps
      return { ...svc.deliveries.summary(c), gaps: gaps.length, away: gaps.some((g) => g.ongoing === true) }
    }),
    faults: svc.faults.list().map((f) => ({ ...f.rule, fired: f.fired, matched: f.matched })),
    rateLimit: { rules: svc.rateLimit.get(), buckets: svc.rateLimit.buckets() },
    captions,
  }
}

/**
 * `GET /_dockside/live`: a text/event-stream of `state` (the snapshot above, whenever something changed) and `events`
 * (new events matching `filters`, the same syntax as `/events/ws`, as the websocket's frames). Changes are coalesced:
 * at most one snapshot per `host.pace()` (100 ms on a real host), plus one a second while nothing happens (the
 * clock and the rate limiter's buckets move on their own). The stream ends when the fake is reset or closed; the
 * browser's EventSource reconnects by itself.
 */
function liveFeed(svc: Service, host: ProtocolHost, hub: SocketHub, req: ProtoRequest, target: Target): ProtoResponse {
  const filter = compileFilters(parseFilters(target.query.get('filters')))
  const format = svc.options.timeFormat
  const captions = svc.journal.entries.filter((e) => e.type === 'say').slice(-CAPTIONS_KEPT).map((e) => ({ seq: e.seq, time: e.time, text: String(e.text) }))
  const backlog = svc.log.events.filter((e) => filter.matches(e)).slice(-LIVE_BACKLOG)
  const pending: string[] = backlog.map((e) => e.frame(format))
  let dirty = true
  let wake: (() => void) | undefined
  const poke = () => {
    dirty = true
    const w = wake
    wake = undefined
    w?.()
  }
  const offs = [
    svc.journal.subscribe((entry) => {
      if (entry.type === 'say') {
        captions.push({ seq: entry.seq, time: entry.time, text: String(entry.text) })
        if (captions.length > CAPTIONS_KEPT) captions.shift()
      }
      poke()
    }),
    // One array push per matching event: the frame string is the one every websocket subscriber shares.
    svc.log.subscribe({ filter, deliver: (e) => (pending.push(e.frame(format)), poke()) }),
    svc.pushes.subscribe(poke),
  ]
  const ended = () => req.signal.aborted || svc.clock.lifetime.aborted
  req.signal.addEventListener('abort', poke)
  svc.clock.lifetime.addEventListener('abort', poke)
  async function* stream(): AsyncGenerator<string> {
    try {
      yield 'retry: 1000\n\n'
      while (!ended()) {
        if (!dirty) {
          const quiet = new Promise<void>((resolve) => (wake = resolve))
          await (host.pace ? Promise.race([quiet, host.pace(1000)]) : quiet)
          wake = undefined
          if (ended()) break
        }
        dirty = false
        let chunk = `event: state\ndata: ${JSON.stringify(snapshot(svc, hub, captions))}\n\n`
        if (pending.length) chunk += `event: events\ndata: [${pending.splice(0).join(',')}]\n\n`
        yield chunk
        // Coalesce what happens meanwhile into the next snapshot.
        if (host.pace) await host.pace(100)
        else for (let i = 0; i < 3; i++) await Promise.resolve()
      }
    } finally {
      for (const off of offs) off()
      req.signal.removeEventListener('abort', poke)
      svc.clock.lifetime.removeEventListener('abort', poke)
    }
  }
  return { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' }, body: stream() }
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
