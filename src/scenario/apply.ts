import type { Service } from '../service/service'
import { InvalidInputError } from '../service/errors'
import { toMs } from '../time/duration'
import type { FaultRule } from '../faults/plan'
import type { Scenario, TimelineStep } from './scenario'

/** What a timeline step needs beyond the model (a maintenance restart closes sockets). */
export interface ApplyHooks {
  restart(): void
  closeSockets?(code: number, reason: string): number
  dropSockets?(): number
}

/** A fault's `from`/`until` count from the same moment as the timeline: moved by `fromMs` when applied from now. */
function shifted(rule: FaultRule, fromMs: number): FaultRule {
  if (fromMs === 0 || (rule.from === undefined && rule.until === undefined)) return rule
  const out = { ...rule }
  if (rule.from !== undefined) out.from = fromMs + toMs(rule.from, 'fault "from"')
  if (rule.until !== undefined) out.until = fromMs + toMs(rule.until, 'fault "until"')
  return out
}

function runStep(svc: Service, step: TimelineStep, hooks: ApplyHooks, fromMs: number) {
  try {
    if (step.create !== undefined) {
      if (!svc.containers.find(step.create)) svc.containers.create({ name: step.create, image: step.image!, labels: step.labels, instanceType: step.instanceType })
    } else if (step.start !== undefined) svc.containers.get(step.start).start()
    else if (step.stop !== undefined) svc.containers.get(step.stop).stop({ exitCode: step.exitCode })
    else if (step.remove !== undefined) svc.containers.find(step.remove)?.remove()
    else if (step.restart) hooks.restart()
    else if (step.close !== undefined) hooks.closeSockets?.(step.close.code, step.close.reason ?? 'closed by the scenario timeline')
    else if (step.drop) hooks.dropSockets?.()
    else if (step.faults !== undefined) for (const f of step.faults) svc.faults.add(shifted(step.every === undefined ? f : { ...f, id: undefined }, fromMs))
    svc.journal.record('timeline', { step })
  } catch (error) {
    // A step that no longer applies (a removed container) is reported, never fatal.
    svc.journal.record('timeline.error', { step, message: (error as Error).message })
  }
}

/** Scenario fields that only apply when a fake starts (they shape the service itself). */
const START_ONLY = ['seed', 'clock', 'maxConnectionAge', 'pushBandwidth', 'timeFormat', 'retainEvents', 'retainEventsFor', 'accessKeys'] as const

/**
 * Applies a scenario to a fake that is already running (the admin API's `POST /_dockside/scenario`):
 * state, faults, rate limits and a timeline whose `at` counts from `fromMs` of clock time (the clock's
 * start, as in files, or now). Fields that shape the service itself are refused.
 */
export function applyScenarioAtRuntime(svc: Service, scenario: Scenario, hooks: ApplyHooks, fromMs = 0): void {
  const fixed = START_ONLY.filter((k) => scenario[k] !== undefined)
  if (fixed.length) {
    throw new InvalidInputError(`${fixed.map((k) => `"${k}"`).join(', ')} can only be set when the fake starts (createDockside options, or the scenario file given to dockside serve). At run time a scenario may add: registries, images, containers, timeline, faults, rateLimit.`)
  }
  if (scenario.rateLimit !== undefined) svc.rateLimit.set(scenario.rateLimit)
  applyScenario(svc, scenario, hooks, fromMs)
}

/**
 * Seeds state, schedules the timeline and installs the faults of a scenario. Timeline `at` and faults'
 * `from`/`until` count from `fromMs` (default: the clock's start).
 */
export function applyScenario(svc: Service, scenario: Scenario, hooks: ApplyHooks, fromMs = 0): void {
  for (const r of scenario.registries ?? []) svc.registries.add(r.host, r)
  for (const i of scenario.images ?? []) svc.images.add(i.name, { tags: i.tags, layers: i.layers })
  for (const c of scenario.containers ?? []) {
    const created = svc.containers.create(c)
    if (c.running) created.start()
  }
  for (const f of scenario.faults ?? []) svc.faults.add(shifted(f, fromMs))
  for (const step of scenario.timeline ?? []) {
    const at = toMs(step.at, 'timeline "at"')
    const every = step.every === undefined ? undefined : toMs(step.every, 'timeline "every"')
    if (every !== undefined && every <= 0) throw new RangeError('timeline "every" must be above 0.')
    const fire = () => {
      runStep(svc, step, hooks, fromMs)
      if (every !== undefined) svc.clock.schedule(every, fire)
    }
    svc.clock.schedule(Math.max(0, fromMs + at - svc.clock.elapsed()), fire)
  }
}
