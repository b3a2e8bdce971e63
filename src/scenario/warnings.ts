import { toMs } from '../time/duration'
import type { Scenario } from './scenario'

/** Something a valid scenario does that will likely fail when it runs, though a test could make it work. */
export interface ScenarioWarning {
  /** Where in the scenario, e.g. `timeline[3].start`. */
  path: string
  message: string
}

/** The timeline actions that need an existing container. */
const NEEDS_CONTAINER = ['start', 'stop', 'remove'] as const

/**
 * What `dockside validate` warns about in a scenario it accepts: a `start`, `stop` or `remove` step naming a container
 * that nothing in the file has created by the time the step first runs (not in `containers`, no `create` step at an
 * earlier time, or at the same time earlier in the file). Such a step is a `timeline.error` when it runs, unless the
 * test creates the container at run time (the admin API, fake.containers.create): a warning, not a refusal. A 64-hex
 * name is taken for a full container id, which a seeded test may know, and not warned about. For a validated scenario.
 */
export function scenarioWarnings(scenario: Scenario): ScenarioWarning[] {
  const listed = new Set((scenario.containers ?? []).map((c) => c.name))
  const timeline = scenario.timeline ?? []
  const creates = timeline.flatMap((s, i) => (s.create === undefined ? [] : [{ i, name: s.create, at: toMs(s.at), written: s.at }]))
  const out: ScenarioWarning[] = []
  timeline.forEach((step, i) => {
    for (const action of NEEDS_CONTAINER) {
      const name = step[action]
      if (name === undefined || listed.has(name) || /^[0-9a-f]{64}$/.test(name)) continue
      const at = toMs(step.at)
      const made = creates.filter((c) => c.name === name)
      if (made.some((c) => c.at < at || (c.at === at && c.i < i))) continue
      const unless = 'unless the test creates it first (POST /_dockside/containers, fake.containers.create), the step is a timeline.error in the journal when it runs'
      out.push({
        path: `timeline[${i}].${action}`,
        message: made.length
          ? `no container "${name}" exists yet when this step first runs (at ${JSON.stringify(step.at)}): timeline[${made[0].i}] creates it at ${JSON.stringify(made[0].written)}; ${unless}`
          : `no container "${name}" is listed in "containers" nor created by a "create" step; ${unless}`,
      })
    }
  })
  return out
}
