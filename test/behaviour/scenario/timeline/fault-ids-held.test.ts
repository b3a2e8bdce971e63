// Regression: a timeline step's fault rule id was checked when the scenario was applied, but not held until the step
// ran: an automatic `rule-N` given in between (a test's own `fake.faults.add`) took it, and the step failed at its time
// with only a `timeline.error` in the journal (the rule the scenario promised never came). Now the id is held:
// automatic ids skip it, and choosing it is refused naming the step.
import { afterEach, expect, it } from 'vitest'
import { createDockside, InvalidInputError, type Dockside } from '../../../../src/index'

const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

function fakeWithStep() {
  const fake = createDockside({
    seed: 4,
    scenario: { faults: [{ on: 'events', reply: 429 }], timeline: [{ at: '10s', faults: [{ id: 'rule-2', on: 'push', reply: 500 }] }] },
  })
  open.push(fake)
  return fake
}

it("an automatic id skips the id a pending step holds, and the step's rule arrives at its time", async () => {
  const fake = fakeWithStep()
  expect(fake.faults.add({ on: 'events', reply: 503 }).id).toBe('rule-3')
  expect(fake.faults.addAll([{ on: 'events', reply: 500 }])[0]!.id).toBe('rule-4')
  await fake.clock.advance('10s')
  expect(fake.journal.ofType('timeline.error')).toEqual([])
  expect(fake.faults.list().map((f) => [f.id, f.rule.on])).toEqual([['rule-1', 'events'], ['rule-3', 'events'], ['rule-4', 'events'], ['rule-2', 'push']])
})

it('choosing the held id is refused naming the step; after the step runs, the id is its rule', async () => {
  const fake = fakeWithStep()
  const message = 'id: "rule-2" is held for the rule the timeline step at "10s" adds; choose another id, or leave "id" out for a fresh one'
  expect(() => fake.faults.add({ id: 'rule-2', on: 'events', reply: 503 })).toThrow(InvalidInputError)
  expect(() => fake.faults.add({ id: 'rule-2', on: 'events', reply: 503 })).toThrow(message)
  expect(() => fake.faults.addAll([{ id: 'rule-2', on: 'events', reply: 503 }])).toThrow(`[0].${message}`)
  await fake.clock.advance('10s')
  expect(fake.faults.list().find((f) => f.id === 'rule-2')?.rule.on).toBe('push')
})

it('a scenario applied at run time may not reuse a held id; after a reset the replayed step holds it again', async () => {
  const fake = fakeWithStep()
  await expect(fake.apply({ timeline: [{ at: '20s', faults: [{ id: 'rule-2', on: 'events', reply: 503 }] }] })).rejects.toThrow(
    'timeline[0].faults[0].id: "rule-2" is already used by the rule the timeline step at "10s" adds',
  )
  await fake.clock.advance('30s')
  expect(fake.faults.list().map((f) => f.id)).toEqual(['rule-1', 'rule-2'])
  await fake.reset()
  expect(fake.faults.add({ on: 'push', reply: 500 }).id).toBe('rule-3')
})

it('a repeating step may not choose a fault id: each run adds a fresh rule-N, and the id was dropped silently', async () => {
  const fake = createDockside({ seed: 4 })
  open.push(fake)
  await expect(fake.apply({ timeline: [{ at: '1s', every: '1s', faults: [{ id: 'x', on: 'events', reply: 429 }] }] })).rejects.toThrow(
    'timeline[0].faults[0].id: a step that repeats ("every") adds a new rule each time, each with a fresh rule-N id, so "x" could name only one of them; leave "id" out',
  )
  expect(fake.clock.pending).toBe(0)
})
