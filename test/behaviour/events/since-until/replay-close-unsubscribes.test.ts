import { expect, test } from 'vitest'
import WebSocket from 'ws'
import { createDockside } from 'dockside'

// Regression: a websocket whose `since` replay reached a close fault's `afterMessages` was closed inside
// follow(), before its unsubscribe existed, so the socket's log subscription and its `until` timer
// outlived it (every later event was still matched for a closed socket).
test('a socket closed by a fault during its since-replay leaves no subscription or timer behind', async () => {
  await using fake = createDockside({ seed: 1 })
  const server = await fake.listen({ port: 0 })
  const web = fake.containers.create({ name: 'web', image: 'nginx' })
  web.start()
  web.stop()
  web.start()
  fake.faults.add({ on: 'events', close: { code: 4000, reason: 'fault' }, afterMessages: 1 })
  const subscribers = fake.events.subscriberCount
  const timers = fake.clock.pending
  const ws = new WebSocket(`${server.wsUrl}/events/ws?since=0&until=4102444800`)
  const frames: string[] = []
  ws.on('message', (m) => frames.push(String(m)))
  const code = await new Promise<number>((resolve) => ws.once('close', resolve))
  expect(code).toBe(4000)
  expect(frames).toHaveLength(1)
  expect(fake.events.subscriberCount).toBe(subscribers)
  expect(fake.clock.pending).toBe(timers)
})
