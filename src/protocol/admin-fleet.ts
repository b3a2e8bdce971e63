// Admin routes of a fleet: `POST|GET /_dockside/fakes`, `GET|DELETE /_dockside/fakes/{id}`. The fleet itself (fakes on
// ports of their own) lives outside the core, in src/fleet.ts; the protocol only asks the host for it.
import { InvalidInputError, NotFoundError } from '../service/errors'
import { json, type Target } from './http'
import type { Served } from './guard'
import type { ProtoRequest, ProtoResponse } from './types'

/** One fake of a fleet, as `GET /_dockside/fakes` lists it. */
export interface FleetMember {
  id: string
  /** `http://HOST:PORT` of its own server. */
  url: string
  /** `ws://HOST:PORT`: its events websocket is `${wsUrl}/events/ws`. */
  wsUrl: string
  port: number
  seed: number
  /** Its clock mode. */
  clock: string
  /** Its time to live once idle, in wall-clock ms (the create's `ttl`, else the fleet's); absent: until deleted. */
  ttl?: number
}

/** What a fake that serves a fleet gives the protocol (src/fleet.ts). */
export interface FleetHost {
  /** Creates a fake from an optional body `{ scenario?, seed?, ttl? }`, on its own port; `served`/`host` say how the caller reached this one. */
  create(body: unknown, reachedAs: { served: Served | undefined; host: string | undefined }): Promise<FleetMember>
  remove(id: string): Promise<boolean>
  list(): FleetMember[]
  /** Why a fake that is no longer listed went (it ended idle after its ttl), if the fleet remembers it. */
  gone?(id: string): string | undefined
  readonly max: number
}

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
