// Regression: `expect(fake).toHaveMissedEvents(client, seqs)` ("the client missed exactly these events", docs/jest.md)
// compared the list in order: a client that missed #2 and #3 failed `toHaveMissedEvents('c', [3, 2])` with "it missed
// [2, 3]", and `.not.toHaveMissedEvents('c', [3, 2])` passed, a false all-clear. What was missed is a set of events.
// Found by the second events hunt (was test/regressions/events-hunt-2-missed-matcher.test.ts).
import { beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createDockside } from '../../../src/index'
import { installDeliveryMatchers } from '../../../src/vitest/delivery-matchers'

beforeAll(() => installDeliveryMatchers())

declare module 'vitest' {
  interface Assertion {
    toHaveMissedEvents(client: string, seqs: number[]): void
  }
}

describe('toHaveMissedEvents names a set of events', () => {
  it('bug: the events a client missed, named out of log order, failed; now they pass, and .not fails', async () => {
    await using fake = createDockside({ seed: 1 })
    await using server = await fake.listen({ port: 0 })
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    // A client the server cuts after its first event (#1); #2 and #3 come while it is away.
    fake.faults.add({ on: 'events', close: { code: 1011, reason: 'cut' }, afterMessages: 1, times: 1 })
    const ws = new WebSocket(`${server.wsUrl}/events/ws?client=c`)
    await new Promise((resolve) => ws.on('open', resolve))
    const closed = new Promise<number>((resolve) => ws.on('close', resolve))
    web.start()
    expect(await closed).toBe(1011)
    web.stop()
    web.start()
    expect(fake.deliveries.report('c').missed.map((m) => m.seq)).toEqual([2, 3])

    expect(fake).toHaveMissedEvents('c', [2, 3])
    expect(fake).toHaveMissedEvents('c', [3, 2])
    expect(fake).toHaveMissedEvents('c', [3, 2, 3])
    expect(() => expect(fake).not.toHaveMissedEvents('c', [3, 2])).toThrow('expected client "c" not to have missed events [3, 2]; it missed [2, 3].')
    expect(() => expect(fake).toHaveMissedEvents('c', [3])).toThrow('expected client "c" to have missed events [3]; it missed [2, 3].')
    expect(() => expect(fake).toHaveMissedEvents('c', [1, 2, 3])).toThrow('it missed [2, 3]')
  })
})
