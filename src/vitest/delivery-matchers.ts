import { expect } from 'vitest'
import { deliveryMatchers } from '../matchers/delivery'

export { deliveryMatchers, formatDeliveryReport, reproduction } from '../matchers/delivery'

/** Installs the delivery matchers on vitest's `expect` (the `dockside/vitest` entry installs every matcher). */
export function installDeliveryMatchers(): void {
  expect.extend(deliveryMatchers as never)
}
