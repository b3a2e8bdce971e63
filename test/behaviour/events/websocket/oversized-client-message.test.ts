import { describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from 'dockside'

// Regression (issue 8, point 6): the events websocket takes no client messages, and one over 4 KiB closes it with
// 1009. On the server `ws` enforced it; in process a 1 MB message went through and the socket stayed open, so a client
// that misbehaved passed in process and was cut off in production. Both ways in now close with 1009 and no reason
// on the wire (as Go's websocket servers and ws send it); the journal and the delivery report say why.

const ways: { name: string; start(fake: Dockside): Promise<{ url: string; close(): Promise<void> }> }[] = [
  {
    name: 'server',
    async start(fake) {
      const s = await fake.listen({ port: 0 })
      return { url: `${s.wsUrl}/events/ws?client=chatty`, close: () => s.close() }
    },
  },
  {
    name: 'in-process',
    async start(fake) {
      const hooks = await fake.intercept({ region: 'us-west-1' })
      return { url: 'wss://us-west-1.hyper.test/events/ws?client=chatty', close: async () => hooks.restore() }
    },
  },
]

describe.each(ways)('$name', (way) => {
  it('a message over 4 KiB closes the events websocket with 1009; a small one is ignored', async () => {
    await using fake = createDockside({ seed: 1 })
    const w = await way.start(fake)
    try {
      // Read at call time: in process the hook replaced the global.
      const ws = new globalThis.WebSocket(w.url)
      await new Promise((resolve, reject) => {
        ws.onopen = resolve
        ws.onerror = reject
      })
      const closed = new Promise<CloseEvent>((resolve) => (ws.onclose = resolve))
      const frames: string[] = []
      ws.onmessage = (e) => frames.push(String(e.data))
      ws.send('x'.repeat(4096))
      fake.containers.create({ name: 'web', image: 'nginx' }).start()
      await expect.poll(() => frames.length).toBe(1)
      ws.send(new Uint8Array(4097))
      const event = await closed
      expect({ code: event.code, reason: event.reason, wasClean: event.wasClean }).toEqual({ code: 1009, reason: '', wasClean: true })
      const close = fake.journal.ofType('ws.close').at(-1)
      expect(close).toMatchObject({ client: 'chatty', by: 'server', code: 1009, reason: 'message too big: this websocket takes no client messages over 4096 bytes' })
      expect(fake.deliveries.report('chatty').connections[0]).toMatchObject({ closedBy: 'server', code: 1009 })
      expect(fake.protocol.hub.sockets.size).toBe(0)
    } finally {
      await w.close()
    }
  })
})
