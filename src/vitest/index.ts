// The vitest entry: a fixture that gives every test its own hooked fake, and matchers. See docs/in-process.md.
import { expect, test as base } from 'vitest'
import { installDeliveryMatchers } from './delivery-matchers'
import { requestMatchers, type RequestMatchers } from './request-matchers'
import { createDockside, type Dockside, type DocksideOptions } from '../dockside'
import type { InterceptHandle, InterceptOptions } from '../transports/intercept/index'

/** What {@link createDocksideTest}'s fixtures give a test. */
export interface DocksideFixtures {
  /** A fresh fake, hooked in process on the region's addresses, closed after the test. */
  dockside: Dockside
  /** The hooks of {@link DocksideFixtures.dockside} (addresses, the WebSocket class). */
  docksideHooks: InterceptHandle
}

/** Options of {@link createDocksideTest}. */
export interface DocksideTestOptions {
  /** Options for every test's `createDockside()`. @default { seed: 1 } */
  dockside?: DocksideOptions
  /** Options for every test's `fake.intercept()`. @default { region: 'us-west-1' } */
  intercept?: InterceptOptions
}

/**
 * A vitest `test` whose `dockside` fixture creates a fake per test, hooks it in process (`fetch`, `node:http`,
 * the global `WebSocket`) and closes it afterwards, also when the test fails.
 * @example
 * const test = createDocksideTest({ dockside: { seed: 42 } })
 * test('pushes', async ({ dockside }) => { ... })
 */
export function createDocksideTest(options: DocksideTestOptions = {}) {
  let current: { fake: Dockside; hooks: InterceptHandle } | undefined
  return base.extend<DocksideFixtures>({
    // oxlint-disable-next-line no-empty-pattern
    dockside: async ({}, use) => {
      const fake = createDockside(options.dockside ?? {})
      const hooks = await fake.intercept(options.intercept)
      current = { fake, hooks }
      try {
        await use(fake)
      } finally {
        current = undefined
        hooks.restore()
        await fake.close()
      }
    },
    docksideHooks: async ({ dockside }, use) => {
      void dockside
      await use(current!.hooks)
    },
  })
}

/** The default fixture: seed 1, region `us-west-1` on `https://us-west-1.hyper.test`. */
export const test = createDocksideTest()

export { createDockside }
export type { Dockside, DocksideOptions, InterceptHandle, InterceptOptions }

function splitImage(image: string): { repository: string; tag: string | undefined } {
  const slash = image.lastIndexOf('/')
  const colon = image.lastIndexOf(':')
  return colon > slash ? { repository: image.slice(0, colon), tag: image.slice(colon + 1) } : { repository: image, tag: undefined }
}

interface MatcherResult {
  pass: boolean
  message: () => string
}

/** Options of `toHavePushed`. */
export interface PushedOptions {
  /** The registry user the push authenticated as. */
  user?: string
}

/** Options of `toHaveReconnected`. */
export interface ReconnectedOptions {
  /** Counts only sockets of this client (`X-Dockside-Client` header or `client` query). */
  client?: string
}

export const docksideMatchers = {
  /** The fake committed `image` (`repo[:tag]`) to its registry, as `user` when given. */
  toHavePushed(received: Dockside, image: string, options: PushedOptions = {}): MatcherResult {
    const { repository, tag } = splitImage(image)
    const tags = received.journal.ofType('push.tag')
    const hit = tags.filter((e) => e.repository === repository && (tag === undefined || e.tag === tag) && (options.user === undefined || e.user === options.user))
    const seen = tags.map((e) => `${e.repository}:${e.tag} by ${e.user ?? '(anonymous)'}`)
    const want = `${image}${options.user !== undefined ? ` by ${options.user}` : ''}`
    return {
      pass: hit.length > 0,
      message: () =>
        hit.length > 0
          ? `expected the fake not to have pushed ${want}, but it did`
          : `expected the fake to have pushed ${want}; pushed: ${seen.length ? seen.join(', ') : 'nothing'} (failed pushes: ${received.journal.ofType('push.failed').length})`,
    }
  },
  /** The client opened the events websocket `times + 1` times (the first connection is not a reconnect). */
  toHaveReconnected(received: Dockside, times: number, options: ReconnectedOptions = {}): MatcherResult {
    const opens = received.journal.ofType('ws.open').filter((e) => options.client === undefined || e.client === options.client)
    const reconnects = Math.max(0, opens.length - 1)
    const who = options.client !== undefined ? ` (client ${options.client})` : ''
    return {
      pass: reconnects === times,
      message: () => `expected ${times} reconnect(s)${who}, saw ${reconnects}: ${opens.length} events socket(s) opened at clock times ${opens.map((e) => new Date(e.time).toISOString()).join(', ') || '(none)'}`,
    }
  },
}

expect.extend(docksideMatchers)


// ---- Request verification matchers (toHaveReceivedRequest, ...), runner-neutral, registered here ----
export { requestMatchers, type RequestMatchers } from './request-matchers'
expect.extend(requestMatchers)

// ---- Delivery matchers (toHaveDeliveredAllEventsTo, ...), registered with the rest ----
export * from './delivery-matchers'
installDeliveryMatchers()

interface DocksideMatchers<R = unknown> extends RequestMatchers<R> {
  /** The fake committed `image` (`repo[:tag]`) to its registry, as `options.user` when given. */
  toHavePushed(image: string, options?: PushedOptions): R
  /** The events websocket was reopened `times` times after the first connection. */
  toHaveReconnected(times: number, options?: ReconnectedOptions): R
}

declare module 'vitest' {
  // oxlint-disable-next-line no-empty-object-type
  interface Matchers<R extends void | Promise<void> = void | Promise<void>, T = unknown> extends DocksideMatchers<R> {
    // No members of our own: a non-function member breaks vitest's MatchersObject mapping (TS2344 with skipLibCheck off).
  }
}
