import type { FaultPlan } from './faults/plan'
import type { RateLimiter } from './faults/rate-limit'
import type { DeliveryTracker } from './service/delivery'
import { maintenanceRestart } from './protocol/events/socket-hub'
import { checkAccess, type AccessOptions } from './protocol/guard'
import { resolveLimits, type ByteSize } from './protocol/limits'
import { createProtocol, type Protocol } from './protocol/router'
import type { OverrideHandle, OverrideHandler, OverrideOptions, OverrideReply, Overrides } from './protocol/requests/overrides'
import type { RequestLog, RequestPattern } from './protocol/requests/log'
import { createFleet, type Fleet, type FleetOptions } from './fleet'
import { hostTimers } from './runtime/host-timers'
import { applyScenario, applyScenarioAtRuntime, MAX_CONNECTION_AGE_ZERO } from './scenario/apply'
import { checkKeysOnce, validateScenario, validateScenarioSync } from './scenario/load'
import { checkSchema } from './scenario/schema'
import { checkOptions, FieldError, ScenarioError } from './service/errors'
import { SHUTDOWN_REASON } from './service/close-code'
import type { Scenario } from './scenario/scenario'
import type { Containers } from './service/containers'
import type { EventLog, ServiceEvent } from './service/events'
import { EVERY_EVENT } from './service/filters'
import type { Images } from './service/images'
import type { Journal, JournalEntry } from './service/journal'
import type { Registries } from './service/registries'
import { createService, type Service, type ServiceOptions } from './core/service'
import { clockProblem, speedWithout, type Clock } from './time/clock'
import { durationProblem, toMs } from './time/duration'

/** Options of {@link createDockside}; each field documented with its default. */
export interface DocksideOptions extends ServiceOptions, AccessOptions {
  /** A scenario to seed state, timeline and faults; its values yield to the options given here. */
  scenario?: Scenario
  /**
   * Access keys (access key id → secret key). When set, the events websocket verifies the real service's
   * `HYPER-HMAC-SHA256` signed headers and refuses wrong signatures, unknown keys and dates more than
   * 5 minutes from the clock (see docs/docker-compat.md). Unset: signed headers are accepted unchecked.
   * @default the scenario's `accessKeys`, else none
   */
  accessKeys?: Record<string, string>
  /**
   * Largest request body, in bytes or a size like `'8MiB'`; a larger one gets a JSON 413 before it is read whole
   * (a `Content-Length` over it is refused at once), on both ways in. @default '1MiB'
   */
  maxBodySize?: ByteSize
  /**
   * How far an events client may fall behind, in bytes or a size like `'16MiB'`: a websocket whose unsent frames pass it
   * closes with 1013 and a reason naming the backlog; a `GET /events` stream ends. A `since` replay comes on top. @default '4MiB'
   */
  maxBacklog?: ByteSize
  /**
   * Serve a fleet: `POST /_dockside/fakes` on this fake's admin API creates an isolated fake on a port of its own (one per
   * CI worker), `DELETE /_dockside/fakes/{id}` ends it. Members inherit these options. `dockside serve` turns it on.
   * See docs/admin-api.md#fleet. @default off
   */
  fleet?: boolean | FleetOptions
}

/**
 * Options of {@link Dockside.listen}. `adminToken`, `allowedOrigins` and `allowedHosts` override the fake's for
 * this server (see docs/security.md).
 */
export interface ListenOptions extends AccessOptions {
  /** @default '127.0.0.1' */
  host?: string
  /** 0 picks a free port. @default 0 */
  port?: number
  /**
   * Serve `https://` and `wss://` with this PEM key and certificate (see `selfSignedCertificate()`); a Buffer is a
   * Uint8Array (the type names no Node type, for the browser build's users). @default plain HTTP
   */
  tls?: { key: string | Uint8Array; cert: string | Uint8Array }
}

/** A running server: its addresses and how to stop it. */
export interface DocksideServer extends AsyncDisposable {
  /** `http://HOST:PORT` */
  readonly url: string
  /** `ws://HOST:PORT` */
  readonly wsUrl: string
  readonly port: number
  readonly host: string
  /** TCP connections open now (HTTP, streams and websockets): a test can check that its client leaves none behind. */
  connections(): number
  /**
   * Resolves once no request is on its way in to this server: no connection it accepted waits for its first request,
   * no request body is still arriving (each counts for at most 500 ms of wall time). See docs/time.md.
   */
  settled(): Promise<void>
  /** Ends every socket and stops listening; idempotent. */
  close(): Promise<void>
}

/** The fake service. See docs/api.md. */
export interface Dockside extends AsyncDisposable {
  readonly clock: Clock
  readonly containers: Containers
  readonly images: Images
  readonly registries: Registries
  readonly faults: FaultPlan
  /** The token-bucket rate limit behind 429s: `fake.rateLimit.set({ route: 'events', limit: 5, window: '10s' })`. */
  readonly rateLimit: RateLimiter
  /** Each events client across its reconnects: `fake.deliveries.report('client-id')` lists missed and duplicate events. */
  readonly deliveries: DeliveryTracker
  readonly journal: Journal
  /** The event log: every event with its sequence number and time. */
  readonly events: EventLog
  readonly seed: number
  /** The transport-neutral routes, for custom transports. */
  readonly protocol: Protocol
  /** Serves the fake on a real HTTP+WebSocket port. */
  listen(options?: ListenOptions): Promise<DocksideServer>
  /**
   * Hooks `fetch`, `node:http`/`https` and the global `WebSocket` in this process so that the region's real
   * addresses (`https://us-west-1.hyper.test`, `wss://us-west-1.hyper.test:443/events/ws`) reach this fake.
   * Restored by `restore()`, `await using`, or `close()`. See docs/in-process.md.
   */
  intercept(options?: import('./transports/intercept/index').InterceptOptions): Promise<import('./transports/intercept/index').InterceptHandle>
  /**
   * Applies a scenario to the running fake: registries, images, containers, faults, rate limits and a
   * timeline (a storyboard) whose `at`, like its faults' `from`/`until`, counts from the clock's start
   * (`from: 'start'`, as in files) or from now. Validated against the scenario schema; fields that shape the service (seed, clock, ...) are refused.
   * @example await fake.apply({ timeline: [{ at: '30s', restart: true }] }, { from: 'now' })
   */
  apply(scenario: Scenario | unknown, options?: { from?: 'start' | 'now' }): Promise<void>
  /** A maintenance restart: closes every events websocket with 1001 and ends every `GET /events` stream; returns how many. */
  restart(): number
  /**
   * Closes every events websocket with `code` and `reason` (default `closed by the test (fake.closeSockets)`: every close
   * carries a reason) and ends every `GET /events` stream; returns how many.
   */
  closeSockets(code: number, reason?: string): number
  /** Ends every events websocket with no close frame (clients see 1006) and resets every `GET /events` stream; returns how many. */
  dropSockets(): number
  /** Back to the scenario's start: same seed, fresh clock, state, faults, journal, overrides and request log. Live sockets close with 1012. */
  reset(): Promise<void>
  /**
   * Overrides a route until `reset()` (the vitest fixture's fake ends with its test): requests matching `request` get
   * `response` (a status, headers, body, delay on the fake's clock) or a handler's answer, on every way in. The newest
   * match wins. Shorthand for `fake.overrides.use()`. See docs/api.md#per-test-overrides.
   * @example fake.use('POST /images/*\/push', { status: 503, body: { message: 'registry down' } }, { times: 1 })
   */
  use(request: RequestPattern | string, response: OverrideReply | OverrideHandler, options?: OverrideOptions): OverrideHandle
  /** The overrides in place: `use()`, `list()`, `remove(id)`, `clear()`. */
  readonly overrides: Overrides
  /**
   * What the fake received (the last 1,000 requests, events websocket upgrades included, the admin API not): `list(pattern)`,
   * `count(pattern)`, `nearMisses(pattern)`. Secrets are masked. See docs/api.md#request-verification.
   */
  readonly requests: RequestLog
  /**
   * Listens to what the fake does: `'journal'` for every journal entry, `'event'` for every container event.
   * Survives `reset()`. Returns a function that stops listening.
   */
  on<K extends keyof DocksideEvents>(type: K, listener: (value: DocksideEvents[K]) => void): () => void
  /**
   * Resolves once no request is on its way in to any of the fake's real servers (`listen()`): a connection accepted
   * with no request yet, a body still arriving. `clock.advance()`, `next()` and `runAll()` await it before they fire
   * anything, so a request sent before the advance is seen at the clock time it was sent. See docs/time.md.
   */
  settled(): Promise<void>
  /** Closes every server, socket and timer; idempotent. */
  close(): Promise<void>
}

/** What {@link Dockside.on} reports. */
export interface DocksideEvents {
  journal: JournalEntry
  event: ServiceEvent
}

/** Every option of createDockside: JS callers get a clear error for a typo (TypeScript already refuses it). Add new options here. */
const OPTION_NAMES: Record<keyof DocksideOptions, true> = {
  seed: true,
  clock: true,
  maxConnectionAge: true,
  pushBandwidth: true,
  timeFormat: true,
  retainEvents: true,
  retainEventsFor: true,
  rateLimit: true,
  scenario: true,
  accessKeys: true,
  adminToken: true,
  allowedOrigins: true,
  allowedHosts: true,
  maxBodySize: true,
  maxBacklog: true,
  fleet: true,
}

/** Every option of fake.listen, checked the same way (a typo such as `admintoken` would leave the admin API open). */
const LISTEN_OPTION_NAMES: Record<keyof ListenOptions, true> = { host: true, port: true, tls: true, adminToken: true, allowedOrigins: true, allowedHosts: true }

/** Every option of fake.intercept. */
const INTERCEPT_OPTION_NAMES: Record<keyof import('./transports/intercept/index').InterceptOptions, true> = { region: true, domain: true, baseUrl: true, wsBaseUrl: true, onUnhandled: true }
/** The in-process hooks' module, once loaded (a dynamic import resolves it again on every call). */
let interceptModule: Promise<typeof import('./transports/intercept/index')> | undefined

/**
 * The `clock` option's start and speed (a scenario's are checked with the scenario): a start the fake can represent, a
 * speed within the admin API's cap. Out of them, every answer of the fake failed with "Invalid time value".
 */
function checkClockOption(clock: DocksideOptions['clock']): void {
  if (clock === null || typeof clock !== 'object') return
  const problem = clockProblem(clock)
  if (problem) throw new FieldError(`clock.${problem.path}`, problem.expected, 'createDockside options')
}

/** The `maxConnectionAge` option: a duration above 0 (a scenario's is checked with the scenario). */
function checkMaxConnectionAge(age: DocksideOptions['maxConnectionAge']): void {
  if (age === undefined) return
  const problem = durationProblem(age)
  if (problem) throw new FieldError('maxConnectionAge', problem.expected, 'createDockside options')
  if (toMs(age) === 0) throw new FieldError('maxConnectionAge', MAX_CONNECTION_AGE_ZERO, 'createDockside options')
}

/** A scenario's FieldError as a ScenarioError, so a scenario given in code reads as one given in a file. */
function asScenarioError(error: unknown): unknown {
  return error instanceof FieldError ? new ScenarioError('(scenario)', error.path, error.expected) : error
}

function buildOptions(options: DocksideOptions): ServiceOptions {
  const s = options.scenario ?? {}
  const scenarioClock = typeof s.clock === 'string' ? { mode: s.clock } : s.clock
  const optClock = typeof options.clock === 'string' ? { mode: options.clock } : options.clock
  const clock = { ...scenarioClock, ...optClock }
  // Each clock was checked on its own; merged, the options' mode may meet the scenario's speed.
  const mode = clock.mode ?? 'virtual'
  if (clock.speed !== undefined && mode !== 'real') {
    const fromOptions = typeof optClock === 'object' && optClock.speed !== undefined
    if (fromOptions) throw new FieldError('clock.speed', speedWithout(mode), 'createDockside options')
    throw new ScenarioError('(scenario)', 'clock.speed', `${speedWithout(mode)} (the clock is ${mode}${optClock?.mode !== undefined ? ' by the createDockside clock option' : ''})`)
  }
  // `real` starts at the wall time unless a start is given (the clock reads it from its host when it is made);
  // virtual and auto start at a fixed date.
  return {
    seed: options.seed ?? s.seed,
    clock,
    maxConnectionAge: options.maxConnectionAge ?? s.maxConnectionAge,
    pushBandwidth: options.pushBandwidth ?? s.pushBandwidth,
    timeFormat: options.timeFormat ?? s.timeFormat,
    retainEvents: options.retainEvents ?? s.retainEvents,
    retainEventsFor: options.retainEventsFor ?? s.retainEventsFor,
    rateLimit: options.rateLimit ?? s.rateLimit,
  }
}

/**
 * Creates a fake of the service: virtual clock and seed 1 unless told otherwise.
 * @example
 * await using fake = createDockside({ seed: 42 })
 * fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 3 })
 * const server = await fake.listen({ port: 0 })
 */
export function createDockside(options: DocksideOptions = {}): Dockside {
  checkOptions<DocksideOptions>(options, OPTION_NAMES, 'createDockside options')
  if (options.scenario !== undefined) validateScenarioSync(options.scenario)
  checkClockOption(options.clock)
  checkMaxConnectionAge(options.maxConnectionAge)
  const serviceOptions = buildOptions(options)
  const access = checkAccess(options)
  const limits = resolveLimits(options)
  let svc: Service
  const servers = new Set<DocksideServer>()
  const hooks = new Set<{ restore(): void; settled?(): Promise<void> }>()
  let closed = false

  const restart = () => maintenanceRestart(svc, protocol.hub)
  const applyHooks = { restart, closeSockets: (code: number, reason: string) => protocol.hub.closeAll(code, reason), dropSockets: () => protocol.hub.dropAll() }
  const listeners = { journal: new Set<(v: JournalEntry) => void>(), event: new Set<(v: ServiceEvent) => void>() }
  const build = () => {
    svc = createService(serviceOptions, hostTimers, checkSchema, settled)
    svc.journal.subscribe((entry) => listeners.journal.forEach((l) => l(entry)))
    svc.log.subscribe({ filter: EVERY_EVENT, deliver: (event) => listeners.event.forEach((l) => l(event)) })
    if (options.scenario) {
      try {
        applyScenario(svc, options.scenario, applyHooks)
      } catch (error) {
        throw asScenarioError(error)
      }
    }
  }
  // Traffic on its way (requests in to the real servers, closes out of them, frames and closes of in-process sockets):
  // every advance of the clock lets it arrive first.
  const settled = async () => {
    if (servers.size === 1 && hooks.size === 0) return [...servers][0]!.settled()
    if (servers.size > 0 || hooks.size > 0) await Promise.all([...[...servers].map((s) => s.settled()), ...[...hooks].map((h) => h.settled?.())])
  }
  // The live feed's pace runs on the host timers the clock runs on: `clock.host` when given (a test's own), else the
  // host's, captured at import.
  const paceHost = (typeof options.clock === 'object' && options.clock.host) || hostTimers
  const protocol: Protocol = createProtocol({
    service: () => svc,
    reset: async () => fake.reset(),
    accessKeys: () => options.accessKeys ?? options.scenario?.accessKeys,
    access: () => access,
    apply: async (scenario, { from, text }) => {
      if (text !== undefined) await checkKeysOnce(text, '(scenario)')
      return fake.apply(scenario, { from })
    },
    pace: (ms) => new Promise<void>((resolve) => paceHost.after(ms, resolve)),
    hostNow: () => paceHost.now(),
    // The dashboard's files are read on the first /_dockside/ui request, not at start-up.
    uiAsset: async (file) => (await import('./ui/assets')).readUiAsset(file),
    limits,
    fleet: () => fleet,
  })
  // Members are built from these options, less the fleet itself (a member cannot grow one).
  const fleet: Fleet | undefined = options.fleet
    ? createFleet(createDockside, { ...options, fleet: undefined }, options.fleet === true ? {} : options.fleet, (type, ...data) => svc.journal.record(type, ...data))
    : undefined
  if (fleet && (!Number.isInteger(fleet.max) || fleet.max < 1)) throw new FieldError('fleet.maxFakes', 'must be an integer of 1 or more', 'createDockside options')
  build()

  const fake: Dockside = {
    get clock() { return svc.clock },
    get containers() { return svc.containers },
    get images() { return svc.images },
    get registries() { return svc.registries },
    get faults() { return svc.faults },
    get rateLimit() { return svc.rateLimit },
    get deliveries() { return svc.deliveries },
    get journal() { return svc.journal },
    get events() { return svc.log },
    get seed() { return svc.random.seed },
    protocol,
    use: (request, response, useOptions) => protocol.overrides.use(request, response, useOptions),
    overrides: protocol.overrides,
    requests: protocol.requests,
    async listen(listenOptions = {}) {
      if (closed) throw new Error('This fake is closed; create a new one with createDockside().')
      checkOptions<ListenOptions>(listenOptions, LISTEN_OPTION_NAMES, 'fake.listen options')
      const { serve } = await import('./transports/server/serve')
      const server = await serve(protocol, { ...listenOptions, access: checkAccess(listenOptions) })
      const wrapped: DocksideServer = {
        url: server.url,
        wsUrl: server.wsUrl,
        port: server.port,
        host: server.host,
        connections: () => server.connections(),
        settled: () => server.settled(),
        close: async () => {
          servers.delete(wrapped)
          await server.close()
        },
        [Symbol.asyncDispose]: () => wrapped.close(),
      }
      servers.add(wrapped)
      return wrapped
    },
    async intercept(interceptOptions) {
      if (closed) throw new Error('This fake is closed; create a new one with createDockside().')
      if (interceptOptions !== undefined) checkOptions(interceptOptions, INTERCEPT_OPTION_NAMES, 'fake.intercept options')
      const { intercept } = await (interceptModule ??= import('./transports/intercept/index'))
      const handle = await intercept(fake, interceptOptions)
      hooks.add(handle)
      return handle
    },
    restart,
    settled,
    async apply(scenario, applyOptions = {}) {
      const valid = await validateScenario(scenario, '(scenario)')
      try {
        applyScenarioAtRuntime(svc, valid, applyHooks, applyOptions.from === 'now' ? svc.clock.elapsed() : 0)
      } catch (error) {
        throw asScenarioError(error)
      }
      svc.journal.record('scenario.apply', { from: applyOptions.from ?? 'start', fields: Object.keys(valid) })
    },
    on(type, listener) {
      const set = listeners[type] as Set<typeof listener>
      set.add(listener)
      return () => void set.delete(listener)
    },
    closeSockets: (code, reason = 'closed by the test (fake.closeSockets)') => protocol.hub.closeAll(code, reason),
    dropSockets: () => protocol.hub.dropAll(),
    async reset() {
      protocol.hub.closeAll(1012, 'the fake was reset; reconnect to continue')
      svc.clock.dispose()
      protocol.overrides.clear()
      protocol.requests.clear()
      build()
    },
    async close() {
      if (closed) return
      closed = true
      const errors: unknown[] = []
      // Reverse order of creation; a step that fails does not stop the others, and its error is kept.
      if (fleet) await fleet.close().catch((e: unknown) => errors.push(e))
      for (const s of [...servers].reverse()) await s.close().catch((e: unknown) => errors.push(e))
      for (const h of [...hooks].reverse()) {
        try {
          h.restore()
        } catch (e) {
          errors.push(e)
        }
      }
      hooks.clear()
      protocol.hub.closeAll(1001, SHUTDOWN_REASON)
      svc.clock.dispose()
      if (errors.length) throw new AggregateError(errors, 'Some parts of the fake failed to close.')
    },
    [Symbol.asyncDispose]: () => fake.close(),
  }
  return fake
}
