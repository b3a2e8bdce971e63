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
  /** Every entry so far, oldest first. */
  readonly entries: readonly JournalEntry[]
  /** Entries of one type (or a prefix like `push.`). */
  ofType(type: string): JournalEntry[]
  /** Adds an entry; secrets must already be masked. */
  record(type: string, data?: Record<string, unknown>): JournalEntry
  /** Listens to new entries; returns an unsubscribe function. */
  subscribe(listener: (entry: JournalEntry) => void): () => void
  clear(): void
}

/** Creates the journal; `now` gives the clock time. */
export function createJournal(now: () => number, limit = 100_000): Journal {
  let entries: JournalEntry[] = []
  let seq = 0
  const listeners = new Set<(entry: JournalEntry) => void>()
  return {
    get entries() {
      return entries
    },
    ofType: (type) => entries.filter((e) => (type.endsWith('.') ? e.type.startsWith(type) : e.type === type)),
    record(type, data = {}) {
      const entry: JournalEntry = { seq: ++seq, time: now(), type, ...data }
      entries.push(entry)
      // Keep memory bounded on long-running demo servers.
      if (entries.length > limit) entries = entries.slice(-Math.floor(limit / 2))
      for (const l of listeners) l(entry)
      return entry
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    clear() {
      entries = []
    },
  }
}

/** Masks a secret for the journal and logs: never shows it in clear. */
export const mask = (secret: string | undefined) => (secret === undefined ? undefined : secret === '' ? '' : '***')
