// Admin routes of a fleet: `POST|GET /_dockside/fakes`, `GET|DELETE /_dockside/fakes/{id}`. The fleet itself (fakes on
// ports of their own) lives outside the core, in src/fleet.ts; the protocol only asks the host for it.
import { InvalidInputError, NotFoundError } from '../../service/errors'
import { json, type Target } from '../http'
import type { FleetHost } from '../host'
import type { ProtoRequest, ProtoResponse } from '../types'

export const FLEET_ADMIN_ROUTES = ['GET|POST /_dockside/fakes, GET|DELETE /_dockside/fakes/{id}']

async function readBody(req: ProtoRequest): Promise<unknown> {
  const raw = (await req.body()).trim()
  if (raw === '') return {}
  try {
    return JSON.parse(raw)
  } catch {
    throw new InvalidInputError(`The request body is not valid JSON (${raw.length} bytes, not shown: it may hold a secret). Send nothing, or {"scenario":{...},"seed":7,"ttl":"15m"}.`)
  }
}

/** Answers `/_dockside/fakes...`, or undefined for other resources. */
export async function handleFleetAdmin(fleet: FleetHost | undefined, req: ProtoRequest, target: Target, parts: string[]): Promise<ProtoResponse | undefined> {
  const [resource, ref, extra] = parts
  if (resource !== 'fakes') return undefined
  if (!fleet) {
    throw new NotFoundError(
      'This fake serves no fleet: `dockside serve` does (POST /_dockside/fakes on it; --max-fakes N, 0 turns it off), and so does createDockside({ fleet: { maxFakes: 8 } }). A fake of a fleet cannot create fakes itself.',
    )
  }
  const known = () => fleet.list().map((f) => f.id).join(', ') || '(none)'
  const noSuch = (ref: string) => {
    const gone = fleet.gone?.(ref)
    return new NotFoundError(`No such fake: ${ref}${gone ? ` (${gone})` : ''}. Fakes: ${known()}.`)
  }
  const key = `${req.method} ${ref === undefined ? 'fakes' : extra === undefined ? 'fakes/:id' : 'fakes/:id/more'}`
  switch (key) {
    case 'POST fakes':
      return json(201, await fleet.create(await readBody(req), { served: req.served, host: req.headers.host }))
    case 'GET fakes':
      return json(200, fleet.list())
    case 'GET fakes/:id': {
      const member = fleet.list().find((f) => f.id === ref)
      if (!member) throw noSuch(ref)
      return json(200, member)
    }
    case 'DELETE fakes/:id':
      if (!(await fleet.remove(ref))) throw noSuch(ref)
      return json(200, { removed: ref })
    default:
      throw new NotFoundError(`No admin route for ${req.method} ${target.path}. Fleet routes: ${FLEET_ADMIN_ROUTES.join('; ')}.`)
  }
}
