import type { FaultRule } from '../faults/plan'
import type { RateLimitConfig } from '../faults/rate-limit'
import type { ClockOptions } from '../time/clock'
import type { Duration } from '../time/duration'

/** A scenario: state, a timeline and faults. The format is docs/scenario.schema.json. */
export interface Scenario {
  seed?: number
  clock?: ClockOptions['mode'] | { mode?: ClockOptions['mode']; start?: string | number; speed?: number }
  maxConnectionAge?: Duration
  pushBandwidth?: number
  timeFormat?: 'integer' | 'float'
  /** Events kept for replay with `since`. */
  retainEvents?: number
  /** How long events are kept for replay. */
  retainEventsFor?: Duration
  /** Token-bucket rate limits answering 429 with a truthful Retry-After. */
  rateLimit?: RateLimitConfig
  /** `id`: a recorded container's id (64 hex). */
  containers?: { id?: string; name: string; image: string; labels?: Record<string, string>; instanceType?: string; networkMode?: 'bridge' | 'host' | 'none'; running?: boolean }[]
  /** `id`, `manifest` and layers as `{ digest, size }`: a recorded image's (docs/recording.md). */
  images?: { name: string; tags?: string[]; layers?: number | (number | { digest: string; size: number })[]; id?: string; manifest?: { digest: string; size: number } }[]
  registries?: { host: string; username?: string; password?: string; token?: string }[]
  timeline?: TimelineStep[]
  faults?: FaultRule[]
  /** Access key id → secret key: the events websocket verifies HYPER-HMAC-SHA256 signatures against them. */
  accessKeys?: Record<string, string>
  /** Ignored: keys that hold YAML anchors for the rest of the file (`x-common: &common ...`), as in compose files. */
  [key: `x-${string}`]: unknown
}

/** One lifecycle step at a clock time (counted from the clock's start), optionally repeating. */
export interface TimelineStep {
  at: Duration
  every?: Duration
  start?: string
  stop?: string
  create?: string
  remove?: string
  /** A maintenance restart: every events websocket is closed with 1001, every `GET /events` stream ended. */
  restart?: boolean
  /** Close every events websocket with this code and reason, and end every `GET /events` stream. */
  close?: { code: number; reason?: string }
  /** End every events websocket with no close frame (clients see 1006) and reset every `GET /events` stream. */
  drop?: boolean
  /** Add these fault rules at this time (their `from`/`until` count from the clock's start). */
  faults?: FaultRule[]
  /** Push this image (name with an optional `:tag`) from inside the fake; push fault rules apply. */
  push?: string
  /** A caption shown on the dashboard and in the log when the step runs. */
  say?: string
  /** Pause the clock after this step until the presenter continues. */
  pause?: boolean
  image?: string
  labels?: Record<string, string>
  instanceType?: string
  exitCode?: number
  /** On a `start` or `stop` step: the time its event carries, epoch nanoseconds as a string of digits (a recording's). */
  timeNano?: string
}
