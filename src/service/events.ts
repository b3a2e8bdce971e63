import type { Clock } from '../time/clock'
import type { CompiledFilter, EventKind, FilterSubject } from './filters'

/** How `time`/`timeNano` are written: integers (the real wire) or the spec sample's float notation. */
export type TimeFormat = 'integer' | 'float'

/** A container event, as the model records it. */
export interface ServiceEvent extends FilterSubject {
  /** Sequence number in the event log, from 1. */
  readonly seq: number
  readonly action: EventKind
  /** Clock time, epoch milliseconds. */
  readonly timeMs: number
  /** Clock time, epoch nanoseconds. */
  readonly timeNano: bigint
  /** Actor attributes, keys sorted as Go writes a map. */
  readonly attributes: Readonly<Record<string, string>>
  /** The events-websocket frame, serialised once and shared by every subscriber. */
  frame(format: TimeFormat): string
  /** The Docker `GET /events` line (with `scope`), serialised once. */
  dockerLine(format: TimeFormat): string
}

export interface EventInput {
  action: EventKind
  id: string
  name: string
  image: string
  labels: Record<string, string>
  instanceType: string
  exitCode: number
}

export interface Subscriber {
  readonly filter: CompiledFilter
  deliver(event: ServiceEvent): void
}

/** The float notation of the spec's sample (`1.476375852e+09`), as a Go tool prints it. */
function sampleFloat(n: number): string {
  return n.toExponential().replace(/e([+-])(\d)$/, 'e$10$2')
}

function makeEvent(seq: number, input: EventInput, timeMs: number, timeNano: bigint): ServiceEvent {
  const attrs: Record<string, string> = { ...input.labels }
  attrs.exitCode = String(input.exitCode)
  attrs.image = input.image
  attrs.name = input.name
  attrs.sh_hyper_instancetype = input.instanceType
  const attributes: Record<string, string> = {}
  for (const k of Object.keys(attrs).sort()) attributes[k] = attrs[k]
  const frames: Partial<Record<TimeFormat, string>> = {}
  const lines: Partial<Record<TimeFormat, string>> = {}
  const body = (format: TimeFormat) => {
    const sec = Number(timeNano / 1_000_000_000n)
    const time = format === 'float' ? sampleFloat(sec) : String(sec)
    const nano = format === 'float' ? sampleFloat(Number(timeNano)) : timeNano.toString()
    const head = `{"status":${JSON.stringify(input.action)},"id":${JSON.stringify(input.id)},"from":${JSON.stringify(input.image)},"Type":"container","Action":${JSON.stringify(input.action)},"Actor":{"ID":${JSON.stringify(input.id)},"Attributes":${JSON.stringify(attributes)}}`
    return { head, tail: `"time":${time},"timeNano":${nano}}` }
  }
  return {
    seq,
    action: input.action,
    id: input.id,
    name: input.name,
    image: input.image,
    labels: input.labels,
    timeMs,
    timeNano,
    attributes,
    // Called once per delivery: a cached string per format, no key built per call.
    frame(format) {
      return (frames[format] ??= (({ head, tail }) => `${head},${tail}`)(body(format)))
    },
    dockerLine(format) {
      return (lines[format] ??= (({ head, tail }) => `${head},"scope":"local",${tail}\n`)(body(format)))
    },
  }
}

export interface EventLog {
  /** Retained events, oldest first. */
  readonly events: readonly ServiceEvent[]
  /** Sequence number of the last event (0 before the first). */
  readonly lastSeq: number
  /** Records an event with the clock's time and delivers it to matching subscribers, in order. */
  append(input: EventInput): ServiceEvent
  /** Adds a subscriber; returns a function that removes it. */
  subscribe(subscriber: Subscriber): () => void
  /** Number of live subscribers. */
  readonly subscriberCount: number
  /** Retained events at or after `sinceMs` (epoch ms) and, if given, not after `untilMs`. */
  between(sinceMs: number, untilMs?: number): ServiceEvent[]
  /** Retained events with `sinceNano <= timeNano` and, if given, `timeNano <= untilNano` (Docker's inclusive bounds). */
  betweenNano(sinceNano: bigint, untilNano?: bigint): ServiceEvent[]
  /** Epoch ms of the oldest event still retained, or undefined. */
  readonly oldestMs: number | undefined
  /**
   * Sequence number of the oldest event still retained (`lastSeq + 1` when none is): O(1), without copying the log
   * (reading `events` applies pending evictions, which copies the retained events). Retained count: `lastSeq - oldestSeq + 1`.
   */
  readonly oldestSeq: number
  /**
   * `timeNano` of the newest event dropped by retention (0n when none was): a replay from `since` at or
   * before it would have a gap.
   */
  readonly evictedThroughNano: bigint
  clear(): void
}

export interface EventLogOptions {
  /** How many events to keep for replay. @default 10000 */
  retain?: number
  /** How long (clock time) events are kept for replay; unlimited when not given. */
  retainForMs?: number
}

/** Converts epoch milliseconds (possibly fractional) to epoch nanoseconds. */
export function msToNano(ms: number): bigint {
  const whole = Math.floor(ms)
  return BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1e6))
}

/** Creates the event log; subscribers are indexed by event kind so an event touches only those that can match. */
export function createEventLog(clock: Clock, options: EventLogOptions = {}): EventLog {
  const retain = options.retain ?? 10_000
  if (!(Number.isInteger(retain) && retain >= 0)) throw new RangeError(`Invalid retainEvents ${retain}: expected an integer >= 0.`)
  let events: ServiceEvent[] = []
  let seq = 0
  let lastNano = 0n
  let evictedThroughNano = 0n
  /** Drops events beyond the count (amortised: at 1.5x) or older than the time retention. */
  const evict = (force: boolean) => {
    let drop = 0
    if (events.length > retain && (force || events.length > Math.max(retain * 1.5, retain + 64))) drop = events.length - retain
    if (options.retainForMs !== undefined) {
      const horizon = clock.now() - options.retainForMs
      while (drop < events.length && events[drop].timeMs < horizon) drop++
    }
    if (drop > 0) {
      evictedThroughNano = events[drop - 1].timeNano
      events = events.slice(drop)
    }
  }
  const any = new Set<Subscriber>()
  const byKind: Record<EventKind, Set<Subscriber>> = { start: new Set(), stop: new Set() }
  let count = 0

  return {
    get events() {
      evict(true)
      return events
    },
    get lastSeq() {
      return seq
    },
    get subscriberCount() {
      return count
    },
    get oldestSeq() {
      // What `events` would keep, without evicting: the last `retain`, then those within the time retention.
      let i = Math.max(0, events.length - retain)
      if (options.retainForMs !== undefined && i < events.length && events[i].timeMs < clock.now() - options.retainForMs) {
        // Events expired by time since the last append: evict them (each event is dropped once).
        evict(true)
        i = 0
      }
      return events[i]?.seq ?? seq + 1
    },
    get oldestMs() {
      evict(true)
      return events[0]?.timeMs
    },
    get evictedThroughNano() {
      evict(true)
      return evictedThroughNano
    },
    append(input) {
      const now = clock.now()
      // Nanosecond times are unique and increasing, as a real daemon's are: two events in the same
      // millisecond differ by 1 ns, so resuming with `since` = last timeNano + 1 ns is exact.
      let timeNano = msToNano(now)
      if (timeNano <= lastNano) timeNano = lastNano + 1n
      lastNano = timeNano
      const event = makeEvent(++seq, input, now, timeNano)
      events.push(event)
      evict(false)
      // Snapshot so that subscribers closing during delivery do not disturb iteration.
      for (const s of [...any, ...byKind[event.action]]) if (s.filter.matches(event)) s.deliver(event)
      return event
    },
    subscribe(subscriber) {
      const kinds = subscriber.filter.kinds
      const sets = kinds ? kinds.map((k) => byKind[k]) : [any]
      for (const s of sets) s.add(subscriber)
      count++
      let done = false
      return () => {
        if (done) return
        done = true
        count--
        for (const s of sets) s.delete(subscriber)
      }
    },
    between(sinceMs, untilMs) {
      evict(true)
      return events.filter((e) => e.timeMs >= sinceMs && (untilMs === undefined || e.timeMs <= untilMs))
    },
    betweenNano(sinceNano, untilNano) {
      evict(true)
      return events.filter((e) => e.timeNano >= sinceNano && (untilNano === undefined || e.timeNano <= untilNano))
    },
    clear() {
      if (events.length) evictedThroughNano = events[events.length - 1].timeNano
      events = []
    },
  }
}
