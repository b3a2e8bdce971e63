// Docker's GET /events as the protocol streams it (src/protocol/events/stream.ts), read through fake.protocol as a
// transport reads it: an empty first chunk, one JSON line per event, the end at `until`, on the client going away or
// on reset, and the faults as docs/faults.md words them for HTTP (stall: headers then silence; close: a clean end
// with the rule's code in the report; drop: a reset), and a reader more than maxBacklog behind cut off.
import { describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'
import { TransportReset } from '../../../../src/protocol/types'

async function stream(fake: Dockside, url: string, signal = new AbortController().signal) {
  const res = await fake.protocol.handle({ method: 'GET', url, headers: {}, signal, body: async () => '' })
  expect(res.status, String(res.body)).toBe(200)
  expect(res.headers['content-type']).toBe('application/json')
  const it = (res.body as AsyncIterable<string>)[Symbol.asyncIterator]()
  const next = async () => {
    const r = await it.next()
    return r.done ? 'END' : r.value.split('\n').filter(Boolean).map((l) => JSON.parse(l).status as string).join(',')
  }
  return { res, it, next }
}

const last = (fake: Dockside, client: string) => {
  const c = fake.deliveries.report(client).connections.at(-1)!
  return { closedBy: c.closedBy, code: c.code, reason: c.reason, sent: c.sent }
}

describe('GET /events', () => {
  it('flushes an empty chunk first, then one line per event (several queued ones in one chunk), and ends at until', async () => {
    await using fake = createDockside({ seed: 1 })
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    const { next } = await stream(fake, '/events?client=s&until=1767225602')
    expect(await next()).toBe('')
    web.start()
    web.stop()
    expect(await next()).toBe('start,stop')
    await fake.clock.advance(1000)
    web.start()
    expect(await next()).toBe('start')
    await fake.clock.advance(1000)
    expect(await next()).toBe('END')
    expect(last(fake, 's')).toEqual({ closedBy: 'server', code: 1000, reason: 'stream ended', sent: 3 })
  })

  it('ends when the client goes away, reported as the client', async () => {
    await using fake = createDockside({ seed: 1 })
    const ac = new AbortController()
    const { next } = await stream(fake, '/events?client=s', ac.signal)
    expect(await next()).toBe('')
    const pending = next()
    ac.abort()
    expect(await pending).toBe('END')
    expect(last(fake, 's')).toEqual({ closedBy: 'client', code: 1000, reason: 'client went away', sent: 0 })
  })

  it('ends when the fake resets (its clock is disposed) instead of waiting forever', async () => {
    await using fake = createDockside({ seed: 1 })
    const { next } = await stream(fake, '/events?client=s')
    expect(await next()).toBe('')
    const pending = next()
    await fake.reset()
    expect(await pending).toBe('END')
  })

  it('a stall fault sends headers and then nothing, events included, until the client goes away', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'events', stall: true })
    const ac = new AbortController()
    const { next } = await stream(fake, '/events?client=s', ac.signal)
    expect(await next()).toBe('')
    let settled = false
    const pending = next().then((v) => ((settled = true), v))
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    await fake.clock.advance('1h')
    expect(settled).toBe(false)
    expect(fake.deliveries.report('s').delivered).toBe(0)
    ac.abort()
    expect(await pending).toBe('END')
  })

  it('a close fault after N messages ends the stream cleanly after N lines; the report keeps its code and reason', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'events', close: { code: 4000, reason: 'chaos' }, afterMessages: 2 })
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    const { next } = await stream(fake, '/events?client=s')
    expect(await next()).toBe('')
    web.start()
    web.stop()
    web.start()
    expect(await next()).toBe('start,stop')
    expect(await next()).toBe('END')
    expect(last(fake, 's')).toEqual({ closedBy: 'server', code: 4000, reason: 'chaos', sent: 2 })
  })

  it('a close fault after N messages counts across chunks: 1 line, then 1 of the next 3', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'events', close: { code: 4000, reason: 'two' }, afterMessages: 2 })
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    const { next } = await stream(fake, '/events?client=s')
    expect(await next()).toBe('')
    web.start()
    expect(await next()).toBe('start')
    web.stop()
    web.start()
    web.stop()
    expect(await next()).toBe('stop')
    expect(await next()).toBe('END')
    expect(last(fake, 's')).toEqual({ closedBy: 'server', code: 4000, reason: 'two', sent: 2 })
  })

  it('a close fault after a time streams every event until then, and ends the stream then', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'events', close: { code: 1012, reason: 'later' }, afterTime: '2s' })
    const { next } = await stream(fake, '/events?client=s')
    expect(await next()).toBe('')
    // A transport asks for the next chunk at once.
    const first = next()
    await fake.clock.advance(500)
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    web.start()
    expect(await first).toBe('start')
    web.stop()
    expect(await next()).toBe('stop')
    web.start()
    expect(await next()).toBe('start')
    let settled = false
    const pending = next().then((v) => ((settled = true), v))
    await fake.clock.advance(1499)
    expect(settled).toBe(false)
    await fake.clock.advance(1)
    expect(await pending).toBe('END')
    expect(last(fake, 's')).toEqual({ closedBy: 'server', code: 1012, reason: 'later', sent: 3 })
  })

  it('a drop fault resets the connection (at once, or after N lines), reported as 1006', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'events', drop: true, afterMessages: 0, match: { client: 'now' } })
    fake.faults.add({ on: 'events', drop: true, afterMessages: 1, match: { client: 'one' } })
    const now = await stream(fake, '/events?client=now')
    expect(await now.next()).toBe('')
    await expect(now.next()).rejects.toThrow(new TransportReset('events stream dropped by an injected fault'))
    expect(last(fake, 'now')).toEqual({ closedBy: 'drop', code: 1006, reason: 'events stream dropped by an injected fault', sent: 0 })
    const one = await stream(fake, '/events?client=one')
    expect(await one.next()).toBe('')
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    expect(await one.next()).toBe('start')
    await expect(one.next()).rejects.toBeInstanceOf(TransportReset)
    expect(last(fake, 'one')).toEqual({ closedBy: 'drop', code: 1006, reason: 'events stream dropped by an injected fault', sent: 1 })
  })

  it('cuts off a reader more than maxBacklog behind: the abort signal fires and the body resets; the replay is not counted', async () => {
    await using fake = createDockside({ seed: 1, maxBacklog: 300 })
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    for (let i = 0; i < 3; i++) {
      web.start()
      web.stop()
    }
    const { res, next } = await stream(fake, '/events?client=s&since=1767225600')
    expect(await next()).toBe('')
    // Six replayed lines (well over 300 bytes) queue without counting.
    expect(res.abort?.aborted).toBe(false)
    web.start()
    web.stop()
    expect(res.abort?.aborted).toBe(true)
    await expect(next()).rejects.toThrow(new TransportReset('client too slow: over 300 bytes queued (maxBacklog); reconnect with since to resume'))
    expect(fake.journal.ofType('stream.backlog').map(({ limit, sent }) => ({ limit, sent }))).toEqual([{ limit: 300, sent: 0 }])
    expect(fake.journal.ofType('stream.backlog')[0].backlog).toBeGreaterThan(300)
    expect(last(fake, 's')).toMatchObject({ closedBy: 'server', code: 1013 })
  })

  it('connect latency whose client went away meanwhile is a 503', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'events', latency: { connect: '1s' } })
    const ac = new AbortController()
    const pending = fake.protocol.handle({ method: 'GET', url: '/events', headers: {}, signal: ac.signal, body: async () => '' })
    ac.abort()
    const res = await pending
    expect([res.status, JSON.parse(res.body as string).message]).toEqual([503, 'the client went away during injected connect latency'])
  })
})
