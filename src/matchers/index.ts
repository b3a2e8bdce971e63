// The runner-neutral matchers: `expect.extend(matchers)` in jest, vitest, or any expect with jest's extend API.
// Nothing here imports a test runner. See docs/jest.md and docs/in-process.md.
import '../runtime/node-version' // first: fails at once on a Node older than 22
import { deliveryMatchers } from './delivery'
import { docksideMatchers } from './service'
import { requestMatchers, type RequestMatchers } from './requests'

export { deliveryMatchers, formatDeliveryReport, reproduction } from './delivery'
export { requestMatchers, type RequestMatchers } from './requests'
export { docksideMatchers, type MatcherResult, type PushedOptions, type ReconnectedOptions } from './service'
import type { PushedOptions, ReconnectedOptions } from './service'

/**
 * Every dockside matcher, for `expect.extend(matchers)`:
 * `toHavePushed`, `toHaveReconnected`, `toHaveDeliveredAllEventsTo`, `toHaveDeliveredEachEventOnceTo`, `toHaveMissedEvents`,
 * `toHaveReceivedRequest`, `toHaveReceivedRequestTimes`.
 * @example
 * import { matchers } from 'dockside/matchers'
 * expect.extend(matchers)
 * expect(fake).toHavePushed('localhost:5000/team/app:1.0')
 */
export const matchers = { ...docksideMatchers, ...deliveryMatchers, ...requestMatchers }

/** The matchers as `expect(fake)` sees them; `R` is the runner's return type. */
export interface DocksideMatchers<R = unknown> extends RequestMatchers<R> {
  /** The fake committed `image` (`repo[:tag]`) to its registry, as `options.user` when given. */
  toHavePushed(image: string, options?: PushedOptions): R
  /** The events websocket was reopened `times` times after the first connection. */
  toHaveReconnected(times: number, options?: ReconnectedOptions): R
  /** Every event matching the client's filters reached it (across reconnects). */
  toHaveDeliveredAllEventsTo(client: string): R
  /** Every event reached the client exactly once. */
  toHaveDeliveredEachEventOnceTo(client: string): R
  /** The client missed exactly these event sequence numbers. */
  toHaveMissedEvents(client: string, seqs: number[]): R
}

// Typings for each runner's expect, for whichever of them the user has installed (test/packaging type-checks both).
declare module 'vitest' {
  // oxlint-disable-next-line no-empty-object-type
  interface Matchers<R extends void | Promise<void> = void | Promise<void>, T = unknown> extends DocksideMatchers<R> {
    // No members of our own: a non-function member breaks vitest's MatchersObject mapping (TS2344 with skipLibCheck off).
  }
}
// jest 30's `expect` (from `@jest/globals`, or `import { expect } from 'expect'`). In a declaration file an augmentation
// of a package that is absent is ignored; here in the source it is an error while nothing imports 'expect'.
// @ts-ignore TS2664
declare module 'expect' {
  // oxlint-disable-next-line no-empty-object-type
  interface Matchers<R extends void | Promise<void>, T = unknown> extends DocksideMatchers<R> {}
}
declare global {
  // The global `expect` of jest as typed by @types/jest.
  // oxlint-disable-next-line typescript/no-namespace
  namespace jest {
    // oxlint-disable-next-line no-empty-object-type
    interface Matchers<R, T = {}> extends DocksideMatchers<R> {}
  }
}
