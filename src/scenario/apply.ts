import type { Service } from '../core/service'
import { ConflictError, DocksideError, FieldError, NotFoundError } from '../service/errors'
import { containerNameProblem } from '../service/containers'
import { createImages, familiarName, splitReference } from '../service/images'
import { createRandom } from '../service/random'
import { createRegistries } from '../service/registries'
import { validateRateLimit } from '../faults/rate-limit'
import { closeProblem, shiftWindow, validateRule, windowEndedProblem, windowOf } from '../faults/rule'
import { clockProblem } from '../time/clock'
import { toMs } from '../time/duration'
import type { Scenario, TimelineStep } from './scenario'
import { pushStep, pushStepProblem } from './push-step'

/** What a timeline step needs beyond the model (a maintenance restart closes sockets). */
export interface ApplyHooks {
  restart(): void
  closeSockets?(code: number, reason: string): number
  dropSockets?(): number
}

function runStep(svc: Service, step: TimelineStep, hooks: ApplyHooks, fromMs: number) {
  // The caption first: it tells what is about to happen (the log and the dashboard show it).
  if (step.say !== undefined) svc.journal.record('say', { text: step.say, at: step.at })
  try {
    if (step.push !== undefined) pushStep(svc, step.push)
    else if (step.create !== undefined) {
      // By name only: an id prefix that happened to match (`create: db` with some id starting "db") skipped the create.
      const existing = named(svc, step.create)
      if (existing === undefined) svc.containers.create({ name: step.create, image: step.image!, labels: step.labels, instanceType: step.instanceType })
      else if (existing.image !== step.image) throw new ConflictError(`A container named "${step.create}" already exists with image ${existing.image}, not ${step.image}.`)
    } else if (step.start !== undefined) svc.containers.get(step.start).start(recordedTime(step))
    else if (step.stop !== undefined) svc.containers.get(step.stop).stop({ exitCode: step.exitCode, ...recordedTime(step) })
    else if (step.remove !== undefined) {
      const gone = named(svc, step.remove)
      if (gone === undefined) throw new NotFoundError(`No container named "${step.remove}" to remove.`)
      gone.remove()
    }
    else if (step.restart) hooks.restart()
    else if (step.close !== undefined) hooks.closeSockets?.(step.close.code, step.close.reason ?? 'closed by the scenario timeline')
    else if (step.drop) hooks.dropSockets?.()
    else if (step.faults !== undefined) {
      for (const f of step.faults) {
        // A step that runs once added its ids' hold when it was scheduled (see scheduleStep).
        if (step.every === undefined && f.id !== undefined) svc.faults.release(f.id)
        svc.faults.add(shiftWindow(step.every === undefined ? f : { ...f, id: undefined }, fromMs))
      }
    }
    svc.journal.record('timeline', { step })
  } catch (error) {
    // A step that no longer applies (a removed container) is reported, never fatal.
    svc.journal.record('timeline.error', { step, message: (error as Error).message })
  }
  if (step.pause) pauseScenario(svc, step.say)
}

/** A step's recorded event time (a recording's `timeNano`), as the model takes it. */
const recordedTime = (step: TimelineStep) => (step.timeNano === undefined ? {} : { timeNano: BigInt(step.timeNano) })

/** The container a timeline step names: by its name or full id, never by an id prefix. */
const named = (svc: Service, ref: string) => svc.containers.list().find((c) => c.name === ref || c.id === ref)

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
 * fault rules and their ids (those of timeline steps included), rate limits, the clock's start and speed, timeline
 * times, repeats and close codes. Throws a FieldError whose path points inside the scenario.
 */
export function checkScenario(svc: Service, scenario: Scenario): void {
  checkClock(scenario.clock)
  // At 0, every events socket reached its maximum age as it opened (docs define no "off": the default is 24h).
  if (scenario.maxConnectionAge !== undefined && within('maxConnectionAge', () => toMs(scenario.maxConnectionAge!, 'maxConnectionAge')) === 0) {
    throw new FieldError('maxConnectionAge', MAX_CONNECTION_AGE_ZERO, 'scenario')
  }
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
  scenario.images?.forEach((img, i) => within(`images[${i}]`, () => (svc.check('image', img, 'image'), images.add(img.name, imageOptions(img)))))
  // A repository:tag listed by two entries: the second silently took the tag, a different image than the first.
  const refs = new Map<string, number>()
  scenario.images?.forEach((img, i) => {
    const { repository, tag } = splitReference(familiarName(img.name))
    const tags = [...(tag ? [tag] : []), ...(img.tags ?? [])]
    for (const t of tags.length ? tags : ['latest']) {
      const ref = `${repository}:${t}`
      const first = refs.get(ref)
      if (first !== undefined && first !== i) throw new FieldError(`images[${i}]`, `"${ref}" is already listed at images[${first}]; list each image (repository:tag) once, with all its tags in one entry`, 'scenario')
      refs.set(ref, i)
    }
  })
  const names = new Map<string, number>()
  scenario.containers?.forEach((c, i) => {
    within(`containers[${i}]`, () => svc.check('container', c, 'container'))
    const first = names.get(c.name)
    if (first !== undefined) throw new FieldError(`containers[${i}].name`, `"${c.name}" is already used by containers[${first}]; container names are unique`, 'scenario')
    if (svc.containers.find(c.name)?.name === c.name) throw new FieldError(`containers[${i}].name`, `a container named "${c.name}" already exists in the fake`, 'scenario')
    names.set(c.name, i)
  })
  if (scenario.faults !== undefined) within('faults', () => svc.faults.validate(scenario.faults!))
  // Fault ids: a step's rules are added when it runs, and an id in use then is refused. Ids the fake has, the
  // scenario's rules and the steps that run once are checked against one another here, not found at run time
  // (a repeating step's rules get fresh ids each time: it may not choose one).
  const ids = new Map<string, string>()
  for (const f of svc.faults.list()) ids.set(f.id, 'a fault rule of the fake')
  for (const [id, by] of svc.faults.reserved()) ids.set(id, `the rule ${by} adds`)
  scenario.faults?.forEach((f, i) => f.id !== undefined && !ids.has(f.id) && ids.set(f.id, `faults[${i}]`))
  scenario.timeline?.forEach((step, i) => {
    // Every duration is measured here, before anything is applied (a refusal while applying left half a storyboard).
    within(`timeline[${i}].at`, () => toMs(step.at, 'timeline "at"'))
    if (step.every !== undefined && within(`timeline[${i}].every`, () => toMs(step.every!, 'timeline "every"')) <= 0) {
      throw new FieldError(`timeline[${i}].every`, 'must be a duration above 0, like "6s"', 'scenario')
    }
    const push = step.push !== undefined ? pushStepProblem(step.push) : undefined
    if (push) throw new FieldError(`timeline[${i}].push`, push, 'scenario')
    const idle = stepProblem(step)
    if (idle) throw new FieldError(`timeline[${i}].${idle.field}`, idle.expected, 'scenario')
    // The name the API would refuse: the step could only fail when it runs (a timeline.error).
    if (step.create !== undefined && containerNameProblem(step.create)) {
      throw new FieldError(`timeline[${i}].create`, `"${step.create}" is not a container name (the API refuses it, so the step could never create it): allowed characters are [a-zA-Z0-9][a-zA-Z0-9_.-], like "web-1"`, 'scenario')
    }
    const close = step.close && closeProblem(step.close.code, step.close.reason, 'scenario')
    if (close) throw close.at(`timeline[${i}].close`)
    step.faults?.forEach((f, j) => {
      within(`timeline[${i}].faults[${j}]`, () => validateRule({ ...f }, svc.check))
      // Its window (counted from the same moment as the step's `at`) ends before the step adds it: it could never fire.
      const at = toMs(step.at)
      if (f.until !== undefined && windowOf(f).untilMs <= at) {
        throw new FieldError(`timeline[${i}].faults[${j}].until`, `the rule's window ends at ${JSON.stringify(f.until)}, no later than the step adds it (at ${JSON.stringify(step.at)}), so it could never fire; "until" must be later than the step's "at"`, 'scenario')
      }
      // Each run of a repeating step adds its rules again, under fresh ids: a chosen id would be dropped silently.
      if (f.id !== undefined && step.every !== undefined) {
        throw new FieldError(`timeline[${i}].faults[${j}].id`, `a step that repeats ("every") adds a new rule each time, each with a fresh rule-N id, so "${f.id}" could name only one of them; leave "id" out`, 'scenario')
      }
      if (f.id === undefined || step.every !== undefined) return
      const first = ids.get(f.id)
      if (first !== undefined) throw new FieldError(`timeline[${i}].faults[${j}].id`, `"${f.id}" is already used by ${first}; fault rule ids are unique (leave "id" out for a fresh one)`, 'scenario')
      ids.set(f.id, `timeline[${i}].faults[${j}]`)
    })
  })
}

/** An image entry's options for images.add (a recording's id and manifest only when given). */
function imageOptions(img: NonNullable<Scenario['images']>[number]) {
  return { tags: img.tags, layers: img.layers, ...(img.id === undefined ? {} : { id: img.id }), ...(img.manifest === undefined ? {} : { manifest: img.manifest }) }
}

/** What a `maxConnectionAge` of 0 is told (a scenario's or createDockside's). */
export const MAX_CONNECTION_AGE_ZERO = 'must be a duration above 0, like "1h" (default "24h"): at 0 every events socket would be closed as it opens'

/** The actions of a timeline step (the schema allows one). */
const ACTIONS = ['start', 'stop', 'create', 'remove', 'restart', 'close', 'drop', 'faults', 'push'] as const
/** Step fields read by one action only, and what they are to it. */
const ACTION_FIELDS: Record<string, [action: string, what: string]> = {
  exitCode: ['stop', 'the exit code the container stops with'],
  timeNano: ['start or stop', "the recorded time of the step's event"],
  image: ['create', "the new container's image"],
  labels: ['create', "the new container's labels"],
  instanceType: ['create', "the new container's instance type"],
}

/**
 * A field of a timeline step that would do nothing, as `{ field, expected }`: an action that does nothing
 * (`restart: false`, `drop: false`, `faults: []`), a field another action reads (`exitCode` on a `start` step), a step
 * with only `pause: false`. Each was accepted and silently ignored.
 */
function stepProblem(step: TimelineStep): { field: string; expected: string } | undefined {
  const action = ACTIONS.find((a) => step[a] !== undefined)
  const kind = action ? `a "${action}" step` : `a step without an action (a "say" caption or a "pause")`
  if (step.restart === false) return { field: 'restart', expected: 'false restarts nothing, so the step would do nothing; use restart: true, or remove the step' }
  if (step.drop === false) return { field: 'drop', expected: 'false drops nothing, so the step would do nothing; use drop: true, or remove the step' }
  if (Array.isArray(step.faults) && step.faults.length === 0) return { field: 'faults', expected: 'an empty list adds no rule, so the step would do nothing; list the rules to add, or remove the step' }
  for (const [field, [owner, what]] of Object.entries(ACTION_FIELDS)) {
    if (step[field as keyof TimelineStep] !== undefined && !owner.split(' or ').includes(action ?? '')) {
      return { field, expected: `is ${what}, read by a ${owner.split(' or ').map((o) => `"${o}"`).join(' or ')} step only; this is ${kind}, which would ignore it: drop "${field}"` }
    }
  }
  if (action === undefined && step.say === undefined && step.pause === false) return { field: 'pause', expected: 'false pauses nothing and the step has no action nor "say", so it would do nothing; use pause: true, or remove the step' }
  return undefined
}

/** A scenario's `clock` start and speed: a start the fake can represent, a speed within the admin API's cap. */
function checkClock(clock: Scenario['clock']): void {
  if (clock === null || typeof clock !== 'object') return
  const problem = clockProblem(clock)
  if (problem) throw new FieldError(`clock.${problem.path}`, problem.expected, 'scenario')
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
  // Fault windows counted from `fromMs`, worked out before anything changes (one may be refused).
  const faults = scenario.faults?.map((f, i) => within(`faults[${i}]`, () => shiftWindow(f, fromMs)))
  // Applied from the clock's start to a fake past a rule's window: refused here, before anything changes.
  const now = svc.clock.elapsed()
  faults?.forEach((f, i) => {
    const ended = windowEndedProblem(f, now)
    if (ended) throw ended.at(`faults[${i}]`)
  })
  scenario.timeline?.forEach((step, i) => step.faults?.forEach((f, j) => within(`timeline[${i}].faults[${j}]`, () => shiftWindow(f, fromMs))))
  // A step that runs once and whose time has passed runs at once: a rule of its whose window has ended by now could
  // never fire (it failed as a timeline.error when the step ran). Refused here, as a top-level rule is.
  scenario.timeline?.forEach((step, i) => {
    if (step.every !== undefined || fromMs + toMs(step.at) > now) return
    step.faults?.forEach((f, j) => {
      const ended = windowEndedProblem(shiftWindow(f, fromMs), now)
      if (ended) throw ended.at(`timeline[${i}].faults[${j}]`)
    })
  })
  scenario.registries?.forEach((r, i) => within(`registries[${i}]`, () => svc.registries.add(r.host, r)))
  scenario.images?.forEach((img, i) => within(`images[${i}]`, () => svc.images.add(img.name, imageOptions(img))))
  scenario.containers?.forEach((c, i) =>
    within(`containers[${i}]`, () => {
      const { running, ...options } = c
      const created = svc.containers.create(options)
      if (running) created.start()
    }),
  )
  // Added as one batch, as checkScenario checked them (faults.validate): an id-less rule's `rule-N` keeps clear of the
  // ids the others chose, wherever they are in the list.
  if (faults !== undefined) within('faults', () => svc.faults.addAll(faults))
  for (const step of scenario.timeline ?? []) scheduleStep(svc, step, hooks, fromMs)
}

/**
 * Schedules a timeline step (checked) at `at` counted from `fromMs` of clock time. A step that runs once and whose time
 * has passed (applied from the clock's start to a fake already past it) runs at once. A repeating step runs on its
 * own grid, `at + k × every`: applied past its `at`, its first run is the next time on that grid, not now (two steps
 * 1 s apart stay 1 s apart), and each run schedules the next on the grid, so a run the host fired late (the real
 * clock) does not push the ones after it.
 */
function scheduleStep(svc: Service, step: TimelineStep, hooks: ApplyHooks, fromMs: number): void {
  // The ids of a step that runs once stay free for it until it runs (automatic ids and other adds keep clear).
  if (step.every === undefined) for (const f of step.faults ?? []) if (f.id !== undefined) svc.faults.reserve(f.id, `the timeline step at ${JSON.stringify(step.at)}`)
  let due = fromMs + toMs(step.at, 'timeline "at"')
  const every = step.every === undefined ? undefined : toMs(step.every, 'timeline "every"')
  /** The first time on the grid at or after `now`, counting on from `due`. */
  const onGrid = (now: number) => (every !== undefined && due < now ? due + Math.ceil((now - due) / every) * every : due)
  const fire = () => {
    runStep(svc, step, hooks, fromMs)
    if (every === undefined) return
    due += every
    due = onGrid(svc.clock.elapsed())
    svc.clock.scheduleAt(due, fire)
  }
  // At the step's own time, not a delay from a wall reading: steps with the same `at` run in file order on every clock.
  due = onGrid(svc.clock.elapsed())
  svc.clock.scheduleAt(due, fire)
}
