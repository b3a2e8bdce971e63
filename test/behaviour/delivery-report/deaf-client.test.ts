import net from 'node:net'
import tls from 'node:tls'
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createDockside, type Dockside } from 'dockside'
import { selfSignedCertificate } from '../../../src/transports/server/tls'
import { deliveryMatchers, formatDeliveryReport, installDeliveryMatchers } from '../../../src/vitest/delivery-matchers'
import { interceptWay } from '../../support/intercept-way'
import { probeWithWs } from '../../support/ws-probe'
import type { WayIn } from '../../support/way-in'

installDeliveryMatchers()

// Regression: a client that never came back after a server close (sockette after 1001, say) read
// "1 expected, 0 missed": what it was owed ended at its last connection, so `toHaveDeliveredAllEventsTo`
// passed for a client that heard nothing more. Now the owed window runs until the report is read, unless the
// client itself said goodbye with a close frame.

/** The real server on 127.0.0.1 with `ws` clients; and the in-process hook with the global WebSocket. */
const ways: WayIn[] = [
  {
    name: 'server (ws)',
    async start(fake) {
      const s = await fake.listen({ port: 0 })
      return { baseUrl: s.url, wsBaseUrl: s.wsUrl, fetch: (path, init) => fetch(s.url + path, init), connect: (path) => probeWithWs(s.wsUrl + path), close: () => s.close() }
    },
  },
  interceptWay,
]

/** Resolves at the next journal entry of `type`. */
const journalEntry = (fake: Dockside, type: string) =>
  new Promise<void>((resolve) => {
    const off = fake.on('journal', (e) => {
      if (e.type === type) {
        off()
        resolve()
      }
    })
  })

const failureOf = (fake: Dockside, client: string) => deliveryMatchers.toHaveDeliveredAllEventsTo.call({ isNot: false }, fake, client)

describe.each(ways)('a client that goes deaf is reported ($name)', (way) => {
  it('after a server close (1001) and silence, every later event is missed, in an ongoing gap', async () => {
    await using fake = createDockside({ seed: 1 })
    const h = await way.start(fake)
    try {
      const c = fake.containers.create({ name: 'web', image: 'nginx' })
      const ws = await h.connect('/events/ws?client=deaf')
      c.start()
      await ws.nextMessage()
      expect(fake.restart()).toBe(1)
      expect((await ws.closed).code).toBe(1001)
      await fake.clock.advance('5s')
      c.stop()
      c.start()
      await fake.clock.advance('1s')
      const r = fake.deliveries.report('deaf')
      expect([r.expected, r.delivered, r.missed.map((e) => e.action)]).toEqual([3, 1, ['stop', 'start']])
      expect(r.gaps).toEqual([{ from: r.connections[0].closedAt, to: new Date(fake.clock.now()).toISOString(), ms: 6000, missed: 2, ongoing: true }])
      expect(fake).not.toHaveDeliveredAllEventsTo('deaf')
      const failure = failureOf(fake, 'deaf')
      expect(failure.pass).toBe(false)
      expect(failure.message()).toMatch(/2 of 3 never did[\s\S]*no connection since \S+ \(6000 ms so far, 2 missed\)/)
      const admin = await (await h.fetch('/_dockside/deliveries/deaf')).json()
      expect([admin.expected, admin.missed.length, admin.gaps.at(-1).ongoing]).toEqual([3, 2, true])
      // Back again: the gap closes at the reconnect, and what it missed stays missed.
      const back = await h.connect('/events/ws?client=deaf')
      c.stop()
      await back.nextMessage()
      const again = fake.deliveries.report('deaf')
      expect([again.expected, again.delivered, again.missed.length]).toEqual([4, 2, 2])
      expect(again.gaps.map((g) => [g.ms, g.missed, g.ongoing])).toEqual([[6000, 2, undefined]])
      back.close()
    } finally {
      await h.close()
    }
  })

  it('a refusal on the very first attempt, then silence: every later event is missed', async () => {
    await using fake = createDockside({ seed: 1 })
    const h = await way.start(fake)
    try {
      fake.faults.add({ on: 'events', reply: 503, retryAfter: 5 })
      const c = fake.containers.create({ name: 'web', image: 'nginx' })
      expect((await h.connect('/events/ws?client=never')).status).toBe(503)
      c.start()
      await fake.clock.advance('1s')
      const r = fake.deliveries.report('never')
      expect([r.expected, r.delivered, r.missed.map((e) => e.action), r.connections]).toEqual([1, 0, ['start'], []])
      expect(r.gaps).toMatchObject([{ ms: 1000, missed: 1, ongoing: true }])
      expect(fake).not.toHaveDeliveredAllEventsTo('never')
    } finally {
      await h.close()
    }
  })

  it("after the client's own close (a close frame), nothing more is owed", async () => {
    await using fake = createDockside({ seed: 1 })
    const h = await way.start(fake)
    try {
      const c = fake.containers.create({ name: 'web', image: 'nginx' })
      const ws = await h.connect('/events/ws?client=polite')
      c.start()
      await ws.nextMessage()
      const recorded = journalEntry(fake, 'ws.close')
      ws.close(1000, 'done')
      await recorded
      await fake.clock.advance('5s')
      c.stop()
      const r = fake.deliveries.report('polite')
      expect([r.expected, r.delivered, r.missed, r.gaps]).toEqual([1, 1, [], []])
      expect(r.connections.map((x) => [x.closedBy, x.code])).toEqual([['client', 1000]])
      expect(fake).toHaveDeliveredAllEventsTo('polite')
      expect(fake).toHaveDeliveredEachEventOnceTo('polite')
      expect((await (await h.fetch('/_dockside/deliveries/polite')).json()).missed).toEqual([])
    } finally {
      await h.close()
    }
  })

  // Regression: after the client's own close, a refused (or abandoned) attempt made the report owe the whole stretch
  // from that close: the event that happened while the client chose to be away came back as missed, in a gap starting
  // at the clean close. What it is owed starts again at its first attempt after that close.
  it("after the client's own close, a refused attempt: owed again from that attempt, not from the close", async () => {
    await using fake = createDockside({ seed: 1 })
    const h = await way.start(fake)
    try {
      const c = fake.containers.create({ name: 'web', image: 'nginx' })
      const ws = await h.connect('/events/ws?client=back')
      c.start()
      await ws.nextMessage()
      const recorded = journalEntry(fake, 'ws.close')
      ws.close(1000, 'done')
      await recorded
      await fake.clock.advance('1s')
      c.stop() // away by choice: never owed
      await fake.clock.advance('1s')
      const rule = fake.faults.add({ on: 'events', reply: 429 })
      expect((await h.connect('/events/ws?client=back')).status).toBe(429)
      const refusedAt = fake.clock.now()
      await fake.clock.advance('1s')
      c.start() // after the refusal: owed, and missed
      const owed = fake.events.lastSeq
      await fake.clock.advance('1s')
      const r = fake.deliveries.report('back')
      expect([r.expected, r.delivered, r.missed.map((e) => e.seq)]).toEqual([2, 1, [owed]])
      expect(r.gaps).toEqual([{ from: new Date(refusedAt).toISOString(), to: new Date(fake.clock.now()).toISOString(), ms: 2000, missed: 1, ongoing: true }])
      expect(fake).not.toHaveDeliveredAllEventsTo('back')
      expect((await (await h.fetch('/_dockside/deliveries/back')).json()).missed.map((e: { seq: number }) => e.seq)).toEqual([owed])
      // Back without `since`: the gap closes at the reconnect, from the refusal (not from the clean close).
      rule.remove()
      const again = await h.connect('/events/ws?client=back')
      c.stop()
      await again.nextMessage()
      const after = fake.deliveries.report('back')
      expect([after.expected, after.delivered, after.missed.map((e) => e.seq)]).toEqual([3, 2, [owed]])
      expect(after.gaps).toEqual([{ from: new Date(refusedAt).toISOString(), to: after.connections[1].openedAt, ms: 2000, missed: 1 }])
      again.close()
    } finally {
      await h.close()
    }
  })
})

// A client that gives up on a stalled handshake: on the server this was never noticed (the upgrade socket was not
// read while the protocol waited, so its end was never seen), the attempt never recorded as abandoned, and the stall
// kept waiting for a client that was gone.
/** Opens an events websocket that may never be answered, with the way's own client; `close()` gives up on it. */
const attempts: Record<string, (url: string) => { close(): void; closed: Promise<unknown> }> = {
  'server (ws)': (url) => {
    const ws = new WebSocket(url)
    ws.on('error', () => {}) // closing while connecting is reported as an error first
    return { close: () => ws.close(), closed: new Promise((r) => ws.once('close', r)) }
  },
  [interceptWay.name]: (url) => {
    // The hook's global WebSocket.
    const ws = new globalThis.WebSocket(url)
    return { close: () => ws.close(), closed: new Promise((r) => ws.addEventListener('close', r)) }
  },
}

it.each(ways)("after the client's own close, an abandoned attempt: owed again from that attempt ($name)", async (way) => {
  await using fake = createDockside({ seed: 1 })
  const h = await way.start(fake)
  try {
    const c = fake.containers.create({ name: 'web', image: 'nginx' })
    const ws = await h.connect('/events/ws?client=gave-up')
    const recorded = journalEntry(fake, 'ws.close')
    ws.close(1000, 'done')
    await recorded
    c.start() // away by choice: never owed
    await fake.clock.advance('1s')
    fake.faults.add({ on: 'events', stall: true })
    const stalled = journalEntry(fake, 'fault')
    const attempt = attempts[way.name](`${h.wsBaseUrl}/events/ws?client=gave-up`)
    await stalled
    const attemptAt = fake.clock.now()
    await fake.clock.advance('1s')
    c.stop() // during the unanswered attempt: owed
    const owed = fake.events.lastSeq
    attempt.close() // the client gives up
    await attempt.closed
    await expect.poll(() => fake.deliveries.report('gave-up').timeline.at(-1)?.kind).toBe('abandoned')
    await fake.clock.advance('1s')
    const r = fake.deliveries.report('gave-up')
    expect([r.expected, r.delivered, r.missed.map((e) => e.seq)]).toEqual([1, 0, [owed]])
    expect(r.gaps).toEqual([{ from: new Date(attemptAt).toISOString(), to: new Date(fake.clock.now()).toISOString(), ms: 2000, missed: 1, ongoing: true }])
  } finally {
    await h.close()
  }
})

// Over TLS the upgrade's socket is the TLS socket, not the TCP one the server saw connect: its close must be heard too,
// also when it ends on a TLS error (no 'end' on the way, as when the client's bytes are not TLS records).
it('over wss too, a client whose TLS connection breaks during a stalled handshake is recorded as abandoned', async () => {
  await using fake = createDockside({ seed: 1 })
  const server = await fake.listen({ port: 0, tls: await selfSignedCertificate() })
  try {
    fake.faults.add({ on: 'events', stall: true })
    const stalled = journalEntry(fake, 'fault')
    const tcp = net.connect(server.port, '127.0.0.1')
    const socket = tls.connect({ socket: tcp, rejectUnauthorized: false, servername: 'localhost' })
    socket.on('error', () => {})
    await new Promise((resolve) => socket.once('secureConnect', resolve))
    socket.write(`GET /events/ws?client=tls-gave-up HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`)
    await stalled
    // Bytes under the TLS layer that are no TLS record: the server's TLS socket fails and closes without an 'end'.
    tcp.write('this is not a TLS record\r\n\r\n')
    await expect.poll(() => fake.deliveries.report('tls-gave-up').timeline.at(-1)?.kind).toBe('abandoned')
    await expect.poll(() => server.connections()).toBe(0)
  } finally {
    await server.close()
  }
})

it('a client that vanishes without a close frame (1006 from the client) is still owed', async () => {
  await using fake = createDockside({ seed: 1 })
  const server = await fake.listen({ port: 0 })
  const c = fake.containers.create({ name: 'web', image: 'nginx' })
  const ws = new WebSocket(`${server.wsUrl}/events/ws?client=crashed`)
  await new Promise((r) => ws.once('open', r))
  const recorded = journalEntry(fake, 'ws.close')
  ws.terminate()
  await recorded
  c.start()
  const r = fake.deliveries.report('crashed')
  expect(r.connections.map((x) => [x.closedBy, x.code])).toEqual([['client', 1006]])
  expect(r.missed.map((e) => e.action)).toEqual(['start'])
  expect(r.gaps).toMatchObject([{ missed: 1, ongoing: true }])
  expect(formatDeliveryReport(r)).toMatch(/no connection since/)
})
