// Regression (issue 8, point 8): `until=1` followed by 400 zeros answered 101 and then wrote `HTTP/1.1 400` inside the
// websocket, leaving a ghost socket, a 24 h timer and a tracked client behind (200 such requests left 200). Every bad
// `since`/`until` is now a JSON 400 before the upgrade (and before the 200 of Docker's GET /events), leaving nothing.
import WebSocket from 'ws'
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside } from '../../../../src/index'
import type { Protocol } from '../../../../src/protocol/router'
import { serve } from '../../../../src/transports/server/serve'
import { interceptWay } from '../../../support/intercept-way'
import { probeWithWs } from '../../../support/ws-probe'
import type { WayIn } from '../../../support/way-in'

const serverWay: WayIn = {
  name: 'server',
  async start(fake) {
    const s = await fake.listen({ port: 0 })
    return { baseUrl: s.url, wsBaseUrl: s.wsUrl, fetch: (path, init) => fetch(s.url + path, init), connect: (path) => probeWithWs(s.wsUrl + path), close: () => s.close() }
  },
}

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

// Each with what Docker's GET /events answers it: the daemon's own strconv error (500, in every API version: its
// getEvents returns it unclassed) for what its parseTimestamp cannot read; the fake's 400 for a value the daemon reads
// but the fake cannot hold (dockside's limit, named in the message). The events websocket answers 400 to all.
const BAD: [string, string | undefined][] = [
  ['1' + '0'.repeat(400), 'value out of range'], // the report's value: beyond anything the clock can schedule
  ['253402300800', undefined], // one second after 9999-12-31T23:59:59Z
  ['99999999999999999999.5', 'value out of range'],
  ['-9223372037', undefined],
  ['1.5x', 'invalid syntax'],
  ['1.99999999999999999999', 'value out of range'], // twenty fractional digits: past the int64 of the Engine's ParseInt
  ['1e3', 'invalid syntax'],
  ['0x10', 'invalid syntax'],
  ['1.', 'invalid syntax'],
  ['.5', 'invalid syntax'],
  ['2026-01-01T00:00:00Z', 'invalid syntax'],
]

describe.each([serverWay, interceptWay])('bad since/until are refused before the upgrade ($name)', (way) => {
  it('bug: each bad value is a JSON 400 naming the parameter, on /events/ws and GET /events, and leaves nothing behind', async () => {
    const fake = createDockside()
    closers.push(() => fake.close())
    const h = await way.start(fake)
    closers.push(() => h.close())
    const pendingBefore = fake.clock.pending
    for (const name of ['since', 'until']) {
      for (const [value, goError] of BAD) {
        const query = `?client=bad&${name}=${encodeURIComponent(value)}`
        const probe = await h.connect(`/events/ws${query}`)
        expect(probe.status, `${name}=${value}`).toBe(400)
        if (probe.body !== undefined) expect(JSON.parse(probe.body).message).toMatch(new RegExp(`^Invalid "${name}" .*from -9223372036 \\(year 1677\\) to 253402300799`))
        // A time Go's parseTimestamp reads but the fake cannot hold (before 1677, after 9999) is taken on Docker's route,
        // as the nearest the fake holds (before-the-epoch.test.ts); the stream it opens would not end here.
        if (!goError) continue
        const res = await h.fetch(`/events${query}`)
        expect(res.status, `GET /events ${name}=${value}`).toBe(500)
        const message = ((await res.json()) as { message: string }).message
        expect(message, `GET /events ${name}=${value}`).toMatch(new RegExp(`^strconv\\.ParseInt: parsing ".*": ${goError}$`))
        // dockside's help names the parameter and the range, in the hint header.
        expect(res.headers.get('x-dockside-hint')).toMatch(new RegExp(`^Invalid "${name}" .*from -9223372036 \\(year 1677\\)`))
      }
    }
    // No socket in the hub, no timer, no tracked client.
    const state = (await (await h.fetch('/_dockside/state')).json()) as { sockets: unknown[]; clock: { pending: number } }
    expect(state.sockets).toEqual([])
    expect(state.clock.pending).toBe(pendingBefore)
    expect(fake.protocol.hub.sockets.size).toBe(0)
    expect(fake.deliveries.clients()).toEqual([])
    expect(fake.journal.ofType('ws.open')).toEqual([])
  })

  it('the largest accepted until (9999-12-31T23:59:59Z) and leading zeros still work', async () => {
    const fake = createDockside()
    closers.push(() => fake.close())
    const h = await way.start(fake)
    closers.push(() => h.close())
    const probe = await h.connect('/events/ws?client=far&until=253402300799.999999999')
    expect(probe.status).toBe(101)
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    expect(JSON.parse(await probe.nextMessage())).toMatchObject({ status: 'start' })
    probe.close(1000, 'done')
    expect((await probe.closed).code).toBe(1000)
    const zeros = await h.connect(`/events/ws?client=zeros&since=${'0'.repeat(30)}1`)
    expect(zeros.status).toBe(101)
    zeros.close(1000, 'done')
    await zeros.closed
  })
})

describe('an exception inside an accepted websocket never writes HTTP into it', () => {
  it('the protocol closes with 1011 and journals why, leaving no socket behind', async () => {
    const fake = createDockside()
    closers.push(() => fake.close())
    const server = await fake.listen({ port: 0 })
    const schedule = fake.clock.schedule
    fake.clock.schedule = () => {
      throw new RangeError('the clock refused a timer')
    }
    const probe = await probeWithWs(`${server.wsUrl}/events/ws?client=unlucky`)
    fake.clock.schedule = schedule
    expect(probe.status).toBe(101)
    const closed = await probe.closed
    expect(closed.code).toBe(1011)
    expect(closed.reason).toMatch(/internal error/)
    expect(fake.journal.ofType('ws.error').at(-1)).toMatchObject({ client: 'unlucky', message: 'the clock refused a timer' })
    expect(fake.protocol.hub.sockets.size).toBe(0)
    expect(fake.deliveries.report('unlucky').connections[0]).toMatchObject({ closedBy: 'server', code: 1011 })
  })

  it('the server transport turns a throwing open() into close 1011, not HTTP text', async () => {
    const protocol = {
      hub: { sockets: new Set() },
      routes: [],
      handle: async () => ({ status: 404, headers: {} }),
      upgrade: async () => ({
        kind: 'accept',
        open() {
          throw new Error('broken protocol')
        },
      }),
    } as unknown as Protocol
    const server = await serve(protocol, { port: 0 })
    closers.push(() => server.close())
    const ws = new WebSocket(`${server.wsUrl}/events/ws`)
    const errors: Error[] = []
    ws.on('error', (e) => errors.push(e))
    const [code] = await new Promise<[number, string]>((r) => ws.once('close', (c, reason) => r([c, reason.toString()])))
    expect(code).toBe(1011)
    // Before: the client's frame parser choked on "HTTP/1.1 500" arriving as websocket bytes.
    expect(errors).toEqual([])
  })
})
