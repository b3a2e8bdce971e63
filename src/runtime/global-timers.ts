import type { ClockOptions, HostTimers } from '../time/clock'

/**
 * Host timers that look up `setTimeout`, `clearTimeout`, `setImmediate` and `Date.now` on every call,
 * so a user's fake timers (`vi.useFakeTimers()`, `@sinonjs/fake-timers`) drive them.
 * The default host timers are captured at import instead, so fake timers cannot stall the fake.
 */
export const globalTimers: HostTimers = {
  now: () => Date.now(),
  after: (ms, fn) => globalThis.setTimeout(fn, ms),
  cancel: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
  // setImmediate is faked by vitest too; a faked one runs on the next tick of the fake clock.
  immediate: (fn) => globalThis.setImmediate(fn),
  // now() is Date.now(): the wall time itself.
  wallOrigin: 0,
}

/**
 * Clock options for a fake whose clock follows the global (possibly faked) timers: one
 * `vi.advanceTimersByTime(ms)` moves both the client's timers and the fake's clock by `ms`.
 * The clock runs in `real` mode on {@link globalTimers}; it starts at `start` (default 2026-01-01T00:00:00Z).
 * `fake.clock.advance()` still works and moves the fake alone.
 * @example
 * vi.useFakeTimers()
 * const fake = createDockside({ clock: followGlobalTimers() })
 */
export function followGlobalTimers(options: { start?: number | string } = {}): ClockOptions {
  return { mode: 'real', host: globalTimers, start: options.start ?? Date.UTC(2026, 0, 1), speed: 1 }
}
