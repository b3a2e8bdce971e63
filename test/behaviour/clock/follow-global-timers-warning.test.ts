// Issue 30, §2: `followGlobalTimers()` under `vi.useFakeTimers()` left a client that waits with node:timers/promises
// (which vitest's fake timers leave real) trying once and never again, with no error. The fake now warns, once per
// process, with a code a user can filter, when such a timer is made while its clock follows faked global timers; it
// stays silent when the client's waits are faked or injected, and when the timers are not faked. The silent cases run
// first: the warning is once per process (vitest runs each file in its own).
import { setTimeout as promiseSleep } from 'node:timers/promises'
import { afterEach, expect, test, vi } from 'vitest'
import { createDockside, followGlobalTimers } from '../../../src/index'

const warnings: { code?: string; message: string }[] = []
const onWarning = (w: Error & { code?: string }) => void warnings.push({ code: w.code, message: w.message })
process.on('warning', onWarning)
afterEach(() => void vi.useRealTimers())

/** A client's retry loop: it asks the fake, then waits `wait(ms)` and asks again, `tries` times in all. */
async function retrying(fake: ReturnType<typeof createDockside>, wait: (ms: number) => Promise<unknown>, tries: number) {
  for (let i = 1; i < tries; i++) {
    fake.containers.list()
    await wait(100)
  }
  return tries
}

/** Lets a queued process warning (emitted on a later tick) arrive. */
const warningsArrive = () => new Promise<void>((resolve) => setImmediate(resolve))

test('silent: the client waits with the fake timers (global setTimeout) or with the injected fake sleep', async () => {
  vi.useFakeTimers()
  await using fake = createDockside({ clock: followGlobalTimers() })
  const globalWait = retrying(fake, (ms) => new Promise((r) => setTimeout(r, ms)), 3)
  await vi.advanceTimersByTimeAsync(200)
  expect(await globalWait).toBe(3)
  const injected = retrying(fake, (ms) => fake.clock.sleep(ms), 3)
  await vi.advanceTimersByTimeAsync(200)
  expect(await injected).toBe(3)
  vi.useRealTimers()
  await warningsArrive()
  expect(warnings).toEqual([])
})

test('silent: node:timers/promises with real timers, and with a fake that does not follow them', async () => {
  await using following = createDockside({ clock: followGlobalTimers() })
  expect(await retrying(following, (ms) => promiseSleep(ms / 100), 2)).toBe(2)
  vi.useFakeTimers()
  await using own = createDockside()
  const waiting = retrying(own, (ms) => promiseSleep(ms / 100), 2)
  vi.useRealTimers()
  expect(await waiting).toBe(2)
  await warningsArrive()
  expect(warnings).toEqual([])
})

test('loud: under vi.useFakeTimers(), a client of a following fake that waits with node:timers/promises gets one warning', async () => {
  vi.useFakeTimers()
  await using fake = createDockside({ clock: followGlobalTimers() })
  let tries = 0
  const client = (async () => {
    for (;;) {
      tries++
      fake.containers.list()
      await promiseSleep(100) // real: advancing vi's timers never fires it
      if (tries === 2) return
    }
  })()
  await vi.advanceTimersByTimeAsync(1000)
  expect(tries).toBe(1) // the silent failure itself: tried once, waiting on a timer vi does not move
  vi.useRealTimers()
  await warningsArrive()
  expect(warnings).toHaveLength(1)
  expect(warnings[0]!.code).toBe('DOCKSIDE_UNFAKED_PROMISE_TIMER')
  expect(warnings[0]!.message).toMatch(/^a timer of node:timers\/promises was set while this fake's clock follows the global timers \(followGlobalTimers\(\)\) and they are faked/)
  expect(warnings[0]!.message).toContain('sleep: (ms, signal) => fake.clock.sleep(ms, signal)')
  await client

  // Once per process: the same mistake again says nothing more.
  vi.useFakeTimers()
  await using again = createDockside({ clock: followGlobalTimers() })
  again.containers.list()
  const second = promiseSleep(1)
  vi.useRealTimers()
  await second
  await warningsArrive()
  expect(warnings).toHaveLength(1)
  process.off('warning', onWarning)
})
