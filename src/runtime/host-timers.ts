import type { HostTimers } from '../time/clock'

// Captured at import so that a user's fake timers (vi.useFakeTimers) installed later cannot stall the fake.
const realSetTimeout = globalThis.setTimeout
const realClearTimeout = globalThis.clearTimeout
// Browsers have no setImmediate: a zero timeout stands in (the auto clock's "host loop idle" check).
const realSetImmediate: (fn: () => void) => unknown = globalThis.setImmediate ?? ((fn: () => void) => realSetTimeout(fn, 0))
const perfNow = globalThis.performance.now.bind(globalThis.performance)

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
}

/** Real wall-clock epoch milliseconds, for the `real` clock's starting point. */
export const wallNow = () => Date.now()
