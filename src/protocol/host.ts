// What the protocol needs from the fake around it (the fleet it may serve included): a module of types only, below the
// router and the admin API, which both read it (they imported each other for it).
import type { Service } from '../core/service'
import type { ProtocolLimits } from './limits'
import type { AccessKeys } from './signing'
import type { AccessOptions, Served } from './types'

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

/** What a fake that serves a fleet gives the protocol (src/fleet.ts); its admin routes are admin/fleet.ts. */
export interface FleetHost {
  /** Creates a fake from an optional body `{ scenario?, seed?, ttl? }`, on its own port; `served`/`host` say how the caller reached this one. */
  create(body: unknown, reachedAs: { served: Served | undefined; host: string | undefined }): Promise<FleetMember>
  remove(id: string): Promise<boolean>
  list(): FleetMember[]
  /** Why a fake that is no longer listed went (it ended idle after its ttl), if the fleet remembers it. */
  gone?(id: string): string | undefined
  readonly max: number
}

/** A file of the dashboard, as the host reads it. */
export interface UiAsset {
  contentType: string
  body: string
}

/** What the protocol needs from the fake around it. */
export interface ProtocolHost {
  /** The current service (it changes on reset). */
  service(): Service
  /** Resets to the scenario's start. */
  reset(): Promise<void>
  /** Access keys (id → secret) that events-websocket signatures are verified against; none: accept any. */
  accessKeys?(): AccessKeys | undefined
  /** Who may use the admin API and the events websocket (admin token, allowed origins and hosts); each transport may override per request. */
  access?(): AccessOptions
  /**
   * Validates and applies a scenario (state, faults, rate limits, timeline) to the running fake. `text`: the JSON it was
   * parsed from, read as a scenario file is (a key given twice is refused).
   */
  apply?(scenario: unknown, options: { from: 'start' | 'now'; text?: string }): Promise<void>
  /** Resolves after `ms` of host time (the live feed's pacing); none: changes are coalesced per microtask turn only. */
  pace?(ms: number): Promise<void>
  /** Milliseconds of host time (monotonic), for what the protocol's own work costs; none: it is not measured. */
  hostNow?(): number
  /** A file of the dashboard (`index.html`, `app.js`...), read lazily; none: no dashboard is served. */
  uiAsset?(file: string): Promise<UiAsset | undefined>
  /** Request body and client backlog limits. @default 1 MiB bodies, 4 MiB backlog */
  limits?: ProtocolLimits
  /** `POST|GET|DELETE /_dockside/fakes`: the fleet of isolated fakes this one serves, when it serves one (admin/fleet.ts). */
  fleet?(): FleetHost | undefined
}
