import { InvalidInputError, NotFoundError } from '../service/errors'
import { checkCloseCode } from '../service/close-code'
import type { Service } from '../service/service'
import { maintenanceRestart, type SocketHub } from './events'
import { json, type Target } from './http'
import type { ProtocolHost } from './router'
import type { ProtoRequest, ProtoResponse } from './types'

/** Reads a JSON body of any shape (`empty` when there is none); `hint` says what to send instead of bad JSON. */
async function readJsonValue(req: ProtoRequest, empty: unknown, hint = ''): Promise<unknown> {
  const raw = (await req.body()).trim()
  if (raw === '') return empty
  try {
    return JSON.parse(raw)
  } catch {
    throw new InvalidInputError(`The request body is not valid JSON: ${JSON.stringify(raw.slice(0, 120))}.${hint ? ` ${hint}` : ''}`)
  }
}

/** Reads a JSON object body; with `fields`, any other field is refused (a typo must not be silently ignored). */
async function readJson(req: ProtoRequest, fields?: readonly string[]): Promise<Record<string, unknown>> {
  const value = await readJsonValue(req, {})
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new InvalidInputError('The request body must be a JSON object.')
  const unknown = fields ? Object.keys(value).filter((k) => !fields.includes(k)) : []
  if (unknown.length) throw new InvalidInputError(`Unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}. Allowed: ${fields!.join(', ')}.`)
  return value as Record<string, unknown>
}

const str = (body: Record<string, unknown>, key: string, required = false): string | undefined => {
  const v = body[key]
  if (v === undefined && !required) return undefined
  if (typeof v !== 'string' || v === '') throw new InvalidInputError(`"${key}" must be a non-empty string${required ? ' (required)' : ''}.`)
  return v
}

const containerJson = (c: ReturnType<Service['containers']['list']>[number]) => ({
  id: c.id,
  name: c.name,
  image: c.image,
  labels: c.labels,
  instanceType: c.instanceType,
  state: c.state,
  exitCode: c.exitCode,
})

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
]

/** The admin API under `/_dockside/`, for people and non-JS tools. */
export async function handleAdmin(svc: Service, host: ProtocolHost, hub: SocketHub, req: ProtoRequest, target: Target): Promise<ProtoResponse> {
  const path = target.path.replace(/\/+$/, '')
  const m = req.method
  const parts = path.split('/').slice(2).map((p) => {
    try {
      return decodeURIComponent(p)
    } catch {
      throw new InvalidInputError(`Invalid percent-encoding in ${JSON.stringify(p)}: encode names with encodeURIComponent.`)
    }
  })
  const [resource, ref, verb] = parts

  // `sockets/close` and `clock/advance` are actions, not resources with a ref.
  const key = resource === 'sockets' || resource === 'clock' ? `${m} ${parts.join('/')}` : `${m} ${resource}${ref !== undefined ? '/:ref' : ''}${verb !== undefined ? `/${verb}` : ''}`
  switch (key) {
    case 'GET state':
      return json(200, {
        clock: { mode: svc.clock.mode, now: new Date(svc.clock.now()).toISOString(), elapsedMs: svc.clock.elapsed(), pending: svc.clock.pending },
        seed: svc.random.seed,
        containers: svc.containers.list().map(containerJson),
        images: svc.images.list().map((i) => ({ repository: i.repository, tag: i.tag, id: i.image.id, size: i.image.size, layers: i.image.layers.length })),
        registries: svc.registries.list(),
        faults: svc.faults.list().map((f) => ({ ...f.rule, fired: f.fired, matched: f.matched })),
        sockets: [...hub.sockets].map((s) => ({ id: s.id, client: s.client, filters: s.filters, sent: s.sent })),
      })
    case 'GET containers':
      return json(200, svc.containers.list().map(containerJson))
    case 'POST containers': {
      const body = await readJson(req, ['name', 'image', 'labels', 'instanceType', 'start', 'running'])
      const labels = body.labels ?? {}
      if (typeof labels !== 'object' || labels === null || Array.isArray(labels)) throw new InvalidInputError('"labels" must be an object of strings.')
      const c = svc.containers.create({ name: str(body, 'name'), image: str(body, 'image', true)!, labels: labels as Record<string, string>, instanceType: str(body, 'instanceType') })
      if (body.start === true || body.running === true) c.start()
      return json(201, containerJson(c))
    }
    case 'POST containers/:ref/start':
      return json(200, containerJson(svc.containers.get(ref).start()))
    case 'POST containers/:ref/stop': {
      const body = await readJson(req, ['exitCode'])
      const exitCode = body.exitCode ?? Number(target.query.get('exitCode') ?? 0)
      if (typeof exitCode !== 'number') throw new InvalidInputError('"exitCode" must be an integer from 0 to 255.')
      return json(200, containerJson(svc.containers.get(ref).stop({ exitCode })))
    }
    case 'DELETE containers/:ref':
      svc.containers.get(ref).remove()
      return json(200, { removed: ref })
    case 'GET images':
      return json(200, svc.images.list().map((i) => ({ repository: i.repository, tag: i.tag, id: i.image.id, size: i.image.size, layers: i.image.layers.map((l) => ({ digest: l.digest, size: l.size })) })))
    case 'POST images': {
      const body = await readJson(req, ['name', 'tags', 'layers'])
      const tags = body.tags
      if (tags !== undefined && !(Array.isArray(tags) && tags.every((t) => typeof t === 'string'))) throw new InvalidInputError('"tags" must be a list of strings.')
      const image = svc.images.add(str(body, 'name', true)!, { tags: tags as string[] | undefined, layers: body.layers as number | number[] | undefined })
      return json(201, { id: image.id, size: image.size, layers: image.layers.length })
    }
    case 'GET registries':
      return json(200, svc.registries.list())
    case 'POST registries': {
      const body = await readJson(req, ['host', 'username', 'password', 'token'])
      const r = svc.registries.add(str(body, 'host', true)!, { username: str(body, 'username'), password: body.password as string | undefined, token: str(body, 'token') })
      return json(201, r)
    }
    case 'GET faults':
      return json(200, svc.faults.list().map((f) => ({ ...f.rule, fired: f.fired, matched: f.matched })))
    case 'POST faults': {
      const body = await readJson(req)
      const rules = Array.isArray(body.rules) ? body.rules : [body]
      const added = rules.map((r) => svc.faults.add(r as never).id)
      return json(201, { added })
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
      svc.rateLimit.set(value as never)
      return json(200, svc.rateLimit.get())
    }
    case 'DELETE rate-limit':
      svc.rateLimit.set(undefined)
      return json(200, [])
    case 'GET deliveries':
      return json(200, svc.deliveries.clients().map((c) => {
        const r = svc.deliveries.report(c)
        return { client: c, expected: r.expected, delivered: r.delivered, missed: r.missed.length, duplicates: r.duplicates.length, connections: r.connections.length, refusals: r.refusals.length }
      }))
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
      const body = await readJson(req, ['code', 'reason'])
      const code = body.code ?? 1011
      const reason = body.reason ?? 'closed by the admin API'
      checkCloseCode(code, reason)
      return json(200, { closed: hub.closeAll(code, reason as string) })
    }
    case 'POST restart':
      return json(200, { closed: maintenanceRestart(svc, hub) })
    case 'GET clock':
      return json(200, { mode: svc.clock.mode, now: new Date(svc.clock.now()).toISOString(), nowMs: svc.clock.now(), elapsedMs: svc.clock.elapsed(), pending: svc.clock.pending })
    case 'POST clock/advance': {
      const body = await readJson(req, ['by'])
      const by = body.by ?? target.query.get('by')
      if (typeof by !== 'string' && typeof by !== 'number') throw new InvalidInputError('"by" is required: a duration like "5s" or milliseconds.')
      if (svc.clock.mode === 'real') throw new InvalidInputError('The clock runs in "real" mode and cannot be advanced; start with --clock virtual or auto.')
      await svc.clock.advance(by)
      return json(200, { now: new Date(svc.clock.now()).toISOString(), elapsedMs: svc.clock.elapsed() })
    }
    case 'GET journal': {
      const type = target.query.get('type')
      const rawAfter = target.query.get('after') ?? '0'
      const after = Number(rawAfter)
      if (!/^\d+$/.test(rawAfter)) throw new InvalidInputError(`Invalid "after" ${JSON.stringify(rawAfter)}: expected a journal sequence number, an integer >= 0.`)
      const entries = (type ? svc.journal.ofType(type) : svc.journal.entries).filter((e) => e.seq > after)
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
      await host.apply(body, { from })
      return json(200, { applied: true, from, clock: { elapsedMs: svc.clock.elapsed() } })
    }
    default:
      throw new NotFoundError(`No admin route for ${m} ${path}. Admin routes: ${ADMIN_ROUTES.join('; ')}.`)
  }
}
