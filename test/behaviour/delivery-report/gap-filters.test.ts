// Regression: the delivery report judged the events of a gap (no connection open) by the filters of the client's last
// connection *opened* before it, which may have been closed long before, by the client itself. A named client watching
// `web` on one socket and `db` on a second closed the `db` one, then the server cut the `web` one: the report said it
// missed `start db` (which it had said goodbye to) and owed nothing of `start web` (which the cut cost it). docs/chaos.md:
// "Its filters are those of the connection it had when the event happened (of the last one before it, in a gap)": the
// last one it had is the last to close. Now a gap is judged by the connections still open when service ended, less
// those the client closed itself (unless it closed them all).
// Found by the second events hunt (was test/regressions/events-hunt-2-gap-filters.test.ts).
import { describe, expect, it } from 'vitest'
import { createDockside } from '../../../src/index'
import { enc, openEvents } from '../../support/helpers'
import { streamWays } from '../../support/stream-ways'

const report = (fake: ReturnType<typeof createDockside>) => {
  const r = fake.deliveries.report('c')
  return { expected: r.expected, delivered: r.delivered, missed: r.missed.map((m) => `#${m.seq} ${m.action} ${m.container}`), gaps: r.gaps.map((g) => g.missed) }
}

/** Until the fake has the client's close of its db socket (the server hears it after the client's close event). */
const untilFakeSawClose = (fake: ReturnType<typeof createDockside>) => expect.poll(() => fake.deliveries.report('c').connections.map((c) => c.closedBy ?? 'open')).toEqual(['open', 'client'])

describe.each(streamWays)('a gap is judged by the connections the client had when service ended ($name)', (way) => {
  it('bug: a socket the client closed earlier judged the gap after the server cut the other one', async () => {
    await using fake = createDockside({ seed: 1 })
    const w = await way.start(fake)
    try {
      const web = fake.containers.create({ name: 'web', image: 'nginx' })
      const db = fake.containers.create({ name: 'db', image: 'postgres' })
      const watchWeb = await openEvents(`${w.wsBase}/events/ws?client=c&filters=${enc({ container: ['web'] })}`)
      const watchDb = await openEvents(`${w.wsBase}/events/ws?client=c&filters=${enc({ container: ['db'] })}`)
      web.start()
      db.start()
      await expect.poll(() => watchWeb.messages.length + watchDb.messages.length).toBe(2)
      watchDb.ws.close()
      await untilFakeSawClose(fake)
      web.stop() // #3, to the web socket
      db.stop() // #4, not owed: the client closed its db socket
      await expect.poll(() => watchWeb.messages.length).toBe(2)
      expect(fake.closeSockets(1011, 'internal error')).toBe(1)
      expect((await watchWeb.closed).code).toBe(1011)
      web.start() // #5, in the gap: what the cut web socket would have had
      db.start() // #6, in the gap: the client had said goodbye to db events
      expect(report(fake)).toEqual({ expected: 4, delivered: 3, missed: ['#5 start web'], gaps: [1] })
    } finally {
      await w.close()
    }
  })

  it('bug: the same when the client closed its db socket and the server cut the web one with no event between', async () => {
    await using fake = createDockside({ seed: 1 })
    const w = await way.start(fake)
    try {
      const web = fake.containers.create({ name: 'web', image: 'nginx' })
      const db = fake.containers.create({ name: 'db', image: 'postgres' })
      const watchWeb = await openEvents(`${w.wsBase}/events/ws?client=c&filters=${enc({ container: ['web'] })}`)
      const watchDb = await openEvents(`${w.wsBase}/events/ws?client=c&filters=${enc({ container: ['db'] })}`)
      web.start()
      db.start()
      await expect.poll(() => watchWeb.messages.length + watchDb.messages.length).toBe(2)
      watchDb.ws.close()
      await untilFakeSawClose(fake)
      expect(fake.closeSockets(1011, 'internal error')).toBe(1)
      await watchWeb.closed
      web.stop() // #3: the web socket's, cut
      db.stop() // #4: not owed
      expect(report(fake)).toEqual({ expected: 3, delivered: 2, missed: ['#3 stop web'], gaps: [1] })
    } finally {
      await w.close()
    }
  })

  it('bug: both cut at once: the gap owed what the last opened asked for only; now what either asked for', async () => {
    await using fake = createDockside({ seed: 1 })
    const w = await way.start(fake)
    try {
      const web = fake.containers.create({ name: 'web', image: 'nginx' })
      const db = fake.containers.create({ name: 'db', image: 'postgres' })
      const watchWeb = await openEvents(`${w.wsBase}/events/ws?client=c&filters=${enc({ container: ['web'] })}`)
      const watchDb = await openEvents(`${w.wsBase}/events/ws?client=c&filters=${enc({ container: ['db'] })}`)
      expect(fake.closeSockets(1011, 'internal error')).toBe(2)
      await Promise.all([watchWeb.closed, watchDb.closed])
      web.start()
      db.start()
      fake.containers.create({ name: 'cache', image: 'redis' }).start()
      expect(report(fake)).toEqual({ expected: 2, delivered: 0, missed: ['#1 start web', '#2 start db'], gaps: [2] })
    } finally {
      await w.close()
    }
  })
})
