import { createFaultPlan, type FaultPlan, type SchemaCheck } from '../faults/plan'
import { createRateLimiter, type RateLimitConfig, type RateLimiter } from '../faults/rate-limit'
import { createClock, type Clock, type ClockLoop, type ClockOptions, type HostTimers } from '../time/clock'
import { toMs, type Duration } from '../time/duration'
import { createContainers, type Containers } from '../service/containers'
import { createDeliveryTracker, type DeliveryTracker } from '../service/delivery'
import { createEventLog, type EventLog, type TimeFormat } from '../service/events'
import { createImages, type Images } from '../service/images'
import { createJournal, type Journal } from '../service/journal'
import { createRandom, type RandomSource } from '../service/random'
import { createRegistries, type Registries } from '../service/registries'
import { createPushBoard, type PushBoard } from '../service/push-board'

/** Options of the service model; every field is optional. */
export interface ServiceOptions {
  /** Seed of ids, names, digests and random fault draws. @default 1 */
  seed?: number
  /** The clock: a mode, or clock options. @default 'virtual' */
  clock?: ClockOptions['mode'] | ClockOptions
  /** Maximum age of an events connection before the server closes it (1000). @default '24h' */
  maxConnectionAge?: Duration
  /** Push bandwidth in bytes per second of clock time. @default 20_000_000 (20 MB/s) */
  pushBandwidth?: number
  /** `time`/`timeNano` as integers (the real wire) or the spec sample's float notation. @default 'integer' */
  timeFormat?: TimeFormat
  /** Events kept for replay. @default 10000 */
  retainEvents?: number
  /** How long events are kept for replay (clock time); a `since` before it is refused with close 4410. @default unlimited */
  retainEventsFor?: Duration
  /** A token-bucket rate limit answering 429 with a truthful Retry-After. @default none */
  rateLimit?: RateLimitConfig
}

/** The model: pure state plus the clock, seeded source, event log, journal and fault plan. */
export interface Service {
  readonly options: Required<Omit<ServiceOptions, 'clock' | 'retainEventsFor' | 'rateLimit'>> & { maxConnectionAgeMs: number; retainEventsFor?: Duration }
  readonly clock: Clock
  readonly random: RandomSource
  readonly journal: Journal
  readonly log: EventLog
  readonly containers: Containers
  readonly images: Images
  readonly registries: Registries
  readonly faults: FaultPlan
  readonly rateLimit: RateLimiter
  /** Each events client across its reconnects: what it missed and got twice. */
  readonly deliveries: DeliveryTracker
  /** Pushes in flight and recently ended, layer by layer (the dashboard's view). */
  readonly pushes: PushBoard
  /** Checks input against the JSON Schema (injected by createDockside; none: only the checks in code). */
  readonly check: SchemaCheck
}

export function createService(options: ServiceOptions = {}, host?: HostTimers, check: SchemaCheck = () => {}, settle?: () => Promise<void>): Service {
  const seed = options.seed ?? 1
  const clockOptions: ClockOptions = typeof options.clock === 'object' ? { ...options.clock } : { mode: options.clock ?? 'virtual' }
  // A chain of zero-delay timers the auto or real clock stopped is journaled (the clock itself knows no journal).
  const onLoop = (loop: ClockLoop) => {
    journal.record('clock.loop', { at: new Date(loop.at).toISOString(), fired: loop.fired })
    clockOptions.onLoop?.(loop)
  }
  // `settle`: requests on their way in to the fake's servers arrive before an advance fires anything (see ClockOptions).
  const clock = createClock({ ...clockOptions, host: clockOptions.host ?? host, onLoop, settle: settle ?? clockOptions.settle })
  const random = createRandom(seed)
  const journal = createJournal(() => clock.now(), undefined, () => clock.lifetime)
  const log = createEventLog(clock, { retain: options.retainEvents, retainForMs: options.retainEventsFor === undefined ? undefined : toMs(options.retainEventsFor, 'retainEventsFor') })
  const rateLimit = createRateLimiter({ now: () => clock.now(), journal, check })
  if (options.rateLimit !== undefined) rateLimit.set(options.rateLimit)
  const now = () => clock.now()
  const images = createImages({ random, now })
  const maxConnectionAge = options.maxConnectionAge ?? '24h'
  const pushBandwidth = options.pushBandwidth ?? 20_000_000
  if (!(pushBandwidth > 0)) throw new RangeError(`Invalid pushBandwidth ${pushBandwidth}: expected bytes per second above 0.`)
  const timeFormat = options.timeFormat ?? 'integer'
  if (timeFormat !== 'integer' && timeFormat !== 'float') throw new RangeError(`Invalid timeFormat "${timeFormat}": expected "integer" or "float".`)
  return {
    options: {
      seed,
      maxConnectionAge,
      maxConnectionAgeMs: toMs(maxConnectionAge, 'maxConnectionAge'),
      pushBandwidth,
      timeFormat,
      retainEvents: options.retainEvents ?? 10_000,
      retainEventsFor: options.retainEventsFor,
    },
    clock,
    random,
    journal,
    log,
    containers: createContainers({ random, log, now, journal, imageId: (image) => images.resolve(image)?.id }),
    images,
    registries: createRegistries(),
    // Fault draws from a stream of their own: a client's reconnects or a second subscriber never shift the ids.
    faults: createFaultPlan({ journal, random: createRandom(seed, 1), elapsed: () => clock.elapsed(), check }),
    rateLimit,
    deliveries: createDeliveryTracker({ log, now, startedAt: clock.startedAt }),
    pushes: createPushBoard(),
    check,
  }
}
