// A fleet: one shared fake (`dockside serve`, a CI sidecar) that creates isolated fakes on ports of their own, one per
// test worker (`POST /_dockside/fakes`). Each is a whole createDockside() with its own state, clock, faults, journal,
// overrides and request log, served on a real port, so every client works with it unchanged (the docker CLI too).
// See docs/admin-api.md#fleet and docs/testing.md#parallel-workers.
import type { FleetHost, FleetMember } from './protocol/host'
import { isLoopback } from './protocol/guard'
import { errorResponse } from './protocol/http'
import type { Protocol } from './protocol/router'
import { hostTimers } from './runtime/host-timers'
import { ConflictError, FieldError, NotFoundError } from './service/errors'
import type { Journal } from './service/journal'
import { durationProblem, MAX_DURATION_MS, toMs, type Duration } from './time/duration'
import type { RunningServer } from './transports/server/serve'

/**
 * What the fleet needs of a fake it makes (createDockside's, passed in): the fleet names no type of the facade, so the
 * facade may build a fleet without an import cycle.
 */
export interface FleetFake {
  readonly protocol: Protocol
  readonly seed: number
  readonly clock: { readonly mode: string }
  on(type: 'journal', listener: (entry: { type: string }) => void): () => void
  close(): Promise<void>
}

/** The options a member is built from: createDockside's, of which the fleet reads and sets these. */
export interface FleetBaseOptions {
  scenario?: unknown
  seed?: number
  clock?: unknown
}

/** Options of a fleet (`createDockside({ fleet })`, `dockside serve --max-fakes`). */
export interface FleetOptions {
  /** How many fakes may live at once; one more is a 409 naming the limit. @default 32 */
  maxFakes?: number
  /**
   * Each fake's time to live once idle, on the wall clock: a fake that has had no request and no open connection for
   * this long is removed (journal `fleet.expire`), so the fakes of a test worker that died before its teardown do not
   * fill the fleet. A create's `ttl` overrides it. @default none: fakes live until deleted
   */
  ttl?: Duration
}

export const DEFAULT_MAX_FAKES = 32

const BODY_FIELDS = ['scenario', 'seed', 'ttl']

/** A fleet's `ttl` (option or body field) in ms, or why it is not one: a duration above 0. */
export function ttlProblem(value: unknown): string | undefined {
  return durationProblem(value) || toMs(value as Duration) === 0
    ? `must be a duration above 0, at most ${MAX_DURATION_MS} ms (100 years): milliseconds or a string like "15m" or "1h30m" (leave it out for fakes that live until deleted)`
    : undefined
}
const WILDCARD = new Set(['0.0.0.0', '::', '[::]', ''])
/** How many fakes that ended idle a fleet remembers, their ports still answering why (see expireWhenIdle). */
const REMEMBERED = 100

/** A fake of the fleet on its own server; `end(why)` turns the server's answers into a 404 saying why it is gone. */
interface Member {
  fake: FleetFake
  server: RunningServer
  info: FleetMember
  end(why: string): void
  expiry?: unknown
}

/**
 * What a member's port serves: its fake's protocol until `end(why)`, then a 404 saying why to every request and
 * websocket. A member that ends idle keeps its port open: closing a listening socket resets the connections still
 * waiting in the kernel's accept queue (clients saw ECONNRESET), and a client can always have connected just then.
 * The server keeps these two functions and what they refer to: once ended, `live` no longer names the fake.
 */
function gate(fake: FleetFake): { protocol: Pick<Protocol, 'handle' | 'upgrade'>; end(why: string): void } {
  let live: Protocol | undefined = fake.protocol
  let why = ''
  const gone = () => errorResponse(new NotFoundError(`No such fake: ${why}. Create another on the shared fake (POST /_dockside/fakes), with a longer ttl if your tests idle that long.`))
  return {
    protocol: {
      handle: (req) => (live ? live.handle(req) : Promise.resolve(gone())),
      upgrade: (req) => (live ? live.upgrade(req) : Promise.resolve({ kind: 'reject', response: gone() })),
    },
    end(reason) {
      live = undefined
      why = reason
    },
  }
}

/** Closes a member: its server (its sockets first), then its fake. */
async function closeMember(member: Member): Promise<void> {
  try {
    await member.server.close()
  } finally {
    await member.fake.close()
  }
}

/** The running fleet of one fake; `close()` ends every member. */
export interface Fleet extends FleetHost {
  close(): Promise<void>
}

/**
 * Creates the fleet of a fake built with `base` options: members inherit them (clock, limits, admin token, access
 * keys) and the base scenario unless the body brings its own. `make` is createDockside (passed in: no import cycle).
 */
export function createFleet<O extends FleetBaseOptions>(make: (options: O) => FleetFake, base: O, options: FleetOptions, journal: Journal['record']): Fleet {
  const max = options.maxFakes ?? DEFAULT_MAX_FAKES
  if (options.ttl !== undefined) {
    const problem = ttlProblem(options.ttl)
    if (problem) throw new FieldError('fleet.ttl', problem, 'createDockside options')
  }
  const members = new Map<string, Member>()
  let pending = 0
  let next = 0
  let closed = false
  /**
   * Fakes that ended idle (the last REMEMBERED), so that a later GET or DELETE of one says what became of it, and so
   * does its own port (its server is closed when the fleet forgets it).
   */
  const expired = new Map<string, { why: string; server: RunningServer }>()
  /**
   * Removes the member once it has been idle for `ttl` of wall time: no request (heard on the member's journal, across
   * its resets) and no connection open. While connections are open it looks again every second at most, and counts
   * the idle time from the first look that finds them all closed: never from before a connection ended. A client that
   * connected since the event loop last polled waits in the kernel's accept queue, unseen by `connections()`; so the
   * look that finds the member idle looks once more after the next poll, which accepts it: it is then activity like
   * any open connection, and its request gets its answer. Its port stays open, answering the 404 (see gate).
   */
  const expireWhenIdle = (id: string, member: Member, ttl: number) => {
    let last = hostTimers.now()
    let open = false
    member.fake.on('journal', (entry) => {
      if (entry.type === 'request') last = hostTimers.now()
    })
    const look = (polled = false) => {
      member.expiry = undefined
      if (members.get(id) !== member) return
      const now = hostTimers.now()
      if (member.server.connections() > 0) {
        open = true
        last = now
        return void (member.expiry = hostTimers.after(Math.min(ttl, 1000), look))
      }
      if (open) {
        open = false
        last = now
      }
      const idle = now - last
      if (idle < ttl) return void (member.expiry = hostTimers.after(ttl - idle, look))
      if (!polled) return void hostTimers.immediate(() => look(true))
      members.delete(id)
      const why = `${id} ended idle after its ttl (${ttl} ms) at ${new Date(hostTimers.now() + (hostTimers.wallOrigin ?? 0)).toISOString()}`
      member.end(why)
      journal('fleet.expire', { id, ttl })
      expired.set(id, { why, server: member.server })
      if (expired.size > REMEMBERED) {
        const [oldest, forgotten] = expired.entries().next().value!
        expired.delete(oldest)
        void forgotten.server.close().catch(() => {})
      }
      void member.fake.close().catch(() => {})
    }
    member.expiry = hostTimers.after(ttl, look)
  }
  return {
    max,
    list: () => [...members.values()].map((m) => m.info),
    gone: (id) => expired.get(id)?.why,
    async create(body, { served, host }) {
      if (closed) throw new ConflictError('This fleet is closing.')
      if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new FieldError('', 'must be a JSON object like {"scenario":{...},"seed":7}, or empty', 'request body')
      const b = body as { scenario?: unknown; seed?: unknown }
      const unknown = Object.keys(b).find((k) => !BODY_FIELDS.includes(k))
      if (unknown !== undefined) throw new FieldError(unknown, `unknown field; allowed: ${BODY_FIELDS.join(', ')}`, 'request body')
      if (b.seed !== undefined && !Number.isSafeInteger(b.seed)) throw new FieldError('seed', 'must be an integer', 'request body')
      if (b.scenario !== undefined && (b.scenario === null || typeof b.scenario !== 'object' || Array.isArray(b.scenario))) throw new FieldError('scenario', 'must be a scenario object (docs/scenarios.md)', 'request body')
      const ttlGiven = (b as { ttl?: unknown }).ttl
      if (ttlGiven !== undefined) {
        const problem = ttlProblem(ttlGiven)
        if (problem) throw new FieldError('ttl', problem, 'request body')
      }
      const ttl = ttlGiven !== undefined ? toMs(ttlGiven as Duration) : options.ttl !== undefined ? toMs(options.ttl) : undefined
      if (members.size + pending >= max) {
        throw new ConflictError(`The fleet is full: ${max} fakes live (the limit, --max-fakes or createDockside({ fleet: { maxFakes } })). DELETE /_dockside/fakes/{id} the ones you are done with (or create them with a "ttl": an idle one then goes by itself); live: ${[...members.keys()].join(', ')}.`)
      }
      const scenario = (b.scenario ?? base.scenario) as O['scenario']
      const own = b.scenario as { seed?: number; clock?: unknown } | undefined
      // A scenario given here decides its own seed and clock unless the body's seed says otherwise.
      const childOptions: O = {
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
        const { protocol, end } = gate(fake)
        let server: RunningServer
        try {
          const { serve } = await import('./transports/server/serve')
          server = await serve(protocol, { host: bound, port: 0 })
        } catch (error) {
          await fake.close()
          throw error
        }
        const hostName = WILDCARD.has(bound) ? (host?.replace(/:\d+$/, '') || '127.0.0.1') : bound.includes(':') && !bound.startsWith('[') ? `[${bound}]` : bound
        const id = `fake-${++next}`
        const info: FleetMember = { id, url: `http://${hostName}:${server.port}`, wsUrl: `ws://${hostName}:${server.port}`, port: server.port, seed: fake.seed, clock: fake.clock.mode }
        if (ttl !== undefined) info.ttl = ttl
        const member: Member = { fake, server, info, end }
        members.set(id, member)
        journal('fleet.create', { id, port: server.port, seed: fake.seed, ...(ttl !== undefined && { ttl }) })
        if (ttl !== undefined) expireWhenIdle(id, member, ttl)
        return info
      } finally {
        pending--
      }
    },
    async remove(id) {
      const m = members.get(id)
      if (!m) return false
      members.delete(id)
      if (m.expiry !== undefined) hostTimers.cancel(m.expiry)
      await closeMember(m)
      journal('fleet.remove', { id })
      return true
    },
    async close() {
      closed = true
      const all = [...members.values()].reverse()
      members.clear()
      for (const m of all) if (m.expiry !== undefined) hostTimers.cancel(m.expiry)
      const ended = [...expired.values()]
      expired.clear()
      const results = await Promise.allSettled([...all.map(closeMember), ...ended.map((e) => e.server.close())])
      const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []))
      if (errors.length) throw new AggregateError(errors, 'Some fakes of the fleet failed to close.')
    },
  }
}
