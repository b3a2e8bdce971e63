import type { FaultRule } from '../faults/plan'
import type { ClockOptions } from '../time/clock'
import type { Duration } from '../time/duration'

/** A scenario: state, a timeline and faults. The format is docs/scenario.schema.json. */
export interface Scenario {
  seed?: number
  clock?: ClockOptions['mode'] | { mode?: ClockOptions['mode']; start?: string | number; speed?: number }
  maxConnectionAge?: Duration
  pushBandwidth?: number
  timeFormat?: 'integer' | 'float'
  containers?: { name: string; image: string; labels?: Record<string, string>; instanceType?: string; running?: boolean }[]
  images?: { name: string; tags?: string[]; layers?: number | number[] }[]
  registries?: { host: string; username?: string; password?: string; token?: string }[]
  timeline?: TimelineStep[]
  faults?: FaultRule[]
}

/** One lifecycle step at a clock time (counted from the clock's start), optionally repeating. */
export interface TimelineStep {
  at: Duration
  every?: Duration
  start?: string
  stop?: string
  create?: string
  remove?: string
  /** A maintenance restart: every events socket is closed with 1001. */
  restart?: boolean
  image?: string
  labels?: Record<string, string>
  instanceType?: string
  exitCode?: number
}
