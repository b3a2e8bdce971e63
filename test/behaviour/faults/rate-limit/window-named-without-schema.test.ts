import { expect, test } from 'vitest'
import { createService } from '../../../../src/core/service'

// Regression: without the schema (the core's createService, no check injected) a rate limit with no window or a
// window that is not a duration failed with toMs's bare `Invalid duration undefined: ...` RangeError, naming neither
// the field nor the rate limit. It is now the same FieldError as a window of 0.
test('a missing or malformed window is named by its path, also without the schema', () => {
  const svc = createService()
  expect(() => svc.rateLimit.set({ limit: 1 } as never)).toThrow(/^window: must be a duration above 0, like "10s"$/)
  expect(() => svc.rateLimit.set([{ limit: 1, window: '1s' }, { limit: 1, window: '-1s' }])).toThrow(/^rate limit\[1\]\.window: must be a duration above 0, like "10s"$/)
  expect(() => svc.rateLimit.set({ limit: 1, window: 'soon' })).toThrow(/^window: must be a duration above 0, like "10s"$/)
  expect(svc.rateLimit.get()).toEqual([])
})
