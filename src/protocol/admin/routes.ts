import { ConflictError, FieldError, InvalidInputError, NotFoundError } from '../../service/errors'
import type { RateLimitConfig } from '../../faults/rate-limit'
import { closeProblem, type FaultRule, type SchemaDef } from '../../faults/rule'
import type { CreateContainerOptions } from '../../service/containers'
import type { AddImageOptions } from '../../service/images'
import type { AddRegistryOptions } from '../../service/registries'
import type { JournalEntryType } from '../../service/journal'
import type { Service } from '../../core/service'
import { FLEET_ADMIN_ROUTES, handleFleetAdmin } from './fleet'
import { handleVerifyAdmin, VERIFY_ADMIN_ROUTES, type VerifyStores } from './overrides'
import { maintenanceRestart, type SocketHub } from '../events/socket-hub'
import { json, parseTarget, type Target } from '../http'
import { toMs } from '../../time/duration'
import type { ProtocolHost } from '../host'
import type { ProtoRequest, ProtoResponse } from '../types'
import { clockJson, containerJson, handleAdminLive, LIVE_ROUTES } from './live'

/** Reads a JSON body of any shape (`empty` when there is none); `hint` says what to send instead of bad JSON. */
async function readJsonValue(req: ProtoRequest, empty: unknown, hint = ''): Promise<unknown> {
  const raw = (await req.body()).trim()
  if (raw === '') return empty
  try {
    return JSON.parse(raw)
  } catch {
    // Never echoed: a body may hold a registry password or token.
    throw new InvalidInputError(`The request body is not valid JSON (${raw.length} bytes, not shown: it may hold a secret).${hint ? ` ${hint}` : ''}`)
  }
}

/** Reads a JSON body and checks it against a definition of the schema (field names, types, unknown fields). */
async function readBody<T>(svc: Service, req: ProtoRequest, def: SchemaDef, hint?: string): Promise<T> {
  const value = await readJsonValue(req, {}, hint)
  svc.check(def, value, 'request body')
  return value as T
}

/** What `POST /_dockside/rate-limit` takes, and how limiting is turned off. */
const RATE_LIMIT_EXPECTED = 'send a rate limit like {"route":"events","limit":5,"window":"10s"} or a list of them; to turn rate limiting off, DELETE /_dockside/rate-limit'

/** A container as the admin API shows it (the dashboard's snapshot adds its start time). */
const ADMIN_ROUTES = [
  'GET /_dockside/state',
  'GET|POST /_dockside/containers',
  'POST /_dockside/containers/{ref}/start|stop',
  'DELETE /_dockside/containers/{ref}',
  'GET|POST /_dockside/images',
  'GET|POST /_dockside/registries',
  'GET|POST|DELETE /_dockside/faults, GET /_dockside/faults/pending, DELETE /_dockside/faults/{id}',
  'GET|POST|DELETE /_dockside/rate-limit',
  'GET /_dockside/deliveries, GET /_dockside/deliveries/{client}',
  'POST /_dockside/sockets/close, POST /_dockside/sockets/drop',
  'POST /_dockside/restart',
  'GET /_dockside/clock, POST /_dockside/clock/advance',
  'GET /_dockside/journal',
  'POST /_dockside/reset',
  'POST /_dockside/scenario[?from=now]',
  ...VERIFY_ADMIN_ROUTES,
  ...FLEET_ADMIN_ROUTES,
  ...LIVE_ROUTES,
]

/**
 * The query parameters each route of the switch below reads; any other is refused, naming the ones allowed (a typo
 * such as `?typ=ws.open` silently answered the whole journal). Routes not listed take none.
 */
const QUERY_PARAMS: Record<string, readonly string[]> = {
  'POST containers/:ref/stop': ['exitCode'],
  'POST clock/advance': ['by'],
  'GET journal': ['type', 'after'],
  'POST scenario': ['from'],
}

/** The routes of the switch below. */
const KNOWN_KEYS = new Set(['GET state', 'GET containers', 'POST containers', 'POST containers/:ref/start', 'POST containers/:ref/stop', 'DELETE containers/:ref', 'GET images', 'POST images', 'GET registries', 'POST registries', 'GET faults', 'POST faults', 'GET faults/:ref', 'GET rate-limit', 'POST rate-limit', 'DELETE rate-limit', 'GET deliveries', 'GET deliveries/:ref', 'POST sockets/drop', 'DELETE faults', 'DELETE faults/:ref', 'POST sockets/close', 'POST restart', 'GET clock', 'POST clock/advance', 'GET journal', 'POST reset', 'POST scenario'])

/** Routes that read a JSON body; every other route of the switch below takes none (nothing, or `{}`). */
const BODY_ROUTES = new Set(['POST containers', 'POST containers/:ref/stop', 'POST images', 'POST registries', 'POST faults', 'POST rate-limit', 'POST sockets/close', 'POST clock/advance', 'POST scenario'])

/**
 * `?exitCode=` of a stop: a decimal integer from 0 to 255 (absent: 0). Number() read `0x10` as 16, `1e1` as 10 and a
 * blank value as 0.
 */
function queryExitCode(raw: string | undefined): number {
  if (raw === undefined) return 0
  if (!/^\d+$/.test(raw) || Number(raw) > 255) throw new FieldError('exitCode', `must be a decimal integer from 0 to 255 (like ?exitCode=137), not ${JSON.stringify(raw)}`, 'query')
  return Number(raw)
}

/**
 * The first query parameter given more than once. Routes read one value of each, and the first one won silently:
 * `GET /_dockside/journal?type=ws.open&type=event` answered the `ws.open` entries alone, as if there were no others.
 */
function repeatedParam(url: string): string | undefined {
  const q = url.indexOf('?')
  if (q < 0) return undefined
  const seen = new Set<string>()
  for (const part of url.slice(q + 1).split('&')) {
    const [name] = parseTarget(`/?${part}`).query.keys()
    if (name === undefined) continue
    if (seen.has(name)) return name
    seen.add(name)
  }
  return undefined
}

/** Refuses a query parameter `key` does not read, and a body with fields on a route that reads none. */
async function checkUnread(svc: Service, req: ProtoRequest, target: Target, key: string, route: string): Promise<void> {
  const allowed = QUERY_PARAMS[key] ?? []
  for (const name of target.query.keys()) {
    if (!allowed.includes(name)) {
      throw new InvalidInputError(`Unknown query parameter ${JSON.stringify(name)} for ${route}; ${allowed.length ? `allowed: ${allowed.join(', ')}` : 'it takes none'}.`)
    }
  }
  if (BODY_ROUTES.has(key) || req.method === 'GET' || req.method === 'HEAD') return
  const value = await readJsonValue(req, {})
  const fields = value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : undefined
  if (fields?.length === 0) return
  throw new InvalidInputError(`${route} takes no request body${fields ? `: unknown field ${JSON.stringify(fields[0])}` : ''}; send none (or {}).`)
}

/** The admin API under `/_dockside/`, for people and non-JS tools. `HEAD` answers as `GET` without the body. */
export async function handleAdmin(svc: Service, host: ProtocolHost, hub: SocketHub, req: ProtoRequest, target: Target, stores?: VerifyStores): Promise<ProtoResponse> {
  // The live feed is a stream that starts on GET: its HEAD stays unknown below (no admin route), like other methods.
  if (req.method === 'HEAD' && !/^\/_dockside\/(ui|live)(\/|$)/.test(target.path)) {
    const res = await handleAdmin(svc, host, hub, { ...req, method: 'GET' }, target, stores)
    return { ...res, body: undefined }
  }
  const path = target.path.replace(/\/+$/, '')
  const m = req.method
  const twice = repeatedParam(target.url)
  if (twice !== undefined) throw new InvalidInputError(`Query parameter ${JSON.stringify(twice)} is given more than once in ${m} ${path}; give it once (each admin route reads one value of each).`)
  const parts = path.split('/').slice(2).map((p) => {
    try {
      return decodeURIComponent(p)
    } catch {
      throw new InvalidInputError(`Invalid percent-encoding in ${JSON.stringify(p)}: encode names with encodeURIComponent.`)
    }
  })
  const [resource, ref, verb] = parts
  // Overrides, requests and the fleet have files of their own.
  const own = (stores && (await handleVerifyAdmin(stores, req, target, parts))) ?? (await handleFleetAdmin(host.fleet?.(), req, target, parts))
  if (own) return own
  // The dashboard's routes (live feed, clock pause/resume/speed, scenario continue, the dashboard's files): admin/live.ts.
  const live = await handleAdminLive(svc, host, hub, req, target, parts)
  if (live) return live

  // `sockets/close` and `clock/advance` are actions, not resources with a ref.
  // Every segment counts: `containers/web/stop/extra` is no route (it answered as `/stop`), so it falls to the 404 below.
  const extra = parts.length > 3 ? `/${parts.slice(3).join('/')}` : ''
  const key = resource === 'sockets' || resource === 'clock' ? `${m} ${parts.join('/')}` : `${m} ${resource}${ref !== undefined ? '/:ref' : ''}${verb !== undefined ? `/${verb}` : ''}${extra}`
  if (KNOWN_KEYS.has(key)) await checkUnread(svc, req, target, key, `${m} ${path}`)
  switch (key) {
    case 'GET state': {
      const now = svc.clock.now()
      return json(200, {
        clock: { mode: svc.clock.mode, now: new Date(now).toISOString(), elapsedMs: now - svc.clock.startedAt, pending: svc.clock.pending },
        seed: svc.random.seed,
        containers: svc.containers.list().map(containerJson),
        images: svc.images.list().map((i) => ({ repository: i.repository, tag: i.tag, id: i.image.id, size: i.image.size, layers: i.image.layers.length })),
        registries: svc.registries.list(),
        faults: svc.faults.list().map((f) => ({ ...f.rule, fired: f.fired, matched: f.matched })),
        sockets: [...hub.sockets].map((s) => ({ id: s.id, client: s.client, filters: s.filters, sent: s.sent })),
      })
    }
    case 'GET containers':
      return json(200, svc.containers.list().map(containerJson))
    case 'POST containers': {
      const { start, running, ...options } = await readBody<CreateContainerOptions & { start?: boolean; running?: boolean }>(svc, req, 'containerBody')
      // Two names of one field that disagree: `{"start":false,"running":true}` started the container.
      if (start !== undefined && running !== undefined && start !== running) throw new FieldError('running', `is the same field as "start" (the name scenario files use), and the two disagree (start: ${start}, running: ${running}); give one`, 'request body')
      const c = svc.containers.create(options)
      if (start === true || running === true) c.start()
      return json(201, containerJson(c))
    }
    case 'POST containers/:ref/start':
      return json(200, containerJson(svc.containers.get(ref).start()))
    case 'POST containers/:ref/stop': {
      const body = await readBody<{ exitCode?: number }>(svc, req, 'containerStopBody')
      // Both given: which one was meant is a guess (the body won silently).
      if (body.exitCode !== undefined && target.query.has('exitCode')) throw new FieldError('exitCode', 'is given in both the body and the query; give it once', 'request')
      const exitCode = body.exitCode ?? queryExitCode(target.query.get('exitCode'))
      return json(200, containerJson(svc.containers.get(ref).stop({ exitCode })))
    }
    case 'DELETE containers/:ref':
      svc.containers.get(ref).remove()
      return json(200, { removed: ref })
    case 'GET images':
      return json(200, svc.images.list().map((i) => ({ repository: i.repository, tag: i.tag, id: i.image.id, size: i.image.size, layers: i.image.layers.map((l) => ({ digest: l.digest, size: l.size })) })))
    case 'POST images': {
      const { name, ...options } = await readBody<AddImageOptions & { name: string }>(svc, req, 'image')
      const image = svc.images.add(name, options)
      return json(201, { id: image.id, size: image.size, layers: image.layers.length })
    }
    case 'GET registries':
      return json(200, svc.registries.list())
    case 'POST registries': {
      const { host: registryHost, ...options } = await readBody<AddRegistryOptions & { host: string }>(svc, req, 'registry')
      const r = svc.registries.add(registryHost, options)
      return json(201, r)
    }
    case 'GET faults':
      return json(200, svc.faults.list().map((f) => ({ ...f.rule, fired: f.fired, matched: f.matched })))
    case 'POST faults': {
      // One rule, or {"rules":[...]} added all or nothing (an error names the index: rules[2].match.route).
      const body = await readJsonValue(req, {}, 'Send a fault rule like {"on":"events","reply":429}, or {"rules":[...]}.')
      const batch = body !== null && typeof body === 'object' && 'rules' in body
      if (!batch) return json(201, { added: [svc.faults.add(body as FaultRule).id] })
      svc.check('faultBatch', body, 'request body')
      try {
        return json(201, { added: svc.faults.addAll((body as { rules: FaultRule[] }).rules).map((f) => f.id) })
      } catch (error) {
        throw error instanceof FieldError ? error.at('rules') : error
      }
    }
    case 'GET faults/:ref': {
      if (ref !== 'pending') throw new NotFoundError(`No admin route for GET ${path}. Use GET /_dockside/faults or GET /_dockside/faults/pending.`)
      const pending = svc.faults.pending()
      return json(200, { seed: svc.random.seed, pending: pending.map((f) => ({ ...f.rule, fired: f.fired, matched: f.matched })), table: svc.faults.table(pending) })
    }
    case 'GET rate-limit':
      return json(200, svc.rateLimit.get())
    case 'POST rate-limit': {
      const value = await readJsonValue(req, undefined, 'Send {"route":"events","limit":5,"window":"10s"} or a list of them.')
      // The library reads `undefined`/`null` as "no limits"; over HTTP a body lost on the way must not turn limiting off.
      if (value === undefined || value === null) throw new FieldError('', `${value === null ? 'null is not a rate limit' : 'missing'}; ${RATE_LIMIT_EXPECTED}`, 'request body')
      svc.rateLimit.set(value as RateLimitConfig)
      return json(200, svc.rateLimit.get())
    }
    case 'DELETE rate-limit':
      svc.rateLimit.set(undefined)
      return json(200, [])
    case 'GET deliveries':
      return json(200, svc.deliveries.clients().map((c) => svc.deliveries.summary(c)))
    case 'GET deliveries/:ref':
      return json(200, svc.deliveries.report(ref))
    case 'POST sockets/drop':
      return json(200, { dropped: hub.dropAll() })
    case 'DELETE faults':
      svc.faults.clear()
      return json(200, { removed: 'all' })
    case 'DELETE faults/:ref':
      if (!svc.faults.remove(ref)) throw new NotFoundError(`No such fault rule: ${ref}. Known: ${svc.faults.list().map((f) => f.id).join(', ') || '(none)'}.`)
      return json(200, { removed: ref })
    case 'POST sockets/close': {
      const body = await readBody<{ code?: number; reason?: string }>(svc, req, 'socketsCloseBody')
      const code = body.code ?? 1011
      const reason = body.reason ?? 'closed by the admin API'
      const problem = closeProblem(code, reason, 'request body')
      if (problem) throw problem
      return json(200, { closed: hub.closeAll(code, reason) })
    }
    case 'POST restart':
      return json(200, { closed: maintenanceRestart(svc, hub) })
    case 'GET clock':
      return json(200, clockJson(svc))
    case 'POST clock/advance': {
      const body = await readBody<{ by?: string | number }>(svc, req, 'clockAdvanceBody')
      // Both given: which one was meant is a guess (the body won silently), as for a stop's exitCode.
      if (body.by !== undefined && target.query.has('by')) throw new FieldError('by', 'is given in both the body and the query; give it once', 'request')
      const by = body.by ?? target.query.get('by')
      if (typeof by !== 'string' && typeof by !== 'number') throw new InvalidInputError('"by" is required: a duration like "5s" or milliseconds.')
      if (svc.clock.mode === 'real') throw new InvalidInputError('The clock runs in "real" mode and cannot be advanced; start with --clock virtual or auto.')
      // The range is checked before any timer fires, and the error names the body's field as every other admin error does.
      try {
        toMs(by, 'clock advance')
      } catch (error) {
        throw new FieldError('by', (error as Error).message)
      }
      // A pause during the advance (a timeline step with `pause: true`, or POST /_dockside/clock/pause) stops it at the
      // pause's time: the answer says so, or the caller takes `now` for the time it asked for.
      const pausedAt: number[] = []
      const off = svc.journal.subscribe((e) => void ((e.type === 'scenario.pause' || e.type === 'clock.pause') && pausedAt.push(e.time)))
      try {
        await svc.clock.advance(by)
      } finally {
        off()
      }
      // A reset (or close) during the advance disposed this clock: its time is not the fake's any more.
      if (svc.clock.lifetime.aborted) throw new ConflictError(`The fake was reset or closed during the advance, which stopped there; the clock now reads from the scenario's start (GET /_dockside/clock).`)
      const now = svc.clock.now()
      // Stopped by a pause: the clock is still paused at the time the pause happened (an advance queued behind one that
      // paused moves on from there, past it, and is not stopped). A clock that was paused already moves as asked (an
      // advance is a manual step) and stays paused: the answer says so, as GET /_dockside/clock does.
      if (svc.clock.paused && pausedAt.includes(now)) {
        return json(200, { now: new Date(now).toISOString(), elapsedMs: now - svc.clock.startedAt, paused: true, hint: 'the advance stopped at a pause; continue with POST /_dockside/scenario/continue, then advance again for the rest' })
      }
      if (svc.clock.paused) {
        return json(200, { now: new Date(now).toISOString(), elapsedMs: now - svc.clock.startedAt, paused: true, hint: 'the clock was paused before this advance and still is: the advance moved it as asked; continue with POST /_dockside/scenario/continue (a story pause) or POST /_dockside/clock/resume' })
      }
      return json(200, { now: new Date(now).toISOString(), elapsedMs: now - svc.clock.startedAt })
    }
    case 'GET journal': {
      const type = target.query.get('type')
      const rawAfter = target.query.get('after') ?? '0'
      const after = Number(rawAfter)
      if (!/^\d+$/.test(rawAfter)) throw new InvalidInputError(`Invalid "after" ${JSON.stringify(rawAfter)}: expected a journal sequence number, an integer >= 0.`)
      // A reset starts the numbers again at 1: a poller's cursor from before it answered [] until the new journal
      // caught up, hiding every entry in between. A cursor past the newest entry is stale, and says so.
      if (after > svc.journal.lastSeq) {
        throw new InvalidInputError(`Invalid "after" ${rawAfter}: the journal's newest entry is ${svc.journal.lastSeq}. Its seq numbers start again at 1 after a reset (POST /_dockside/reset), so a cursor from before one is stale: read again from after=0.`)
      }
      const entries = (type ? svc.journal.ofType(type as JournalEntryType) : svc.journal.entries).filter((e) => e.seq > after)
      // Entries older than the journal's limit are gone; the header says how many.
      return json(200, entries, { 'x-dockside-journal-omitted': String(svc.journal.omitted) })
    }
    case 'POST reset':
      await host.reset()
      return json(200, { reset: true })
    case 'POST scenario': {
      const from = target.query.get('from') ?? 'start'
      if (from !== 'start' && from !== 'now') throw new InvalidInputError(`Invalid "from" ${JSON.stringify(from)}: timeline "at" counts from "start" (the clock's start, as in scenario files; the default) or "now".`)
      if (!host.apply) throw new NotFoundError('This fake cannot apply scenarios at run time.')
      const body = await readJsonValue(req, {}, 'Send a scenario (docs/scenarios.md) as JSON.')
      // Read as a scenario file in JSON is: `{"containers":[...],"containers":[...]}` applied the last list alone.
      await host.apply(body, { from, text: await req.body() })
      return json(200, { applied: true, from, clock: { elapsedMs: svc.clock.elapsed() } })
    }
    default:
      throw new NotFoundError(`No admin route for ${m} ${path}. Admin routes: ${ADMIN_ROUTES.join('; ')}.`)
  }
}
