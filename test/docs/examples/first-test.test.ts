import { expect, test } from 'vitest'
import WebSocket from 'ws'
import { createDockside } from 'dockside'

test('my client sees a container start', async () => {
  await using fake = createDockside({ seed: 1 })
  const server = await fake.listen({ port: 0 })
  const ws = new WebSocket(`${server.wsUrl}/events/ws`)
  await new Promise((r) => ws.once('open', r))
  const frame = new Promise<string>((r) => ws.once('message', (d) => r(d.toString())))
  fake.containers.create({ name: 'web', image: 'nginx' }).start()
  expect(JSON.parse(await frame)).toMatchObject({ status: 'start', from: 'nginx', Type: 'container' })
})
