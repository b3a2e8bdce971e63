import { expect, test } from 'vitest'
import WebSocket from 'ws'
import { createDockside } from 'dockside'

// Regression: since delivery reports were computed from the event log (4eaebcb), `expected` counted only the
// events the log retains while `delivered` counted every send, so a client that got all 10 events with
// retainEvents 4 read "4 expected, 10 delivered". The report now covers the retained window throughout.
test('a delivery report covers the retained events: delivered never exceeds expected', async () => {
  await using fake = createDockside({ seed: 1, retainEvents: 4 })
  const server = await fake.listen({ port: 0 })
  const ws = new WebSocket(`${server.wsUrl}/events/ws?client=a`)
  await new Promise((resolve) => ws.once('open', resolve))
  let frames = 0
  ws.on('message', () => frames++)
  const web = fake.containers.create({ name: 'web', image: 'nginx' })
  for (let i = 0; i < 5; i++) {
    web.start()
    web.stop()
  }
  await expect.poll(() => frames).toBe(10)
  const r = fake.deliveries.report('a')
  expect([r.expected, r.delivered, r.missed, r.duplicates]).toEqual([4, 4, [], []])
  ws.terminate()
})
