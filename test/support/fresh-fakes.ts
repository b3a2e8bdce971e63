import { afterEach } from 'vitest'
import { createDockside, type Dockside } from '../../src/index'

/**
 * A `fresh(options)` that makes a fake with seed 42 (options over it) and closes every fake it made after each test.
 * Call once at the top of a test file.
 */
export function freshFakes(): (options?: Parameters<typeof createDockside>[0]) => Dockside {
  const fakes: Dockside[] = []
  afterEach(async () => {
    for (const f of fakes.splice(0)) await f.close()
  })
  return (options = {}) => {
    const fake = createDockside({ seed: 42, ...options })
    fakes.push(fake)
    return fake
  }
}

/** The messages of one chunk of the admin live feed (`event: name` / `data: json` pairs). */
export const parseLiveChunk = (chunk: string): { event: string; data: any }[] =>
  chunk
    .trim()
    .split('\n\n')
    .map((m) => {
      const [event, data] = m.split('\n')
      return { event: event.replace(/^event: /, ''), data: JSON.parse(data.replace(/^data: /, '')) }
    })

/**
 * Host timers a test fires by hand, for `createDockside({ clock: { mode: 'virtual', host } })`: what runs on the host's
 * time (the admin live feed's pace) waits until the test says that time has passed, with no real waiting.
 */
export function manualHostTimers() {
  const due: { ms: number; fn: () => void }[] = []
  const watchers: { ms: number; resolve: () => void }[] = []
  const host = {
    now: () => 0,
    after(ms: number, fn: () => void) {
      const timer = { ms, fn }
      due.push(timer)
      for (const w of watchers.splice(0)) if (w.ms === ms) w.resolve()
      else watchers.push(w)
      return timer
    },
    cancel(timer: unknown) {
      const i = due.indexOf(timer as (typeof due)[number])
      if (i >= 0) due.splice(i, 1)
    },
    immediate: (fn: () => void) => setImmediate(fn),
  }
  return {
    host,
    /** Fires every timer of `ms` waiting now; returns how many. */
    elapse(ms: number): number {
      const fired = due.filter((t) => t.ms === ms)
      for (const t of fired) due.splice(due.indexOf(t), 1)
      for (const t of fired) t.fn()
      return fired.length
    },
    /** Resolves once `count` timers of `ms` are waiting (those already waiting count). */
    async waiting(ms: number, count = 1): Promise<void> {
      while (due.filter((t) => t.ms === ms).length < count) await new Promise<void>((resolve) => watchers.push({ ms, resolve }))
    },
  }
}
