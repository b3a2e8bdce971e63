import { readFile } from 'node:fs/promises'
import { expect, test } from 'vitest'
import { createDockside, parseScenario } from 'dockside'

test('examples/basic.yaml (shown in docs/scenarios.md) loads and plays its timeline on the clock', async () => {
  const scenario = await parseScenario(await readFile('examples/basic.yaml', 'utf8'), 'examples/basic.yaml')
  await using fake = createDockside({ scenario, clock: 'virtual' })
  expect(fake.seed).toBe(7)
  expect(fake.containers.get('web').state).toBe('running')
  await fake.clock.advance('60s')
  const seen = fake.events.events.map((e) => `${(e.timeMs - fake.clock.startedAt) / 1000}s ${e.action} ${e.name}`)
  expect(seen).toEqual(['0s start web', '1s start api', '30s stop web', '31s start web', '41s start batch', '50s stop batch', '60s stop web'])
  expect(fake.containers.find('batch')).toBeUndefined()
  expect(fake.faults.list().map((f) => f.rule.on)).toEqual(['push', 'events'])
})
