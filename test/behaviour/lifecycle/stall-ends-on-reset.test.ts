import { expect, test } from 'vitest'
import WebSocket from 'ws'
import { createDockside } from 'dockside'

// Regression: an injected stall (a push that goes silent, a handshake never answered) waited only for
// the client to leave, so after reset() it kept the old service alive until the client gave up.
test('a stalled push and a stalled handshake end when the fake is reset', async () => {
  await using fake = createDockside({ seed: 1 })
  const server = await fake.listen({ port: 0 })
  fake.images.add('localhost:5000/app:1', { layers: [1000, 1000] })
  fake.faults.add({ on: 'push', stall: true, afterLayer: 1 })
  fake.faults.add({ on: 'events', stall: true })

  const res = await fetch(`${server.url}/images/localhost:5000/app/push?tag=1`, { method: 'POST' })
  const body = res.text()
  await fake.clock.advance('1s')
  const handshake = new Promise<number>((resolve) => {
    const ws = new WebSocket(`${server.wsUrl}/events/ws`)
    ws.once('unexpected-response', (_req, r) => resolve(r.statusCode!))
    ws.once('open', () => resolve(101))
  })
  // The stall is in effect once the fault decision for the handshake is journaled.
  await expect.poll(() => fake.journal.ofType('fault').some((e) => e.site === 'events')).toBe(true)
  await fake.reset()

  expect(await body).not.toContain('"aux"')
  expect(await handshake).toBe(503)
})
