// Regressions from a review of scenarios and the admin API:
// - A timeline `create: NAME` was skipped when NAME was a prefix of another container's id (the lookup took id
//   prefixes), and the journal called it a success; a `create` of an existing name with another image, and a `remove`
//   of a container that does not exist, were journaled as successes too. `remove: db` could remove a container whose
//   id starts with "db".
// - A fault window applied from now once the clock was past 100 years was clamped into the past: always on.
// Found by a review of scenarios and the admin API (was test/regressions/scenario-review-edges.test.ts).
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

const fresh = (scenario: NonNullable<Parameters<typeof createDockside>[0]>['scenario']) => {
  const fake = createDockside({ seed: 1, scenario })
  open.push(fake)
  return fake
}

it('create and remove steps go by name, never by an id prefix', async () => {
  const probe = fresh({ containers: [{ name: 'web', image: 'nginx' }] })
  const prefix = probe.containers.get('web').id.slice(0, 2)
  const fake = fresh({
    containers: [{ name: 'web', image: 'nginx' }],
    timeline: [
      { at: '1s', create: prefix, image: 'busybox' },
      { at: '2s', start: prefix },
      { at: '3s', remove: prefix },
    ],
  })
  await fake.clock.advance('3s')
  expect(fake.journal.ofType('timeline.error')).toEqual([])
  expect(fake.containers.list().map((c) => [c.name, c.state])).toEqual([['web', 'created']])
  expect(fake.events.events.map((e) => [e.name, e.action])).toEqual([[prefix, 'start'], [prefix, 'stop']])
})

it('a create of an existing name with another image, and a remove of a missing container, are timeline errors', async () => {
  const fake = fresh({
    containers: [{ name: 'web', image: 'nginx' }],
    timeline: [
      { at: '1s', create: 'web', image: 'nginx' },
      { at: '1s', create: 'web', image: 'redis' },
      { at: '1s', remove: 'ghost' },
    ],
  })
  await fake.clock.advance('1s')
  expect(fake.journal.ofType('timeline').map((e) => (e as unknown as { step: { create?: string } }).step.create)).toEqual(['web'])
  expect(fake.journal.ofType('timeline.error').map((e) => (e as unknown as { message: string }).message)).toEqual([
    'A container named "web" already exists with image nginx, not redis.',
    'No container named "ghost" to remove.',
  ])
  expect(fake.containers.get('web').image).toBe('nginx')
})

it('past 100 years of clock time, a window applied from now that opens later is refused, not always on', async () => {
  const fake = fresh(undefined)
  await fake.clock.advance('36500d')
  await fake.clock.advance('36500d')
  await expect(fake.apply({ faults: [{ id: 'win', on: 'events', reply: 503, from: '10s', until: '20s', times: 'always' }] }, { from: 'now' })).rejects.toThrow(
    /at faults\[0\]\.from: counted from now \(6307200000000 ms of clock time, past the 100 years fault windows reach\) it can never be reached/,
  )
  await expect(fake.apply({ timeline: [{ at: '1s', faults: [{ on: 'events', reply: 503, from: '5s' }] }] }, { from: 'now' })).rejects.toThrow(/at timeline\[0\]\.faults\[0\]\.from/)
  expect(fake.faults.list()).toEqual([])
  // One that opens now still applies.
  await fake.apply({ faults: [{ id: 'now', on: 'events', reply: 503 }] }, { from: 'now' })
  expect(fake.faults.list().map((f) => f.id)).toEqual(['now'])
})
