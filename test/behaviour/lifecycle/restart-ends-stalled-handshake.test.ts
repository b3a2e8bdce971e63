// Regression: a maintenance restart left a handshake held by a `stall` fault hanging. `POST /_dockside/restart` closed
// every events socket with 1001 and ended every `GET /events` stream, but a client whose `/events/ws` upgrade a stall
// held kept waiting until its own timeout: a server going down answered it nothing. Now the restart answers what it
// held with a 503 naming the restart (as a gateway in front of a restarting server would), and the client's delivery
// report counts it a refusal. Over a real socket, with the `ws` client.
import { afterEach, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createDockside, type Dockside } from '../../../src/index'

let fake: Dockside | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

it('a restart answers a stalled events handshake with a 503 naming the restart; the next connect is served', async () => {
  fake = createDockside({ seed: 4 })
  fake.faults.add({ on: 'events', stall: true, times: 1 })
  const server = await fake.listen({ port: 0 })
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const ws = new WebSocket(`${server.wsUrl}/events/ws?client=sdk`)
    ws.on('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (c: Buffer) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode!, body }))
    })
    ws.on('open', () => reject(new Error('opened')))
    ws.on('error', () => {})
  })
  // The stall was decided: the handshake is held.
  await expect.poll(() => fake!.journal.ofType('fault').length).toBe(1)
  const restart = await fetch(`${server.url}/_dockside/restart`, { method: 'POST' })
  expect(await restart.json()).toEqual({ closed: 0 })
  expect(await answer).toEqual({ status: 503, body: JSON.stringify({ message: 'server restarting for maintenance; reconnect to continue' }) })
  expect(fake.deliveries.report('sdk').refusals).toMatchObject([{ status: 503, reason: 'server restarting for maintenance; reconnect to continue' }])
  // The rule is spent: the reconnect opens.
  const again = new WebSocket(`${server.wsUrl}/events/ws?client=sdk`)
  await new Promise((resolve, reject) => (again.on('open', resolve), again.on('error', reject)))
  again.close()
})
