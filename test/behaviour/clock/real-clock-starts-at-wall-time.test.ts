// A `real` clock without a `start` started at Date.now() read before the fake was built: every event's time trailed
// the wall clock by the build time plus Date.now()'s truncation (1-5 ms), which a client measuring latency against
// its own clock sees as late events. It now reads the sub-millisecond wall time when it is made (decision 0016).
import { afterEach, expect, test } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'

const wall = () => performance.timeOrigin + performance.now()
let fake: Dockside | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

test('an event on a real clock carries the wall time at which it happened', () => {
  fake = createDockside({ seed: 1, clock: 'real' })
  const web = fake.containers.create({ name: 'web', image: 'nginx' })
  for (let i = 0; i < 20; i++) {
    const before = wall()
    if (i % 2 === 0) web.start()
    else web.stop()
    const after = wall()
    const event = fake.events.events.at(-1)!
    const ms = Number(event.timeNano) / 1e6
    // The event's nanosecond time is unique and increasing: it may sit up to a microsecond after the wall reading.
    expect(ms).toBeGreaterThanOrEqual(before - 0.001)
    expect(ms).toBeLessThanOrEqual(after + 0.01)
  }
})

test('the clock starts at the wall time of its making, and a given start still wins', () => {
  const before = wall()
  fake = createDockside({ seed: 1, clock: 'real' })
  const after = wall()
  expect(fake.clock.startedAt).toBeGreaterThanOrEqual(before)
  expect(fake.clock.startedAt).toBeLessThanOrEqual(after)
  void fake.close()
  fake = createDockside({ seed: 1, clock: { mode: 'real', start: '2030-05-01T00:00:00Z' } })
  expect(fake.clock.startedAt).toBe(Date.UTC(2030, 4, 1))
})
