// The two demo scenarios of examples/ tell their story to the end on their own: run here on the virtual clock
// (they are written for the real one: `dockside demo examples/deploy-story.yaml`).
import { describe, expect, it } from 'vitest'
import { readFile } from 'node:fs/promises'
import { createDockside, loadScenario, parseScenario } from '../../../src/index'

const story = async (file: string) => {
  const fake = createDockside({ scenario: await loadScenario(new URL(`../../../examples/${file}`, import.meta.url).pathname), clock: 'virtual' })
  await fake.clock.advance('60s')
  return fake
}
const says = (fake: Awaited<ReturnType<typeof story>>) => fake.journal.entries.filter((e) => e.type === 'say').map((e) => String(e.text))

describe('demo stories run to the end on their own', () => {
  it('examples/deploy-story.yaml: pushes with progress, a rolling update, a crash loop, a maintenance restart', async () => {
    await using fake = await story('deploy-story.yaml')
    expect(says(fake).at(-1)).toMatch(/The end/)
    expect(says(fake)).toHaveLength(8)
    // Both images were pushed from inside the fake, layer by layer, and committed to the registry.
    const pushes = fake.journal.entries.filter((e) => e.type === 'push.tag').map((e) => `${e.repository}:${e.tag}`)
    expect(pushes.sort()).toEqual(['localhost:5000/shop/api:2.0', 'localhost:5000/shop/web:2.0'])
    expect(fake.journal.entries.filter((e) => e.type === 'push.done')).toHaveLength(2)
    // Rolled: web-2 runs, web-1 stopped cleanly; api-2 crash-looped (exit 1, three times) and was removed.
    expect(fake.containers.get('web-2').state).toBe('running')
    expect(fake.containers.get('web-1').exitCode).toBe(0)
    expect(fake.events.events.filter((e) => e.name === 'api-2' && e.action === 'stop').map((e) => e.attributes.exitCode)).toEqual(['1', '1', '1'])
    expect(fake.containers.find('api-2')).toBeUndefined()
    expect(fake.journal.ofType('maintenance.restart')).toHaveLength(1)
    expect(fake.journal.ofType('timeline.error')).toEqual([])
    // Nothing left to run: the story is over.
    expect(fake.clock.pending).toBe(0)
  })

  it('examples/chaos-story.yaml: forced closes, a 429 storm, a failing push and its retry, dropped connections', async () => {
    await using fake = await story('chaos-story.yaml')
    expect(says(fake).at(-1)).toMatch(/The end/)
    const pushes = fake.journal.entries.filter((e) => e.type.startsWith('push.') && e.type !== 'push.start').map((e) => e.type)
    expect(pushes).toEqual(['push.failed', 'push.tag', 'push.done'])
    expect(fake.faults.list().find((f) => f.rule.id === 'push-error')!.fired).toBe(1)
    expect(fake.faults.list().find((f) => f.rule.id === 'storm')).toBeDefined()
    expect(fake.journal.ofType('timeline').map((e) => Object.keys(e.step as object).filter((k) => ['close', 'drop'].includes(k))).flat()).toEqual(['close', 'close', 'drop'])
    expect(fake.journal.ofType('timeline.error')).toEqual([])
    expect(fake.clock.pending).toBe(0)
  })
})

it('the storyboard of docs/scenarios.md is valid and pauses where it says', async () => {
  const doc = await readFile(new URL('../../../docs/scenarios.md', import.meta.url), 'utf8')
  const yaml = /A storyboard for a live demo:\n\n```yaml\n([\s\S]*?)```/.exec(doc)![1]
  const scenario = await parseScenario(`images: [{ name: "localhost:5000/shop/web", tags: ["2.0"], layers: 2 }]\n${yaml}`, 'docs/scenarios.md')
  await using fake = createDockside({ scenario })
  await fake.clock.advance('30s')
  expect(fake.clock.elapsed()).toBe(10_000)
  expect(fake.journal.ofType('say').map((e) => e.text)).toEqual(['The deploy tool pushes version 2.0', 'Watch the 429 storm: over to you'])
  expect(fake.journal.ofType('push.tag')).toHaveLength(1)
})
