import type { Filters } from './filters'

// Every kind of journal entry and its fields: the one list a `journal.record()` anywhere in src/ is checked against
// (a new kind, or a field of another type, does not compile until it is listed here), and what a user's
// `fake.journal.ofType('ws.close')` is typed by. The journal is in the model (floor 1), so types of the floors above
// (fault actions, timeline steps, rate-limit rules) are described by their shape here. docs/api.md#the-journal.

/** A scenario's timeline step (the scenario's `TimelineStep`): when it runs, and what it does in its other fields. */
interface TimelineStepShape {
  at: string | number
  every?: string | number
  say?: string
}

/** Where a fault rule applies (the fault plan's `FaultSite`). */
type Site = 'events' | 'push'

/** The fields of each kind of journal entry, by its `type`. */
export interface JournalEntryFields {
  /** A request answered (every way in; the admin API's too). The events websocket's upgrade is one, status 101. */
  request: { method: string; path: string; status: number; client: string | undefined }
  /** The admin guard refused a request (origin, host or token): see docs/security.md. */
  'access.refused': { path: string; status: number; reason: string; origin: string | undefined; host: string | undefined }
  /** A signed request (HYPER-HMAC-SHA256) refused. */
  'auth.refused': { path: string; status: number; reason: string }
  /** A signed request verified, or taken unverified (an access key the fake does not know). */
  'auth.signed': { accessKey: string; verified: boolean }
  /** `POST /auth`: a login to a registry. */
  'auth.login': { registry: string; username: string | undefined; status: 'ok' | 'refused'; known: boolean }
  /** A per-test override answered (`fake.use`). */
  override: { id: string; method: string; path: string; status: number | 'passthrough'; delayMs: number }

  /** An events websocket opened. `socket` numbers the sockets; `client` is the client id (or the socket's own). */
  'ws.open': { socket: number; client: string; filters: Filters; since: string | undefined; until: string | undefined }
  /** An events websocket failed while it opened (it closes with 1011). */
  'ws.error': { socket: number; client: string; message: string }
  /** An events websocket closed: by the server (with a code), the client, or dropped (1006). */
  'ws.close': { socket: number; client: string; by: 'server' | 'drop' | 'client'; code: number; reason: string; sent: number; openFor: number }
  /** An events websocket fell more than `maxBacklog` behind and was closed with 1013. */
  'ws.backlog': { socket: number; client: string; backlog: number | undefined; limit: number; sent: number }
  /** A `GET /events` stream fell more than `maxBacklog` behind and was cut. */
  'stream.backlog': { socket: number; client: string; backlog: number; limit: number; sent: number }
  /** `fake.restart()`: every events socket closed with 1001. */
  'maintenance.restart': { closed: number }

  /** A container created (the model's own entry). */
  'container.create': { id: string; name: string; image: string }
  /** A container started or stopped through the Docker API. */
  'container.start': { id: string; name: string; via: 'docker-api' }
  'container.stop': { id: string; name: string; via: 'docker-api' }
  /** `POST /images/{name}/tag`. */
  'image.tag': { source: string; target: string }

  /** A push began: its repository, the tags it pushes, the registry and the credentials (masked). */
  'push.start': { repository: string; tags: string[]; registry: string; auth: Record<string, string> | undefined }
  /** A tag committed to the registry. */
  'push.tag': { repository: string; tag: string; registry: string; digest: string; user: string | undefined }
  /** A push ended, every tag committed. */
  'push.done': { repository: string; tags: string[]; registry: string; user: string | undefined }
  /** A push failed: refused (`message`) or struck by a fault (`fault`, where it struck). */
  'push.failed': { repository: string; registry: string; message?: string; fault?: string; layersDone?: number; bytes?: number }
  /** A push ended before it was done: by the client (it left), a `reset()`, or the server's close. */
  'push.cancelled': { repository: string; tag: string | undefined; registry: string; layersDone?: number; bytes?: number; by: 'client' | 'reset' | 'server' }
  /** A scenario's push step refused. */
  'push.refused': { repository: string; client: string; message: string }

  /** A fault rule added. `detail` is the rule as given. */
  'fault.add': { rule: string; detail: { on: Site; [field: string]: unknown } }
  /** A fault rule fired: its action (`detail`, with `kind`) and the request it matched. */
  fault: {
    rule: string
    site: Site
    match: number
    fired: number
    action: string
    detail: { kind: string; [field: string]: unknown }
    route?: string
    image?: string
    client?: string
    filters?: Filters
    reconnect?: boolean
  }
  /** A fault rule matched and let the request through (`after`, `every`). */
  'fault.skip': { rule: string; site: Site; match: number; why: string }
  /** A seeded draw: whether a rule with a `probability` fires (`site`, `match`, `probability`, `fires`), or a jitter (`purpose`, `jitterMs`). */
  'fault.draw': { rule: string; draw: number; site?: Site; match?: number; probability?: number; fires?: boolean; purpose?: string; jitterMs?: number }
  /** A firing taken back (a push that ended before its fault struck). */
  'fault.missed': { rule: string; why: string; fired: number | undefined }
  /** A rate-limit decision: allowed, or refused (429) with the wait. */
  ratelimit: { route: string; client: string | undefined; rule: number; allowed: boolean; retryAfterMs?: number }
  /** The rate-limit rules set (`undefined`: none). */
  'ratelimit.set': { rules: unknown }

  /** The `auto` or `real` clock stopped a chain of zero-delay timers. `at` is an ISO time. */
  'clock.loop': { at: string; fired: number }
  'clock.pause': Record<never, never>
  'clock.resume': Record<never, never>
  'clock.speed': { speed: number }

  /** `fake.apply(scenario)`. */
  'scenario.apply': { from: 'start' | 'now'; fields: string[] }
  /** A timeline step paused the scenario (a presenter's demo), and what continues it. */
  'scenario.pause': { say: string | undefined; hint: string }
  'scenario.continue': { via?: string }
  /** A timeline step's caption. */
  say: { text: string; at: string | number | undefined }
  /** A timeline step ran, or failed (`message`). */
  timeline: { step: TimelineStepShape }
  'timeline.error': { step: TimelineStepShape; message: string }

  /** A fleet member created, removed, or expired (its `ttl` passed). */
  'fleet.create': { id: string; port: number; seed: number; ttl?: string | number }
  'fleet.remove': { id: string }
  'fleet.expire': { id: string; ttl: string | number | undefined }
}

/** A journal entry's `type`: `request`, `ws.close`, `push.done`, ... */
export type JournalEntryType = keyof JournalEntryFields

/** What every journal entry has. */
export interface JournalEntryBase<T extends JournalEntryType = JournalEntryType> {
  /** Monotonic number of the entry. */
  seq: number
  /** Clock time of the entry, epoch milliseconds. */
  time: number
  /** What happened. */
  type: T
}

/** The entry of one type: `JournalEntryOf<'ws.close'>` has `code`, `reason`, `by`, ... */
export type JournalEntryOf<T extends JournalEntryType> = T extends JournalEntryType ? JournalEntryBase<T> & JournalEntryFields[T] : never

/** A prefix of types that share one (`push.`, `fault.`, `ws.`): `ofType('push.')` takes every push entry. */
export type JournalTypePrefix = JournalEntryType extends infer T ? (T extends `${infer Head}.${string}` ? `${Head}.` : never) : never

/** The entries a type or a prefix of types selects. */
export type JournalSelection<S extends JournalEntryType | JournalTypePrefix> = S extends JournalEntryType
  ? JournalEntryOf<S>
  : JournalEntryOf<Extract<JournalEntryType, `${S}${string}`>>
