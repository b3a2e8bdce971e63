import type { HostTimers } from '../time/clock'

// Captured at import so that a user's fake timers installed later cannot stall the fake: jest's default
// `jest.useFakeTimers()` replaces setTimeout, setImmediate, queueMicrotask, process.nextTick, Date and
// performance.now; vitest's `vi.useFakeTimers()` and @sinonjs/fake-timers' defaults a subset of them.
// test/ways-in/intercept/fake-timers.test.ts and the jest projects under test/runners/ hold the fake to that.
// In Node, from node:timers and node:perf_hooks, not the globals: jest's `fakeTimers.enableGlobally` (and a
// `jest.useFakeTimers()` before the first require) fakes the globals before dockside loads, and the test's context has
// its own; the modules' timers stay real (the server's close and the in-process websocket's open waited forever).
const builtin = globalThis.process?.getBuiltinModule
const nodeTimers = builtin?.('node:timers') as typeof import('node:timers') | undefined
const nodePerformance = (builtin?.('node:perf_hooks') as typeof import('node:perf_hooks') | undefined)?.performance
const realSetTimeout = nodeTimers?.setTimeout ?? globalThis.setTimeout
const realClearTimeout = nodeTimers?.clearTimeout ?? globalThis.clearTimeout
// Browsers have no setImmediate: a zero timeout stands in (the auto clock's "host loop idle" check).
const realSetImmediate: (fn: () => void) => unknown = nodeTimers?.setImmediate ?? globalThis.setImmediate ?? ((fn: () => void) => realSetTimeout(fn, 0))
const realQueueMicrotask = globalThis.queueMicrotask
// Browsers have no process: a microtask stands in for nextTick there.
const realNextTick: (fn: () => void) => void = globalThis.process?.nextTick?.bind(globalThis.process) ?? realQueueMicrotask
const realPerformance = nodePerformance ?? globalThis.performance
const perfNow = realPerformance.now.bind(realPerformance)
// performance.now() counts from timeOrigin (epoch ms): the real clock's sub-millisecond wall time (clock.ts).
const timeOrigin = realPerformance.timeOrigin

/** The host's real timers, as captured when dockside was imported. */
export const hostTimers: HostTimers = {
  now: () => perfNow(),
  after(ms, fn) {
    const t = realSetTimeout(fn, ms)
    t.unref?.()
    return t
  },
  cancel: (handle) => realClearTimeout(handle as ReturnType<typeof setTimeout>),
  immediate: (fn) => realSetImmediate(fn),
  wallOrigin: timeOrigin,
}

/** The host's wall clock in epoch ms, whatever a user's fake timers did to `Date` (node:http's own `Date` header reads it so). */
export const hostWallNow = (): number => timeOrigin + perfNow()
/** The real `setTimeout`, for transports that must not wait on a user's fake timers. */
export const hostSetTimeout: typeof setTimeout = realSetTimeout
/** The real `clearTimeout`. */
export const hostClearTimeout: typeof clearTimeout = realClearTimeout
/** The real `setImmediate`. */
export const hostSetImmediate: (fn: () => void) => unknown = realSetImmediate
/** The real `queueMicrotask` (jest's fake timers replace the global one). */
export const hostQueueMicrotask: typeof queueMicrotask = realQueueMicrotask
/** The real `process.nextTick` (jest's fake timers replace it). */
export const hostNextTick: (fn: () => void) => void = (fn) => realNextTick(fn)
