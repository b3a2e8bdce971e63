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

function makeEvent(seq: number, input: EventInput, timeMs: number): ServiceEvent {
  const whole = Math.floor(timeMs)
  const timeNano = BigInt(whole) * 1_000_000n + BigInt(Math.round((timeMs - whole) * 1e6))
  const attrs: Record<string, string> = { ...input.labels }
  attrs.exitCode = String(input.exitCode)
  attrs.image = input.image
  attrs.name = input.name
  attrs.sh_hyper_instancetype = input.instanceType
  const attributes: Record<string, string> = {}
  for (const k of Object.keys(attrs).sort()) attributes[k] = attrs[k]
  const cache: Partial<Record<string, string>> = {}
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
    frame(format) {
      const key = `ws:${format}`
      if (cache[key] === undefined) {
        const { head, tail } = body(format)
        cache[key] = `${head},${tail}`
      }
      return cache[key]!
    },
    dockerLine(format) {
      const key = `docker:${format}`
      if (cache[key] === undefined) {
        const { head, tail } = body(format)
        cache[key] = `${head},"scope":"local",${tail}\n`
      }
      return cache[key]!
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
  /** Epoch ms of the oldest event still retained, or undefined. */
  readonly oldestMs: number | undefined
  clear(): void
}

export interface EventLogOptions {
  /** How many events to keep for replay. @default 10000 */
  retain?: number
}

/** Creates the event log; subscribers are indexed by event kind so an event touches only those that can match. */
export function createEventLog(clock: Clock, options: EventLogOptions = {}): EventLog {
  const retain = options.retain ?? 10_000
  let events: ServiceEvent[] = []
  let seq = 0
  const any = new Set<Subscriber>()
  const byKind: Record<EventKind, Set<Subscriber>> = { start: new Set(), stop: new Set() }
  let count = 0

  return {
    get events() {
      return events
    },
    get lastSeq() {
      return seq
    },
    get subscriberCount() {
      return count
    },
    get oldestMs() {
      return events[0]?.timeMs
    },
    append(input) {
      const event = makeEvent(++seq, input, clock.now())
      events.push(event)
      if (events.length > retain * 1.5) events = events.slice(events.length - retain)
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
      return events.filter((e) => e.timeMs >= sinceMs && (untilMs === undefined || e.timeMs <= untilMs))
    },
    clear() {
      events = []
    },
  }
}
