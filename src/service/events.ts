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
  /**
   * The Docker `GET /events` line (with `scope`), serialised once. Always integer times, whatever `timeFormat` says:
   * Docker clients decode `time` and `timeNano` as int64 (the docker CLI fails on `1.476375852e+09`).
   */
  dockerLine(): string
}

export interface EventInput {
  action: EventKind
  id: string
  name: string
  image: string
  /** The id of the container's image, when the fake has it (for the websocket's `image` filter by id). */
  imageId?: string
  labels: Record<string, string>
  instanceType: string
  exitCode: number
  /**
   * The event's time, epoch nanoseconds, when it was recorded elsewhere (a recording's timeline step): the event is
   * stamped with it instead of the clock's time, so a replay shows the recorded time to the nanosecond. Times stay
   * unique and increasing: one not after the last event's is moved to 1 ns after it. @default the clock's time
   */
  timeNano?: bigint
}

export interface Subscriber {
  readonly filter: CompiledFilter
  deliver(event: ServiceEvent): void
}

/** The float notation of the spec's sample (`1.476375852e+09`), as a Go tool prints it. */
function sampleFloat(n: number): string {
  return n.toExponential().replace(/e([+-])(\d)$/, 'e$10$2')
}

/**
 * An events-websocket frame as a client parses it: Docker's event message for a container, without `scope`. `time` is
 * epoch seconds, `timeNano` epoch nanoseconds (a JSON number beyond 2^53: read the text if every digit matters).
 */
export interface EventFrame {
  status: 'start' | 'stop'
  id: string
  /** The container's image. */
  from: string
  Type: 'container'
  Action: 'start' | 'stop'
  /** `Attributes`: the container's labels, then `image`, `instanceType`, `name`, and `exitCode` on a stop. */
  Actor: { ID: string; Attributes: Record<string, string> }
  time: number
  timeNano: number
}

/**
 * The part of a frame that depends only on the container and the action (everything before `time`), cached per
 * labels object: a container keeps its labels object for life, so its events reuse one string instead of copying,
 * sorting and serialising the attributes per event. Bounded per labels object (a shared one is cleared when full).
 */
const heads = new WeakMap<object, Head[]>()
const HEADS_PER_LABELS = 64

/** A cached head and the fields it was built from (compared one by one: no key string is built per event). */
interface Head {
  readonly action: string
  readonly id: string
  readonly name: string
  readonly image: string
  readonly instanceType: string
  readonly exitCode: number
  readonly text: string
}

function headOf(input: EventInput): string {
  let kept = heads.get(input.labels)
  if (!kept) heads.set(input.labels, (kept = []))
  for (let i = 0; i < kept.length; i++) {
    const h = kept[i]
    if (h.action === input.action && h.id === input.id && h.exitCode === input.exitCode && h.name === input.name && h.image === input.image && h.instanceType === input.instanceType) return h.text
  }
  if (kept.length >= HEADS_PER_LABELS) kept.length = 0
  const text = goEscape(`{"status":${JSON.stringify(input.action)},"id":${JSON.stringify(input.id)},"from":${JSON.stringify(input.image)},"Type":"container","Action":${JSON.stringify(input.action)},"Actor":{"ID":${JSON.stringify(input.id)},"Attributes":${JSON.stringify(attributesOf(input))}}`)
  kept.push({ action: input.action, id: input.id, name: input.name, image: input.image, instanceType: input.instanceType, exitCode: input.exitCode, text })
  return text
}

/** What Go's encoding/json writes escaped that JSON.stringify does not: `<`, `>`, `&` (HTML-safe), U+2028, U+2029. */
const GO_ESCAPED = /[<>&\u2028\u2029]/g
const goEscapeChar = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
/** JSON text as Go's encoder writes it (the real service's frames): the same value, the same bytes. */
function goEscape(json: string): string {
  GO_ESCAPED.lastIndex = 0
  return GO_ESCAPED.test(json) ? json.replace(GO_ESCAPED, goEscapeChar) : json
}

/**
 * Go sorts map keys by their UTF-8 bytes, which is code point order; JavaScript's default sort compares UTF-16 code
 * units, which differs only when a key has a character past U+FFFF against one from U+E000 to U+FFFF.
 */
function goKeyOrder(a: string, b: string): number {
  if (a === b) return 0
  const [x, y] = [[...a], [...b]]
  for (let i = 0; i < x.length && i < y.length; i++) {
    if (x[i] !== y[i]) return x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!
  }
  return x.length - y.length
}
const ASTRAL = /[\ud800-\udfff]/

/**
 * Actor attributes, keys sorted as Go writes a map. Built with own data properties, so a label named `__proto__` is
 * kept as any other (an assignment would set the prototype instead).
 */
function attributesOf(input: EventInput): Record<string, string> {
  const attrs = new Map(Object.entries(input.labels))
  attrs.set('exitCode', String(input.exitCode))
  attrs.set('image', input.image)
  attrs.set('name', input.name)
  attrs.set('sh_hyper_instancetype', input.instanceType)
  const keys = [...attrs.keys()]
  keys.sort(keys.some((k) => ASTRAL.test(k)) ? goKeyOrder : undefined)
  return Object.fromEntries(keys.map((k) => [k, attrs.get(k)!]))
}

/**
 * The last frame and the last line built, with the event and format they belong to. Every subscriber of an event takes
 * its frame in the same turn, so one slot each serves them all; events in the log keep no strings of their own (10,000
 * retained frames were most of what the collector had to promote and trace).
 */
const built: { frameEvent?: Event; frameFormat?: TimeFormat; frameText: string; lineEvent?: Event; lineText: string } = { frameText: '', lineText: '' }

/**
 * An event: the clock time is kept as whole milliseconds plus nanoseconds within them, so that making and framing
 * an event needs no BigInt arithmetic; `timeNano` and `attributes` are built on first read. It keeps the fields of its
 * input, not the input object, and no serialised text (see {@link built}).
 */
class Event implements ServiceEvent, EventInput {
  #timeNano: bigint | undefined
  #attributes: Readonly<Record<string, string>> | undefined
  readonly id: string
  readonly name: string
  readonly image: string
  readonly imageId: string | undefined
  readonly labels: Record<string, string>
  readonly action: EventKind
  readonly instanceType: string
  readonly exitCode: number
  constructor(
    readonly seq: number,
    input: EventInput,
    readonly timeMs: number,
    /** Whole epoch milliseconds of `timeNano`, and the nanoseconds within that millisecond (0 to 999,999). */
    private readonly wholeMs: number,
    private readonly subNs: number,
  ) {
    this.id = input.id
    this.name = input.name
    this.image = input.image
    this.imageId = input.imageId
    this.labels = input.labels
    this.action = input.action
    this.instanceType = input.instanceType
    this.exitCode = input.exitCode
  }
  get timeNano(): bigint {
    return (this.#timeNano ??= BigInt(this.wholeMs) * 1_000_000n + BigInt(this.subNs))
  }
  get attributes() {
    return (this.#attributes ??= attributesOf(this))
  }
  /** `"time":...,"timeNano":...}`, the tail of a frame or line. */
  #tail(format: TimeFormat): string {
    // Positive times print without BigInt: the whole milliseconds, then the nanoseconds as 6 digits.
    const positive = this.wholeMs > 0
    const sec = positive ? Math.floor(this.wholeMs / 1000) : Number(this.timeNano / 1_000_000_000n)
    if (format === 'float') return `"time":${sampleFloat(sec)},"timeNano":${sampleFloat(Number(this.timeNano))}}`
    return `"time":${sec},"timeNano":${positive ? `${this.wholeMs}${String(this.subNs).padStart(6, '0')}` : this.timeNano.toString()}}`
  }
  // Called once per delivery: built once per event and format (the last one is kept).
  frame(format: TimeFormat): string {
    if (built.frameEvent !== this || built.frameFormat !== format) {
      built.frameText = `${headOf(this)},${this.#tail(format)}`
      built.frameEvent = this
      built.frameFormat = format
    }
    return built.frameText
  }
  dockerLine(): string {
    if (built.lineEvent !== this) {
      built.lineText = `${headOf(this)},"scope":"local",${this.#tail('integer')}\n`
      built.lineEvent = this
    }
    return built.lineText
  }
}

export interface EventLog {
  /** Retained events, oldest first. */
  readonly events: readonly ServiceEvent[]
  /** Sequence number of the last event (0 before the first). */
  readonly lastSeq: number
  /** Records an event with the clock's time and delivers it to matching subscribers, in order. */
  append(input: EventInput): ServiceEvent
  /** Adds a subscriber (once: subscribing it again while it is subscribed adds nothing); returns a function that removes it. */
  subscribe(subscriber: Subscriber): () => void
  /** Removes a subscriber, as the function `subscribe` returned does (nothing when it is not subscribed). */
  unsubscribe(subscriber: Subscriber): void
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
  /** Who an event of each kind goes to, in order: rebuilt after a subscribe or unsubscribe, not per event. */
  let targets: Partial<Record<EventKind, Subscriber[]>> = {}
  /**
   * Subscribers with a `container` filter, indexed by each value (its leading `/` stripped): an event looks up the
   * prefixes of its name and id of the lengths some value has, so it touches the subscribers whose container value can
   * match it, not every one. With 1,000 subscribers on distinct containers an event costs a few lookups, not 1,000
   * filter checks. Candidates are delivered in the order a plain scan would have used (rank, then subscription).
   */
  const byContainer = new Map<string, Set<Indexed>>()
  /**
   * How many indexed values have each length. Only those lengths are looked up: with every length up to the longest
   * value, one subscriber on a full 64-character id (what Docker clients send) made each event look up 130 prefixes
   * (3x an event's cost, 1,000 such subscribers).
   */
  const lengths = new Map<number, number>()
  /**
   * Every subscriber's record: its rank and order (to merge the kind sets with indexed ones) and what to undo when it
   * leaves. The function subscribe returns is this record's bound unsubscribe: no closure and scope per subscriber
   * (thousands of idle events sockets each keep one).
   */
  const records = new Map<Subscriber, Indexed>()
  let subscriptions = 0
  interface Indexed {
    subscriber: Subscriber
    /** 0: in the any-kind set, 1: in a per-kind set (as the scan's `[...any, ...byKind]` order). */
    rank: number
    order: number
    /** Its `container` values in the index (leading `/` stripped), or undefined when it is in the kind sets. */
    keys: string[] | undefined
  }
  const unsubscribe = (indexed: Indexed) => {
    const subscriber = indexed.subscriber
    // Once only, and never a later subscription of the same subscriber.
    if (records.get(subscriber) !== indexed) return
    records.delete(subscriber)
    count--
    if (indexed.keys === undefined) {
      const kinds = subscriber.filter.kinds
      if (kinds) for (const k of kinds) byKind[k].delete(subscriber)
      else any.delete(subscriber)
      targets = {}
      return
    }
    for (const k of indexed.keys) {
      const set = byContainer.get(k)!
      set.delete(indexed)
      if (set.size > 0) continue
      byContainer.delete(k)
      // Stryker disable next-line ArithmeticOperator: as in subscribe, a length kept when no value has it costs a lookup that finds nothing
      const left = lengths.get(k.length)! - 1
      // Stryker disable next-line CallExpression: as in subscribe (a length kept costs a lookup that finds nothing)
      lengths.set(k.length, left)
      // Stryker disable next-line CallExpression: as in subscribe (a length kept costs a lookup that finds nothing)
      if (left === 0) lengths.delete(k.length)
    }
  }
  const candidates = (event: ServiceEvent): Indexed[] => {
    const found = new Set<Indexed>()
    for (const text of [event.name, event.id]) {
      for (const l of lengths.keys()) {
        if (l > text.length) continue
        const set = byContainer.get(text.slice(0, l))
        if (set) for (const x of set) found.add(x)
      }
    }
    return [...found].sort((a, b) => a.rank - b.rank || a.order - b.order)
  }
  let count = 0
  let lastWholeMs = -Infinity
  let lastSubNs = 0

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
      let now = clock.now()
      // Nanosecond times are unique and increasing, as a real daemon's are: two events in the same
      // millisecond differ by 1 ns, so resuming with `since` = last timeNano + 1 ns is exact.
      // (As msToNano(now), kept as whole ms and the ns within them.)
      let wholeMs = Math.floor(now)
      let subNs = Math.round((now - wholeMs) * 1e6)
      if (input.timeNano !== undefined) {
        // A recorded time (a replayed recording): exact to the nanosecond, which a float of epoch ms cannot hold.
        wholeMs = Number(input.timeNano / 1_000_000n)
        subNs = Number(input.timeNano % 1_000_000n)
        now = wholeMs + subNs / 1e6
      }
      if (wholeMs < lastWholeMs || (wholeMs === lastWholeMs && subNs <= lastSubNs)) {
        wholeMs = lastWholeMs
        subNs = lastSubNs + 1
      }
      if (subNs >= 1_000_000) {
        wholeMs += 1
        subNs -= 1_000_000
      }
      lastWholeMs = wholeMs
      lastSubNs = subNs
      const event = new Event(++seq, input, now, wholeMs, subNs)
      events.push(event)
      evict(false)
      // A snapshot (replaced, never changed, when subscribers come and go), so that subscribers closing during
      // delivery do not disturb iteration.
      const to = (targets[input.action] ??= [...any, ...byKind[input.action]])
      if (byContainer.size === 0) {
        // Subscribers that share a compiled filter (clients sending the same `filters` text) and follow one another
        // take the first one's answer: one check per filter, not per subscriber.
        let last: CompiledFilter | undefined
        let ok = false
        for (let i = 0; i < to.length; i++) {
          const s = to[i]
          if (s.filter !== last) ok = (last = s.filter).matches(event)
          if (ok) s.deliver(event)
        }
        return event
      }
      const found = candidates(event)
      if (to.length === 0) {
        for (const { subscriber: s } of found) if (s.filter.matches(event)) s.deliver(event)
        return event
      }
      // Both kinds: merge in scan order.
      const all = [...to.map((subscriber) => records.get(subscriber)!), ...found].sort((a, b) => a.rank - b.rank || a.order - b.order)
      for (const { subscriber: s } of all) if (s.filter.matches(event)) s.deliver(event)
      return event
    },
    subscribe(subscriber) {
      const known = records.get(subscriber)
      if (known) return unsubscribe.bind(undefined, known)
      const kinds = subscriber.filter.kinds
      const values = subscriber.filter.filters.container
      const keys = values?.length && kinds?.length !== 0 ? [...new Set(values)] : undefined
      const indexed: Indexed = { subscriber, rank: kinds ? 1 : 0, order: subscriptions++, keys }
      records.set(subscriber, indexed)
      count++
      if (keys) {
        for (const k of keys) {
          let set = byContainer.get(k)
          if (!set) {
            byContainer.set(k, (set = new Set()))
            // Stryker disable next-line ArithmeticOperator,LogicalOperator: a count that never reaches 0 keeps its length looked up, which finds nothing more (time only)
            lengths.set(k.length, (lengths.get(k.length) ?? 0) + 1)
          }
          set.add(indexed)
        }
      } else {
        if (kinds) for (const k of kinds) byKind[k].add(subscriber)
        else any.add(subscriber)
        targets = {}
      }
      return unsubscribe.bind(undefined, indexed)
    },
    unsubscribe(subscriber) {
      const indexed = records.get(subscriber)
      if (indexed) unsubscribe(indexed)
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
