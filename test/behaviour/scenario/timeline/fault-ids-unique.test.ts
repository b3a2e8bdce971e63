// Regression: a fault id used twice, by the scenario's `faults` and a timeline step's, or by two steps, passed
// `dockside validate`, and the step's rule was then silently dropped when the step ran (only a `timeline.error` in the
// journal said so). docs/scenarios.md: fault rules and their ids are checked before anything changes. They now are,
// for the steps too, and the refusal names the path. A repeating step's rules get fresh ids on every run, so its ids
// never clash and stay allowed.
import { spawnSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createDockside, ScenarioError, validateScenario, type Scenario } from 'dockside'
import { cliEntry, ensureBuilt, root } from '../../../support/cli'

const UNIQUE = 'fault rule ids are unique (leave "id" out for a fresh one)'

const CASES: [what: string, scenario: Scenario, path: string, id: string, first: string][] = [
  [
    'a step reuses an id of the scenario\'s faults',
    { faults: [{ id: 'storm', on: 'events', reply: 429 }], timeline: [{ at: '10s', faults: [{ id: 'storm', on: 'events', reply: 503 }] }] },
    'timeline[0].faults[0].id',
    'storm',
    'faults[0]',
  ],
  [
    'two steps use one id',
    {
      timeline: [
        { at: '10s', say: 'calm' },
        { at: '20s', faults: [{ id: 'twice', on: 'events', reply: 503 }] },
        { at: '30s', faults: [{ id: 'twice', on: 'events', reply: 500 }] },
      ],
    },
    'timeline[2].faults[0].id',
    'twice',
    'timeline[1].faults[0]',
  ],
  [
    'one step lists an id twice',
    { timeline: [{ at: '10s', faults: [{ id: 'dup', on: 'events', reply: 503 }, { id: 'dup', on: 'push', reply: 500 }] }] },
    'timeline[0].faults[1].id',
    'dup',
    'timeline[0].faults[0]',
  ],
]

test.each(CASES)('validateScenario and createDockside refuse it when %s, naming the path', async (_what, scenario, path, id, first) => {
  const expected = new ScenarioError('(scenario)', path, `"${id}" is already used by ${first}; ${UNIQUE}`)
  await expect(validateScenario(scenario)).rejects.toThrow(expected.message)
  expect(() => createDockside({ scenario })).toThrow(expected.message)
})

test('fake.apply refuses a step whose id a rule of the running fake has, and applies nothing', async () => {
  await using fake = createDockside()
  fake.faults.add({ id: 'storm', on: 'events', reply: 429, times: 'always' })
  const storyboard: Scenario = { containers: [{ name: 'c', image: 'nginx' }], timeline: [{ at: '10s', faults: [{ id: 'storm', on: 'events', reply: 503 }] }] }
  await expect(fake.apply(storyboard, { from: 'now' })).rejects.toThrow(`(scenario): at timeline[0].faults[0].id: "storm" is already used by a fault rule of the fake; ${UNIQUE}`)
  expect(fake.containers.list()).toEqual([])
  expect(fake.clock.pending).toBe(0)
})

test('POST /_dockside/scenario with a duplicate step id: a 400 naming the path; a repeating step chooses no id', async () => {
  await using fake = createDockside()
  const server = await fake.listen({ host: '127.0.0.1', port: 0 })
  const post = (body: unknown) => fetch(`${server.url}/_dockside/scenario`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const refused = await post({ registries: [{ host: 'r.example' }], ...CASES[1][1] })
  expect(refused.status).toBe(400)
  expect(await refused.json()).toEqual({ message: `(scenario): at timeline[2].faults[0].id: "twice" is already used by timeline[1].faults[0]; ${UNIQUE}` })
  expect(fake.registries.list()).toEqual([])
  // A repeating step's rules get fresh ids each run: an id it chose would name one of them at most (it was dropped
  // silently), so it is refused; without one, no clash and nothing dropped.
  const named = await post({ timeline: [{ at: '10s', every: '10s', faults: [{ id: 'storm', on: 'events', reply: 503 }] }] })
  expect(named.status).toBe(400)
  expect(((await named.json()) as { message: string }).message).toMatch(/^\(scenario\): at timeline\[0\]\.faults\[0\]\.id: a step that repeats/)
  const repeating = await post({ faults: [{ id: 'storm', on: 'events', reply: 429 }], timeline: [{ at: '10s', every: '10s', faults: [{ on: 'events', reply: 503 }] }] })
  expect(repeating.status).toBe(200)
  await fake.clock.advance('30s')
  expect(fake.journal.ofType('timeline.error')).toEqual([])
  expect(fake.faults.list()).toHaveLength(4)
})

let dir: string
beforeAll(async () => {
  ensureBuilt()
  dir = await mkdtemp(join(tmpdir(), 'dockside-fault-ids-'))
}, 120_000)
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

test('dockside validate exits 2 for the file that used to pass and drop two rules at run time', async () => {
  const file = join(dir, 'dupid.yaml')
  await writeFile(
    file,
    [
      'faults:',
      '  - { id: storm, on: events, reply: 429 }',
      'timeline:',
      '  - { at: 10s, faults: [{ id: storm, on: events, reply: 503 }] }',
      '  - { at: 20s, faults: [{ id: twice, on: events, reply: 503 }] }',
      '  - { at: 30s, faults: [{ id: twice, on: events, reply: 500 }] }',
      '',
    ].join('\n'),
  )
  const run = spawnSync(process.execPath, [cliEntry, 'validate', file], { cwd: root, encoding: 'utf8', timeout: 30_000 })
  expect([run.status, run.stderr]).toEqual([2, `dockside: invalid scenario ${file}: at timeline[0].faults[0].id: "storm" is already used by faults[0]; ${UNIQUE}\n`])
})
