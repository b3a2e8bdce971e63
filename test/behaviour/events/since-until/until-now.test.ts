// Regression: an `until` equal to the clock's time waited instead of ending. On a virtual clock at 1767225600,
// `GET /events?since=1767225600&until=1767225600` and `/events/ws?until=1767225600` stayed open until the clock was
// advanced (the until timer had no delay, and a virtual clock fires nothing until it moves). Docker ends at once (the
// daemon waits `until - now`, zero here), after the matching events with time <= until. An `until` in the past
// already did that; the boundary now does too, in seconds and in nanosecond form. Checked with fetch, node:http and
// the global WebSocket, against a real port and in process (the MSW way:
// test/ways-in/msw/events-stream-ends.test.ts).
import * as http from 'node:http'
import * as https from 'node:https'
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside } from '../../../../src/index'
import { probeWithGlobalWs } from '../../../support/global-ws-probe'
import { streamWays as ways } from '../../../support/stream-ways'


/** The whole body of `GET url` read with node:http (https in process), as dockerode reads a stream. */
function nodeGet(url: string) {
  return new Promise<{ status: number; text: string; complete: boolean }>((resolve, reject) => {
    const req = (url.startsWith('https:') ? https : http).get(url, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('close', () => resolve({ status: res.statusCode!, text, complete: res.complete }))
    })
    req.on('error', reject)
  })
}

const statuses = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l).status as string)

/** The clock's start, 2026-01-01T00:00:00Z, in every form `until` may take. */
const NOW_FORMS = ['1767225600', '1767225600.000000000', '1767225600.0', '01767225600.000']

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

describe.each(ways)('until equal to the clock time ends the stream at once ($name)', (way) => {
  async function started() {
    const fake = createDockside({ seed: 1 })
    closers.push(() => fake.close())
    const h = await way.start(fake)
    closers.push(() => h.close())
    // Two events at the clock's start: the start at 1767225600.000000000, the stop 1 ns later (times are unique).
    const c = fake.containers.create({ name: 'web', image: 'nginx' })
    c.start()
    c.stop()
    expect(fake.events.events.map((e) => e.timeNano)).toEqual([1767225600_000000000n, 1767225600_000000001n])
    const pending = fake.clock.pending
    return { fake, ...h, pending }
  }

  it('bug: GET /events?since=now&until=now stayed open until the clock moved; now it sends the events at or before until and ends (fetch, node:http)', async () => {
    const { fake, base, pending } = await started()
    for (const until of NOW_FORMS) {
      const res = await fetch(`${base}/events?client=fetch&since=1767225600&until=${until}`)
      expect(res.status).toBe(200)
      // The clock never moves here: before the fix this read waited for an advance that never came.
      expect(statuses(await res.text()), `until=${until}`).toEqual(['start'])
      const viaNode = await nodeGet(`${base}/events?client=node&since=1767225600&until=${until}`)
      expect(viaNode, `until=${until}`).toMatchObject({ status: 200, complete: true })
      expect(statuses(viaNode.text)).toEqual(['start'])
    }
    // Each ended as a stream ending at `until` ends, with no timer left behind.
    expect(fake.deliveries.report('fetch').connections.map((c) => [c.sent, c.closedBy, c.code, c.reason])).toEqual(NOW_FORMS.map(() => [1, 'server', 1000, 'stream ended']))
    expect(fake.clock.pending).toBe(pending)
    expect(fake.clock.now()).toBe(Date.UTC(2026, 0, 1))
  })

  it('bug: /events/ws?until=now stayed open until the clock moved; now it sends the replay and closes 1000 at once (global WebSocket)', async () => {
    const { fake, wsBase, pending } = await started()
    for (const until of NOW_FORMS) {
      const bare = await probeWithGlobalWs(`${wsBase}/events/ws?until=${until}`)
      expect(await bare.closed, `until=${until}`).toEqual({ code: 1000, reason: 'until reached; stream complete' })
      // Without since, until alone replays what is kept up to it, as Docker does: the start at exactly until.
      expect(bare.messages.map((m) => JSON.parse(m).status)).toEqual(['start'])
      const replay = await probeWithGlobalWs(`${wsBase}/events/ws?since=1767225600&until=${until}`)
      expect(await replay.closed).toEqual({ code: 1000, reason: 'until reached; stream complete' })
      expect(replay.messages.map((m) => JSON.parse(m).status)).toEqual(['start'])
    }
    expect(fake.clock.pending).toBe(pending)
  })

  it('an until in the past behaves as before, and one 1 ns ahead still waits for the clock to pass it', async () => {
    const { fake, base } = await started()
    const past = await fetch(`${base}/events?since=1767225599&until=1767225599.999999999`)
    expect(await past.text()).toBe('')
    // 1 ns after the start: the stop is at exactly that time, so both are replayed; the stream then follows the clock.
    const ahead = await fetch(`${base}/events?client=ahead&since=1767225600&until=1767225600.000000001`)
    const reader = ahead.body!.getReader()
    const decoder = new TextDecoder()
    let text = ''
    while (statuses(text).length < 2) text += decoder.decode((await reader.read()).value)
    expect(statuses(text)).toEqual(['start', 'stop'])
    // Still open on the server's side: the clock has not passed until.
    expect(fake.deliveries.report('ahead').connections[0].closedAt).toBeUndefined()
    await fake.clock.advance(1)
    expect(await reader.read()).toEqual({ done: true, value: undefined })
    expect(fake.deliveries.report('ahead').connections[0]).toMatchObject({ closedBy: 'server', code: 1000, sent: 2 })
  })

  it('after the clock moved, until equal to the new time ends at once too, with the events up to it', async () => {
    const { fake, base, wsBase } = await started()
    await fake.clock.advance('1s')
    fake.containers.get('web').start()
    const res = await fetch(`${base}/events?since=1767225600.000000001&until=1767225601`)
    expect(statuses(await res.text())).toEqual(['stop', 'start'])
    const ws = await probeWithGlobalWs(`${wsBase}/events/ws?since=1767225601&until=1767225601.000000000`)
    expect((await ws.closed).code).toBe(1000)
    expect(ws.messages.map((m) => JSON.parse(m).status)).toEqual(['start'])
  })
})
