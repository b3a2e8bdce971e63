// Regression: timeline steps with the same `at` ran in a shuffled order under the `real` and `auto` clocks: each was
// scheduled as a delay from its own wall reading, so later steps came due microseconds earlier. A start, stop, start
// at 1s ran start, start, stop (the container ended exited and one event was never sent), and the shipped
// examples/chaos-reconnect.yaml under --clock auto started `web` before stopping it. Steps now run at their own time,
// in file order, on every clock.
import { readFile } from 'node:fs/promises'
import { afterEach, expect, it } from 'vitest'
import { parse } from 'yaml'
import { createDockside, type Dockside, type Scenario } from '../../../../src/index'

const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

const STEPS: Scenario = {
  containers: [{ name: 'web', image: 'nginx' }],
  timeline: [
    { at: '100ms', start: 'web' },
    { at: '100ms', stop: 'web', exitCode: 3 },
    { at: '100ms', start: 'web' },
    { at: '100ms', stop: 'web', exitCode: 4 },
    { at: '100ms', start: 'web' },
  ],
}

it.each([
  ['real (speed 100)', { mode: 'real', speed: 100 }],
  ['auto', 'auto'],
  ['virtual', 'virtual'],
] as const)('steps at one time run in file order under the %s clock', async (_, clock) => {
  const fake = createDockside({ seed: 1, clock, scenario: STEPS })
  open.push(fake)
  if (fake.clock.mode === 'virtual') await fake.clock.advance('100ms')
  await expect.poll(() => fake.journal.ofType('timeline').length, { timeout: 5000 }).toBe(5)
  expect(fake.journal.ofType('timeline').map((e) => JSON.stringify((e as unknown as { step: object }).step))).toEqual(STEPS.timeline!.map((s) => JSON.stringify(s)))
  expect(fake.events.events.map((e) => `${e.action}:${e.exitCode}`)).toEqual(['start:0', 'stop:3', 'start:0', 'stop:4', 'start:0'])
  expect(fake.containers.get('web').state).toBe('running')
})

it('examples/chaos-reconnect.yaml: its stop and start at 2s run in file order on a wall-driven clock', async () => {
  const scenario = parse(await readFile(new URL('../../../../examples/chaos-reconnect.yaml', import.meta.url), 'utf8')) as Scenario
  const atTwo = scenario.timeline!.filter((s) => s.at === '2s')
  expect(atTwo.map((s) => Object.keys(s).find((k) => k === 'start' || k === 'stop'))).toEqual(['stop', 'start'])
  const fake = createDockside({ seed: 1, clock: { mode: 'real', speed: 100 }, scenario: { ...scenario, timeline: atTwo } })
  open.push(fake)
  await expect.poll(() => fake.journal.ofType('timeline').length, { timeout: 5000 }).toBeGreaterThanOrEqual(2)
  expect(fake.journal.ofType('timeline').slice(0, 2).map((e) => JSON.stringify((e as unknown as { step: object }).step))).toEqual(atTwo.map((s) => JSON.stringify(s)))
})
