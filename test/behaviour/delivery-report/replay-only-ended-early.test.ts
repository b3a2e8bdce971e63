// Regression: a connection that asked for a replay only (`until` already past) and was ended by the server some other
// way than its complete close (a 4410 for a `since` older than retention, a fault during the replay) left the client
// owed every later event, an ongoing gap for good, though it asked for nothing after `until`. docs/chaos.md: "A
// connection with `until` asked for nothing after it". Now any end of such a connection owes nothing after `until`
// (what it asked for up to `until` and did not get stays missed).
// Found by the second events hunt (was test/regressions/events-hunt-2-replay-only-ended.test.ts).
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import type { Dockside } from '../../../src/index'
import { fakeWithHistory } from '../../support/helpers'

/** The fake's clock start, 2026-01-01T00:00:00Z, in Unix seconds. */
const START = 1767225600

const fakes: Dockside[] = []
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close()
})

/** A fake that keeps `retainEvents` events, after six (seq 1-6, one a second). */
const withHistory = (retainEvents: number) => fakeWithHistory(fakes, retainEvents)

/** A ws client that reads to the close: the frames' seq order is their count, and the close code. */
function readAll(url: string): Promise<{ frames: number; code: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url)
    let frames = 0
    ws.on('message', () => frames++)
    ws.on('close', (code) => resolve({ frames, code }))
  })
}

const summary = (fake: Dockside, client: string) => {
  const r = fake.deliveries.report(client)
  return { expected: r.expected, delivered: r.delivered, missed: r.missed.map((m) => m.seq), gaps: r.gaps.length }
}

describe('a replay-only connection ended early owes nothing after its until', () => {
  it('bug: since older than retention with a past until closed 4410 and owed every later event; now its replay only', async () => {
    const { fake, server, web } = await withHistory(3)
    expect(await readAll(`${server.wsUrl}/events/ws?client=c&since=${START}&until=${START + 4}`)).toEqual({ frames: 0, code: 4410 })
    web.start() // #7, after its until
    // Kept: #5, #6, #7. Asked up to +4 s: #5; never sent. #7 was not asked for.
    expect(summary(fake, 'c')).toEqual({ expected: 1, delivered: 0, missed: [5], gaps: 0 })
  })

  it('bug: a close fault after the first replayed event owed every later event; now the rest of the replay only', async () => {
    const { fake, server, web } = await withHistory(100)
    fake.faults.add({ on: 'events', close: { code: 1011, reason: 'cut' }, afterMessages: 1, times: 1 })
    expect(await readAll(`${server.wsUrl}/events/ws?client=c&since=${START + 2}&until=${START + 4}`)).toEqual({ frames: 1, code: 1011 })
    web.start()
    // Asked: #3, #4, #5 (+2 s to +4 s); #3 sent, #4 and #5 cut off. #7 was not asked for.
    expect(summary(fake, 'c')).toEqual({ expected: 3, delivered: 1, missed: [4, 5], gaps: 0 })
  })

  it('bug: the same on GET /events, where a close fault ends the response after the first replayed event', async () => {
    const { fake, server, web } = await withHistory(100)
    fake.faults.add({ on: 'events', close: { code: 1011, reason: 'cut' }, afterMessages: 1, times: 1 })
    const res = await fetch(`${server.url}/events?client=c&since=${START + 2}&until=${START + 4}`)
    expect((await res.text()).split('\n').filter(Boolean)).toHaveLength(1)
    web.start()
    expect(summary(fake, 'c')).toEqual({ expected: 3, delivered: 1, missed: [4, 5], gaps: 0 })
  })

  it('a close before a future until still owes what follows, as before', async () => {
    const { fake, server, web } = await withHistory(100)
    fake.faults.add({ on: 'events', close: { code: 1011, reason: 'cut' }, afterMessages: 1, times: 1 })
    expect(await readAll(`${server.wsUrl}/events/ws?client=c&since=${START + 5}&until=${START + 60}`)).toEqual({ frames: 1, code: 1011 })
    web.start() // #7 at +6 s, before until: owed, missed in the gap
    expect(summary(fake, 'c')).toEqual({ expected: 2, delivered: 1, missed: [7], gaps: 1 })
  })
})
