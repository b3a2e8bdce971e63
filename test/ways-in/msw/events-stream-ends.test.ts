// The two GET /events regressions of test/behaviour/events/stream/ends-on-restart-close-and-drop.test.ts and
// test/behaviour/events/since-until/until-now.test.ts, through the MSW handlers (setupServer with docksideHandlers,
// driven by the global fetch and WebSocket), in a file of their own because MSW patches the same globals as the
// in-process hooks:
// 1. a maintenance restart, `sockets/close` and `sockets/drop` left Docker's `GET /events` streams open and uncounted;
//    now a restart or a close ends them cleanly and a drop fails them, and the counts include them;
// 2. `until` equal to the clock's time waited for the virtual clock to move; now it ends at once after the replay.
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createDockside } from '../../../src/index'
import { docksideHandlers } from '../../../src/transports/msw/index'
import { probeWithGlobalWs } from '../../support/global-ws-probe'
import { readToEnd } from '../../support/stream-ways'

const BASE = 'https://us-west-1.hyper.test'
const WS_BASE = 'wss://us-west-1.hyper.test:443'
const RESTART = 'server restarting for maintenance; reconnect to continue'

const server = setupServer()
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterEach(() => server.resetHandlers())
afterAll(() => server.close())

/** A fake behind the MSW handlers, closed at the end of the test. */
function started() {
  const fake = createDockside({ seed: 1 })
  server.resetHandlers(...docksideHandlers(fake, { region: 'us-west-1' }))
  return fake
}

/** `GET path` read to its end in the background; resolves once the headers are in. */
async function stream(path: string) {
  const res = await fetch(`${BASE}${path}`)
  expect(res.status).toBe(200)
  return { outcome: readToEnd(res) }
}

const post = async (path: string, body?: unknown) => {
  const r = await fetch(`${BASE}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  expect(r.status).toBe(200)
  return r.json()
}

const statuses = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l).status as string)

describe('GET /events streams end on a restart, a close or a drop of every socket (msw)', () => {
  it('bug: POST /_dockside/restart answered {"closed":0} with a stream open; now the stream ends cleanly, counted', async () => {
    await using fake = started()
    const ws = await probeWithGlobalWs(`${WS_BASE}/events/ws?client=socket`)
    const s = await stream('/events?client=stream')
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    expect(await post('/_dockside/restart')).toEqual({ closed: 2 })
    expect(await ws.closed).toEqual({ code: 1001, reason: RESTART })
    const { how, text } = await s.outcome
    expect(how).toBe('end')
    expect(statuses(text)).toEqual(['start'])
    expect(fake.deliveries.report('stream').connections.at(-1)).toMatchObject({ via: 'stream', closedBy: 'server', code: 1001, reason: RESTART })
  })

  it('bug: sockets/close and fake.restart() left the stream open; now each ends it cleanly', async () => {
    await using fake = started()
    const closed = await stream('/events?client=closed')
    expect(await post('/_dockside/sockets/close', { code: 4000, reason: 'chaos' })).toEqual({ closed: 1 })
    expect(await closed.outcome).toEqual({ how: 'end', text: '' })
    const restarted = await stream('/events?client=restarted')
    expect(fake.restart()).toBe(1)
    expect(await restarted.outcome).toEqual({ how: 'end', text: '' })
  })

  it('bug: sockets/drop left the stream open; now it fails as a reset does, counted', async () => {
    await using fake = started()
    const s = await stream('/events?client=stream')
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    expect(await post('/_dockside/sockets/drop')).toEqual({ dropped: 1 })
    const { how, text, error } = await s.outcome
    expect(how).toBe('error')
    expect(error).toBeInstanceOf(Error)
    expect(statuses(text)).toEqual(['start'])
    expect(fake.deliveries.report('stream').connections.at(-1)).toMatchObject({ closedBy: 'drop', code: 1006 })
  })
})

describe('until equal to the clock time ends the stream at once (msw)', () => {
  it('bug: GET /events and /events/ws with until = the clock time stayed open until the clock moved; now they end after the replay', async () => {
    await using fake = started()
    const c = fake.containers.create({ name: 'web', image: 'nginx' })
    c.start()
    c.stop()
    for (const until of ['1767225600', '1767225600.000000000']) {
      // The stop is 1 ns after until: only the start is replayed.
      expect(statuses(await (await fetch(`${BASE}/events?since=1767225600&until=${until}`)).text()), `until=${until}`).toEqual(['start'])
      const ws = await probeWithGlobalWs(`${WS_BASE}/events/ws?since=1767225600&until=${until}`)
      expect(await ws.closed).toEqual({ code: 1000, reason: 'until reached; stream complete' })
      expect(ws.messages.map((m) => JSON.parse(m).status)).toEqual(['start'])
    }
    expect(fake.clock.now()).toBe(Date.UTC(2026, 0, 1))
  })
})
