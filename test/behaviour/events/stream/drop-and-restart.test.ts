// Mutation testing (docs/contributing/testing-internals.md) of src/protocol/events/stream.ts: Docker's `GET /events` as one of the fake's live
// connections (a restart or `closeSockets` ends it cleanly, `dropSockets` cuts it), read through fake.protocol as a
// transport reads it. These pin what the mutants that survived showed unpinned: a drop while the transport holds a
// chunk aborts the response at once (a transport waiting on its client would otherwise never notice), a drop while
// waiting for an event rejects the read with the drop's reason, a restart is in the delivery report and leaves no
// subscription or timer behind before the client reads the end, the lines queued before a restart are sent even when
// a close fault was due, and the exact maxBacklog boundary.
// Found by mutation testing of src/protocol/events/stream.ts (was test/regressions/mutation-events-stream.test.ts).
import { describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'
import { TransportReset } from '../../../../src/protocol/types'

const DROPPED = 'events stream dropped: the connection was reset with no clean end'
const RESTART = 'server restarting for maintenance; reconnect to continue'

async function stream(fake: Dockside, url: string, signal = new AbortController().signal) {
  const res = await fake.protocol.handle({ method: 'GET', url, headers: {}, signal, body: async () => '' })
  expect(res.status, String(res.body)).toBe(200)
  const it = (res.body as AsyncIterable<string>)[Symbol.asyncIterator]()
  const next = async () => {
    const r = await it.next()
    return r.done ? 'END' : r.value.split('\n').filter(Boolean).map((l) => JSON.parse(l).status as string).join(',')
  }
  /** The next chunk as sent. */
  const raw = async () => (await it.next()).value as string
  return { res, next, raw }
}

const last = (fake: Dockside, client: string) => {
  const c = fake.deliveries.report(client).connections.at(-1)!
  return { closedBy: c.closedBy, code: c.code, reason: c.reason, sent: c.sent }
}

describe('GET /events and a drop of every socket', () => {
  it('while the transport still holds the first chunk: the response is aborted at once, and the body resets', async () => {
    await using fake = createDockside({ seed: 1 })
    const { res, next } = await stream(fake, '/events?client=s')
    expect(await next()).toBe('')
    expect(res.abort?.aborted).toBe(false)
    expect(fake.dropSockets()).toBe(1)
    expect(res.abort?.aborted).toBe(true)
    await expect(next()).rejects.toThrow(new TransportReset(DROPPED))
    expect(last(fake, 's')).toEqual({ closedBy: 'drop', code: 1006, reason: DROPPED, sent: 0 })
  })

  it('while the transport holds an event\'s chunk (after a wait for it): aborted at once too', async () => {
    await using fake = createDockside({ seed: 1 })
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    const { res, next } = await stream(fake, '/events?client=s')
    expect(await next()).toBe('')
    const pending = next()
    web.start()
    expect(await pending).toBe('start')
    fake.dropSockets()
    expect(res.abort?.aborted).toBe(true)
    await expect(next()).rejects.toBeInstanceOf(TransportReset)
  })

  it('while waiting for an event: the read rejects with the drop\'s reason (no abort needed), reported as 1006', async () => {
    await using fake = createDockside({ seed: 1 })
    const { res, next } = await stream(fake, '/events?client=s')
    expect(await next()).toBe('')
    const pending = next()
    fake.dropSockets()
    await expect(pending).rejects.toThrow(new TransportReset(DROPPED))
    expect(res.abort?.aborted).toBe(false)
    expect(last(fake, 's')).toEqual({ closedBy: 'drop', code: 1006, reason: DROPPED, sent: 0 })
  })
})

describe('GET /events and a restart', () => {
  it('is in the delivery report at once, with the queued line counted, and leaves no subscriber or timer before the client reads', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'events', close: { code: 4000, reason: 'later' }, afterTime: '1h' })
    fake.faults.add({ on: 'events', latency: { perEvent: '1s' } })
    const pendingBefore = fake.clock.pending
    const subscribersBefore = fake.events.subscriberCount
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    const { next } = await stream(fake, '/events?client=s')
    expect(await next()).toBe('')
    // The transport asks for the next chunk at once (the close fault's timer starts then), and holds it unread.
    const first = next()
    web.start()
    await fake.clock.advance('1s')
    // Delayed by the latency fault: a timer of the stream's own.
    expect(await first).toBe('start')
    web.stop()
    web.start()
    await fake.clock.advance('1s')
    // `stop` is queued, unread; `start` waits on the latency fault's timer.
    web.stop()
    expect(fake.events.subscriberCount).toBe(subscribersBefore + 1)
    expect(fake.clock.pending).toBeGreaterThanOrEqual(pendingBefore + 2)
    expect(fake.restart()).toBe(1)
    expect(last(fake, 's')).toEqual({ closedBy: 'server', code: 1001, reason: RESTART, sent: 3 })
    expect(fake.events.subscriberCount).toBe(subscribersBefore)
    expect(fake.clock.pending).toBe(pendingBefore)
    expect(await next()).toBe('stop,start')
    expect(await next()).toBe('END')
  })

  it('between the first chunk and the next read sends the replayed lines, though a close fault was due at once', async () => {
    await using fake = createDockside({ seed: 1 })
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    web.start()
    web.stop()
    fake.faults.add({ on: 'events', close: { code: 4000, reason: 'at once' } })
    const { next } = await stream(fake, '/events?client=s&since=1767225600')
    expect(await next()).toBe('')
    fake.restart()
    expect(await next()).toBe('start,stop')
    expect(await next()).toBe('END')
    expect(last(fake, 's')).toEqual({ closedBy: 'server', code: 1001, reason: RESTART, sent: 2 })
  })

  it('a stream that ended early leaves no timer of its close-after-time fault behind', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'events', close: { code: 4000, reason: 'later' }, afterTime: '1h' })
    const pendingBefore = fake.clock.pending
    const ac = new AbortController()
    const { next } = await stream(fake, '/events?client=s', ac.signal)
    expect(await next()).toBe('')
    const pending = next()
    expect(fake.clock.pending).toBe(pendingBefore + 1)
    ac.abort()
    expect(await pending).toBe('END')
    expect(fake.clock.pending).toBe(pendingBefore)
  })
})

describe('maxBacklog', () => {
  /** Two events queued while the transport holds the first chunk: the body's next chunk, or its reset. */
  async function behind(maxBacklog?: number) {
    const fake = createDockside({ seed: 1, ...(maxBacklog === undefined ? {} : { maxBacklog }) })
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    const s = await stream(fake, '/events?client=s')
    expect(await s.raw()).toBe('')
    web.start()
    web.stop()
    return { fake, ...s }
  }

  it('a client exactly maxBacklog behind is kept; one byte more is cut off', async () => {
    const measured = await behind()
    const bytes = (await measured.raw()).length
    await measured.fake.close()
    const exact = await behind(bytes)
    expect(exact.res.abort?.aborted).toBe(false)
    expect(await exact.next()).toBe('start,stop')
    expect(exact.fake.journal.ofType('stream.backlog')).toEqual([])
    await exact.fake.close()
    const over = await behind(bytes - 1)
    expect(over.res.abort?.aborted).toBe(true)
    await expect(over.next()).rejects.toBeInstanceOf(TransportReset)
    await over.fake.close()
  })
})
