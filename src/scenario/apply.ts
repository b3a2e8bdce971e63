import type { Service } from '../service/service'
import { toMs } from '../time/duration'
import type { Scenario, TimelineStep } from './scenario'

/** What a timeline step needs beyond the model (a maintenance restart closes sockets). */
export interface ApplyHooks {
  restart(): void
  closeSockets?(code: number, reason: string): number
  dropSockets?(): number
}

function runStep(svc: Service, step: TimelineStep, hooks: ApplyHooks) {
  try {
    if (step.create !== undefined) {
      if (!svc.containers.find(step.create)) svc.containers.create({ name: step.create, image: step.image!, labels: step.labels, instanceType: step.instanceType })
    } else if (step.start !== undefined) svc.containers.get(step.start).start()
    else if (step.stop !== undefined) svc.containers.get(step.stop).stop({ exitCode: step.exitCode })
    else if (step.remove !== undefined) svc.containers.find(step.remove)?.remove()
    else if (step.restart) hooks.restart()
    else if (step.close !== undefined) hooks.closeSockets?.(step.close.code, step.close.reason ?? 'closed by the scenario timeline')
    else if (step.drop) hooks.dropSockets?.()
    else if (step.faults !== undefined) for (const f of step.faults) svc.faults.add(step.every === undefined ? f : { ...f, id: undefined })
    svc.journal.record('timeline', { step })
  } catch (error) {
    // A step that no longer applies (a removed container) is reported, never fatal.
    svc.journal.record('timeline.error', { step, message: (error as Error).message })
  }
}

/** Seeds state, schedules the timeline and installs the faults of a scenario. */
export function applyScenario(svc: Service, scenario: Scenario, hooks: ApplyHooks): void {
  for (const r of scenario.registries ?? []) svc.registries.add(r.host, r)
  for (const i of scenario.images ?? []) svc.images.add(i.name, { tags: i.tags, layers: i.layers })
  for (const c of scenario.containers ?? []) {
    const created = svc.containers.create(c)
    if (c.running) created.start()
  }
  for (const f of scenario.faults ?? []) svc.faults.add(f)
  for (const step of scenario.timeline ?? []) {
    const at = toMs(step.at, 'timeline "at"')
    const every = step.every === undefined ? undefined : toMs(step.every, 'timeline "every"')
    if (every !== undefined && every <= 0) throw new RangeError('timeline "every" must be above 0.')
    const fire = () => {
      runStep(svc, step, hooks)
      if (every !== undefined) svc.clock.schedule(every, fire)
    }
    svc.clock.schedule(Math.max(0, at - svc.clock.elapsed()), fire)
  }
}
