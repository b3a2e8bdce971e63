import { expect, test } from 'vitest'
import { createDeliveryTracker } from '../../../src/service/delivery'
import { createEventLog, type EventLog } from '../../../src/service/events'
import { createClock } from '../../../src/time/clock'
import { compileFilters, type CompiledFilter, type Filters } from '../../../src/service/filters'

/** Filters compiled as the protocol hands them to the tracker: one compiled filter per filters text. */
const compiledByText = new Map<string, CompiledFilter>()
const compiled = (f: Filters) => compiledByText.get(JSON.stringify(f)) ?? compiledByText.set(JSON.stringify(f), compileFilters(f, { imageIds: true })).get(JSON.stringify(f))!

const input = { action: 'start' as const, id: 'a', name: 'web', image: 'nginx', labels: {}, instanceType: 's4', exitCode: 0 }

/** The log, with a count of reads of `events` (each applies pending evictions: a copy of the retained log). */
function countingLog(log: EventLog) {
  const reads = { events: 0 }
  const counted = new Proxy(log, {
    get(target, prop) {
      if (prop === 'events') reads.events++
      return Reflect.get(target, prop, target) as unknown
    },
  })
  return { log: counted, reads }
}

// Regression: every subscriber's tracker read `log.events` every 1,024 sends to find the oldest retained seq; that
// getter evicts and copies the whole retained log (10k entries), about 1,000 element copies per event with 100
// subscribers. Sends now read the oldest seq without a copy.
test('sends never read (copy) the retained log; only a report does', () => {
  const clock = createClock()
  const { log, reads } = countingLog(createEventLog(clock, { retain: 1000 }))
  const d = createDeliveryTracker({ log, now: () => clock.now(), startedAt: clock.now() })
  for (let c = 0; c < 10; c++) {
    d.attempt(`c${c}`, compiled({}))
    d.opened(`c${c}`, c, 'ws', undefined)
  }
  for (let i = 0; i < 5000; i++) {
    const e = log.append(input)
    for (let c = 0; c < 10; c++) d.sent(`c${c}`, c, e)
  }
  expect(reads.events).toBe(0)
  const r = d.report('c0')
  expect(reads.events).toBe(1)
  expect([r.expected, r.delivered, r.missed]).toEqual([1000, 1000, []])
})

// Regression: a report checked every retained event against every excused stretch (a scan per event): one client with
// 1,000 polite reconnects and 10k events took ~100 ms, and GET /_dockside/deliveries does it for every client (up to
// 1,000: ~30 s of frozen loop). A report is now one walk over events and stretches together.
test('a report walks the events and the stretches away together: 1,000 reconnects x 10k events in a few ms', () => {
  const clock = createClock()
  const log = createEventLog(clock)
  const d = createDeliveryTracker({ log, now: () => clock.now(), startedAt: clock.now() })
  const clients = 10
  for (let c = 0; c < clients; c++) {
    d.attempt(`c${c}`, compiled({}))
    d.opened(`c${c}`, c * 10_000, 'ws', undefined)
  }
  for (let round = 0; round < 1000; round++) {
    for (let i = 0; i < 10; i++) {
      const e = log.append(input)
      for (let c = 0; c < clients; c++) d.sent(`c${c}`, c * 10_000 + round, e)
    }
    for (let c = 0; c < clients; c++) d.closed(`c${c}`, c * 10_000 + round, 'client', 1000, '')
    log.append(input) // away by choice: not owed
    for (let c = 0; c < clients; c++) {
      d.attempt(`c${c}`, compiled({}))
      d.opened(`c${c}`, c * 10_000 + round + 1, 'ws', undefined)
    }
  }
  d.summary('c0') // warm up
  const t0 = performance.now()
  for (let c = 0; c < clients; c++) expect(d.summary(`c${c}`)).toMatchObject({ missed: 0, connections: 1000 })
  const ms = performance.now() - t0
  // Before: ~100 ms per client (~1 s here). After: ~1-3 ms per client; generous for a loaded CI machine.
  expect(ms).toBeLessThan(300)
})
