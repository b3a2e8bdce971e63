import { Recent } from './recent'
import type { JournalEntryFields, JournalEntryOf, JournalEntryType, JournalSelection, JournalTypePrefix } from './journal-entries'

export type { JournalEntryBase, JournalEntryFields, JournalEntryOf, JournalEntryType, JournalSelection, JournalTypePrefix } from './journal-entries'

/**
 * One record of what the fake did: a request, a fault decision, a socket's open or close, a push. A union keyed by
 * `type` (see {@link JournalEntryFields}): checking `type` narrows it to that entry's fields.
 */
export type JournalEntry = JournalEntryOf<JournalEntryType>

/** The fields `record()` takes: optional for a type whose fields all are (`clock.pause`). */
type RecordData<T extends JournalEntryType> = Record<string, never> extends JournalEntryFields[T] ? [data?: JournalEntryFields[T]] : [data: JournalEntryFields[T]]

export interface Journal {
  /** The entries kept (the last {@link JOURNAL_LIMIT}), oldest first. */
  readonly entries: readonly JournalEntry[]
  /** How many of the oldest entries were dropped to stay within the limit (their `seq` numbers are skipped). */
  readonly omitted: number
  /** The `seq` of the newest entry recorded (0 before the first); `clear()` keeps it, a reset's new journal starts at 0. */
  readonly lastSeq: number
  /**
   * Entries of one type, typed by it (`ofType('ws.close')` has `code`, `reason`, ...), or of a prefix like `push.`.
   * A type the journal never writes (`'ws.opn'`) does not compile.
   */
  ofType<S extends JournalEntryType | JournalTypePrefix>(type: S): JournalSelection<S>[]
  /** Adds an entry; secrets must already be masked. Its type and fields are those listed in {@link JournalEntryFields}. */
  record<T extends JournalEntryType>(type: T, ...data: RecordData<T>): JournalEntryOf<T>
  /** Listens to new entries; returns an unsubscribe function. */
  subscribe(listener: (entry: JournalEntry) => void): () => void
  /**
   * Resolves with the next entry of a type (or a prefix like `push.`) recorded from now on, typed by it; with `where`,
   * the next one that also matches (a function, or fields it must equal); with `after: seq`, entries after that `seq`
   * count too, the kept ones included (`after: 0`: the first ever). Rejects when `signal` aborts, or when the fake
   * is reset or closed before one comes (a reset makes a new journal), naming what it waited for. Runner-neutral:
   * plain promises, no timers.
   * @example
   * const done = fake.journal.next('push.done', { where: { repository: 'localhost:5000/team/app' } })
   */
  next<S extends JournalEntryType | JournalTypePrefix>(type: S, options?: JournalNextOptions<JournalSelection<S>>): Promise<JournalSelection<S>>
  clear(): void
}

/** Options of {@link Journal.next}. */
export interface JournalNextOptions<E> {
  /** The entry must also match: a function, or fields it must equal (`{ client: 'sdk', code: 1001 }`). */
  where?: ((entry: E) => boolean) | Partial<E>
  /** Entries with a `seq` above this count, kept ones included. @default the journal's `lastSeq` now: only new entries */
  after?: number
  /** Stops waiting: the promise rejects with the signal's reason. */
  signal?: AbortSignal
}

/** How many entries the journal keeps by default; older ones are dropped and counted in `omitted`. */
export const JOURNAL_LIMIT = 10_000

/** Calls one listener with the entry that is `this` (a function, not a closure per entry). */
function hear(this: JournalEntry, listener: (entry: JournalEntry) => void) {
  listener(this)
}

/** Creates the journal; `now` gives the clock time. */
/** Whether `entry` matches a `where` of {@link Journal.next}. */
function matchesWhere(entry: JournalEntry, where: ((entry: never) => boolean) | Record<string, unknown> | undefined): boolean {
  if (where === undefined) return true
  if (typeof where === 'function') return where(entry as never)
  for (const key in where) if (!Object.is((entry as unknown as Record<string, unknown>)[key], where[key])) return false
  return true
}

/**
 * Creates the journal; `now` gives the clock time. `lifetime`, when given, is the signal that ends with the journal
 * (the fake's reset or close): a `next()` still waiting then rejects.
 */
export function createJournal(now: () => number, limit = JOURNAL_LIMIT, lifetime?: () => AbortSignal): Journal {
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
    ofType: <S extends JournalEntryType | JournalTypePrefix>(type: S) =>
      kept().filter((e) => (type.endsWith('.') ? e.type.startsWith(type) : e.type === type)) as JournalSelection<S>[],
    record<T extends JournalEntryType>(type: T, ...[data]: RecordData<T>) {
      const entry = { seq: ++seq, time: now(), type, ...data } as JournalEntryOf<T>
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
    next<S extends JournalEntryType | JournalTypePrefix>(type: S, options: JournalNextOptions<JournalSelection<S>> = {}) {
      const after = options.after ?? seq
      const where = options.where as ((entry: never) => boolean) | Record<string, unknown> | undefined
      const wanted = (e: JournalEntry) => e.seq > after && (type.endsWith('.') ? e.type.startsWith(type) : e.type === type) && matchesWhere(e, where)
      const kept = after < seq ? ring.toArray().find(wanted) : undefined
      if (kept) return Promise.resolve(kept as JournalSelection<S>)
      const what = `journal.next(${JSON.stringify(type)}${where ? ', { where }' : ''})`
      return new Promise<JournalSelection<S>>((resolve, reject) => {
        const ended = lifetime?.()
        const stop = () => {
          listeners.delete(hearOne)
          options.signal?.removeEventListener('abort', onAbort)
          ended?.removeEventListener('abort', onEnd)
        }
        const hearOne = (e: JournalEntry) => {
          if (!wanted(e)) return
          stop()
          resolve(e as JournalSelection<S>)
        }
        const onAbort = () => {
          stop()
          reject(options.signal!.reason)
        }
        const onEnd = () => {
          stop()
          reject(new Error(`${what}: the fake was reset or closed before such an entry was recorded (a reset starts a new journal: wait on fake.journal after it).`))
        }
        if (options.signal?.aborted) return onAbort()
        if (ended?.aborted) return onEnd()
        listeners.add(hearOne)
        options.signal?.addEventListener('abort', onAbort, { once: true })
        ended?.addEventListener('abort', onEnd, { once: true })
      })
    },
    clear() {
      ring.clear()
      ordered = undefined
    },
  }
}

/** Masks a secret for the journal and logs: never shows it in clear. */
export const mask = (secret: string | undefined) => (secret === undefined ? undefined : secret === '' ? '' : '***')
