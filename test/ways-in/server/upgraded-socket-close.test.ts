import { once } from 'node:events'
import { expect, it } from 'vitest'
import WebSocket from 'ws'
import { createDockside } from 'dockside'
import { selfSignedCertificate } from '../../../src/transports/server/tls'

// Once a websocket is open, the server's own 'close' and 'error' listeners leave its socket (ws has its own there) and
// the websocket's 'close' does their work: the socket stops counting in connections(), and the report hears the close,
// whoever ends it. These pin that work over ws and wss, for a client close, a server close and a drop.

const cases = [
  { name: 'ws', tls: false },
  { name: 'wss', tls: true },
] as const

for (const c of cases) {
  it(`over ${c.name}, an open events websocket counts as a connection until it closes, by either side`, async () => {
    await using fake = createDockside({ seed: 1 })
    const server = await fake.listen({ port: 0, ...(c.tls ? { tls: await selfSignedCertificate() } : {}) })
    const open = async (client: string) => {
      const ws = new WebSocket(`${server.wsUrl}/events/ws?client=${client}`, { rejectUnauthorized: false })
      await once(ws, 'open')
      return ws
    }
    try {
      // The client closes.
      const a = await open('a')
      expect(server.connections()).toBe(1)
      a.close(1000, 'bye')
      await once(a, 'close')
      await expect.poll(() => server.connections()).toBe(0)
      expect(fake.deliveries.report('a').connections[0]).toMatchObject({ closedBy: 'client', code: 1000, reason: 'bye' })

      // The server closes (maintenance), and drops (a fault with no close frame).
      const b = await open('b')
      fake.faults.add({ on: 'events', drop: true, afterMessages: 1, match: { client: 'd' } })
      const d = await open('d')
      expect(server.connections()).toBe(2)
      fake.containers.create({ name: 'web', image: 'nginx' }).start()
      const [code] = (await once(d, 'close')) as [number]
      expect(code).toBe(1006)
      await expect.poll(() => server.connections()).toBe(1)
      expect(fake.deliveries.report('d').connections[0]).toMatchObject({ closedBy: 'drop', code: 1006 })
      fake.restart()
      await once(b, 'close')
      await expect.poll(() => server.connections()).toBe(0)
      expect(fake.deliveries.report('b').connections[0]).toMatchObject({ closedBy: 'server' })
    } finally {
      await server.close()
    }
  })
}
