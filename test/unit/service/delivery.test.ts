// The delivery tracker behind `fake.deliveries` (src/service/delivery.ts), driven through its exported API on the
// event log and the virtual clock: who a client is, what it is owed (docs/chaos.md "What a client is owed",
// docs/decisions/0007), the report's lists word for word, and the limits ("Limits").
import { describe, expect, it } from 'vitest'
import { createDeliveryTracker, DELIVERY_LIMITS, type DeliveryTracker } from '../../../src/service/delivery'
import { createEventLog, type EventLog, type ServiceEvent } from '../../../src/service/events'
import { NotFoundError } from '../../../src/service/errors'
import { createClock, type Clock } from '../../../src/time/clock'
import { compileFilters, type CompiledFilter, type Filters } from '../../../src/service/filters'

/** Filters compiled as the protocol hands them to the tracker: one compiled filter per filters text. */
const compiledByText = new Map<string, CompiledFilter>()
const compiled = (f: Filters) => compiledByText.get(JSON.stringify(f)) ?? compiledByText.set(JSON.stringify(f), compileFilters(f, { imageIds: true })).get(JSON.stringify(f))!

const T0 = Date.UTC(2026, 0, 1) // the clock's default start: 2026-01-01T00:00:00.000Z
const at = (ms: number) => new Date(T0 + ms).toISOString()
const nano = (ms: number, ns = 0) => (BigInt(T0 + ms) * 1_000_000n + BigInt(ns)).toString()

interface World {
  clock: Clock
  log: EventLog
  d: DeliveryTracker
  /** Appends an event (`name` as the container) and returns it. */
  ev(action?: 'start' | 'stop', name?: string): ServiceEvent
  /** Moves the clock to `ms` after its start. */
  to(ms: number): Promise<void>
}

/** A tracker whose clock started 500 ms before the log's start, so `elapsedMs` is not the clock's own elapsed time. */
function world(options: { retain?: number; limits?: Partial<Record<keyof typeof DELIVERY_LIMITS, number>> } = {}): World {
  const clock = createClock()
  const log = createEventLog(clock, { retain: options.retain })
  const d = createDeliveryTracker({ log, now: () => clock.now(), startedAt: T0 - 500, limits: options.limits })
  return {
    clock,
    log,
    d,
    ev: (action = 'start', name = 'web') => log.append({ action, id: `${name}-id`, name, image: 'nginx', labels: {}, instanceType: 's4', exitCode: 0 }),
    to: (ms) => clock.advance(ms - clock.elapsed()),
  }
}

const ref = (e: ServiceEvent) => ({ seq: e.seq, action: e.action, container: e.name, timeNano: e.timeNano.toString(), time: new Date(e.timeMs).toISOString() })

describe('who a client is', () => {
  it('its id when it gives one; else its address and its filters in a canonical form (keys and values sorted)', () => {
    const { d } = world()
    expect(d.identify({ client: 'billing', filters: { event: ['start'] }, address: '10.0.0.1' })).toBe('billing')
    expect(d.identify({ filters: { event: ['stop', 'start'], container: ['web', 'api'] }, address: '127.0.0.1' })).toBe('127.0.0.1 {"container":["api","web"],"event":["start","stop"]}')
    expect(d.identify({ filters: {} })).toBe('local {}')
    expect(d.identify({ filters: { label: undefined } })).toBe('local {"label":[]}')
  })

  it('anonymous clients connected at once get #2, #3; a reconnect takes the lowest free one', () => {
    const { d } = world()
    const f = {}
    const connect = (socket: number) => {
      const key = d.identify({ filters: f })
      d.attempt(key, compiled(f))
      d.opened(key, socket, 'ws', undefined)
      return key
    }
    expect([connect(1), connect(2), connect(3)]).toEqual(['local {}', 'local {} #2', 'local {} #3'])
    d.closed('local {} #2', 2, 'client', 1000, '')
    expect(connect(4)).toBe('local {} #2')
    expect(connect(5)).toBe('local {} #4')
    d.closed('local {}', 1, 'client', 1000, '')
    expect(connect(6)).toBe('local {}')
    expect(connect(7)).toBe('local {} #5')
    d.closed('local {} #4', 5, 'client', 1000, '')
    d.closed('local {} #3', 3, 'client', 1000, '')
    expect(connect(8)).toBe('local {} #3')
    expect(connect(9)).toBe('local {} #4')
    expect(d.clients()).toEqual(['local {}', 'local {} #2', 'local {} #3', 'local {} #4', 'local {} #5'])
    // Freed in ascending order: the lowest is given first.
    d.closed('local {} #3', 8, 'client', 1000, '')
    d.closed('local {} #4', 9, 'client', 1000, '')
    expect(connect(10)).toBe('local {} #3')
  })

  it('a filter text that itself holds " #5" is not read as a number', () => {
    const { d } = world()
    const f = { container: ['a #5'] }
    const base = 'local {"container":["a #5"]}'
    for (const socket of [1, 2]) {
      const key = d.identify({ filters: f })
      d.attempt(key, compiled(f))
      d.opened(key, socket, 'ws', undefined)
    }
    d.closed(base, 1, 'client', 1000, '')
    expect(d.identify({ filters: f })).toBe(base)
  })

  it('an attempt still waiting for its answer holds its key; an attempt without a signal does not', () => {
    const { d } = world()
    const f = { event: ['start'] }
    const base = 'local {"event":["start"]}'
    d.attempt(d.identify({ filters: f }), compiled(f))
    expect(d.identify({ filters: f })).toBe(base)
    const waiting = new AbortController()
    d.attempt(base, compiled(f), waiting.signal)
    expect(d.identify({ filters: f })).toBe(`${base} #2`)
    waiting.abort()
    expect(d.identify({ filters: f })).toBe(base)
    expect(d.known(base)).toBe(true)
    expect(d.known(`${base} #2`)).toBe(false)
  })
})

describe('activity order', () => {
  it('clients() lists in order of arrival; an unknown client names the known ones in order of activity', () => {
    const { d } = world()
    d.attempt('a', compiled({}))
    d.attempt('b', compiled({}))
    d.attempt('a', compiled({}))
    expect(d.clients()).toEqual(['a', 'b'])
    expect(() => d.report('x')).toThrow(/^No events client "x"\. Known clients: "b", "a"\. Give clients/)
  })

  it('an end that leaves the client busy (another attempt or connection) does not move it in the activity order', () => {
    const { d } = world()
    const known = () => {
      try {
        d.report('?')
      } catch (error) {
        return /Known clients: (.*?)\. Give/.exec((error as Error).message)?.[1]
      }
    }
    const [s1, s2, s3, s4] = [0, 1, 2, 3].map(() => new AbortController())
    d.attempt('a', compiled({}), s1.signal)
    d.attempt('a', compiled({}), s2.signal)
    d.attempt('r', compiled({}), s3.signal)
    d.attempt('r', compiled({}), s4.signal)
    d.attempt('c', compiled({}))
    d.opened('c', 1, 'ws', undefined)
    d.attempt('c', compiled({}))
    d.opened('c', 2, 'ws', undefined)
    d.attempt('z', compiled({}))
    expect(known()).toBe('"a", "r", "c", "z"')
    s1.abort()
    d.refused('r', 429, 'x', 1, s3.signal)
    d.closed('c', 1, 'server', 1001, '')
    expect(known()).toBe('"a", "r", "c", "z"')
  })

  it('a refusal after its own close (the attempt was made before it) owes what follows the refusal', async () => {
    const w = world()
    const { d } = w
    d.attempt('c', compiled({}))
    d.opened('c', 1, 'ws', undefined)
    d.attempt('c', compiled({})) // a second connection, with no signal to wait on
    d.closed('c', 1, 'client', 1000, '')
    await w.to(1000)
    d.refused('c', 503, 'down')
    const e = w.ev()
    await w.to(2000)
    expect(d.report('c')).toMatchObject({ missed: [ref(e)], gaps: [{ from: at(1000), to: at(2000), ms: 1000, missed: 1, ongoing: true }] })
  })

  it('a client that tries again is no longer the one idle the longest', () => {
    const { d } = world({ limits: { clients: 2 } })
    d.attempt('a', compiled({}))
    d.attempt('b', compiled({}))
    d.attempt('a', compiled({}))
    d.attempt('c', compiled({}))
    expect(d.clients()).toEqual(['a', 'c'])
  })

  it('a client with two attempts waiting stays busy until both end', () => {
    const { d } = world()
    const [s1, s2] = [new AbortController(), new AbortController()]
    const key = d.identify({ filters: {} })
    d.attempt(key, compiled({}), s1.signal)
    d.attempt(key, compiled({}), s2.signal)
    s1.abort()
    expect(d.identify({ filters: {} })).toBe('local {} #2')
    s2.abort()
    expect(d.identify({ filters: {} })).toBe('local {}')
    expect(d.report(key).timeline.map((l) => l.kind)).toEqual(['attempt', 'attempt', 'abandoned', 'abandoned'])
  })

  it('the twelfth anonymous client, once free, is the next one given (numbers of two digits)', () => {
    const { d } = world()
    for (let i = 1; i <= 13; i++) {
      const key = d.identify({ filters: {} })
      expect(key).toBe(i === 1 ? 'local {}' : `local {} #${i}`)
      d.attempt(key, compiled({}))
      d.opened(key, i, 'ws', undefined)
    }
    d.closed('local {} #12', 12, 'client', 1000, '')
    expect(d.identify({ filters: {} })).toBe('local {} #12')
  })
})

describe('a report, word for word', () => {
  it('refused, back, served twice over, closed by the server, away: missed, duplicates, gaps, backoff, timeline', async () => {
    const w = world()
    const { d } = w
    d.attempt('c', compiled({}))
    d.refused('c', 429, 'too many', 2)
    await w.to(1000)
    const e1 = w.ev()
    await w.to(2000)
    d.attempt('c', compiled({}))
    d.opened('c', 7, 'ws', undefined)
    await w.to(3000)
    const e2 = w.ev('stop')
    d.sent('c', 7, e2)
    d.sent('c', 7, e2)
    await w.to(4000)
    const e3 = w.ev()
    d.sent('c', 7, e3)
    await w.to(5000)
    d.closed('c', 7, 'server', 1001, 'restart')
    await w.to(6000)
    const e4 = w.ev('stop')
    await w.to(8000)
    const r = d.report('c')
    expect(r).toEqual({
      client: 'c',
      expected: 4,
      delivered: 2,
      missed: [
        { seq: 1, action: 'start', container: 'web', timeNano: nano(1000), time: at(1000) },
        { seq: 4, action: 'stop', container: 'web', timeNano: nano(6000), time: at(6000) },
      ],
      duplicates: [{ seq: 2, action: 'stop', container: 'web', timeNano: nano(3000), time: at(3000), times: 2 }],
      connections: [{ socket: 7, via: 'ws', openedAt: at(2000), since: undefined, sent: 3, closedAt: at(5000), closedBy: 'server', code: 1001, reason: 'restart' }],
      refusals: [{ at: at(0), status: 429, retryAfter: 2, reason: 'too many' }],
      backoffMs: [2000],
      gaps: [
        { from: at(0), to: at(2000), ms: 2000, missed: 1 },
        { from: at(5000), to: at(8000), ms: 3000, missed: 1, ongoing: true },
      ],
      timeline: [
        { at: at(0), elapsedMs: 500, kind: 'attempt', detail: 'first connect' },
        { at: at(0), elapsedMs: 500, kind: 'refused', detail: '429 retry-after 2s: too many' },
        { at: at(2000), elapsedMs: 2500, kind: 'attempt', detail: 'reconnect after 2000 ms' },
        { at: at(2000), elapsedMs: 2500, kind: 'open', detail: 'socket 7' },
        { at: at(5000), elapsedMs: 5500, kind: 'close', detail: 'socket 7 closed by server 1001 "restart"' },
      ],
      omitted: { connections: 0, refusals: 0, timeline: 0 },
    })
    expect(Object.keys(r.gaps[0])).toEqual(['from', 'to', 'ms', 'missed'])
    expect(d.summary('c')).toEqual({ client: 'c', expected: 4, delivered: 2, missed: 2, duplicates: 1, connections: 1, refusals: 1 })
    expect(r.missed).toEqual([ref(e1), ref(e4)])

    // Back with `since` = the missed event's time, over Docker's stream: it is replayed and the gap closes.
    await w.to(9000)
    d.attempt('c', compiled({}))
    d.opened('c', 8, 'stream', e4.timeNano)
    d.sent('c', 8, e4)
    await w.to(9500)
    d.refused('c', 503, 'down') // a refusal while connected: no gap begins
    const back = d.report('c')
    expect([back.expected, back.delivered, back.missed.map((e) => e.seq)]).toEqual([4, 3, [1]])
    expect(back.connections[1]).toStrictEqual({ socket: 8, via: 'stream', openedAt: at(9000), since: nano(6000), sent: 1 })
    expect(back.gaps).toEqual([
      { from: at(0), to: at(2000), ms: 2000, missed: 1 },
      { from: at(5000), to: at(9000), ms: 4000, missed: 0 },
    ])
    expect(back.refusals.at(-1)).toEqual({ at: at(9500), status: 503, retryAfter: undefined, reason: 'down' })
    expect(back.timeline.slice(5).map((l) => [l.kind, l.detail])).toEqual([
      ['attempt', 'reconnect after 4000 ms'],
      ['open', `socket 8 since ${nano(6000)}`],
      ['refused', '503: down'],
    ])
    expect(back.backoffMs).toEqual([2000, 4000])
    // A second connection of the same client while the first is open: no stretch away, so no new gap.
    const e5 = w.ev()
    d.sent('c', 8, e5)
    await w.to(9800)
    d.attempt('c', compiled({}))
    d.opened('c', 9, 'ws', undefined)
    expect(d.report('c').gaps).toEqual(back.gaps)
  })

  it("after its own close (a close frame) nothing is owed until its next attempt; a returning since is owed again", async () => {
    const w = world()
    const { d } = w
    d.attempt('p', compiled({}))
    d.opened('p', 1, 'ws', undefined)
    const e1 = w.ev()
    d.sent('p', 1, e1)
    await w.to(1000)
    d.closed('p', 1, 'client', 1000, '')
    await w.to(2000)
    const e2 = w.ev('stop') // away by choice
    await w.to(3000)
    const e3 = w.ev() // away by choice, asked for again by `since`
    await w.to(4000)
    expect(d.report('p')).toMatchObject({ expected: 1, delivered: 1, missed: [], gaps: [], backoffMs: [] })
    d.attempt('p', compiled({}))
    d.opened('p', 2, 'ws', e3.timeNano)
    const r = d.report('p')
    expect([r.expected, r.delivered, r.missed.map((e) => e.seq), r.gaps]).toEqual([2, 1, [e3.seq], []])
    expect(r.timeline.map((l) => l.detail)).toEqual(['first connect', 'socket 1', 'socket 1 closed by client 1000', 'reconnect after 3000 ms', `socket 2 since ${nano(3000)}`])
    expect(r.backoffMs).toEqual([3000])
    d.sent('p', 2, e3)
    const e4 = w.ev()
    d.sent('p', 2, e4)
    expect(d.summary('p')).toMatchObject({ expected: 3, delivered: 3, missed: 0 })
    expect(e2.seq).toBe(2)
  })

  it('a client-side end without a close frame (1006), a drop, and a client close while an attempt waits are not goodbyes', async () => {
    const w = world()
    const { d } = w
    // 1006 from the client.
    d.attempt('crash', compiled({}))
    d.opened('crash', 1, 'ws', undefined)
    d.closed('crash', 1, 'client', 1006, '')
    // A drop.
    d.attempt('drop', compiled({}))
    d.opened('drop', 2, 'ws', undefined)
    d.closed('drop', 2, 'drop', 1006, '')
    // A close frame, but another attempt of the same client is already under way.
    const retry = new AbortController()
    d.attempt('eager', compiled({}))
    d.opened('eager', 3, 'ws', undefined)
    d.attempt('eager', compiled({}), retry.signal)
    d.closed('eager', 3, 'client', 1000, 'bye')
    await w.to(1000)
    const e = w.ev()
    await w.to(2000)
    for (const c of ['crash', 'drop', 'eager']) expect([c, d.report(c).missed]).toEqual([c, [ref(e)]])
    expect(d.report('crash').gaps).toEqual([{ from: at(0), to: at(2000), ms: 2000, missed: 1, ongoing: true }])
    expect(d.report('drop').timeline.at(-1)).toEqual({ at: at(0), elapsedMs: 500, kind: 'drop', detail: 'socket 2 dropped (no close frame, 1006)' })
    expect(d.report('crash').timeline.at(-1)).toMatchObject({ kind: 'close', detail: 'socket 1 closed by client 1006' })
    expect(d.report('eager').timeline.at(-1)).toMatchObject({ kind: 'close', detail: 'socket 3 closed by client 1000 "bye"' })
    // Each end counts towards the next attempt's backoff: the drop's and the 1006's.
    await w.to(2700)
    d.attempt('drop', compiled({}))
    d.attempt('crash', compiled({}))
    expect([d.report('drop').backoffMs, d.report('crash').backoffMs]).toEqual([[2700], [2700]])
    // A server close with an empty reason.
    d.attempt('quiet', compiled({}))
    d.opened('quiet', 4, 'ws', undefined)
    d.closed('quiet', 4, 'server', 1000, '')
    expect(d.report('quiet').timeline.at(-1)?.detail).toBe('socket 4 closed by server 1000')
  })

  it('a refusal and an open in the same millisecond with nothing between leave no gap; with an event between, a gap of 0 ms', async () => {
    const w = world()
    const { d } = w
    d.attempt('a', compiled({}))
    d.refused('a', 429, 'x', 1)
    d.attempt('a', compiled({}))
    d.opened('a', 1, 'ws', undefined)
    expect(d.report('a').gaps).toEqual([])
    d.attempt('b', compiled({}))
    d.refused('b', 429, 'x', 1)
    const e = w.ev()
    d.attempt('b', compiled({}))
    d.opened('b', 2, 'ws', undefined)
    expect(d.report('b').gaps).toEqual([{ from: at(0), to: at(0), ms: 0, missed: 1 }])
    expect(d.report('b').missed).toEqual([ref(e)])
    // Away for a while with nothing missed: a gap of its length.
    d.closed('a', 1, 'server', 1001, '')
    await w.to(3000)
    d.attempt('a', compiled({}))
    d.opened('a', 3, 'ws', undefined)
    expect(d.report('a').gaps).toEqual([{ from: at(0), to: at(3000), ms: 3000, missed: 0 }])
  })

  it('owed from the first open (and what its since replays), never before; only matching events; other sockets do not count', async () => {
    const w = world()
    const { d } = w
    const early = w.ev() // before the client came: not owed
    await w.to(1000)
    const replayed = w.ev('start', 'api')
    await w.to(2000)
    d.attempt('f', compiled({ container: ['api'] }))
    d.opened('f', 1, 'ws', replayed.timeNano)
    w.ev('start', 'web') // not matching
    const e = w.ev('stop', 'api')
    d.sent('f', 1, e)
    d.sent('f', 99, replayed) // sent, on a socket the tracker does not know (counted, not on a connection)
    d.sent('nobody', 1, e)
    d.closed('nobody', 1, 'server', 1000, '')
    d.closed('f', 99, 'server', 1000, '')
    const r = d.report('f')
    expect([r.expected, r.delivered, r.missed, r.connections.map((c) => c.sent)]).toEqual([2, 2, [], [1]])
    expect(r.connections[0].closedAt).toBe(undefined)
    expect([r.refusals, r.omitted]).toEqual([[], { connections: 0, refusals: 0, timeline: 0 }])
    expect(d.summary('f')).toEqual({ client: 'f', expected: 2, delivered: 2, missed: 0, duplicates: 0, connections: 1, refusals: 0 })
    expect(Object.keys(r.connections[0])).toEqual(['socket', 'via', 'openedAt', 'since', 'sent'])
    expect(early.seq).toBe(1)
  })
})

describe('where what is owed starts and stops', () => {
  it('attempts alone (not yet answered) owe nothing; the event just before the open is not owed', async () => {
    const w = world()
    const { d } = w
    d.attempt('w', compiled({}))
    const before = w.ev()
    expect(d.report('w')).toMatchObject({ expected: 0, missed: [], gaps: [], connections: [] })
    d.opened('w', 1, 'ws', undefined)
    const e = w.ev()
    d.sent('w', 1, e)
    expect(d.summary('w')).toMatchObject({ expected: 1, delivered: 1, missed: 0 })
    expect(before.seq).toBe(1)
  })

  it('an event never sent while connected is missed, but not in the gap that follows', async () => {
    const w = world()
    const { d } = w
    d.attempt('c', compiled({}))
    d.opened('c', 1, 'ws', undefined)
    const lost = w.ev()
    d.closed('c', 1, 'server', 1011, 'oops')
    await w.to(1000)
    const r = d.report('c')
    expect([r.missed, r.gaps]).toEqual([[ref(lost)], [{ from: at(0), to: at(1000), ms: 1000, missed: 0, ongoing: true }]])
  })

  it('a close is recorded once; sends after it do not count on that connection', () => {
    const w = world()
    const { d } = w
    d.attempt('c', compiled({}))
    d.opened('c', 1, 'ws', undefined)
    d.closed('c', 1, 'server', 1000, '')
    d.closed('c', 1, 'drop', 1006, '')
    d.sent('c', 1, w.ev())
    const r = d.report('c')
    expect(r.timeline.map((l) => l.kind)).toEqual(['attempt', 'open', 'close'])
    expect(r.connections).toMatchObject([{ sent: 0, closedBy: 'server', code: 1000 }])
  })

  it('sentOn, with the connection opened returned, counts as sent does: on the client, and on that connection while open', () => {
    const w = world()
    const { d } = w
    d.attempt('c', compiled({}))
    const first = d.opened('c', 1, 'ws', undefined)
    d.attempt('c', compiled({}))
    const second = d.opened('c', 2, 'ws', undefined)
    const [a, b, c] = [w.ev(), w.ev(), w.ev()]
    d.sentOn(first, a)
    d.sentOn(second, a)
    d.sentOn(second, b)
    d.closed('c', 2, 'client', 1000, '')
    d.sentOn(second, c)
    const r = d.report('c')
    expect(r.connections.map((x) => [x.socket, x.sent])).toEqual([[1, 1], [2, 2]])
    expect([r.delivered, r.duplicates.map((x) => [x.seq, x.times]), r.missed.map((x) => x.seq)]).toEqual([3, [[a.seq, 2]], []])
  })

  it('one of two open connections closed by the server: no stretch away while the other is open', async () => {
    const w = world()
    const { d } = w
    d.attempt('c', compiled({}))
    d.opened('c', 1, 'ws', undefined)
    d.attempt('c', compiled({}))
    d.opened('c', 2, 'ws', undefined)
    d.closed('c', 1, 'server', 1001, '')
    await w.to(1000)
    const e = w.ev()
    d.sent('c', 2, e)
    d.attempt('c', compiled({}))
    d.opened('c', 3, 'ws', undefined)
    expect(d.report('c')).toMatchObject({ expected: 1, delivered: 1, missed: [], gaps: [] })
  })

  it('connections open at once each count their own sends and record their own close, whichever closes first', async () => {
    const w = world()
    const { d } = w
    const open = (socket: number) => {
      d.attempt('c', compiled({}))
      d.opened('c', socket, 'ws', undefined)
    }
    const send = (sockets: number[]) => {
      const e = w.ev()
      for (const s of sockets) d.sent('c', s, e)
    }
    open(1)
    send([1])
    open(2)
    send([1, 2])
    open(3)
    send([1, 2, 3])
    // The first one opened closes first, then the last; the middle one stays and sends on; then a fourth opens.
    d.closed('c', 1, 'server', 1001, 'first')
    // A closed connection counts no more sends and keeps its first close.
    send([1, 2, 3])
    d.closed('c', 1, 'drop', 1006, 'again')
    d.closed('c', 3, 'client', 4000, 'third')
    send([2, 3])
    d.closed('c', 3, 'server', 1000, 'again')
    open(4)
    send([2, 4])
    d.closed('c', 2, 'drop', 1006, 'second')
    send([4])
    await w.to(1000)
    const r = d.report('c')
    expect(r.connections.map(({ socket, sent, closedBy, code, reason }) => ({ socket, sent, closedBy, code, reason }))).toEqual([
      { socket: 1, sent: 3, closedBy: 'server', code: 1001, reason: 'first' },
      { socket: 2, sent: 5, closedBy: 'drop', code: 1006, reason: 'second' },
      { socket: 3, sent: 2, closedBy: 'client', code: 4000, reason: 'third' },
      { socket: 4, sent: 2, closedBy: undefined, code: undefined, reason: undefined },
    ])
    expect(r.timeline.filter((l) => l.kind !== 'attempt').map((l) => `${l.kind} ${l.detail}`)).toEqual([
      'open socket 1',
      'open socket 2',
      'open socket 3',
      'close socket 1 closed by server 1001 "first"',
      'close socket 3 closed by client 4000 "third"',
      'open socket 4',
      'drop socket 2 dropped (no close frame, 1006)',
    ])
    // Always connected: nothing missed, no stretch away.
    expect(r).toMatchObject({ missed: [], gaps: [] })
    d.closed('c', 4, 'client', 1000, '')
    expect(d.report('c').connections[3]).toMatchObject({ socket: 4, sent: 2, closedBy: 'client', code: 1000 })
  })

  it('a client whose last waiting attempt ends (abandoned or refused) becomes idle, and can be forgotten', () => {
    const { d } = world({ limits: { clients: 1 } })
    const [s1, s2, s3, s4] = [0, 1, 2, 3].map(() => new AbortController())
    d.attempt('a', compiled({}), s1.signal)
    d.attempt('a', compiled({}), s2.signal) // busy: no longer among the idle
    s1.abort()
    s2.abort()
    d.attempt('b', compiled({}), s3.signal)
    expect(d.clients()).toEqual(['b'])
    d.attempt('b', compiled({}), s4.signal)
    d.refused('b', 429, 'x', 1, s3.signal)
    d.refused('b', 429, 'x', 1, s4.signal)
    d.attempt('c', compiled({}))
    expect(d.clients()).toEqual(['c'])
  })
})

describe('attempts that are never answered', () => {
  it('an aborted attempt is abandoned: owed from then, a gap begins, and it ends a backoff', async () => {
    const w = world()
    const { d } = w
    const ac = new AbortController()
    d.attempt('s', compiled({}), ac.signal)
    d.attempt('s', compiled({}), ac.signal) // the same attempt again: one pending
    await w.to(1000)
    ac.abort()
    const e = w.ev()
    await w.to(3000)
    d.attempt('s', compiled({}))
    const r = d.report('s')
    expect(r.timeline.map((l) => [l.elapsedMs, l.kind, l.detail])).toEqual([
      [500, 'attempt', 'first connect'],
      [500, 'attempt', 'first connect'],
      [1500, 'abandoned', 'the attempt ended before the handshake was answered'],
      [3500, 'attempt', 'reconnect after 2000 ms'],
    ])
    expect(r.missed).toEqual([ref(e)])
    expect(r.backoffMs).toEqual([2000])
    expect(r.gaps).toEqual([{ from: at(1000), to: at(3000), ms: 2000, missed: 1, ongoing: true }])
  })

  it('an attempt already aborted is not waited for; an answered attempt no longer listens for its abort', () => {
    const { d } = world()
    const gone = new AbortController()
    gone.abort()
    d.attempt('local {}', compiled({}), gone.signal)
    expect(d.identify({ filters: {} })).toBe('local {}')
    const ac = new AbortController()
    d.attempt('a', compiled({}), ac.signal)
    d.opened('a', 1, 'ws', undefined, ac.signal)
    ac.abort()
    expect(d.report('a').timeline.map((l) => l.kind)).toEqual(['attempt', 'open'])
  })

  it('an answer names its attempt by signal, else the oldest waiting one is answered', () => {
    const { d } = world()
    const [s1, s2, s3, s4] = [0, 1, 2, 3].map(() => new AbortController())
    d.attempt('a', compiled({}), s1.signal)
    d.attempt('a', compiled({}), s2.signal)
    d.opened('a', 1, 'ws', undefined, s2.signal)
    s2.abort() // answered: no longer listened to
    expect(d.report('a').timeline.map((l) => l.kind)).toEqual(['attempt', 'attempt', 'open'])
    s1.abort()
    expect(d.report('a').timeline.map((l) => l.kind)).toEqual(['attempt', 'attempt', 'open', 'abandoned'])
    d.attempt('b', compiled({}), s3.signal)
    d.attempt('b', compiled({}), s4.signal)
    d.refused('b', 429, 'busy', 1, new AbortController().signal) // not one of its attempts: the oldest
    s3.abort()
    s4.abort()
    expect(d.report('b').timeline.map((l) => l.kind)).toEqual(['attempt', 'attempt', 'refused', 'abandoned'])
  })
})

describe('limits', () => {
  it('the defaults are 1,000 of each', () => {
    expect(DELIVERY_LIMITS).toEqual({ connections: 1000, refusals: 1000, timeline: 1000, clients: 1000 })
  })

  it('connections, refusals and timeline lines are kept up to their limit; the report covers the kept window', async () => {
    const w = world({ limits: { connections: 2, refusals: 1, timeline: 3 } })
    const { d } = w
    d.attempt('c', compiled({}))
    d.refused('c', 429, 'one', 1)
    d.refused('c', 503, 'two', 1)
    const e1 = w.ev() // in the first stretch away: dropped from the window later
    await w.to(1000)
    d.attempt('c', compiled({}))
    d.opened('c', 1, 'ws', undefined)
    d.closed('c', 1, 'server', 1001, '')
    const e2 = w.ev() // missed
    await w.to(2000)
    d.attempt('c', compiled({}))
    d.opened('c', 2, 'ws', undefined)
    let r = d.report('c')
    expect([r.missed.map((e) => e.seq), r.omitted]).toEqual([[e1.seq, e2.seq], { connections: 0, refusals: 1, timeline: 5 }])
    expect(r.refusals).toEqual([{ at: at(0), status: 503, retryAfter: 1, reason: 'two' }])
    expect(r.timeline.map((l) => l.kind)).toEqual(['close', 'attempt', 'open'])
    d.closed('c', 2, 'drop', 1006, '')
    const e3 = w.ev()
    await w.to(3000)
    d.attempt('c', compiled({}))
    d.opened('c', 3, 'ws', e2.timeNano)
    r = d.report('c')
    // Connection 1 dropped: owed from connection 2's opening; what connection 3's since replays is owed.
    expect(r.connections.map((c) => c.socket)).toEqual([2, 3])
    expect(r.omitted.connections).toBe(1)
    expect([r.expected, r.missed.map((e) => e.seq)]).toEqual([1, [e3.seq]])
    expect(r.gaps).toEqual([{ from: at(2000), to: at(3000), ms: 1000, missed: 1 }])
  })

  it('the window of the kept history starts at its oldest connection, with its since', async () => {
    const w = world({ limits: { connections: 1 } })
    const { d } = w
    d.attempt('c', compiled({}))
    d.opened('c', 1, 'ws', undefined)
    d.closed('c', 1, 'server', 1001, '')
    const before = w.ev()
    await w.to(1000)
    const replay = w.ev()
    d.attempt('c', compiled({}))
    d.opened('c', 2, 'ws', replay.timeNano)
    const after = w.ev()
    d.sent('c', 2, after)
    expect(d.report('c')).toMatchObject({ expected: 2, delivered: 1, missed: [ref(replay)], gaps: [] })
    expect(before.seq).toBe(1)
  })

  it('clients: the one idle the longest is forgotten first, never a busy one; asking for it says so', () => {
    const { d } = world({ limits: { clients: 2 } })
    expect(() => d.report('x')).toThrow(new NotFoundError('No events client "x". Known clients: (none yet). Give clients an id with the X-Dockside-Client header or the "client" query parameter.'))
    d.attempt('a', compiled({}))
    d.opened('a', 1, 'ws', undefined) // busy
    d.attempt('b', compiled({})) // idle
    d.attempt('c', compiled({})) // idle; b is forgotten
    expect(d.clients()).toEqual(['a', 'c'])
    expect(d.forgottenClients).toBe(1)
    expect(() => d.summary('b')).toThrow(
      new NotFoundError('Events client "b" was forgotten: the fake tracks at most 2 clients, and forgets the one idle the longest (no open or pending connection) first; 1 client(s) were forgotten so far.'),
    )
    expect(() => d.report('zz')).toThrow(
      new NotFoundError('No events client "zz". Known clients: "a", "c". 1 idle client(s) were forgotten: the fake tracks at most 2 clients. Give clients an id with the X-Dockside-Client header or the "client" query parameter.'),
    )
    // c is touched (an attempt): a, now idle, is the one idle the longest.
    d.closed('a', 1, 'client', 1000, '')
    d.attempt('c', compiled({}))
    d.attempt('d', compiled({}))
    expect(d.clients()).toEqual(['c', 'd'])
    // All busy: nobody is forgotten.
    d.opened('c', 2, 'ws', undefined)
    d.opened('d', 3, 'ws', undefined)
    d.attempt('e', compiled({}), new AbortController().signal)
    expect(d.clients()).toEqual(['c', 'd', 'e'])
    expect(d.forgottenClients).toBe(2)
    // A forgotten client that comes back is known again; only the last `clients` forgotten keys are remembered.
    d.attempt('b', compiled({}))
    expect(d.known('b')).toBe(true)
    expect(d.report('b').timeline.map((l) => l.detail)).toEqual(['first connect'])
    d.closed('c', 2, 'server', 1001, '')
    d.closed('d', 3, 'server', 1001, '')
    d.attempt('f', compiled({}))
    d.attempt('g', compiled({}))
    expect(d.forgottenClients).toBe(6)
    expect(() => d.report('a')).toThrow(/^No events client "a"/)
    expect(() => d.report('d')).toThrow(/^Events client "d" was forgotten/)
  })
})

describe('what was sent follows the log', () => {
  it('replays that resend the retained events are folded: duplicates count every send', () => {
    const w = world({ retain: 10 })
    const { d } = w
    d.attempt('r', compiled({}))
    d.opened('r', 1, 'ws', undefined)
    const events = Array.from({ length: 10 }, () => w.ev())
    for (let round = 0; round < 210; round++) for (const e of events) d.sent('r', 1, e)
    const r = d.report('r')
    expect([r.expected, r.delivered, r.missed]).toEqual([10, 10, []])
    expect(r.duplicates.map((x) => [x.seq, x.times])).toEqual(events.map((e) => [e.seq, 210]))
    expect(r.connections[0].sent).toBe(2100)
  })

  it('thousands of sends through sentOn and sent, as the list slides and grows: the report is exact after every event', () => {
    const w = world({ retain: 500 })
    const { d } = w
    d.attempt('r', compiled({}))
    const opened = d.opened('r', 1, 'ws', undefined)
    const times = new Map<number, number>()
    const send = (e: ServiceEvent, i: number) => {
      times.set(e.seq, (times.get(e.seq) ?? 0) + 1)
      // Both ways in, as the websocket (sentOn) and the stream (sent) feed it.
      if (i % 2 === 0) d.sentOn(opened, e)
      else d.sent('r', 1, e)
    }
    for (let i = 1; i <= 5000; i++) {
      const e = w.ev()
      if (i % 333 !== 0) send(e, i)
      // Now and then an event sent twice, as a replay overlapping live events resends it.
      if (i % 97 === 0) send(e, i + 1)
      // After every event: a send lost as the list slides would be at the window's front, gone from it a few events on.
      let delivered = 0
      let duplicates = 0
      for (let seq = Math.max(1, i - 499); seq <= i; seq++) {
        const n = times.get(seq) ?? 0
        if (n > 0) delivered++
        if (n > 1) duplicates++
      }
      const r = d.summary('r')
      if (r.delivered !== delivered || r.duplicates !== duplicates || r.expected !== Math.min(i, 500)) {
        expect([r.expected, r.delivered, r.duplicates], `after ${i} events`).toEqual([Math.min(i, 500), delivered, duplicates])
      }
    }
    expect(d.report('r').connections[0].sent).toBe([...times.values()].reduce((x, y) => x + y, 0))
  })

  it('sends of events the log dropped drop out of the report; the rest stay exact', () => {
    const w = world({ retain: 100 })
    const { d } = w
    d.attempt('r', compiled({}))
    d.opened('r', 1, 'ws', undefined)
    const sent: ServiceEvent[] = []
    for (let i = 0; i < 3000; i++) {
      const e = w.ev()
      sent.push(e)
      if (i !== 2990) d.sent('r', 1, e)
      if (i === 2995) d.sent('r', 1, sent[2950])
    }
    const r = d.report('r')
    expect([r.expected, r.delivered, r.missed.map((e) => e.seq), r.duplicates.map((e) => [e.seq, e.times])]).toEqual([100, 99, [2991], [[2951, 2]]])
    d.closed('r', 1, 'client', 1000, '')
    expect(d.summary('r')).toMatchObject({ expected: 100, delivered: 99, missed: 1, duplicates: 1 })
  })

  it('a client whose every send the log dropped, cut to size when it left, counts its sends after it is back', async () => {
    const w = world({ retain: 10 })
    const { d } = w
    d.attempt('k', compiled({ container: ['web'] }))
    d.opened('k', 1, 'ws', undefined)
    for (let i = 0; i < 20; i++) d.sent('k', 1, w.ev())
    // Events it is not sent (another client's container) push all of its sends out of the log.
    for (let i = 0; i < 15; i++) w.ev('start', 'other')
    expect(d.report('k')).toMatchObject({ delivered: 0 })
    await w.to(1000)
    d.closed('k', 1, 'client', 1000, '')
    await w.to(2000)
    d.attempt('k', compiled({ container: ['web'] }))
    d.opened('k', 2, 'ws', undefined)
    const back = [w.ev(), w.ev(), w.ev()]
    for (const e of back) d.sent('k', 2, e)
    expect(d.report('k')).toMatchObject({ expected: 3, delivered: 3, missed: [], duplicates: [] })
  })
})

describe("a connection's until", () => {
  /** A client away by choice (its own close at 1 s), with events at 2, 3 and 4 s, then back at 5 s with `since`/`until`. */
  async function backWith(since: (e: ServiceEvent[]) => bigint | undefined, until: (e: ServiceEvent[]) => bigint | undefined) {
    const w = world()
    const { d } = w
    d.attempt('p', compiled({}))
    d.opened('p', 1, 'ws', undefined)
    await w.to(1000)
    d.closed('p', 1, 'client', 1000, '')
    const away: ServiceEvent[] = []
    for (const ms of [2000, 3000, 4000]) {
      await w.to(ms)
      away.push(w.ev())
    }
    await w.to(5000)
    d.attempt('p', compiled({}))
    d.opened('p', 2, 'ws', since(away), undefined, until(away))
    return { report: d.report('p'), away }
  }

  it('a returning connection is owed its since replay up to its until (an event at until included), nothing after it', async () => {
    const { report, away } = await backWith(
      (e) => e[0].timeNano,
      (e) => e[1].timeNano,
    )
    expect(report.missed.map((e) => e.seq)).toEqual([away[0].seq, away[1].seq])
    expect(report.expected).toBe(2)
  })

  it('without an until, the whole since replay is owed', async () => {
    const { report, away } = await backWith(
      (e) => e[1].timeNano,
      () => undefined,
    )
    expect(report.missed.map((e) => e.seq)).toEqual([away[1].seq, away[2].seq])
  })

  /** A websocket asking for everything up to 2 s (mid-millisecond when `ns`), ended at `endMs` by `by` with `code`. */
  async function endedAt(endMs: number, by: 'server' | 'client' | 'drop', code: number, ns = 0) {
    const w = world()
    const { d } = w
    d.attempt('u', compiled({}))
    const until = BigInt(nano(2000, ns))
    d.opened('u', 1, 'ws', undefined, undefined, until)
    await w.to(endMs)
    d.closed('u', 1, by, code, by === 'server' && code === 1000 ? 'stream complete' : '')
    await w.to(endMs + 1000)
    const later = w.ev()
    return { report: d.report('u'), later }
  }

  it("the server's complete close (1000) once the clock reached until ends what is owed: later events are not", async () => {
    const { report } = await endedAt(2000, 'server', 1000)
    expect([report.expected, report.missed, report.gaps]).toEqual([0, [], []])
  })

  it('a server close before until (1000 or not) leaves the client owed what follows, as a gap', async () => {
    for (const code of [1000, 1001]) {
      const { report, later } = await endedAt(1000, 'server', code)
      expect(report.missed.map((e) => e.seq), String(code)).toEqual([later.seq])
      expect(report.gaps, String(code)).toHaveLength(1)
    }
  })

  it('any end once the clock is past until (a drop, a restart) owes nothing after it; before until it does', async () => {
    for (const [by, code] of [['drop', 1006], ['server', 1001]] as const) {
      expect((await endedAt(3000, by, code)).report.missed, by).toEqual([])
      expect((await endedAt(1000, by, code)).report.missed, by).toHaveLength(1)
    }
  })

  it("with a mid-millisecond until, the server's complete close at its millisecond completes; a drop then does not", async () => {
    // The stream completes at the next host millisecond after until: the server's close at 2000 ms is that end; a
    // drop at 2000 ms came before until (2000 ms + 500 ns), so what follows is owed.
    expect((await endedAt(2000, 'server', 1000, 500)).report.missed).toEqual([])
    expect((await endedAt(2000, 'drop', 1006, 500)).report.missed).toHaveLength(1)
    expect((await endedAt(2000, 'server', 1001, 500)).report.missed).toHaveLength(1)
  })

  it('an end at until itself (to the nanosecond) is past it: nothing after is owed', async () => {
    expect((await endedAt(2000, 'drop', 1006)).report.missed).toEqual([])
  })

  it("without an until, a server's 1000 close is an end of service like any other: what follows is owed", async () => {
    const w = world()
    w.d.attempt('n', compiled({}))
    w.d.opened('n', 1, 'ws', undefined)
    await w.to(1000)
    w.d.closed('n', 1, 'server', 1000, '')
    await w.to(2000)
    const later = w.ev()
    expect(w.d.report('n').missed.map((e) => e.seq)).toEqual([later.seq])
  })
})

describe('an attempt that never got in', () => {
  it('refused with no until: what follows is owed (a gap); with an until reached (to the nanosecond) it is a replay that ended', async () => {
    const w = world()
    const { d } = w
    d.attempt('plain', compiled({}))
    d.refused('plain', 429, 'slow down')
    await w.to(1000)
    const e1 = w.ev()
    d.attempt('replay', compiled({}))
    await w.to(2000)
    // A replay of everything up to e1, refused (as a 410) once the clock is past it: nothing after e1 was asked for.
    d.refused('replay', 410, 'gone', undefined, undefined, 0n, e1.timeNano)
    d.attempt('exact', compiled({}))
    // An until at the very nanosecond of the refusal: reached.
    d.refused('exact', 410, 'gone', undefined, undefined, 0n, BigInt(nano(2000)))
    d.attempt('ahead', compiled({}))
    d.refused('ahead', 410, 'gone', undefined, undefined, 0n, BigInt(nano(60_000)))
    await w.to(3000)
    const e2 = w.ev()
    expect(d.report('plain').missed.map((e) => e.seq)).toEqual([e1.seq, e2.seq])
    expect(d.report('replay').missed.map((e) => e.seq)).toEqual([e1.seq])
    expect(d.report('exact').missed.map((e) => e.seq)).toEqual([e1.seq])
    expect(d.report('ahead').missed.map((e) => e.seq)).toEqual([e1.seq, e2.seq])
  })

  it("a since asked after the first connection does not reach back before it: only the first attempt's replay is owed", async () => {
    const w = world()
    const { d } = w
    const before = w.ev()
    await w.to(1000)
    d.attempt('c', compiled({}))
    d.opened('c', 1, 'ws', undefined)
    await w.to(2000)
    d.closed('c', 1, 'drop', 1006, '')
    d.attempt('c', compiled({}))
    d.refused('c', 503, 'restarting', undefined, undefined, before.timeNano)
    expect(d.report('c').missed).toEqual([])
  })

  it('a stream that completed at its until, with the events before it dropped from the log, owes none of those after it', async () => {
    // The log keeps 2 events: the one at or before until is gone, so where the stream ended is before the oldest kept.
    const w = world({ retain: 2 })
    const { d } = w
    d.attempt('u', compiled({}))
    const conn = d.opened('u', 1, 'stream', undefined, undefined, BigInt(nano(1000)))
    await w.to(500)
    d.sentOn(conn, w.ev())
    await w.to(1500)
    w.ev()
    w.ev()
    await w.to(2000)
    d.closed('u', 1, 'server', 1000, 'stream complete')
    expect(d.report('u')).toMatchObject({ expected: 0, missed: [], gaps: [] })
  })
})

describe('the clients kept', () => {
  it('the first attempt past the limit forgets the client idle the longest at once', () => {
    const { d } = world({ limits: { clients: 2 } })
    for (const key of ['a', 'b', 'c']) d.attempt(key, compiled({}))
    expect([d.clients(), d.forgottenClients]).toEqual([['b', 'c'], 1])
  })
})
