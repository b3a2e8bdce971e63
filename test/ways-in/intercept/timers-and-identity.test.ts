import { afterEach, describe, expect, it, vi } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'
import { followGlobalTimers } from '../../../src/transports/intercept/index'
import { probeWithGlobalWs } from '../../support/global-ws-probe'
import { probeWithWs } from '../../support/ws-probe'
import { drainWithClock } from '../../support/helpers'

const WEST = 'https://us-west-1.hyper.test'
const WEST_WS = 'wss://us-west-1.hyper.test'
const open: Dockside[] = []
afterEach(async () => {
  vi.useRealTimers()
  for (const f of open.splice(0)) await f.close()
})

describe("the user's fake timers", () => {
  it('do not stall the fake: a push streams under vi.useFakeTimers() with the default clock', async () => {
    vi.useFakeTimers()
    const fake = createDockside({ seed: 3 })
    open.push(fake)
    await using _h = await fake.intercept()
    fake.images.add('localhost:5000/app:1', { layers: [2_000_000] })
    const res = await fetch(`${WEST}/images/localhost:5000/app/push?tag=1`, { method: 'POST' })
    // Drained with no host timer at all (drainWithClock yields with setImmediate, which vitest fakes).
    const reader = res.body!.getReader()
    let text = ''
    let done = false
    const reading = (async () => {
      for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value)
      done = true
    })()
    for (let i = 0; !done && i < 1000; i++) await fake.clock.advance('100ms')
    await reading
    expect(text.trimEnd().split('\n').at(-1)).toContain('"aux"')
  })

  it('do not hold the websocket: it opens, takes frames and closes with no tick (its tasks run on the real setImmediate)', async () => {
    vi.useFakeTimers()
    const fake = createDockside({ seed: 3 })
    open.push(fake)
    await using _h = await fake.intercept()
    const ws = await probeWithGlobalWs(`${WEST_WS}/events/ws`)
    expect(ws.events).toEqual(['open'])
    fake.containers.create({ name: 'w', image: 'busybox' }).start()
    expect(JSON.parse(await ws.nextMessage()).Action).toBe('start')
    ws.close(1000, 'done')
    expect(await ws.closed).toEqual({ code: 1000, reason: 'done' })
    // The fake's clock is its own: advancing the fake timers does not move it, and vice versa.
    const t = fake.clock.now()
    await vi.advanceTimersByTimeAsync(60_000)
    expect(fake.clock.now()).toBe(t)
  })

  it('followGlobalTimers(): one vi.advanceTimersByTime drives the client and the fake', async () => {
    vi.useFakeTimers()
    const fake = createDockside({ seed: 3, clock: followGlobalTimers(), maxConnectionAge: '1h' })
    open.push(fake)
    await using _h = await fake.intercept()
    // A client that reconnects 5 s after a close, on the global (fake) timers.
    const closes: number[] = []
    const connect = () => {
      const ws = new WebSocket(`${WEST_WS}/events/ws`)
      ws.onclose = (e) => {
        closes.push(e.code)
        setTimeout(connect, 5000)
      }
    }
    connect()
    // The socket opens in a real task (as against a real server): await it, nothing to tick.
    await expect.poll(() => fake.journal.ofType('ws.open')).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(60 * 60 * 1000)
    expect(closes).toEqual([1000])
    await vi.advanceTimersByTimeAsync(5000 + 10)
    await expect.poll(() => fake.journal.ofType('ws.open')).toHaveLength(2)
    expect(fake.clock.elapsed()).toBeGreaterThanOrEqual(60 * 60 * 1000 + 5000)
  })
})

describe('same seed, same script: byte-identical on the server and in process', () => {
  const script = async (fake: Dockside, fetchAt: (p: string, i?: RequestInit) => Promise<Response>, connect: (p: string) => Promise<{ nextMessage(): Promise<string> }>) => {
    fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: [3_000_000, 1_000_000] })
    const all = await connect('/events/ws')
    const filtered = await connect('/events/ws?filters={"event":{"stop":true}}')
    const c = fake.containers.create({ name: 'web', image: 'nginx:1.27', labels: { app: 'web' } })
    c.start()
    await fake.clock.advance('90s')
    c.stop({ exitCode: 137 })
    const frames = [await all.nextMessage(), await all.nextMessage(), await filtered.nextMessage()]
    const res = await fetchAt('/v1.47/images/localhost:5000/team/app/push?tag=1.0', { method: 'POST' })
    const push = await drainWithClock(res, () => fake.clock.advance('100ms'))
    return { frames, push }
  }

  it('event frames and push lines match byte for byte', async () => {
    const a = createDockside({ seed: 99 })
    const b = createDockside({ seed: 99 })
    open.push(a, b)
    await using server = await a.listen({ port: 0 })
    const onServer = await script(a, (p, i) => fetch(server.url + p, i), (p) => probeWithWs(server.wsUrl + p))
    await using _h = await b.intercept()
    const inProcess = await script(b, (p, i) => fetch(WEST + p, i), (p) => probeWithGlobalWs(WEST_WS + p))
    expect(inProcess.frames).toEqual(onServer.frames)
    expect(inProcess.push).toBe(onServer.push)
    expect(onServer.push.split('\n').length).toBeGreaterThan(8)
  })
})
