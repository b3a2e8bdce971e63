// The vitest entry: a fixture that gives every test its own hooked fake, and the matchers of dockside/matchers
// installed on vitest's expect (with their typings). See docs/in-process.md.
import '../runtime/node-version' // first: fails at once on a Node older than 22
import { expect, test as base } from 'vitest'
import { matchers } from '../matchers/index'
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

expect.extend(matchers as never)

export { matchers, docksideMatchers, deliveryMatchers, requestMatchers, formatDeliveryReport, reproduction } from '../matchers/index'
export type { DocksideMatchers, MatcherResult, PushedOptions, ReconnectedOptions, RequestMatchers } from '../matchers/index'
export { installDeliveryMatchers } from './delivery-matchers'
