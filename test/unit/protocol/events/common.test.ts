// What both events endpoints share (src/protocol/events/common.ts): Docker's `sec[.nanos]` timestamps, the
// since/until check, where the query's client comes from, and a `since` older than retention (4410 on the
// websocket, 410 on GET /events) naming where to resume.
import { describe, expect, it } from 'vitest'
import { createDockside } from '../../../../src/index'
import { parseEventsQuery, SINCE_GONE_CODE, subscriberFilter } from '../../../../src/protocol/events/common'
import { formatTimestamp, MAX_TIMESTAMP_SECONDS, parseTimestampNano } from '../../../../src/protocol/timestamps'
import { parseTarget } from '../../../../src/protocol/http'
import type { ProtoRequest } from '../../../../src/protocol/types'

const req = (url: string, headers: Record<string, string> = {}): ProtoRequest => ({ method: 'GET', url, headers, signal: new AbortController().signal, body: async () => '' })
const refusal = (name: string, shown: string) => `Invalid "${name}" ${shown}: expected Unix time as seconds[.nanoseconds] from -9223372036 (year 1677) to 253402300799 (year 9999), e.g. 1767225600 or 1767225600.000000001.`

describe('timestamps', () => {
  it.each([
    ['1767225600', 1767225600_000000000n],
    ['1767225600.5', 1767225600_500000000n],
    ['1767225600.000000001', 1767225600_000000001n],
    ['1767225600.123456789', 1767225600_123456789n],
    ['0001767225600', 1767225600_000000000n],
    ['0', 0n],
    ['253402300799', 253402300799_000000000n],
    ['253402300799.999999999', 253402300799_999999999n],
    ['-1', -1_000000000n],
    ['-1.5', -500000000n],
    ['-9223372036', -9223372036_000000000n],
  ])('%s is %i ns', (text, nano) => {
    expect(parseTimestampNano('since', text)).toBe(nano)
  })
  it('no value is no bound', () => {
    expect(parseTimestampNano('since', undefined)).toBeUndefined()
    expect(parseTimestampNano('since', '')).toBeUndefined()
  })
  it.each(['253402300800', '1767225600.', '.5', `1767225600.${'9'.repeat(19)}`, '1234567890123', '-9223372037', '--1', ' 1', '1e9', 'x', '1767225600,5'])('%j is refused naming the range', (text) => {
    expect(() => parseTimestampNano('until', text)).toThrow(refusal('until', JSON.stringify(text)))
  })
  it('more than 9 fraction digits (up to 19, while they fit the int64 of its ParseInt) are cut to nanoseconds, as the Engine reads them', () => {
    expect(parseTimestampNano('since', `1767225600.${'1'.repeat(19)}`)).toBe(1767225600_111111111n)
    expect(parseTimestampNano('since', '1767225600.1234567891')).toBe(1767225600_123456789n)
    expect(parseTimestampNano('since', '1767225600.0000000001')).toBe(1767225600_000000000n)
    expect(parseTimestampNano('since', '1767225600.999999999999')).toBe(1767225600_999999999n)
  })
  it('a long bad value is shown cut to 40 characters with its length', () => {
    expect(() => parseTimestampNano('since', 'x'.repeat(40))).toThrow(refusal('since', JSON.stringify('x'.repeat(40))))
    expect(() => parseTimestampNano('since', 'x'.repeat(41))).toThrow(refusal('since', `${JSON.stringify('x'.repeat(40))}... (41 characters)`))
  })
  it('a short fraction is tenths, hundredths...; sec.nanos for Docker', () => {
    expect(parseTimestampNano('since', '1767225600.5')).toBe(1767225600_500000000n)
    expect(formatTimestamp(1767225600_000000001n)).toBe('1767225600.000000001')
    expect(formatTimestamp(5n)).toBe('0.000000005')
    expect(formatTimestamp(1767225600_120000000n)).toBe('1767225600.120000000')
    expect(MAX_TIMESTAMP_SECONDS).toBe(253402300799n)
  })
})

describe('parseEventsQuery', () => {
  it('until may equal since but not come before it', () => {
    const q = (url: string) => parseEventsQuery(req(url), parseTarget(url))
    expect(q('/events?since=5&until=5')).toMatchObject({ since: 5_000000000n, until: 5_000000000n })
    expect(() => q('/events?since=5&until=4.999999999')).toThrow('Invalid "until" 4.999999999: it is before "since" 5.')
    expect(q('/events?until=1')).toMatchObject({ since: undefined, until: 1_000000000n })
  })
  it('the client is the X-Dockside-Client header, else the client query value', () => {
    const q = (url: string, headers?: Record<string, string>) => parseEventsQuery(req(url, headers), parseTarget(url)).client
    expect(q('/events/ws?client=q', { 'x-dockside-client': 'h' })).toBe('h')
    expect(q('/events/ws?client=q')).toBe('q')
    expect(q('/events/ws')).toBeUndefined()
  })
  it('keeps the compiled filters of the last 256 distinct texts, dropping the oldest first', () => {
    const q = (text: string) => parseEventsQuery(req('/events/ws'), parseTarget(`/events/ws?filters=${encodeURIComponent(text)}`)).filter
    const texts = Array.from({ length: 256 }, (_, i) => `{"label":["kept-${i}"]}`)
    const first = texts.map(q)
    expect(q(texts[0])).toBe(first[0])
    q('{"label":["one-more"]}')
    expect(q(texts[1])).toBe(first[1])
    expect(q(texts[255])).toBe(first[255])
    expect(q(texts[0])).not.toBe(first[0])
  })
  it('the same filters text gives the same compiled filter; the websocket and GET /events keep their own names', () => {
    const q = (url: string) => parseEventsQuery(req(url), parseTarget(url)).filter
    const f = encodeURIComponent('{"event":["start"]}')
    expect(q(`/events/ws?filters=${f}`)).toBe(q(`/events/ws?filters=${f}`))
    expect(q(`/events?filters=${f}`)).not.toBe(q(`/events/ws?filters=${f}`))
    const docker = encodeURIComponent('{"type":["container"]}')
    expect(q(`/events?filters=${docker}`).filters).toEqual({ type: ['container'] })
    expect(() => q(`/events/ws?filters=${docker}`)).toThrow(/Invalid filter "type"/)
  })
})

describe('a since older than retention', () => {
  it('closes the websocket with 4410 and answers GET /events 410, both naming the first since that can be replayed', async () => {
    await using fake = createDockside({ seed: 1, retainEvents: 2 })
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    for (let i = 0; i < 3; i++) {
      web.start()
      await fake.clock.advance(1000)
      web.stop()
      await fake.clock.advance(1000)
    }
    // Six events at 0, 1, ... 5 s; the first four are gone, the last evicted at 1767225603.
    const reason = 'since 1767225600.000000000 is older than retention; resume with since=1767225603.000000001 or later'
    const r = await fake.protocol.upgrade(req('/events/ws?since=1767225600'))
    if (r.kind !== 'accept') throw new Error(r.kind)
    const closes: unknown[] = []
    r.open({ send: (t) => void closes.push(t), close: (code, why) => void closes.push([code, why]), drop: () => void closes.push('drop') })
    expect(closes).toEqual([[SINCE_GONE_CODE, reason]])
    expect(SINCE_GONE_CODE).toBe(4410)
    const stream = await fake.protocol.handle(req('/events?since=1767225600&client=gone'))
    expect([stream.status, JSON.parse(stream.body as string).message]).toEqual([410, reason])
    expect(fake.deliveries.report('gone').refusals.map((r) => [r.status, r.reason])).toEqual([[410, reason]])
    // Just past the evicted event: served.
    const ok = await fake.protocol.upgrade(req('/events/ws?since=1767225603.000000001&until=1767225604'))
    if (ok.kind !== 'accept') throw new Error(ok.kind)
    const frames: unknown[] = []
    ok.open({ send: (t) => void frames.push(JSON.parse(t).status), close: (code) => void frames.push(code), drop: () => {} })
    expect(frames).toEqual(['start', 1000])
    // Without since, nothing to replay and nothing gone: served live only.
    const live = await fake.protocol.upgrade(req('/events/ws?client=live'))
    if (live.kind !== 'accept') throw new Error(live.kind)
    const liveLog: unknown[] = []
    live.open({ send: (t) => void liveLog.push(JSON.parse(t).status), close: (code) => void liveLog.push(code), drop: () => {} })
    expect(liveLog).toEqual([])
    web.start()
    expect(liveLog).toEqual(['start'])
    expect(fake.journal.ofType('ws.open').map((e) => e.socket)).toEqual([1, 2, 3])
  })
})

describe('admission', () => {
  it('a connect refused by the rate limit is in the client report, with its Retry-After', async () => {
    await using fake = createDockside({ seed: 1, rateLimit: { route: 'events', limit: 1, window: '10s' } })
    expect((await fake.protocol.upgrade(req('/events/ws?client=c'))).kind).toBe('accept')
    const r = await fake.protocol.upgrade(req('/events/ws?client=c'))
    if (r.kind !== 'reject') throw new Error(r.kind)
    expect([r.response.status, r.response.headers['retry-after']]).toEqual([429, '10'])
    expect(fake.deliveries.report('c').refusals.map(({ status, retryAfter }) => ({ status, retryAfter }))).toEqual([{ status: 429, retryAfter: 10 }])
  })
  it('per-event jitter alone delays each event', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'events', latency: { jitter: '100ms' } })
    const r = await fake.protocol.upgrade(req('/events/ws'))
    if (r.kind !== 'accept') throw new Error(r.kind)
    const frames: unknown[] = []
    r.open({ send: (t) => void frames.push(JSON.parse(t).status), close: () => {}, drop: () => {} })
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    expect(frames).toEqual([])
    await fake.clock.advance(100)
    expect(frames).toEqual(['start'])
  })
})

// Found by mutation testing: the clamp of a time the daemon reads but the fake cannot hold, the filters' hint on
// GET /events, the unfiltered connection's shared filter, `until` under a per-event latency, the auto clock's waits.
describe('GET /events: a since/until the daemon reads beyond what the fake holds', () => {
  const q = (url: string) => parseEventsQuery(req(url), parseTarget(url))
  it('a `+` sign is read as the daemon reads it, with its fraction', () => {
    expect(q('/events?since=%2B5').since).toBe(5_000000000n)
    expect(q('/events?since=%2B5.25&until=%2B0006').since).toBe(5_250000000n)
    expect(q('/events?until=%2B6').until).toBe(6_000000000n)
  })
  it('a time after 9999 or before 1677 is the nearest the fake holds, its fraction dropped', () => {
    expect(q('/events?until=253402300800').until).toBe(MAX_TIMESTAMP_SECONDS * 1_000_000_000n)
    expect(q('/events?until=253402300800.75').until).toBe(MAX_TIMESTAMP_SECONDS * 1_000_000_000n)
    expect(q('/events?since=%2B253402300799.5').since).toBe(MAX_TIMESTAMP_SECONDS * 1_000_000_000n + 500_000_000n)
    expect(q('/events?since=-9223372037').since).toBe(-9_223_372_036_000_000_000n)
    expect(q('/events?since=-9223372037.5').since).toBe(-9_223_372_036_000_000_000n)
    expect(q('/events?since=-9223372036.5').since).toBe(-9_223_372_036_000_000_000n + 500_000_000n)
  })
  it('a signed fraction is added to the seconds, its sign counted in its length (was a 500: the clamp read no match)', () => {
    // The Engine's parseTimestamp: ParseInt of the fraction, times 10^(9 - its length); checked against Go.
    expect(q('/events?since=5.-1').since).toBe(4_990000000n)
    expect(q('/events?since=5.%2B1').since).toBe(5_010000000n)
    expect(q('/events?since=5.-123456789').since).toBe(4_987654322n)
    expect(q('/events?since=-5.-25').since).toBe(-5_025000000n)
  })
  it('the websocket keeps dockside\'s own range check', () => {
    expect(() => q('/events/ws?since=%2B5')).toThrow(refusal('since', '"+5"'))
  })
})

describe('GET /events: filters', () => {
  it("a filters text Docker refuses: 'invalid filter' on the wire, the fake's reading of it in the hint", async () => {
    await using fake = createDockside({ seed: 1 })
    const res = await fake.protocol.handle(req(`/events?filters=${encodeURIComponent('{"type":"container"}')}`))
    expect([res.status, JSON.parse(res.body as string).message, res.headers['x-dockside-hint']]).toEqual([
      400,
      'invalid filter',
      'Invalid filter "type": expected an object of booleans like {"type":{"x":true}} or a list of strings like {"type":["x"]}, got "container".',
    ])
  })
  it('connections without filters share one filter per way in, whatever the filters texts compiled since', () => {
    const f = (url: string) => parseEventsQuery(req(url), parseTarget(url)).filter
    const ws = f('/events/ws')
    const docker = f('/events')
    for (let i = 0; i < 300; i++) f(`/events/ws?filters=${encodeURIComponent(`{"label":["unfiltered-${i}"]}`)}`)
    expect(f('/events/ws')).toBe(ws)
    expect(f('/events')).toBe(docker)
    // The dashboard's live feed passes URLSearchParams' null for no filters: the websocket's unfiltered one.
    expect(subscriberFilter(null, false)).toBe(ws)
    expect(ws.filters).toEqual({})
  })
})

describe('until and latency', () => {
  const open = (r: Awaited<ReturnType<ReturnType<typeof createDockside>['protocol']['upgrade']>>) => {
    if (r.kind !== 'accept') throw new Error(r.kind)
    const log: unknown[] = []
    r.open({ send: (t) => void log.push(JSON.parse(t).status), close: (code) => void log.push(code), drop: () => void log.push('drop') })
    return log
  }
  it('under a per-event latency, until closes after the events it holds back have left, not before', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'events', latency: { perEvent: '100ms' } })
    const log = open(await fake.protocol.upgrade(req('/events/ws?until=1767225600.050')))
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    await fake.clock.advance(50)
    expect(log).toEqual([])
    await fake.clock.advance(49)
    expect(log).toEqual([])
    await fake.clock.advance(1)
    expect(log).toEqual(['start', 1000])
  })
  it('under a per-event latency, until with nothing held back closes at until; events delivered earlier do not hold it', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'events', latency: { perEvent: '10ms' } })
    const idle = open(await fake.protocol.upgrade(req('/events/ws?until=1767225600.050&client=idle')))
    const busy = open(await fake.protocol.upgrade(req('/events/ws?until=1767225600.050&client=busy&filters=%7B%22event%22%3A%5B%22start%22%5D%7D')))
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    await fake.clock.advance(49)
    expect([idle, busy]).toEqual([['start'], ['start']])
    await fake.clock.advance(1)
    expect([idle, busy]).toEqual([['start', 1000], ['start', 1000]])
  })
  it('a client gone while until waits for held-back events leaves no timer behind', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'events', latency: { perEvent: '100ms' } })
    const before = fake.clock.pending
    const r = await fake.protocol.upgrade(req('/events/ws?until=1767225600.050'))
    if (r.kind !== 'accept') throw new Error(r.kind)
    const log: unknown[] = []
    const session = r.open({ send: (t) => void log.push(JSON.parse(t).status), close: (code) => void log.push(code), drop: () => void log.push('drop') })
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    await fake.clock.advance(50)
    session.clientClosed(1001, 'going away')
    expect(fake.clock.pending).toBe(before)
    await fake.clock.advance(100)
    expect(log).toEqual([])
  })
  it('on the auto clock, GET /events with a far until ends without waiting, and latency-held events are sent', async () => {
    await using fake = createDockside({ seed: 1, clock: 'auto' })
    fake.faults.add({ on: 'events', latency: { perEvent: '1s' } })
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    const res = await fake.protocol.handle(req('/events?since=1767225600&until=1767229200'))
    const lines: string[] = []
    const read = (async () => {
      for await (const chunk of res.body as AsyncIterable<string>) lines.push(chunk)
      return 'ended'
    })()
    expect(await Promise.race([read, new Promise((r) => setTimeout(r, 1000, 'waiting'))])).toBe('ended')
    expect(lines.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l).status)).toEqual(['start'])
  })
  it('on the auto clock, an event held by latency on a socket without until is sent without an advance', async () => {
    await using fake = createDockside({ seed: 1, clock: 'auto' })
    fake.faults.add({ on: 'events', latency: { perEvent: '1s' } })
    const r = await fake.protocol.upgrade(req('/events/ws'))
    if (r.kind !== 'accept') throw new Error(r.kind)
    // The first thing the socket is sent, awaited: the auto clock brings the held event with no advance (or the test
    // times out).
    const first = new Promise((resolve) => r.open({ send: (t) => resolve(JSON.parse(t).status), close: resolve, drop: () => resolve('drop') }))
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    expect(await first).toBe('start')
  })
})

describe('admission: the rate limit key', () => {
  it('a client with neither id nor address is `local`', async () => {
    await using fake = createDockside({ seed: 1, rateLimit: { route: 'events', limit: 1, window: '10s' } })
    expect((await fake.protocol.upgrade(req('/events/ws'))).kind).toBe('accept')
    expect((await fake.protocol.upgrade(req('/events/ws?client=local'))).kind).toBe('reject')
    expect(fake.journal.ofType('ratelimit').map((e) => [e.client, e.allowed])).toEqual([
      ['local', true],
      ['local', false],
    ])
  })
})
