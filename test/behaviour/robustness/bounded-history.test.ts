import { describe, expect, it, test } from 'vitest'
import WebSocket from 'ws'
import { createDockside } from 'dockside'
import { heapAfterGc } from '../../support/heap'
import { interceptWay } from '../../support/intercept-way'
import { probeWithWs } from '../../support/ws-probe'
import type { WayIn } from '../../support/way-in'
import { DELIVERY_LIMITS } from '../../../src/service/delivery'
import { JOURNAL_LIMIT } from '../../../src/service/journal'
import { installDeliveryMatchers } from '../../../src/vitest/delivery-matchers'

// Regression: every reconnect of a client id kept ~1 KB of delivery history forever, and the journal kept
// up to 100,000 entries: 30 s of connect/close churn took the heap from 11 to 130 MB. The client's history and
// the journal now keep their last entries (bench/soak-churn.mjs is the long version of this test).
installDeliveryMatchers()

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
    for (let j = 0; j < n; j++) fake.journal.record('say', { text: `filler ${j}`, at: undefined })
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
  // Every close was its own goodbye, and every event happened while it was away by choice or connected: nothing is
  // owed that it was not sent, and no gap. (Once connections are dropped, the report covers the window of the kept
  // history: the stretches of the dropped connections do not come back as missed.)
  expect(r.gaps).toEqual([])
  expect(r.missed).toEqual([])
  expect(r.delivered).toBe(r.expected)

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

/** The real server on 127.0.0.1 with `ws` clients; and the in-process hook with the global WebSocket. */
const ways: WayIn[] = [
  {
    name: 'server (ws)',
    async start(fake) {
      const s = await fake.listen({ port: 0 })
      return { baseUrl: s.url, wsBaseUrl: s.wsUrl, fetch: (path, init) => fetch(s.url + path, init), connect: (path) => probeWithWs(s.wsUrl + path), close: () => s.close() }
    },
  },
  interceptWay,
]

describe.each(ways)('bounded history ($name)', (way) => {
  // Regression: once the history was full, a client that always closed politely was reported missing the events of
  // the stretches it chose to be away, for the connections dropped from its history (1,100 reconnects: 100 missed).
  it('a client that always closed politely misses nothing, with connections dropped from its history', async () => {
    await using fake = createDockside({ seed: 1 })
    const h = await way.start(fake)
    try {
      const web = fake.containers.create({ name: 'web', image: 'nginx' })
      const n = DELIVERY_LIMITS.connections + 100
      for (let i = 0; i < n; i++) {
        const ws = await h.connect('/events/ws?client=polite')
        const recorded = new Promise<void>((resolve) => {
          const off = fake.on('journal', (e) => e.type === 'ws.close' && (off(), resolve()))
        })
        ws.close(1000)
        await recorded
        if (i % 2) web.stop() // while away by choice
        else web.start()
      }
      const r = fake.deliveries.report('polite')
      expect(r.omitted.connections).toBe(100)
      expect([r.expected, r.delivered, r.missed, r.gaps]).toEqual([0, 0, [], []])
      expect(fake).toHaveDeliveredAllEventsTo('polite')
    } finally {
      await h.close()
    }
  })

  // Regression: over the client limit, the first client seen was forgotten, however recently it was active, while
  // docs/chaos.md promised the one idle the longest.
  it('over the client limit, the client idle the longest is forgotten, and asking for it answers 404 saying so', async () => {
    await using fake = createDockside({ seed: 1 })
    const h = await way.start(fake)
    try {
      const visit = async (client: string) => {
        const ws = await h.connect(`/events/ws?client=${client}`)
        ws.close(1000)
        await ws.closed
      }
      await visit('first')
      for (let i = 1; i < DELIVERY_LIMITS.clients; i++) await visit(`c${i}`)
      await visit('first') // active again: now c1 is the one idle the longest
      await expect.poll(() => fake.deliveries.report('first').connections.at(-1)!.closedAt).toBeDefined()
      expect(fake.deliveries.forgottenClients).toBe(0)
      await visit('newcomer')
      expect(fake.deliveries.forgottenClients).toBe(1)
      expect(fake.deliveries.clients()).toHaveLength(DELIVERY_LIMITS.clients)
      expect(fake.deliveries.clients()[0]).toBe('first') // still listed in the order clients first came
      expect(fake.deliveries.report('first').connections).toHaveLength(2)
      const res = await h.fetch('/_dockside/deliveries/c1')
      expect(res.status).toBe(404)
      expect((await res.json()).message).toMatch(/^Events client "c1" was forgotten: the fake tracks at most 1000 clients, and forgets the one idle the longest/)
      expect((await h.fetch('/_dockside/deliveries/c2')).status).toBe(200)
      const all = await (await h.fetch('/_dockside/deliveries')).json()
      expect(all).toHaveLength(DELIVERY_LIMITS.clients)
    } finally {
      await h.close()
    }
  })
})
