import { Recent } from './recent'

/** One record of what the fake did: a request, an event, a fault decision, a close. */
export interface JournalEntry {
  /** Monotonic number of the entry. */
  seq: number
  /** Clock time of the entry, epoch milliseconds. */
  time: number
  /** What happened, e.g. `request`, `event`, `fault`, `push.done`, `ws.open`, `ws.close`. */
  type: string
  [key: string]: unknown
}

export interface Journal {
  /** The entries kept (the last {@link JOURNAL_LIMIT}), oldest first. */
  readonly entries: readonly JournalEntry[]
  /** How many of the oldest entries were dropped to stay within the limit (their `seq` numbers are skipped). */
  readonly omitted: number
  /** The `seq` of the newest entry recorded (0 before the first); `clear()` keeps it, a reset's new journal starts at 0. */
  readonly lastSeq: number
  /** Entries of one type (or a prefix like `push.`). */
  ofType(type: string): JournalEntry[]
  /** Adds an entry; secrets must already be masked. */
  record(type: string, data?: Record<string, unknown>): JournalEntry
  /** Listens to new entries; returns an unsubscribe function. */
  subscribe(listener: (entry: JournalEntry) => void): () => void
  clear(): void
}

/** How many entries the journal keeps by default; older ones are dropped and counted in `omitted`. */
export const JOURNAL_LIMIT = 10_000

/** Calls one listener with the entry that is `this` (a function, not a closure per entry). */
function hear(this: JournalEntry, listener: (entry: JournalEntry) => void) {
  listener(this)
}

/** Creates the journal; `now` gives the clock time. */
export function createJournal(now: () => number, limit = JOURNAL_LIMIT): Journal {
  // The last `limit` entries: O(1) per entry and fixed memory once full. `entries` is rebuilt in order when read
  // after a change (reads are for assertions and the admin API, not per event).
  const ring = new Recent<JournalEntry>(limit)
  let seq = 0
  let ordered: JournalEntry[] | undefined
  const listeners = new Set<(entry: JournalEntry) => void>()
  const kept = () => (ordered ??= ring.toArray())
  return {
    get entries() {
      return kept()
    },
    get omitted() {
      return ring.omitted
    },
    get lastSeq() {
      return seq
    },
    ofType: (type) => kept().filter((e) => (type.endsWith('.') ? e.type.startsWith(type) : e.type === type)),
    record(type, data = {}) {
      const entry: JournalEntry = { seq: ++seq, time: now(), type, ...data }
      // Bounded memory on long-running servers: past the limit the oldest entry goes, counted.
      ring.push(entry)
      ordered = undefined
      // forEach, not for…of: no iterator per entry (this runs several times per connection), the same visits.
      if (listeners.size !== 0) listeners.forEach(hear, entry)
      return entry
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    clear() {
      ring.clear()
      ordered = undefined
    },
  }
}

/** Masks a secret for the journal and logs: never shows it in clear. */
export const mask = (secret: string | undefined) => (secret === undefined ? undefined : secret === '' ? '' : '***')
