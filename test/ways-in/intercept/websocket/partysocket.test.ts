import ReconnectingWebSocket from 'partysocket/ws'
import { expect, it } from 'vitest'
import { createDockside } from '../../../../src/index'
import '../../../../src/vitest/index'

// docs/in-process.md, "Clients built on the ws package", way 2 with a real client: partysocket's ws flavour takes
// the WebSocket class as an option; given the hook's class it reaches the fake in process and reconnects.
it("partysocket/ws given hooks.WebSocket reconnects after a maintenance restart, in process", async () => {
  await using fake = createDockside({ seed: 5 })
  await using hooks = await fake.intercept()
  const seen: string[] = []
  const rws = new ReconnectingWebSocket('wss://us-west-1.hyper.test/events/ws?client=party', [], {
    WebSocket: hooks.WebSocket,
    minReconnectionDelay: 10,
    maxReconnectionDelay: 20,
  })
  rws.addEventListener('message', (m) => seen.push(JSON.parse(String(m.data)).Action))
  await expect.poll(() => fake.protocol.hub.sockets.size).toBe(1)
  fake.restart()
  await expect.poll(() => fake.journal.ofType('ws.open').length).toBe(2)
  fake.containers.create({ name: 'w', image: 'busybox' }).start()
  await expect.poll(() => seen).toEqual(['start'])
  expect(fake.journal.ofType('ws.close').map((e) => [e.by, e.code])).toEqual([['server', 1001]])
  expect(fake).toHaveReconnected(1, { client: 'party' })
  rws.close()
})
