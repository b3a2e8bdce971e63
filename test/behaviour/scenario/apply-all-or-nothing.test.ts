// Regression: a scenario was not applied all or nothing. POST /_dockside/scenario with a registry, an image, a
// container, a fault and `timeline: [{ "at": 1e308, ... }]` answered 400 `Invalid timeline "at" 1e+308 ...` (no path),
// but the registry, image, container and fault were in the fake afterwards: the timeline's times were first measured
// while applying, after the state was in. Every time of the timeline (`at`, `every`) is now measured with the rest of
// the checks, before anything changes, and the refusal names its path (`timeline[0].at`); the same through fake.apply,
// createDockside({ scenario }) and `dockside validate`.
import { spawnSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createDockside, ScenarioError, validateScenario, type Dockside, type Scenario, type TimelineStep } from 'dockside'
import { cliEntry, ensureBuilt, root } from '../../support/cli'

const RANGE = 'longer than the 100-year maximum; expected from 0 to 3153600000000 ms (100 years).'

/** State, a fault and a timeline whose step `index` has `bad` in it. */
function storyboard(bad: Record<string, unknown>, index = 0): Scenario {
  const timeline: TimelineStep[] = [{ at: '1s', start: 'partial-c' }, { at: '2s', stop: 'partial-c' }]
  timeline[index] = { ...timeline[index], ...bad }
  return {
    registries: [{ host: 'partial.example:1' }],
    images: [{ name: 'partial/img:1' }],
    containers: [{ name: 'partial-c', image: 'nginx:1.27' }],
    faults: [{ id: 'partial-f', on: 'events', reply: 500 }],
    timeline,
  }
}

/** Everything a scenario can change, read through the library. */
const snapshot = (fake: Dockside) =>
  JSON.stringify({
    registries: fake.registries.list().map((r) => r.host),
    images: fake.images.list().map((i) => `${i.repository}:${i.tag}`),
    containers: fake.containers.list().map((c) => c.name),
    faults: fake.faults.list().map((f) => f.id),
    pending: fake.clock.pending,
    events: fake.events.events.length,
  })

const CASES: [what: string, bad: Record<string, unknown>, index: number, message: string][] = [
  ['an "at" of 1e308', { at: 1e308 }, 0, `(scenario): at timeline[0].at: Invalid timeline "at" 1e+308: ${RANGE}`],
  ['an "at" of "36501d"', { at: '36501d' }, 1, `(scenario): at timeline[1].at: Invalid timeline "at" "36501d": ${RANGE}`],
  ['an "every" of 1e308', { every: 1e308 }, 1, `(scenario): at timeline[1].every: Invalid timeline "every" 1e+308: ${RANGE}`],
]

test.each(CASES)('fake.apply with %s: refused naming the path, and nothing of it is applied', async (_what, bad, index, message) => {
  await using fake = createDockside({ scenario: { containers: [{ name: 'web', image: 'nginx:1.27', running: true }] } })
  await fake.clock.advance('5s')
  const before = snapshot(fake)
  for (const from of ['start', 'now'] as const) {
    const refused = await fake.apply(storyboard(bad, index), { from }).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(ScenarioError)
    expect((refused as Error).message).toBe(message)
    expect(snapshot(fake)).toBe(before)
  }
  // The same storyboard without the bad time applies whole.
  await fake.apply(storyboard({}, index))
  expect(fake.registries.list().map((r) => r.host)).toContain('partial.example:1')
})

test.each(CASES)('POST /_dockside/scenario with %s: a 400 naming the path; registries, images, containers and faults stay as they were', async (_what, bad, index, message) => {
  await using fake = createDockside({ scenario: { containers: [{ name: 'web', image: 'nginx:1.27', running: true }] } })
  const server = await fake.listen({ host: '127.0.0.1', port: 0 })
  const state = async () => {
    const s = (await (await fetch(`${server.url}/_dockside/state`)).json()) as { registries: { host: string }[]; images: { repository: string }[]; containers: { name: string }[]; faults: { id: string }[] }
    return { registries: s.registries.map((r) => r.host), images: s.images.map((i) => i.repository), containers: s.containers.map((c) => c.name), faults: s.faults.map((f) => f.id) }
  }
  const before = await state()
  for (const query of ['', '?from=now']) {
    const res = await fetch(`${server.url}/_dockside/scenario${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(storyboard(bad, index)) })
    expect(res.status).toBe(400)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(await res.json()).toEqual({ message })
    expect(await state()).toEqual(before)
  }
  expect(before).toEqual({ registries: [], images: [], containers: ['web'], faults: [] })
})

test('createDockside and validateScenario refuse the same file the same way (they used to say "at (root)", or nothing)', async () => {
  const scenario = storyboard({ at: 1e308 })
  await expect(validateScenario(scenario)).rejects.toThrow(CASES[0][3])
  expect(() => createDockside({ scenario })).toThrow(CASES[0][3])
})

let dir: string
beforeAll(async () => {
  ensureBuilt()
  dir = await mkdtemp(join(tmpdir(), 'dockside-all-or-nothing-'))
}, 120_000)
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

test('dockside validate names timeline[0].at of a file whose step is at 1e308 (exit 2)', async () => {
  const file = join(dir, 'far.yaml')
  await writeFile(file, 'containers:\n  - { name: web, image: nginx }\ntimeline:\n  - { at: 1e308, stop: web }\n')
  const run = spawnSync(process.execPath, [cliEntry, 'validate', file], { cwd: root, encoding: 'utf8', timeout: 30_000 })
  expect(run.status).toBe(2)
  expect(run.stderr).toBe(`dockside: invalid scenario ${file}: at timeline[0].at: Invalid timeline "at" 1e+308: ${RANGE}\n`)
})
