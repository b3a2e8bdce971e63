import { expect, test } from 'vitest'
import WebSocket from 'ws'
import { createDockside } from 'dockside'

const open = (url: string) =>
  new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(url)
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
  })

// Regression: clients without an id were keyed by address and filters only, so two dashboards open at
// the same time on one host were merged into one "client" whose report showed every event twice.
test('concurrent clients without an id are different clients; a reconnect resumes the first free one', async () => {
  await using fake = createDockside({ seed: 1 })
  const server = await fake.listen({ port: 0 })
  const a = await open(`${server.wsUrl}/events/ws`)
  const b = await open(`${server.wsUrl}/events/ws`)
  const got = new Promise((r) => b.once('message', r))
  fake.containers.create({ name: 'web', image: 'nginx' }).start()
  await got
  const clients = fake.deliveries.clients()
  expect(clients).toHaveLength(2)
  for (const c of clients) expect(fake.deliveries.report(c).duplicates).toEqual([])

  const closed = new Promise((r) => a.once('close', r))
  a.close()
  await closed
  await expect.poll(() => fake.deliveries.report(clients[0]).connections[0].closedAt).toBeDefined()
  const again = await open(`${server.wsUrl}/events/ws`)
  expect(fake.deliveries.clients()).toHaveLength(2)
  expect(fake.deliveries.report(clients[0]).connections).toHaveLength(2)
  again.terminate()
  b.terminate()
})
