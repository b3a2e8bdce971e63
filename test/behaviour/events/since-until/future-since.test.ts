// Guard (settled, not a change): a `since` later than the clock's time. Docker's daemon replays nothing from its buffer
// and then sends every live event its filters take, stamped before `since` or not (moby: daemon/events/events.go,
// SubscribeTopic subscribes with the filter alone; daemon/server/router/system/system_routes.go, getEvents encodes each
// live event without looking at `since`). The fake does the same on both endpoints and every way in, byte for byte, and
// the delivery report owes what it sends.
// Found by the second events hunt (was test/regressions/events-hunt-2-future-since.test.ts).
import { describe, expect, it } from 'vitest'
import { createDockside } from '../../../../src/index'
import { openEvents } from '../../../support/helpers'
import { readToEnd, streamWays } from '../../../support/stream-ways'

/** The clock's start, 2026-01-01T00:00:00Z, in Unix seconds. */
const START = 1767225600

describe.each(streamWays)('a since in the future bounds no live event ($name)', (way) => {
  it('GET /events and /events/ws send the live events before since, then end at until', async () => {
    await using fake = createDockside({ seed: 1 })
    const w = await way.start(fake)
    try {
      const web = fake.containers.create({ name: 'web', image: 'nginx' })
      web.start() // #1, before the connects: not replayed
      const query = `since=${START + 60}&until=${START + 90}`
      const res = await fetch(`${w.base}/events?client=stream&${query}`)
      const stream = readToEnd(res)
      const socket = await openEvents(`${w.wsBase}/events/ws?client=socket&${query}`)
      await fake.clock.advance('10s')
      web.stop() // #2 at +10 s: before since, sent
      await fake.clock.advance('80s')
      web.start() // #3 at +90 s, made after the streams completed at until: not sent
      const { how, text } = await stream
      await socket.closed
      expect(how).toBe('end')
      const times = (t: string) => [...t.matchAll(/"timeNano":(\d+)/g)].map((m) => m[1])
      expect(times(text)).toEqual([`${START + 10}000000000`])
      expect(socket.messages.flatMap(times)).toEqual([`${START + 10}000000000`])
      for (const client of ['stream', 'socket']) {
        const r = fake.deliveries.report(client)
        expect({ expected: r.expected, delivered: r.delivered, missed: r.missed.length }).toEqual({ expected: 1, delivered: 1, missed: 0 })
      }
    } finally {
      await w.close()
    }
  })
})
