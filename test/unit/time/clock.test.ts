import { describe, expect, it } from 'vitest'
import { createClock, type HostTimers } from '../../../src/time/clock'
import { toMs } from '../../../src/time/duration'

const START = Date.UTC(2026, 0, 1)

/** Host timers driven by hand: `tick(ms)` moves host time and fires due timers; `idle()` runs queued immediates. */
function manualHost() {
  let now = 0
  let seq = 0
  const timers: { at: number; seq: number; fn: () => void }[] = []
  const immediates: (() => void)[] = []
  const calls: number[] = []
  const host: HostTimers & { tick(ms: number): void; idle(): void; readonly timers: number; readonly immediates: number; calls: number[] } = {
    now: () => now,
    after(ms, fn) {
      calls.push(ms)
      const t = { at: now + ms, seq: seq++, fn }
      timers.push(t)
      return t
    },
    cancel(handle) {
      const i = timers.indexOf(handle as (typeof timers)[number])
      if (i >= 0) timers.splice(i, 1)
    },
    immediate(fn) {
      immediates.push(fn)
      return fn
    },
    tick(ms) {
      const target = now + ms
      for (;;) {
        timers.sort((a, b) => a.at - b.at || a.seq - b.seq)
        const t = timers[0]
        if (!t || t.at > target) break
        timers.shift()
        now = Math.max(now, t.at)
        t.fn()
      }
      now = target
    },
    idle() {
      while (immediates.length) immediates.shift()!()
    },
    get timers() {
      return timers.length
    },
    get immediates() {
      return immediates.length
    },
    calls,
  }
  return host
}

/** Runs an advance()/next() on a manual host: they let host I/O run first (two host turns), so play the host's turns. */
async function withTurns<T>(host: ReturnType<typeof manualHost>, call: Promise<T>): Promise<T> {
  let done = false
  // Only the flag's chain is silenced: `call` itself is returned below, so its rejection still fails the test.
  void call.finally(() => (done = true)).catch(() => {})
  while (!done) {
    host.idle()
    await new Promise((resolve) => setImmediate(resolve))
  }
  return call
}

describe('durations', () => {
  it.each([
    [0, 0],
    [250, 250],
    ['250', 250],
    ['250ms', 250],
    ['5s', 5000],
    ['1.5s', 1500],
    ['2m', 120_000],
    ['1h30m', 5_400_000],
    ['2m5s', 125_000],
    ['24h', 86_400_000],
    ['1d', 86_400_000],
    [' 5s ', 5000],
  ])('%j is %d ms', (input, ms) => {
    expect(toMs(input)).toBe(ms)
  })

  it.each(['5x', '', 's', 'five', '5 s', '-1s', '1h30', '5s!', 'ms'])('refuses %j, naming the accepted forms', (bad) => {
    expect(() => toMs(bad)).toThrow(RangeError)
    expect(() => toMs(bad)).toThrow(/"5s"/)
  })

  it.each([-1, Number.NaN, Infinity])('refuses the number %d', (bad) => {
    expect(() => toMs(bad)).toThrow(/non-negative number of milliseconds/)
  })

  it('names what was being parsed', () => {
    expect(() => toMs('soon', 'timeline "at"')).toThrow('Invalid timeline "at" "soon"')
  })
})

describe('virtual clock', () => {
  it('starts at 2026-01-01 and moves only when told', async () => {
    const clock = createClock()
    expect(clock.mode).toBe('virtual')
    expect(clock.now()).toBe(START)
    expect(clock.startedAt).toBe(START)
    await clock.advance('5s')
    expect(clock.now()).toBe(START + 5000)
    expect(clock.elapsed()).toBe(5000)
    await clock.advance(250)
    expect(clock.elapsed()).toBe(5250)
  })

  it('takes a start as an ISO date or epoch ms', () => {
    expect(createClock({ start: '2020-02-02T00:00:00Z' }).now()).toBe(Date.UTC(2020, 1, 2))
    expect(createClock({ start: 1000 }).now()).toBe(1000)
    expect(() => createClock({ start: 'yesterday' })).toThrow(/Invalid clock start "yesterday"/)
  })

  it('refuses a bad mode, speed, or a host-driven mode without host timers', () => {
    expect(() => createClock({ mode: 'fast' as never })).toThrow('Invalid clock mode "fast": expected "virtual", "auto" or "real".')
    expect(() => createClock({ speed: 0 })).toThrow(/expected a number above 0/)
    expect(() => createClock({ mode: 'auto' })).toThrow(/needs host timers/)
    expect(() => createClock({ mode: 'real' })).toThrow(/needs host timers/)
  })

  it('advance fires due timers in time order, at their own time, and leaves later ones pending', async () => {
    const clock = createClock()
    const seen: [string, number][] = []
    clock.schedule('3s', () => seen.push(['c', clock.elapsed()]))
    clock.schedule('1s', () => seen.push(['a', clock.elapsed()]))
    clock.schedule(1000, () => seen.push(['b', clock.elapsed()]))
    clock.schedule('10s', () => seen.push(['late', clock.elapsed()]))
    expect(clock.pending).toBe(4)
    await clock.advance('5s')
    expect(seen).toEqual([
      ['a', 1000],
      ['b', 1000],
      ['c', 3000],
    ])
    expect(clock.pending).toBe(1)
    expect(clock.elapsed()).toBe(5000)
  })

  it('fires timers scheduled by timers when they fall within the advance', async () => {
    const clock = createClock()
    const seen: number[] = []
    const tick = () => {
      seen.push(clock.elapsed())
      clock.schedule('1s', tick)
    }
    clock.schedule('1s', tick)
    await clock.advance('3500ms')
    expect(seen).toEqual([1000, 2000, 3000])
    expect(clock.pending).toBe(1)
  })

  it('lets an async loop awaiting sleep() run between fires', async () => {
    const clock = createClock()
    const at: number[] = []
    void (async () => {
      while (await clock.sleep(100)) at.push(clock.elapsed())
    })()
    await clock.advance('1s')
    expect(at).toEqual([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000])
  })

  it('next() fires one timer and moves time to it; false when none', async () => {
    const clock = createClock()
    let fired = 0
    clock.schedule('2s', () => fired++)
    clock.schedule('7s', () => fired++)
    expect(await clock.next()).toBe(true)
    expect(fired).toBe(1)
    expect(clock.elapsed()).toBe(2000)
    expect(await clock.next()).toBe(true)
    expect(clock.elapsed()).toBe(7000)
    expect(await clock.next()).toBe(false)
    expect(clock.elapsed()).toBe(7000)
  })

  it('runAll() fires everything and stops at the last timer', async () => {
    const clock = createClock()
    const seen: number[] = []
    for (const d of ['1h', '1m', '1s']) clock.schedule(d, () => seen.push(clock.elapsed()))
    await clock.runAll()
    expect(seen).toEqual([1000, 60_000, 3_600_000])
    expect(clock.pending).toBe(0)
    expect(clock.elapsed()).toBe(3_600_000)
  })

  it('cancelled timers never fire and do not count as pending', async () => {
    const clock = createClock()
    let fired = false
    const h = clock.schedule('1s', () => (fired = true))
    expect(clock.pending).toBe(1)
    h.cancel()
    h.cancel()
    expect(clock.pending).toBe(0)
    await clock.runAll()
    expect(fired).toBe(false)
  })

  it('fails loudly past the loop limit in runAll() and advance()', async () => {
    const clock = createClock({ loopLimit: 5 })
    const forever = () => void clock.schedule(0, forever)
    clock.schedule(0, forever)
    await expect(clock.runAll()).rejects.toThrow(/more than 5 timers fired/i)
    const clock2 = createClock({ loopLimit: 5 })
    const again = () => void clock2.schedule(0, again)
    clock2.schedule(0, again)
    await expect(clock2.advance('1s')).rejects.toThrow(/more than 5 timers fired during advance\(\)/i)
  })

  it('sleep resolves true when the time comes', async () => {
    const clock = createClock()
    const p = clock.sleep('2s')
    await clock.advance('1999ms')
    let done: boolean | undefined
    void p.then((v) => (done = v))
    await Promise.resolve()
    expect(done).toBeUndefined()
    await clock.advance(1)
    expect(await p).toBe(true)
  })

  it('sleep resolves false when aborted, and removes its timer', async () => {
    const clock = createClock()
    const ac = new AbortController()
    const p = clock.sleep('10s', ac.signal)
    expect(clock.pending).toBe(1)
    ac.abort()
    expect(await p).toBe(false)
    expect(clock.pending).toBe(0)
    expect(await clock.sleep('1s', AbortSignal.abort())).toBe(false)
    expect(clock.pending).toBe(0)
  })

  it('dispose() drops every timer', async () => {
    const clock = createClock()
    let fired = false
    clock.schedule('1s', () => (fired = true))
    clock.dispose()
    expect(clock.pending).toBe(0)
    await clock.advance('5s')
    expect(fired).toBe(false)
  })

  it('lifetime ends at dispose(), whether it was asked for before or only after', () => {
    const early = createClock()
    const signal = early.lifetime
    let heard = 0
    signal.addEventListener('abort', () => heard++)
    expect(signal.aborted).toBe(false)
    expect(early.lifetime).toBe(signal)
    early.dispose()
    expect(heard).toBe(1)
    expect(signal.aborted).toBe(true)
    expect((signal.reason as Error).message).toMatch(/the clock was disposed/)

    const late = createClock()
    late.dispose()
    expect(late.lifetime.aborted).toBe(true)
    expect((late.lifetime.reason as Error).message).toMatch(/the clock was disposed/)
  })
})

describe('auto clock', () => {
  it('jumps straight to a wait timer when idle, with deterministic times', async () => {
    const host = manualHost()
    const clock = createClock({ mode: 'auto', host })
    const p = clock.sleep('10m')
    expect(host.immediates).toBe(1)
    host.idle()
    expect(await p).toBe(true)
    expect(clock.elapsed()).toBe(600_000)
    expect(clock.pending).toBe(0)
  })

  it('skips from wait to wait, letting I/O run between jumps', async () => {
    const host = manualHost()
    const clock = createClock({ mode: 'auto', host })
    const at: number[] = []
    const loop = (async () => {
      for (let i = 0; i < 3; i++) {
        await clock.sleep(100)
        at.push(clock.elapsed())
      }
    })()
    // Each idle turn jumps once; the loop schedules its next sleep in between.
    for (let i = 0; i < 3; i++) {
      host.idle()
      for (let j = 0; j < 5; j++) await Promise.resolve()
    }
    await loop
    expect(at).toEqual([100, 200, 300])
  })

  it('one idle turn skips wait after wait while the woken work schedules its next (a push\'s ticks, not one turn each)', async () => {
    const host = manualHost()
    const clock = createClock({ mode: 'auto', host })
    const at: number[] = []
    const loop = (async () => {
      for (let i = 0; i < 50; i++) {
        await clock.sleep(100)
        at.push(clock.elapsed())
      }
    })()
    host.idle()
    await loop
    expect(at).toEqual(Array.from({ length: 50 }, (_, i) => (i + 1) * 100))
    // The whole loop ran in the one idle turn: no host turn was asked for in between.
    expect(host.immediates).toBe(0)
  })

  it('waits woken together each schedule their next before the clock jumps on: every loop keeps its own pace', async () => {
    const host = manualHost()
    const clock = createClock({ mode: 'auto', host })
    const seen: string[] = []
    const loop = (name: string, step: number) =>
      (async () => {
        for (let i = 0; i < 4; i++) {
          await clock.sleep(step)
          // Work that takes a few extra promise hops before it sleeps again.
          for (let h = 0; h < 3; h++) await Promise.resolve()
          seen.push(`${name}@${clock.elapsed()}`)
        }
      })()
    let done = false
    const all = Promise.all([loop('a', 100), loop('b', 100), loop('c', 150)]).then(() => (done = true))
    // Idle turns until all three are done (a burst that ends hands back to the host).
    for (let turn = 0; !done && turn < 100; turn++) {
      host.idle()
      for (let h = 0; h < 20; h++) await Promise.resolve()
    }
    await all
    expect(seen.filter((s) => s.startsWith('a'))).toEqual(['a@100', 'a@200', 'a@300', 'a@400'])
    expect(seen.filter((s) => s.startsWith('b'))).toEqual(['b@100', 'b@200', 'b@300', 'b@400'])
    expect(seen.filter((s) => s.startsWith('c'))).toEqual(['c@150', 'c@300', 'c@450', 'c@600'])
  })

  it('skipWait moves time only inside a burst, for its one woken sleeper, with nothing due on the way', async () => {
    const host = manualHost()
    const clock = createClock({ mode: 'auto', host })
    // Outside a burst: the caller must sleep.
    expect(clock.skipWait(100)).toBe(false)
    expect(createClock().skipWait(100)).toBe(false)
    const results: boolean[] = []
    const bg: number[] = []
    clock.schedule(450, () => bg.push(clock.elapsed()), 'background')
    const done = (async () => {
      await clock.sleep(100)
      // 100 -> 200 -> 300 -> 400 at once; 400 -> 500 would pass the background timer at 450, so no.
      for (let i = 0; i < 4; i++) results.push(clock.skipWait(100))
      expect(clock.elapsed()).toBe(400)
      await clock.sleep(100)
      expect(bg).toEqual([450])
    })()
    host.idle()
    await done
    expect(results).toEqual([true, true, true, false])
    expect(clock.elapsed()).toBe(500)
    expect(clock.skipWait(100, AbortSignal.abort())).toBe(false)
  })

  it('does not skip to background timers: they run at the host pace', async () => {
    const host = manualHost()
    const clock = createClock({ mode: 'auto', host })
    let bg = 0
    clock.schedule('10s', () => bg++, 'background')
    expect(host.immediates).toBe(0)
    host.idle()
    expect(clock.elapsed()).toBe(0)
    expect(bg).toBe(0)
    host.tick(9999)
    expect(bg).toBe(0)
    host.tick(1)
    expect(bg).toBe(1)
    expect(clock.elapsed()).toBe(10_000)
  })

  it('a skip past a background timer fires it on the way, in order', async () => {
    const host = manualHost()
    const clock = createClock({ mode: 'auto', host })
    const seen: string[] = []
    clock.schedule('1s', () => seen.push(`bg@${clock.elapsed()}`), 'background')
    const p = clock.sleep('5s').then(() => seen.push(`wait@${clock.elapsed()}`))
    host.idle()
    await p
    expect(seen).toEqual(['bg@1000', 'wait@5000'])
    // Wall time since then counts on top of the skipped time.
    host.tick(250)
    expect(clock.elapsed()).toBe(5250)
  })
})

describe('real clock', () => {
  it('follows host time times the speed factor', () => {
    const host = manualHost()
    const clock = createClock({ mode: 'real', host, speed: 10, start: 0 })
    host.tick(100)
    expect(clock.now()).toBe(1000)
  })

  it('arms one host timer for the next due time, scaled by the speed', () => {
    const host = manualHost()
    const clock = createClock({ mode: 'real', host, speed: 10 })
    const seen: number[] = []
    clock.schedule('5s', () => seen.push(clock.elapsed()))
    clock.schedule('2s', () => seen.push(clock.elapsed()))
    expect(host.calls.at(-1)).toBe(200)
    expect(host.timers).toBe(1)
    host.tick(199)
    expect(seen).toEqual([])
    host.tick(1)
    expect(seen).toEqual([2000])
    expect(host.calls.at(-1)).toBe(300)
    host.tick(300)
    expect(seen).toEqual([2000, 5000])
    expect(host.timers).toBe(0)
  })

  it('dispose() cancels the host timer', () => {
    const host = manualHost()
    const clock = createClock({ mode: 'real', host })
    let fired = false
    clock.schedule('1s', () => (fired = true))
    expect(host.timers).toBe(1)
    clock.dispose()
    expect(host.timers).toBe(0)
    host.tick(5000)
    expect(fired).toBe(false)
  })

  it('advance() on a real clock moves it forward on top of host time', async () => {
    const host = manualHost()
    const clock = createClock({ mode: 'real', host, start: 0 })
    let fired = false
    clock.schedule('1m', () => (fired = true))
    await withTurns(host, clock.advance('1m'))
    expect(fired).toBe(true)
    host.tick(10)
    expect(clock.now()).toBe(60_010)
  })

  it('time keeps flowing after advance() or next() fire a timer before the target', async () => {
    const host = manualHost()
    const clock = createClock({ mode: 'real', host, start: 0 })
    clock.schedule('30s', () => {})
    await withTurns(host, clock.advance('1m'))
    host.tick(10)
    expect(clock.now()).toBe(60_010)
    clock.schedule('1h', () => {})
    expect(await withTurns(host, clock.next())).toBe(true)
    expect(clock.now()).toBe(3_660_010)
    host.tick(5)
    expect(clock.now()).toBe(3_660_015)
  })

  it('runs on the real host timers (one short wait)', async () => {
    const { hostTimers } = await import('../../../src/runtime/host-timers')
    const clock = createClock({ mode: 'real', host: hostTimers, speed: 100 })
    const t0 = performance.now()
    expect(await clock.sleep('2s')).toBe(true)
    const wall = performance.now() - t0
    expect(wall).toBeGreaterThanOrEqual(15)
    expect(wall).toBeLessThan(1000)
    expect(clock.elapsed()).toBeGreaterThanOrEqual(2000)
    clock.dispose()
  })
})
