import { expect, test } from 'vitest'
import { createDockside } from 'dockside'
import { heapAfterGc } from '../../support/heap'
import { resetRounds } from '../../../bench/support/resets.mjs'

// Soak (issue 8, "never falls over"): clients that vanish with a TCP reset at every stage (half a handshake, a
// handshake never read, an upgraded websocket, Docker's GET /events, a push mid-stream, a body that never finishes)
// must leave nothing behind: no events socket, no server connection, no clock timer, no heap growth; and the fake
// keeps serving. bench/soak-resets.mjs is the long version.

test('connection resets at every stage leave nothing behind, round after round', async () => {
  // The virtual clock holds every push at its first chunk: each one is still running when its client resets. A small
  // event log (each round emits 2 events), so that its filling up to retention is not mistaken for growth.
  await using fake = createDockside({ seed: 1, retainEvents: 100 })
  let cancelled = 0
  fake.on('journal', (e) => void (e.type === 'push.cancelled' && cancelled++))
  fake.images.add('localhost:5000/team/app:1.0', { layers: [30_000_000, 20_000_000] })
  const web = fake.containers.create({ name: 'web', image: 'nginx' })
  const server = await fake.listen({ port: 0 })
  // Warm-up fills the journal (10,000 entries) and the tracked clients' histories to their bounds.
  await resetRounds({ fake, server, web, rounds: 150 })
  const before = heapAfterGc()
  const { rounds, resets } = await resetRounds({ fake, server, web, rounds: 300 })
  expect({ rounds, resets }).toEqual({ rounds: 300, resets: 1800 })
  // resetRounds has checked after every round that no socket, connection or timer was left; the heap holds still too.
  expect(heapAfterGc() - before).toBeLessThan(3 * 1024 * 1024)
  // Every push that lost its client was cancelled, none committed behind its back (the advance runs what is left).
  await fake.clock.advance('1m')
  expect(cancelled).toBe(450)
  expect(fake.registries.list().flatMap((r) => r.tags)).toEqual([])
  // And a normal events client is served.
  const ws = new WebSocket(`${server.wsUrl}/events/ws`)
  await new Promise((resolve, reject) => {
    ws.onopen = resolve
    ws.onerror = reject
  })
  const next = new Promise<string>((resolve) => (ws.onmessage = (e) => resolve(String(e.data))))
  web.start()
  expect(JSON.parse(await next)).toMatchObject({ status: 'start', Actor: { Attributes: { name: 'web' } } })
  ws.close()
}, 60_000)
