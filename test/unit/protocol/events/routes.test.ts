// One open events websocket (src/protocol/events/routes.ts, EventsSocket), driven through fake.protocol with a recording
// sink as a transport would: frames, the closes it sends (maximum age, close/drop faults after messages or time,
// a slow client's backlog, a client message too big) and the journal lines each leaves (PROTOCOL.md "Closing",
// docs/faults.md, docs/errors.md).
import { describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'
import type { SocketSession } from '../../../../src/protocol/types'

interface Opened {
  log: unknown[]
  session: SocketSession
  backlog: { bytes: number }
}

async function open(fake: Dockside, url = '/events/ws?client=c', withBacklog = false, behind = 0): Promise<Opened> {
  const r = await fake.protocol.upgrade({ method: 'GET', url, headers: {}, signal: new AbortController().signal, body: async () => '' })
  if (r.kind !== 'accept') throw new Error(`refused: ${r.kind}`)
  const log: unknown[] = []
  const backlog = { bytes: behind }
  const session = r.open({
    send: (text) => void log.push(JSON.parse(text).status),
    close: (code, reason) => void log.push([code, reason]),
    drop: () => void log.push('drop'),
    ...(withBacklog ? { backlog: () => backlog.bytes } : {}),
  })
  return { log, session, backlog }
}

const closes = (fake: Dockside) => fake.journal.ofType('ws.close').map(({ by, code, reason, sent, openFor }) => ({ by, code, reason, sent, openFor }))

describe('an open events websocket', () => {
  it('sends each event as a frame until the client closes, which is journaled with what was sent and for how long', async () => {
    await using fake = createDockside({ seed: 1 })
    const { log, session } = await open(fake)
    expect(fake.journal.ofType('ws.open').map(({ socket, client, since, until }) => ({ socket, client, since, until }))).toEqual([{ socket: 1, client: 'c', since: undefined, until: undefined }])
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    web.start()
    await fake.clock.advance(2000)
    session.clientClosed(4001, 'bye')
    session.clientClosed(4002, 'again')
    web.stop()
    expect(log).toEqual(['start'])
    expect(closes(fake)).toEqual([{ by: 'client', code: 4001, reason: 'bye', sent: 1, openFor: 2000 }])
    expect(fake.protocol.hub.sockets.size).toBe(0)
  })

  it('a client message too big closes with 1009 and no reason on the wire; the journal says why', async () => {
    await using fake = createDockside({ seed: 1 })
    const { log, session } = await open(fake)
    session.tooBig()
    session.tooBig()
    session.clientClosed(1000, '')
    expect(log).toEqual([[1009, '']])
    expect(closes(fake)).toEqual([{ by: 'server', code: 1009, reason: 'message too big: this websocket takes no client messages over 4096 bytes', sent: 0, openFor: 0 }])
  })

  it('closes with 1000 once until has passed on the clock, not before; the report names the way in', async () => {
    await using fake = createDockside({ seed: 1 })
    const { log } = await open(fake, '/events/ws?client=c&until=1767225602')
    await fake.clock.advance(1000)
    expect(log).toEqual([])
    await fake.clock.advance(1000)
    expect(log).toEqual([[1000, 'until reached; stream complete']])
    expect(fake.deliveries.report('c').connections.map((c) => c.via)).toEqual(['ws'])
  })

  it('refuses with 503 a client that went away during connect latency or a stalled handshake', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'events', latency: { connect: '1s' }, match: { client: 'slow' } })
    fake.faults.add({ on: 'events', stall: true, match: { client: 'stalled' } })
    for (const [client, message] of [['slow', 'the client went away during injected connect latency'], ['stalled', 'stalled by an injected fault']]) {
      const ac = new AbortController()
      const pending = fake.protocol.upgrade({ method: 'GET', url: `/events/ws?client=${client}`, headers: {}, signal: ac.signal, body: async () => '' })
      await fake.clock.advance(500)
      ac.abort()
      const r = await pending
      if (r.kind !== 'reject') throw new Error(r.kind)
      expect([r.response.status, JSON.parse(r.response.body as string).message], client).toEqual([503, message])
    }
  })

  it('closes with 1000 at the maximum connection age, not before', async () => {
    await using fake = createDockside({ seed: 1, maxConnectionAge: '1s' })
    const { log } = await open(fake)
    await fake.clock.advance(999)
    expect(log).toEqual([])
    await fake.clock.advance(1)
    expect(log).toEqual([[1000, 'maximum connection age of 1s reached; reconnect to continue']])
    expect(fake.protocol.hub.sockets.size).toBe(0)
  })

  it('sockets opened at different times each close at their own maximum age, in order, with one clock timer among them', async () => {
    await using fake = createDockside({ seed: 1, maxConnectionAge: '10s' })
    const sockets: Opened[] = []
    // Opened at 0, 0, 3 s, 3 s, 7 s and 9 s.
    for (const wait of [0, 0, 3000, 0, 4000, 2000]) {
      await fake.clock.advance(wait)
      sockets.push(await open(fake, `/events/ws?client=c${sockets.length}`))
    }
    expect(fake.clock.pending).toBe(1)
    // Two close before their age (one of them the oldest): the rest still close on time, and nothing fires twice.
    sockets[0].session.clientClosed(1000, 'early')
    sockets[3].session.clientClosed(1000, 'early')
    const aged = () => fake.journal.ofType('ws.close').filter((e) => e.by === 'server').map((e) => [e.client, e.openFor])
    await fake.clock.advance(999) // 9.999 s
    expect(aged()).toEqual([])
    await fake.clock.advance(1) // 10 s
    expect(aged()).toEqual([['c1', 10_000]])
    await fake.clock.advance(2999) // 12.999 s
    expect(aged()).toEqual([['c1', 10_000]])
    await fake.clock.advance(1) // 13 s
    expect(aged()).toEqual([['c1', 10_000], ['c2', 10_000]])
    await fake.clock.advance(3999) // 16.999 s
    expect(aged()).toHaveLength(2)
    await fake.clock.advance(1) // 17 s
    expect(aged()).toEqual([['c1', 10_000], ['c2', 10_000], ['c4', 10_000]])
    await fake.clock.advance(2000) // 19 s
    expect(aged()).toEqual([['c1', 10_000], ['c2', 10_000], ['c4', 10_000], ['c5', 10_000]])
    expect(sockets.map((s) => s.log)).toEqual([[], ...[1, 2].map(() => [[1000, 'maximum connection age of 10s reached; reconnect to continue']]), [], ...[4, 5].map(() => [[1000, 'maximum connection age of 10s reached; reconnect to continue']])])
    expect(fake.clock.pending).toBe(0)
  })

  it('sockets closing early after others aged out: the rest still close at their own age', async () => {
    await using fake = createDockside({ seed: 1, maxConnectionAge: '10s' })
    const sockets: Opened[] = []
    for (let i = 0; i < 4; i++) {
      if (i) await fake.clock.advance(1000)
      sockets.push(await open(fake, `/events/ws?client=s${i}`))
    }
    await fake.clock.advance(7000) // 10 s: s0 ages out
    expect(sockets.map((s) => s.log.length)).toEqual([1, 0, 0, 0])
    sockets[1].session.clientClosed(1000, 'early')
    sockets[2].session.clientClosed(1000, 'early')
    expect(fake.clock.pending).toBe(1)
    await fake.clock.advance(2999) // 12.999 s
    expect(sockets[3].log).toEqual([])
    await fake.clock.advance(1) // 13 s
    expect(sockets[3].log).toEqual([[1000, 'maximum connection age of 10s reached; reconnect to continue']])
    expect(fake.journal.ofType('ws.close').map((e) => [e.client, e.by, e.openFor])).toEqual([['s0', 'server', 10_000], ['s1', 'client', 9000], ['s2', 'client', 8000], ['s3', 'server', 10_000]])
    expect(fake.clock.pending).toBe(0)
  })

  it('sockets that close before their maximum age leave no timer and no slot behind (a churn of 5,000)', async () => {
    await using fake = createDockside({ seed: 1, maxConnectionAge: '1h' })
    const keep = await open(fake, '/events/ws?client=keep')
    for (let i = 0; i < 5000; i++) (await open(fake, `/events/ws?client=churn`)).session.clientClosed(1000, 'bye')
    expect(fake.clock.pending).toBe(1)
    keep.session.clientClosed(1000, 'bye')
    expect(fake.clock.pending).toBe(0)
    const late = await open(fake, '/events/ws?client=late')
    await fake.clock.advance('1h')
    expect(late.log).toEqual([[1000, 'maximum connection age of 1h reached; reconnect to continue']])
  })

  it('a close fault after N messages sends N frames, then its code and reason', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'events', close: { code: 4000, reason: 'chaos' }, afterMessages: 2 })
    const { log } = await open(fake)
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    web.start()
    expect(log).toEqual(['start'])
    web.stop()
    web.start()
    expect(log).toEqual(['start', 'stop', [4000, 'chaos']])
    expect(closes(fake)).toEqual([{ by: 'server', code: 4000, reason: 'chaos', sent: 2, openFor: 0 }])
  })

  it('a drop fault at once ends the socket with no close frame, journaled as 1006', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'events', drop: true, afterMessages: 0 })
    const { log } = await open(fake)
    expect(log).toEqual(['drop'])
    expect(closes(fake)).toEqual([{ by: 'drop', code: 1006, reason: 'dropped with no close frame', sent: 0, openFor: 0 }])
    expect(fake.deliveries.report('c').connections.at(-1)).toMatchObject({ closedBy: 'drop', code: 1006, reason: 'dropped with no close frame' })
  })

  it('a close fault after a time closes then, not before, whatever was sent meanwhile', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'events', close: { code: 1012, reason: 'restart' }, afterTime: '2s' })
    const { log } = await open(fake)
    await fake.clock.advance(1000)
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    await fake.clock.advance(999)
    expect(log).toEqual(['start'])
    log.length = 0
    await fake.clock.advance(1)
    expect(log).toEqual([[1012, 'restart']])
  })

  it('a close fault reached during the replay of since leaves no subscription behind', async () => {
    await using fake = createDockside({ seed: 1 })
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    web.start()
    web.stop()
    fake.faults.add({ on: 'events', close: { code: 4000, reason: 'after one' }, afterMessages: 1 })
    const { log } = await open(fake, '/events/ws?client=c&since=1767225600')
    expect(log).toEqual(['start', [4000, 'after one']])
    web.start()
    expect(log).toEqual(['start', [4000, 'after one']])
    expect(fake.protocol.hub.sockets.size).toBe(0)
  })

  it('per-event latency holds each frame for its delay on the clock', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'events', latency: { perEvent: '100ms' } })
    const { log } = await open(fake)
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    await fake.clock.advance(99)
    expect(log).toEqual([])
    await fake.clock.advance(1)
    expect(log).toEqual(['start'])
  })

  it('closes a client more than maxBacklog behind (beyond what it was behind at open) with 1013, journaling the backlog', async () => {
    await using fake = createDockside({ seed: 1, maxBacklog: 1000 })
    const { log, backlog } = await open(fake, '/events/ws?client=c', true, 500)
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    // The allowance was fixed at open (500 bytes behind then): up to 1000 bytes more is kept.
    backlog.bytes = 1500
    web.start()
    expect(log).toEqual(['start'])
    backlog.bytes = 1501
    web.stop()
    expect(log).toEqual(['start', 'stop', [1013, 'client too slow: over 1000 bytes queued (maxBacklog); reconnect with since to resume']])
    expect(fake.journal.ofType('ws.backlog').map(({ backlog: b, limit, sent }) => ({ b, limit, sent }))).toEqual([{ b: 1501, limit: 1000, sent: 2 }])
  })
})

describe('maximum age given as a number', () => {
  it('the close reason says the unit: milliseconds', async () => {
    await using fake = createDockside({ seed: 1, maxConnectionAge: 5000 })
    const s = await open(fake, '/events/ws?client=n')
    await fake.clock.advance(5000)
    expect(s.log).toEqual([[1000, 'maximum connection age of 5000 ms reached; reconnect to continue']])
  })
})

describe('decideUpgrade: a connect decided at once is answered without a promise', () => {
  const request = (url: string) => ({ method: 'GET', url, headers: {}, signal: new AbortController().signal, body: async () => '' })

  it('a plain connect is its result, already logged; a refusal too', () => {
    const fake = createDockside({ seed: 1 })
    const decided = fake.protocol.decideUpgrade(request('/events/ws?client=now'))
    expect(decided).not.toBeInstanceOf(Promise)
    expect(decided).toMatchObject({ kind: 'accept' })
    expect(fake.requests.list().map((r) => [r.status, r.websocket])).toEqual([[101, true]])
    expect(fake.protocol.decideUpgrade(request('/events/ws?filters=nope'))).toMatchObject({ kind: 'reject', response: { status: 400 } })
    expect(fake.protocol.decideUpgrade(request('/nope'))).toMatchObject({ kind: 'not-found' })
  })

  it('what waits (connect latency, an override, a signature to verify) is a promise of what upgrade() answers', async () => {
    const fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'events', latency: { connect: '1s' }, match: { client: 'slow' } })
    fake.use({ method: 'GET', path: '/events/ws', query: { client: 'overridden' } }, { status: 503, body: { message: 'down' } })
    const slow = fake.protocol.decideUpgrade(request('/events/ws?client=slow'))
    expect(slow).toBeInstanceOf(Promise)
    await fake.clock.advance('1s')
    expect(await slow).toMatchObject({ kind: 'accept' })
    const overridden = fake.protocol.decideUpgrade(request('/events/ws?client=overridden'))
    expect(overridden).toBeInstanceOf(Promise)
    expect(await overridden).toMatchObject({ kind: 'reject', response: { status: 503 } })
    const keyed = createDockside({ seed: 1, accessKeys: { AK: 'secret' } })
    const signedRequest = () => ({ ...request('/events/ws?client=signed'), headers: { authorization: 'HYPER-HMAC-SHA256 Credential=AK/20260101/us-west-1/hyper/hyper_request, SignedHeaders=host;x-hyper-date, Signature=00' } })
    const signed = keyed.protocol.decideUpgrade(signedRequest())
    expect(signed).toBeInstanceOf(Promise)
    expect(await signed).toEqual(await keyed.protocol.upgrade(signedRequest()))
    expect(await signed).toMatchObject({ kind: 'reject', response: { status: 400 } })
    // upgrade() answers a promise whatever the way.
    expect(fake.protocol.upgrade(request('/events/ws?client=now'))).toBeInstanceOf(Promise)
  })
})
