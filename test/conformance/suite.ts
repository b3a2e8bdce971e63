import { afterEach, describe, it } from 'vitest'
import { createDockside, type Dockside } from '../../src/index'
import type { Case, Harness, WayIn } from '../support/way-in'
import { eventsCases } from './events.case'
import { pushCases } from './push.case'
import { faultCases } from './faults.case'
import { adminCases } from './admin.case'
import { chaosCases } from './chaos.case'
import { dockerCases } from './docker.case'
import { dockerEngineCases } from './docker-engine.case'
import { overrideCases } from './overrides.case'

/** Every case, written once. */
export const allCases: Record<string, Case[]> = {
  events: eventsCases,
  push: pushCases,
  faults: faultCases,
  admin: adminCases,
  chaos: chaosCases,
  docker: dockerCases,
  'docker-engine': dockerEngineCases,
  overrides: overrideCases,
}

/** Runs every case through one way in; cases it cannot run are listed with their reason. */
export function runConformance(way: WayIn) {
  describe(`conformance: ${way.name}`, () => {
    let open: { fake: Dockside; h: Harness } | undefined
    afterEach(async () => {
      if (!open) return
      await open.h.close()
      await open.fake.close()
      open = undefined
    })
    for (const [group, cases] of Object.entries(allCases)) {
      describe(group, () => {
        for (const c of cases) {
          const reason = way.unsupported?.[`${group}: ${c.name}`]
          if (reason) {
            // Reported as skipped, with its reason, in the run's summary: never a pass that checked nothing.
            it.skip(`${c.name} [not on ${way.name}: ${reason}]`, () => {})
            continue
          }
          it(c.name, async () => {
            const fake = createDockside({ seed: 7, ...c.options })
            const h = await way.start(fake)
            open = { fake, h }
            await c.run({ fake, h })
          })
        }
      })
    }
  })
}
