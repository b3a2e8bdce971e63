import type { Service } from '../service/service'
import { startPush } from '../service/push'
import { jsonError } from './http'
import type { ProtoRequest, ProtoResponse } from './types'

/** `POST /images/{name}/push`. */
export function pushRoute(svc: Service, req: ProtoRequest, name: string, tag: string | undefined): ProtoResponse {
  const client = req.headers['x-dockside-client']
  const decision = svc.faults.decide('push', { image: tag ? `${name}:${tag}` : name, client })
  if (decision?.action.kind === 'reply') {
    const a = decision.action
    return jsonError(a.status, a.message, a.retryAfter !== undefined ? { 'retry-after': String(a.retryAfter) } : {})
  }
  const start = startPush(
    { images: svc.images, registries: svc.registries, clock: svc.clock, journal: svc.journal, bandwidth: svc.options.pushBandwidth },
    {
      name,
      tag,
      authHeader: req.headers['x-registry-auth'],
      signal: req.signal,
      fault: decision?.action.kind === 'error' ? decision.action : undefined,
    },
  )
  if (start.kind === 'not-found') return jsonError(404, start.message)
  return { status: 200, headers: { 'content-type': 'application/json' }, body: start.lines }
}
