// Clock pause, resume and speed (the dashboard's clock controls and a scenario's `pause` steps).
import { describe, expect, it } from 'vitest'
import { hostTimers } from '../../../src/runtime/host-timers'
import { createClock } from '../../../src/time/clock'

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r))
}

describe('clock pause', () => {
  it('virtual: a timer that pauses stops the advance at its time; an advance started while paused moves as asked', async () => {
    const clock = createClock()
    const fired: number[] = []
    clock.schedule(1000, () => fired.push(clock.elapsed()))
    clock.schedule(2000, () => (fired.push(clock.elapsed()), clock.pause()))
    clock.schedule(3000, () => fired.push(clock.elapsed()))
    await clock.advance('10s')
    expect(fired).toEqual([1000, 2000])
    expect(clock.elapsed()).toBe(2000)
    expect(clock.paused).toBe(true)
    await clock.advance('5s')
    expect(fired).toEqual([1000, 2000, 3000])
    expect(clock.elapsed()).toBe(7000)
    clock.resume()
    expect(clock.paused).toBe(false)
  })

  it('runAll stops where a timer paused, too', async () => {
    const clock = createClock()
    const fired: string[] = []
    clock.schedule(1000, () => (fired.push('a'), clock.pause()))
    clock.schedule(2000, () => fired.push('b'))
    await clock.runAll()
    expect(fired).toEqual(['a'])
    clock.resume()
    await clock.runAll()
    expect(fired).toEqual(['a', 'b'])
  })

  it('auto: a paused clock does not skip to a waiting timer until resumed', async () => {
    const clock = createClock({ mode: 'auto', host: hostTimers })
    clock.pause()
    const at = clock.elapsed()
    let woke = false
    void clock.sleep('10s').then(() => (woke = true))
    await turns(5)
    expect(woke).toBe(false)
    expect(clock.elapsed()).toBe(at)
    clock.resume()
    await turns(5)
    expect(woke).toBe(true)
    expect(clock.elapsed()).toBeCloseTo(at + 10_000, 0)
    clock.dispose()
  })

  it('real: setSpeed keeps the time so far (no jump), and only a real clock has a speed', () => {
    const clock = createClock({ mode: 'real', host: hostTimers, speed: 1 })
    const wallBefore = performance.now()
    const before = clock.now()
    clock.setSpeed(1000)
    const after = clock.now()
    const wall = performance.now() - wallBefore
    // Right after the change, time is where it was: it moved at most 1000x the wall time the two calls took (a
    // loaded machine can stall them for a while, so the bound is measured, not fixed).
    expect(after - before).toBeLessThanOrEqual(wall * 1000 + 1)
    expect(clock.speed).toBe(1000)
    expect(() => clock.setSpeed(0)).toThrow(/above 0/)
    expect(() => createClock().setSpeed(2)).toThrow(/virtual clock has no speed/)
    clock.dispose()
  })
})
