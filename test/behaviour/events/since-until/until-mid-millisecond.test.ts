// Regression: an `until` in the middle of a millisecond completed the stream before it was reached. The until timer
// was set for the millisecond that holds `until` (its floor), so on a virtual clock it fired as the clock reached that
// millisecond, before the events of that instant were stamped (1 ns apart, up to `until` and past it). A client that
// asked `until=<an event's timeNano>` got none of them, and its delivery report owed it none. Now the stream completes
// when the clock reaches `until` (the first millisecond at or after it): the events stamped up to `until` are sent,
// the one after is not, and the report owes exactly what was sent. Checked over the events websocket and Docker's
// GET /events, on the real server and in process.
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside } from '../../../../src/index'
import { readToEnd, streamWays as ways } from '../../../support/stream-ways'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

// The clock starts at 1767225600 s; the instant 1 ms later holds three events, at .001000000, .001000001 and
// .001000002. `until` is the second of them.
const UNTIL = '1767225600.001000001'
const IN_TIME = ['1767225600001000000', '1767225600001000001']

describe.each(ways)('until in the middle of a millisecond ($name)', (way) => {
  async function started() {
    const fake = createDockside({ seed: 1 })
    closers.push(() => fake.close())
    const h = await way.start(fake)
    closers.push(() => h.close())
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    return { fake, ...h, web }
  }
  /** Moves the clock to the instant 1 ms on and makes its three events there. */
  async function instant(fake: Awaited<ReturnType<typeof started>>['fake'], web: Awaited<ReturnType<typeof started>>['web']) {
    await fake.clock.advance(1)
    web.start()
    web.stop()
    web.start()
    expect(fake.events.events.map((e) => String(e.timeNano))).toEqual([...IN_TIME, '1767225600001000002'])
  }

  it('bug: /events/ws completed before the events stamped up to until; now it sends them, then completes, and the report owes just those', async () => {
    const { fake, wsBase, web } = await started()
    const ws = new WebSocket(`${wsBase}/events/ws?client=w&until=${UNTIL}`)
    const frames: string[] = []
    ws.addEventListener('message', (m) => frames.push(/"timeNano":(\d+)/.exec(String(m.data))![1]!))
    const closed = new Promise<[number, string]>((resolve) => ws.addEventListener('close', (e) => resolve([e.code, e.reason])))
    await new Promise((resolve) => ws.addEventListener('open', resolve))
    await instant(fake, web)
    // The instant has passed `until` only when the clock moves on: its next millisecond completes the stream.
    await fake.clock.advance(1)
    expect(await closed).toEqual([1000, 'until reached; stream complete'])
    expect(frames).toEqual(IN_TIME)
    const report = fake.deliveries.report('w')
    expect({ expected: report.expected, delivered: report.delivered, missed: report.missed.length }).toEqual({ expected: 2, delivered: 2, missed: 0 })
  })

  it('bug: GET /events?until= ended before the events stamped up to until; now it sends them, then ends', async () => {
    const { fake, base, web } = await started()
    const res = await fetch(`${base}/events?client=s&until=${UNTIL}`)
    expect(res.status).toBe(200)
    const body = readToEnd(res)
    await instant(fake, web)
    await fake.clock.advance(1)
    const outcome = await body
    expect(outcome.how).toBe('end')
    expect(outcome.text.split('\n').filter(Boolean).map((l) => /"timeNano":(\d+)/.exec(l)![1])).toEqual(IN_TIME)
    const report = fake.deliveries.report('s')
    expect({ expected: report.expected, delivered: report.delivered, missed: report.missed.length }).toEqual({ expected: 2, delivered: 2, missed: 0 })
  })

  it('an until on a millisecond boundary still completes as the clock reaches it', async () => {
    const { fake, wsBase } = await started()
    const ws = new WebSocket(`${wsBase}/events/ws?until=1767225600.002000000`)
    const closed = new Promise<number>((resolve) => ws.addEventListener('close', (e) => resolve(e.code)))
    await new Promise((resolve) => ws.addEventListener('open', resolve))
    await fake.clock.advance(2)
    expect(await closed).toBe(1000)
  })
})
