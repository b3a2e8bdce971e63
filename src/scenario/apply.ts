import type { Service } from '../service/service'
import { DocksideError, FieldError } from '../service/errors'
import { createImages } from '../service/images'
import { createRandom } from '../service/random'
import { createRegistries } from '../service/registries'
import { validateRateLimit } from '../faults/rate-limit'
import { closeProblem, validateRule } from '../faults/rule'
import { toMs } from '../time/duration'
import type { FaultRule } from '../faults/plan'
import type { Scenario, TimelineStep } from './scenario'
import { pushStep, pushStepProblem } from './push-step'

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
  // The caption first: it tells what is about to happen (the log and the dashboard show it).
  if (step.say !== undefined) svc.journal.record('say', { text: step.say, at: step.at })
  try {
    if (step.push !== undefined) pushStep(svc, step.push)
    else if (step.create !== undefined) {
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
  if (step.pause) pauseScenario(svc, step.say)
}

/** Pauses the clock until the presenter continues (see {@link continueScenario}). */
export function pauseScenario(svc: Service, say?: string): void {
  svc.clock.pause()
  svc.journal.record('scenario.pause', { say, hint: 'continue with POST /_dockside/scenario/continue, the dashboard, or Enter in the terminal' })
}

/** Scenario fields that only apply when a fake starts (they shape the service itself). */
const START_ONLY = ['seed', 'clock', 'maxConnectionAge', 'pushBandwidth', 'timeFormat', 'retainEvents', 'retainEventsFor', 'accessKeys'] as const

/** Runs `fn`, giving a FieldError (or any bad input) the path `at` inside the scenario. */
function within<T>(at: string, fn: () => T): T {
  try {
    return fn()
  } catch (error) {
    if (error instanceof FieldError) throw error.at(at)
    if (error instanceof DocksideError || error instanceof RangeError) throw new FieldError(at, (error as Error).message, 'scenario')
    throw error
  }
}

/**
 * Everything applying `scenario` to `svc` would refuse, checked before anything changes (so a scenario
 * is applied all or nothing): field names and types (the schema), registries and images (added to
 * throw-away stores), duplicate registry hosts and container names (in the scenario and in the fake),
 * fault rules and their ids, rate limits, timeline repeats and close codes. Throws a FieldError whose path points inside the scenario.
 */
export function checkScenario(svc: Service, scenario: Scenario): void {
  if (scenario.rateLimit !== undefined) within('rateLimit', () => validateRateLimit(scenario.rateLimit, svc.check))
  const hosts = new Map<string, number>()
  // Registries are checked by adding them to a throw-away store, as images are: what the model refuses is refused here.
  const registries = createRegistries()
  scenario.registries?.forEach((r, i) => {
    within(`registries[${i}]`, () => svc.check('registry', r, 'registry'))
    const first = hosts.get(r.host)
    if (first !== undefined) throw new FieldError(`registries[${i}].host`, `"${r.host}" is already listed at registries[${first}]; list each registry host once`, 'scenario')
    if (svc.registries.list().some((known) => known.host === r.host)) throw new FieldError(`registries[${i}].host`, `a registry at "${r.host}" already exists in the fake; each host is added once`, 'scenario')
    hosts.set(r.host, i)
    within(`registries[${i}]`, () => registries.add(r.host, r))
  })
  // Image names and tags are checked by adding them to a throw-away store.
  const images = createImages({ random: createRandom(1), now: () => 0 })
  scenario.images?.forEach((img, i) => within(`images[${i}]`, () => (svc.check('image', img, 'image'), images.add(img.name, { tags: img.tags, layers: img.layers }))))
  const names = new Map<string, number>()
  scenario.containers?.forEach((c, i) => {
    within(`containers[${i}]`, () => svc.check('container', c, 'container'))
    const first = names.get(c.name)
    if (first !== undefined) throw new FieldError(`containers[${i}].name`, `"${c.name}" is already used by containers[${first}]; container names are unique`, 'scenario')
    if (svc.containers.find(c.name)?.name === c.name) throw new FieldError(`containers[${i}].name`, `a container named "${c.name}" already exists in the fake`, 'scenario')
    names.set(c.name, i)
  })
  if (scenario.faults !== undefined) within('faults', () => svc.faults.validate(scenario.faults!))
  scenario.timeline?.forEach((step, i) => {
    if (step.every !== undefined && toMs(step.every) <= 0) throw new FieldError(`timeline[${i}].every`, 'must be a duration above 0, like "6s"', 'scenario')
    const push = step.push !== undefined ? pushStepProblem(step.push) : undefined
    if (push) throw new FieldError(`timeline[${i}].push`, push, 'scenario')
    const close = step.close && closeProblem(step.close.code, step.close.reason, 'scenario')
    if (close) throw close.at(`timeline[${i}].close`)
    step.faults?.forEach((f, j) => within(`timeline[${i}].faults[${j}]`, () => validateRule({ ...f }, svc.check)))
  })
}

/**
 * Applies a scenario to a fake that is already running (the admin API's `POST /_dockside/scenario`):
 * state, faults, rate limits and a timeline whose `at` counts from `fromMs` of clock time (the clock's
 * start, as in files, or now). Fields that shape the service itself are refused. All or nothing.
 */
export function applyScenarioAtRuntime(svc: Service, scenario: Scenario, hooks: ApplyHooks, fromMs = 0): void {
  const fixed = START_ONLY.find((k) => scenario[k] !== undefined)
  if (fixed) {
    throw new FieldError(fixed, `can only be set when the fake starts (createDockside options, or the scenario file given to dockside serve); at run time a scenario may add: registries, images, containers, timeline, faults, rateLimit`, 'scenario')
  }
  checkScenario(svc, scenario)
  applyScenario(svc, scenario, hooks, fromMs, false)
  // Last, after everything that could refuse: a refused scenario leaves the running rate limit as it was.
  if (scenario.rateLimit !== undefined) svc.rateLimit.set(scenario.rateLimit)
}

/**
 * Seeds state, schedules the timeline and installs the faults of a scenario, all or nothing (see
 * checkScenario). Timeline `at` and faults' `from`/`until` count from `fromMs` (default: the clock's start).
 */
export function applyScenario(svc: Service, scenario: Scenario, hooks: ApplyHooks, fromMs = 0, check = true): void {
  if (check) checkScenario(svc, scenario)
  scenario.registries?.forEach((r, i) => within(`registries[${i}]`, () => svc.registries.add(r.host, r)))
  scenario.images?.forEach((img, i) => within(`images[${i}]`, () => svc.images.add(img.name, { tags: img.tags, layers: img.layers })))
  scenario.containers?.forEach((c, i) =>
    within(`containers[${i}]`, () => {
      const { running, ...options } = c
      const created = svc.containers.create(options)
      if (running) created.start()
    }),
  )
  scenario.faults?.forEach((f, i) => within(`faults[${i}]`, () => svc.faults.add(shifted(f, fromMs))))
  for (const step of scenario.timeline ?? []) {
    const at = toMs(step.at, 'timeline "at"')
    const every = step.every === undefined ? undefined : toMs(step.every, 'timeline "every"')
    const fire = () => {
      runStep(svc, step, hooks, fromMs)
      if (every !== undefined) svc.clock.schedule(every, fire)
    }
    svc.clock.schedule(Math.max(0, fromMs + at - svc.clock.elapsed()), fire)
  }
}
