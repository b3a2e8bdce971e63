// A fleet: one shared fake (`dockside serve`, a CI sidecar) that creates isolated fakes on ports of their own, one per
// test worker (`POST /_dockside/fakes`). Each is a whole createDockside() with its own state, clock, faults, journal,
// overrides and request log, served on a real port, so every client works with it unchanged (the docker CLI too).
// See docs/admin-api.md#fleet and docs/testing.md#parallel-workers.
import type { FleetHost, FleetMember } from './protocol/admin-fleet'
import { isLoopback } from './protocol/guard'
import { ConflictError, FieldError } from './service/errors'
import type { Dockside, DocksideOptions, DocksideServer } from './dockside'

/** Options of a fleet (`createDockside({ fleet })`, `dockside serve --max-fakes`). */
export interface FleetOptions {
  /** How many fakes may live at once; one more is a 409 naming the limit. @default 32 */
  maxFakes?: number
}

export const DEFAULT_MAX_FAKES = 32

const BODY_FIELDS = ['scenario', 'seed']
const WILDCARD = new Set(['0.0.0.0', '::', '[::]', ''])

/** The running fleet of one fake; `close()` ends every member. */
export interface Fleet extends FleetHost {
  close(): Promise<void>
}

/**
 * Creates the fleet of a fake built with `base` options: members inherit them (clock, limits, admin token, access
 * keys) and the base scenario unless the body brings its own. `make` is createDockside (passed in: no import cycle).
 */
export function createFleet(make: (options: DocksideOptions) => Dockside, base: DocksideOptions, options: FleetOptions, journal: (type: string, data: Record<string, unknown>) => void): Fleet {
  const max = options.maxFakes ?? DEFAULT_MAX_FAKES
  const members = new Map<string, { fake: Dockside; server: DocksideServer; info: FleetMember }>()
  let pending = 0
  let next = 0
  let closed = false
  return {
    max,
    list: () => [...members.values()].map((m) => m.info),
    async create(body, { served, host }) {
      if (closed) throw new ConflictError('This fleet is closing.')
      if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new FieldError('', 'must be a JSON object like {"scenario":{...},"seed":7}, or empty', 'request body')
      const b = body as { scenario?: unknown; seed?: unknown }
      const unknown = Object.keys(b).find((k) => !BODY_FIELDS.includes(k))
      if (unknown !== undefined) throw new FieldError(unknown, `unknown field; allowed: ${BODY_FIELDS.join(', ')}`, 'request body')
      if (b.seed !== undefined && !Number.isSafeInteger(b.seed)) throw new FieldError('seed', 'must be an integer', 'request body')
      if (b.scenario !== undefined && (b.scenario === null || typeof b.scenario !== 'object' || Array.isArray(b.scenario))) throw new FieldError('scenario', 'must be a scenario object (docs/scenarios.md)', 'request body')
      if (members.size + pending >= max) {
        throw new ConflictError(`The fleet is full: ${max} fakes live (the limit, --max-fakes or createDockside({ fleet: { maxFakes } })). DELETE /_dockside/fakes/{id} the ones you are done with; live: ${[...members.keys()].join(', ')}.`)
      }
      const scenario = (b.scenario ?? base.scenario) as DocksideOptions['scenario']
      const own = b.scenario as { seed?: number; clock?: unknown } | undefined
      // A scenario given here decides its own seed and clock unless the body's seed says otherwise.
      const childOptions: DocksideOptions = {
        ...base,
        scenario,
        seed: (b.seed as number | undefined) ?? (own ? own.seed : base.seed),
        clock: own?.clock !== undefined ? undefined : base.clock,
      }
      pending++
      try {
        const fake = make(childOptions)
        // Bind where the caller reached this fake: 127.0.0.1 by default; a wildcard bind (a compose sidecar) binds the
        // wildcard too and names the member by the host name the caller used.
        const bound = served && (WILDCARD.has(served.host) || isLoopback(served.host.replace(/^\[|\]$/g, '')) || /^[\d.]+$|:/.test(served.host)) ? served.host : '127.0.0.1'
        let server: DocksideServer
        try {
          server = await fake.listen({ host: bound, port: 0 })
        } catch (error) {
          await fake.close()
          throw error
        }
        const hostName = WILDCARD.has(bound) ? (host?.replace(/:\d+$/, '') || '127.0.0.1') : bound.includes(':') && !bound.startsWith('[') ? `[${bound}]` : bound
        const id = `fake-${++next}`
        const info: FleetMember = { id, url: `http://${hostName}:${server.port}`, wsUrl: `ws://${hostName}:${server.port}`, port: server.port, seed: fake.seed, clock: fake.clock.mode }
        members.set(id, { fake, server, info })
        journal('fleet.create', { id, port: server.port, seed: fake.seed })
        return info
      } finally {
        pending--
      }
    },
    async remove(id) {
      const m = members.get(id)
      if (!m) return false
      members.delete(id)
      await m.fake.close()
      journal('fleet.remove', { id })
      return true
    },
    async close() {
      closed = true
      const all = [...members.values()].reverse()
      members.clear()
      const results = await Promise.allSettled(all.map((m) => m.fake.close()))
      const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []))
      if (errors.length) throw new AggregateError(errors, 'Some fakes of the fleet failed to close.')
    },
  }
}
