import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { expect, test } from 'vitest'
import WebSocket from 'ws'
import { createDockside } from 'dockside'
import { DELIVERY_LIMITS } from '../../src/service/delivery'
import { JOURNAL_LIMIT } from '../../src/service/journal'

// Regression: every reconnect of a client id kept ~1 KB of delivery history forever, and the journal kept
// up to 100,000 entries: 30 s of connect/close churn took the heap from 11 to 130 MB. The client's history and
// the journal now keep their last entries (bench/soak-churn.mjs is the long version of this test).
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const heapAfterGc = () => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

test('connect/close churn of one client id: its history and the journal stay at their bounds, the heap stays flat', async () => {
  // A small event log, so that its own retention does not blur the heap figures.
  await using fake = createDockside({ seed: 1, retainEvents: 100 })
  const server = await fake.listen({ port: 0 })
  const web = fake.containers.create({ name: 'web', image: 'nginx' })
  const connectClose = () =>
    new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(`${server.wsUrl}/events/ws?client=churn`)
      ws.on('open', () => ws.close(1000, 'done'))
      ws.on('close', () => resolve())
      ws.on('error', reject)
    })
  /** `n` connections, 25 at a time, with container events between; then the server side has seen every close. */
  const churn = async (n: number) => {
    for (let i = 0; i < n; i += 25) {
      await Promise.all(Array.from({ length: 25 }, connectClose))
      web.start().stop()
    }
    await expect.poll(() => fake.deliveries.report('churn').connections.every((c) => c.closedAt)).toBe(true)
  }
  // The journal's bound does not depend on what is journaled: fill it faster than churn alone would.
  const fill = (n: number) => {
    for (let j = 0; j < n; j++) fake.journal.record('test.filler', { j })
  }
  // Fill the history and the journal to their bounds, then measure a second round of the same size.
  await churn(DELIVERY_LIMITS.connections + 200)
  fill(JOURNAL_LIMIT)
  const before = heapAfterGc()
  await churn(DELIVERY_LIMITS.connections + 200)
  fill(JOURNAL_LIMIT)
  const after = heapAfterGc()

  const r = fake.deliveries.report('churn')
  expect(r.connections).toHaveLength(DELIVERY_LIMITS.connections)
  expect(r.timeline).toHaveLength(DELIVERY_LIMITS.timeline)
  const total = 2 * (DELIVERY_LIMITS.connections + 200)
  expect(r.omitted.connections).toBe(total - DELIVERY_LIMITS.connections)
  // The newest are kept, in order.
  expect(r.connections.at(-1)!.socket).toBe(total)
  expect(r.connections.map((c) => c.socket)).toEqual(r.connections.map((c) => c.socket).sort((a, b) => a - b))
  expect(r.timeline.at(-1)!.kind).toBe('close')
  expect(r.omitted.timeline).toBeGreaterThan(0)
  // Its last close was its own goodbye: no ongoing gap. (The events between its connections are owed, as after any reconnect.)
  expect(r.gaps.filter((g) => g.ongoing)).toEqual([])
  expect(r.missed.length).toBeGreaterThan(0)

  expect(fake.journal.entries).toHaveLength(JOURNAL_LIMIT)
  expect(fake.journal.omitted).toBeGreaterThan(JOURNAL_LIMIT)
  const seqs = fake.journal.entries.map((e) => e.seq)
  expect(seqs.at(-1)! - seqs[0]).toBe(JOURNAL_LIMIT - 1)
  expect(seqs.at(-1)).toBe(fake.journal.omitted + JOURNAL_LIMIT)
  const res = await fetch(`${server.url}/_dockside/journal?after=0`)
  expect(res.headers.get('x-dockside-journal-omitted')).toBe(String(fake.journal.omitted))
  expect(await res.json()).toHaveLength(JOURNAL_LIMIT)

  // Generous: before the bounds, this round alone added several MB (history ~1 KB per reconnect, and every journal entry).
  expect((after - before) / 2 ** 20).toBeLessThan(2)
})
