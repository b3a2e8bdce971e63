// Regression: after `server.close()` (the fake still alive), the delivery report and the journal said the clients had
// left on their own: the transport closed each websocket itself and the client's echo came back as the client's
// close, and each GET /events stream's aborted request read as the client going away. So events made after it were
// not counted as missed, and toHaveDeliveredAllEventsTo passed for clients that missed them. Both now report the
// server's close (1001, "the fake server is shutting down"), and what follows is a gap.
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'

const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

it('server.close(): websocket and GET /events clients are closed by the server, and later events are missed', async () => {
  const fake = createDockside({ seed: 6 })
  open.push(fake)
  const server = await fake.listen({ host: '127.0.0.1', port: 0 })
  const ws = new WebSocket(`${server.wsUrl}/events/ws?client=w`)
  await new Promise((resolve, reject) => {
    ws.onopen = resolve
    ws.onerror = reject
  })
  const closed = new Promise<[number, string]>((resolve) => (ws.onclose = (e) => resolve([e.code, e.reason])))
  const res = await fetch(`${server.url}/events?client=s`)
  const reading = res.text().catch(() => 'cut')
  await expect.poll(() => fake.deliveries.clients()).toEqual(['w', 's'])
  await server.close()
  expect(await closed).toEqual([1001, 'the fake server is shutting down'])
  await reading
  fake.containers.create({ name: 'web', image: 'nginx' }).start()
  for (const client of ['w', 's']) {
    const report = fake.deliveries.report(client)
    expect(report.connections.map((c) => [c.closedBy, c.code, c.reason]), client).toEqual([['server', 1001, 'the fake server is shutting down']])
    expect(report.missed.map((e) => e.action), client).toEqual(['start'])
  }
  expect(fake.journal.ofType('ws.close').map((e) => [e.by, e.code])).toEqual([['server', 1001]])
})
