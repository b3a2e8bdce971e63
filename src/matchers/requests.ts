// Request verification matchers: `expect(fake).toHaveReceivedRequest({ method: 'POST', path: '/images/*\/push' })`.
// A plain matcher object with no import of a test runner, so any `expect.extend()` (vitest, jest) can take it.
import type { Dockside } from '../dockside'
import { compilePattern, describeNearMisses, describeRequest, type RequestPattern } from '../protocol/requests/log'

import type { MatcherResult } from './service'

function logOf(fake: unknown): Dockside['requests'] {
  if (!fake || typeof (fake as Dockside).requests?.list !== 'function') {
    throw new TypeError('expect(...) needs a fake from createDockside(), e.g. expect(fake).toHaveReceivedRequest({ method: "GET", path: "/_ping" }).')
  }
  return (fake as Dockside).requests
}

function report(fake: unknown, pattern: RequestPattern | string, times: number | undefined): MatcherResult {
  const log = logOf(fake)
  const text = compilePattern(pattern).text
  const matched = log.list(pattern)
  const total = log.count()
  const pass = times === undefined ? matched.length > 0 : matched.length === times
  const want = times === undefined ? 'a request' : `${times} request(s)`
  const omitted = log.omitted ? ` (${log.omitted} older requests were dropped: the fake keeps the last ${total})` : ''
  return {
    pass,
    message: () => {
      const lines = pass
        ? [`expected the fake not to have received ${want} matching ${text}, but it received ${matched.length}:`, ...matched.slice(-10).map((r) => `  ${describeRequest(r)}`)]
        : [
            `expected the fake to have received ${want} matching ${text}; ${matched.length} of ${total} received matched${omitted}.`,
            ...(matched.length ? ['Matching:', ...matched.slice(-10).map((r) => `  ${describeRequest(r)}`)] : []),
            'Closest requests that did not match:',
            describeNearMisses(log.nearMisses(pattern, 3)),
          ]
      return lines.join('\n')
    },
  }
}

/** Matchers over `fake.requests`: install with `expect.extend(requestMatchers)` (the `dockside/vitest` entry does). */
export const requestMatchers = {
  /** The fake received at least one request matching `pattern` (method, path, query, headers, body, client, status). */
  toHaveReceivedRequest(fake: Dockside, pattern: RequestPattern | string): MatcherResult {
    return report(fake, pattern, undefined)
  },
  /** The fake received exactly `times` requests matching `pattern`. */
  toHaveReceivedRequestTimes(fake: Dockside, pattern: RequestPattern | string, times: number): MatcherResult {
    if (!Number.isInteger(times) || times < 0) throw new TypeError(`toHaveReceivedRequestTimes needs a count of 0 or more, not ${String(times)}.`)
    return report(fake, pattern, times)
  },
}

/** The typings `expect(fake)` gets with {@link requestMatchers}. */
export interface RequestMatchers<R = unknown> {
  /** The fake received at least one request matching the pattern; a failure lists the closest near misses. */
  toHaveReceivedRequest(pattern: RequestPattern | string): R
  /** The fake received exactly `times` requests matching the pattern. */
  toHaveReceivedRequestTimes(pattern: RequestPattern | string, times: number): R
}
