import { setupServer } from 'msw/node'
import { http, HttpResponse } from 'msw'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../src/index'
import { DEFAULT_DOMAIN, DEFAULT_REGION } from '../../src/transports/intercept/index'
import { docksideHandlers } from '../../src/transports/msw/index'
import { probeWithGlobalWs } from '../support/global-ws-probe'
import { drainWithClock } from '../support/helpers'
import { probeWithWs } from '../support/ws-probe'
import type { Harness, WayIn } from '../support/way-in'
import { runConformance } from './suite'

// Every case of the suite through MSW: setupServer with dockside's handlers, driven by the global fetch and
// WebSocket (which MSW intercepts), on https://us-west-1.hyper.test. An unhandled request fails the test.
const server = setupServer()

/** A script whose bytes must be the same on every way in for the same seed. */
async function script(fake: Dockside, h: Harness) {
  fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: [3_000_000, 1_000_000] })
  const all = await h.connect('/events/ws')
  const filtered = await h.connect(`/events/ws?filters=${encodeURIComponent('{"event":{"stop":true}}')}`)
  const c = fake.containers.create({ name: 'web', image: 'nginx:1.27', labels: { app: 'web' } })
  c.start()
  await fake.clock.advance('90s')
  c.stop({ exitCode: 137 })
  const frames = [await all.nextMessage(), await all.nextMessage(), await filtered.nextMessage()]
  const res = await h.fetch('/v1.47/images/localhost:5000/team/app/push?tag=1.0', { method: 'POST' })
  const push = await drainWithClock(res, () => fake.clock.advance('100ms'))
  all.close()
  filtered.close()
  return { frames, push }
}

// The reference bytes, from the real server, taken before MSW patches fetch and WebSocket.
let reference: Awaited<ReturnType<typeof script>>
beforeAll(async () => {
  await using fake = createDockside({ seed: 99 })
  await using s = await fake.listen({ port: 0 })
  reference = await script(fake, { baseUrl: s.url, wsBaseUrl: s.wsUrl, fetch: (p, i) => fetch(s.url + p, i), connect: (p) => probeWithWs(s.wsUrl + p), close: async () => {} })
})
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())

export const mswWay: WayIn = {
  name: 'msw',
  async start(fake) {
    server.resetHandlers(...docksideHandlers(fake, { region: 'us-west-1' }))
    return {
      baseUrl: 'https://us-west-1.hyper.test',
      wsBaseUrl: 'wss://us-west-1.hyper.test:443',
      fetch: (path, init) => fetch(`https://us-west-1.hyper.test${path}`, init),
      connect: (path) => probeWithGlobalWs(`wss://us-west-1.hyper.test:443${path}`),
      close: async () => server.resetHandlers(),
    }
  },
}

runConformance(mswWay)

describe('docksideHandlers', () => {
  it('answers the same addresses as the in-process hook by default, and leaves other hosts to other handlers', async () => {
    await using fake = createDockside()
    server.resetHandlers(...docksideHandlers(fake), http.get('https://api.example.test/me', () => HttpResponse.json({ name: 'mine' })))
    expect(`https://${DEFAULT_REGION}.${DEFAULT_DOMAIN}`).toBe('https://us-west-1.hyper.test')
    expect(await (await fetch('https://us-west-1.hyper.test/_ping')).text()).toBe('OK')
    expect(await (await fetch('https://api.example.test/me')).json()).toEqual({ name: 'mine' })
    // Another region is not this fake's: MSW's unhandled-request policy applies (here: error).
    await expect(fetch('https://eu-central-1.hyper.test/_ping')).rejects.toThrow()
    server.resetHandlers()
  })

  it('serves another region, or a baseUrl, of a second fake beside the first', async () => {
    await using west = createDockside({ seed: 1 })
    await using east = createDockside({ seed: 2 })
    west.containers.create({ name: 'w', image: 'nginx' })
    east.containers.create({ name: 'e', image: 'nginx' })
    server.resetHandlers(...docksideHandlers(west), ...docksideHandlers(east, { baseUrl: 'http://localhost:2375' }))
    const names = async (base: string) => ((await (await fetch(`${base}/containers/json?all=1`)).json()) as { Names: string[] }[]).map((c) => c.Names[0])
    expect(await names('https://us-west-1.hyper.test')).toEqual(['/w'])
    expect(await names('http://localhost:2375')).toEqual(['/e'])
    const ws = await probeWithGlobalWs('ws://localhost:2375/events/ws')
    expect(ws.status).toBe(101)
    east.containers.get('e').start()
    expect(JSON.parse(await ws.nextMessage()).Actor.Attributes.name).toBe('e')
    ws.close()
    server.resetHandlers()
  })

  it('refuses bad options by name', () => {
    const fake = createDockside()
    expect(() => docksideHandlers(fake, { regoin: 'x' } as never)).toThrow(/unknown option "regoin"; allowed: region, domain, baseUrl, wsBaseUrl/)
    expect(() => docksideHandlers(fake, { baseUrl: 'https://x.test/api' })).toThrow(/give the origin only/)
    expect(() => docksideHandlers(fake, { wsBaseUrl: 'https://x.test' })).toThrow(/expected a wss: or ws: URL/)
    expect(() => docksideHandlers({} as never)).toThrow(/needs a fake from createDockside/)
  })

  it('a refused handshake fails like a browser: error, then close 1006 unclean, never open; the status is on socket.handshake', async () => {
    await using fake = createDockside()
    server.resetHandlers(...docksideHandlers(fake))
    fake.faults.add({ on: 'events', reply: 429, retryAfter: 2 })
    const ws = await probeWithGlobalWs('wss://us-west-1.hyper.test/events/ws')
    await ws.closed
    expect(ws.events).toEqual(['error', 'close 1006 false'])
    expect(ws.status).toBe(429)
    expect(ws.headers['retry-after']).toBe('2')
    // A drop after opening: the same failure, seen by an open socket.
    fake.faults.add({ on: 'events', drop: true, afterMessages: 0 })
    const dropped = await probeWithGlobalWs('wss://us-west-1.hyper.test/events/ws')
    await dropped.closed
    expect(dropped.events).toEqual(['open', 'error', 'close 1006 false'])
    server.resetHandlers()
  })
})

describe('docksideHandlers: the socket opens once the fake has subscribed it', () => {
  it("an event emitted in the client's onopen reaches it", async () => {
    await using fake = createDockside()
    server.resetHandlers(...docksideHandlers(fake))
    const ws = new WebSocket('wss://us-west-1.hyper.test/events/ws')
    const frame = new Promise<string>((resolve) => ws.addEventListener('message', (m) => resolve(String(m.data))))
    ws.onopen = () => fake.containers.create({ name: 'early', image: 'nginx' }).start()
    expect(JSON.parse(await frame).Actor.Attributes.name).toBe('early')
    ws.close()
    server.resetHandlers()
  })
})

describe('same seed, same script: byte-identical through MSW and on the server', () => {
  it('event frames and push lines match byte for byte', async () => {
    await using b = createDockside({ seed: 99 })
    const h = await mswWay.start(b)
    const throughMsw = await script(b, h)
    await h.close()
    expect(throughMsw.frames).toEqual(reference.frames)
    expect(throughMsw.push).toBe(reference.push)
    expect(reference.push.split('\n').length).toBeGreaterThan(8)
  })
})
