// Type tests, checked by `tsc --noEmit -p tsconfig.json` (the first step of `npm test`), never run: journal entries
// are a union keyed by `type`, so a type the journal never writes, or a field its entries do not have, does not
// compile; each entry's fields have their types (issue 30, §3). Each `@ts-expect-error` fails the check the day its
// line compiles.
import type { Dockside, JournalEntry, JournalEntryOf, JournalEntryType, JournalSelection } from 'dockside'

export function journalTypes(fake: Dockside) {
  // A type the journal writes: its entries' fields are typed.
  const closes = fake.journal.ofType('ws.close')
  const code: number = closes[0]!.code
  const by: 'server' | 'drop' | 'client' = closes[0]!.by
  const status: number = fake.journal.ofType('request')[0]!.status
  const tags: string[] = fake.journal.ofType('push.done')[0]!.tags
  const fired: number = fake.journal.ofType('fault')[0]!.fired
  void [code, by, status, tags, fired]

  // A prefix selects the types under it, and nothing else.
  for (const e of fake.journal.ofType('push.')) {
    const repository: string = e.repository
    void repository
    if (e.type === 'push.tag') void (e.digest satisfies string)
    // @ts-expect-error `fault` is not under `push.`
    if (e.type === 'fault') void e
  }

  // A type the journal never writes does not compile.
  // @ts-expect-error 'ws.opn' is no journal type (did you mean 'ws.open'?)
  fake.journal.ofType('ws.opn')
  // @ts-expect-error a prefix must end in a dot and be one the journal writes
  fake.journal.ofType('wss.')
  // @ts-expect-error a field ws.open entries do not have
  void fake.journal.ofType('ws.open')[0]!.code
  // @ts-expect-error `status` of a request is a number
  const wrong: string = fake.journal.ofType('request')[0]!.status
  void wrong

  // Entries narrow by `type`, as in a listener.
  fake.on('journal', (entry: JournalEntry) => {
    if (entry.type === 'ws.close') void (entry.reason satisfies string)
    else if (entry.type === 'override') void (entry.status satisfies number | 'passthrough')
    // @ts-expect-error no entry has the type 'event' (events are in fake.events)
    else if (entry.type === 'event') void entry
  })

  // The names are there for helpers of one's own.
  const wait = <T extends JournalEntryType>(type: T): Promise<JournalSelection<T>> => fake.journal.next(type)
  const closed: Promise<JournalEntryOf<'ws.close'>> = fake.journal.next('ws.close', { where: { code: 1001 } })
  // @ts-expect-error a where of fields ws.close entries do not have
  void fake.journal.next('ws.close', { where: { status: 200 } })
  void fake.journal.next('push.done', { where: (e) => e.tags.includes('1.0') })
  void [wait, closed]

}
