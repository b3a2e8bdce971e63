import type { ClockOptions, HostTimers } from '../time/clock'

/** The code of the warning {@link watchPromiseTimers} emits once: `process.on('warning', (w) => w.code === ...)`. */
export const UNFAKED_PROMISE_TIMER = 'DOCKSIDE_UNFAKED_PROMISE_TIMER'

/**
 * Whether the global timers are a fake's: @sinonjs/fake-timers (under vitest's and jest's modern fake timers) marks
 * each method it installs with its `clock`; jest's legacy fake timers are mock functions.
 */
const globalsFaked = (): boolean => {
  const t = globalThis.setTimeout as unknown as { clock?: unknown; _isMockFunction?: boolean } | undefined
  return typeof t?.clock === 'object' || t?._isMockFunction === true
}

interface Hook {
  enable(): Hook
  disable(): Hook
}
let hook: Hook | undefined
let warned = false

/**
 * The silent failure of following the global timers: a client that waits with `node:timers/promises` (which vitest's
 * and jest's fake timers leave real) under `vi.useFakeTimers()` tries once and never again, as advancing the fake
 * timers does not fire its real timer. While a fake's clock follows faked global timers, an async hook looks at each
 * real timer made (a `Timeout`): one made inside `node:timers/promises` is that failure, and is warned about once per
 * process, with code {@link UNFAKED_PROMISE_TIMER}. The hook goes away at the warning, or at the first real timer made
 * once the globals are real again; it costs nothing before a following clock meets faked timers.
 */
function watchPromiseTimers(): void {
  if (warned || hook !== undefined || !globalsFaked()) return
  const asyncHooks = globalThis.process?.getBuiltinModule?.('node:async_hooks') as typeof import('node:async_hooks') | undefined
  if (!asyncHooks) return
  const stop = () => {
    hook?.disable()
    hook = undefined
  }
  hook = asyncHooks.createHook({
    init(_id, type) {
      if (type !== 'Timeout') return
      if (!globalsFaked()) return stop()
      if (!new Error().stack?.includes('node:timers/promises')) return
      warned = true
      stop()
      process.emitWarning(
        "a timer of node:timers/promises was set while this fake's clock follows the global timers (followGlobalTimers()) and they are faked " +
          "(vi.useFakeTimers(), jest's or @sinonjs/fake-timers): advancing the fake timers does not fire it, so what waits on it (a retry, a backoff, " +
          "a timeout) never goes on and no error says so. Give the client the fake's sleep (sleep: (ms, signal) => fake.clock.sleep(ms, signal)) " +
          'and advance fake.clock, or have it wait with the global setTimeout. See docs/time.md.',
        { type: 'DocksideWarning', code: UNFAKED_PROMISE_TIMER },
      )
    },
  }) as Hook
  hook.enable()
}

/**
 * Host timers that look up `setTimeout`, `clearTimeout`, `setImmediate` and `Date.now` on every call,
 * so a user's fake timers (`vi.useFakeTimers()`, `@sinonjs/fake-timers`) drive them.
 * The default host timers are captured at import instead, so fake timers cannot stall the fake.
 */
export const globalTimers: HostTimers = {
  now: () => {
    // Cheap until a following clock meets faked timers (see watchPromiseTimers).
    if (!warned && hook === undefined) watchPromiseTimers()
    return Date.now()
  },
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
 * A client that waits with `node:timers/promises` is not moved by faked global timers: the first such timer made
 * while they are faked prints a warning, once, with code `DOCKSIDE_UNFAKED_PROMISE_TIMER`. See docs/time.md.
 * @example
 * vi.useFakeTimers()
 * const fake = createDockside({ clock: followGlobalTimers() })
 */
export function followGlobalTimers(options: { start?: number | string } = {}): ClockOptions {
  watchPromiseTimers()
  return { mode: 'real', host: globalTimers, start: options.start ?? Date.UTC(2026, 0, 1), speed: 1 }
}
