import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createDockside, type Dockside } from 'dockside'

// Regression: three `new WebSocket(...)` calls in the same tick in process were merged into one tracked client
// (none had opened when the next was identified, so all got the same key): every event was reported as a
// duplicate. And an event emitted inside the client's `onopen` was lost in process, because `open` fired
// before the fake had subscribed the socket.

/** Opens a socket with the given constructor; resolves with it once open, with every frame it receives. */
function client(Ctor: typeof globalThis.WebSocket, url: string, onopen?: () => void) {
  const ws = new Ctor(url)
  const frames: string[] = []
  ws.addEventListener('message', (e) => frames.push(String(e.data)))
  const opened = new Promise<void>((resolve, reject) => {
    ws.onopen = () => {
      onopen?.()
      resolve()
    }
    ws.onerror = () => reject(new Error(`could not open ${url}`))
  })
  return { ws, frames, opened }
}

const ways: { name: string; start(fake: Dockside): Promise<{ url: string; Ctor: typeof globalThis.WebSocket; close(): Promise<void> }> }[] = [
  {
    name: 'server (ws)',
    async start(fake) {
      const s = await fake.listen({ port: 0 })
      return { url: `${s.wsUrl}/events/ws`, Ctor: WebSocket as unknown as typeof globalThis.WebSocket, close: () => s.close() }
    },
  },
  {
    name: 'server (Node global WebSocket)',
    async start(fake) {
      const s = await fake.listen({ port: 0 })
      return { url: `${s.wsUrl}/events/ws`, Ctor: globalThis.WebSocket, close: () => s.close() }
    },
  },
  {
    name: 'in-process',
    async start(fake) {
      const hooks = await fake.intercept({ region: 'us-west-1' })
      // Read at call time: the hook replaced the global.
      return { url: 'wss://us-west-1.hyper.test/events/ws', Ctor: globalThis.WebSocket, close: async () => hooks.restore() }
    },
  },
]

describe.each(ways)('$name', (way) => {
  it('three sockets opened in the same tick are three clients, each sent every event once', async () => {
    await using fake = createDockside({ seed: 1 })
    const w = await way.start(fake)
    try {
      const three = [client(w.Ctor, w.url), client(w.Ctor, w.url), client(w.Ctor, w.url)]
      await Promise.all(three.map((c) => c.opened))
      const c = fake.containers.create({ name: 'web', image: 'nginx' })
      c.start()
      c.stop()
      await expect.poll(() => three.map((x) => x.frames.length)).toEqual([2, 2, 2])
      const clients = fake.deliveries.clients()
      expect(clients).toHaveLength(3)
      for (const key of clients) {
        const r = fake.deliveries.report(key)
        expect([r.expected, r.delivered, r.missed, r.duplicates, r.connections.length]).toEqual([2, 2, [], [], 1])
      }
      for (const x of three) x.ws.close()
    } finally {
      await w.close()
    }
  })

  it('an event emitted inside the client’s onopen is delivered', async () => {
    await using fake = createDockside({ seed: 1 })
    const w = await way.start(fake)
    try {
      const c = fake.containers.create({ name: 'web', image: 'nginx' })
      const x = client(w.Ctor, `${w.url}?client=eager`, () => c.start())
      await x.opened
      await expect.poll(() => x.frames.map((f) => JSON.parse(f).Action)).toEqual(['start'])
      expect(fake.deliveries.report('eager')).toMatchObject({ expected: 1, delivered: 1, missed: [] })
      x.ws.close()
    } finally {
      await w.close()
    }
  })
})
