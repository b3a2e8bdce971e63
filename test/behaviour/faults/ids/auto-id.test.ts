import { expect, test } from 'vitest'
import { createDockside, parseScenario } from 'dockside'

// Regression: the automatic id of a fault rule (`rule-N`, from a counter) did not look at the ids in use, so after a
// rule the user named "rule-1", an id-less POST /_dockside/faults answered `400 id: a fault rule with id "rule-1"
// already exists`, and a scenario `faults: [{ id: rule-1, ... }, { on: events, ... }]` was refused "at faults[1].id"
// though faults[1] has no id. An automatic id now skips the ids taken, in order, so the same rules get the same ids.

test('library: an automatic id skips ids in use, also ids chosen earlier in the same batch; deterministically', async () => {
  const ids = async () => {
    await using fake = createDockside()
    fake.faults.add({ id: 'rule-1', on: 'events', reply: 429 })
    const a = fake.faults.add({ on: 'events', reply: 503 }).id
    fake.faults.add({ id: 'rule-4', on: 'push', reply: 500 })
    const b = fake.faults.add({ on: 'events', reply: 503 }).id
    // In a batch, an automatic id skips the ids chosen anywhere in it, before or after.
    const batch = fake.faults.addAll([{ on: 'events', drop: true }, { id: 'rule-5', on: 'events', drop: true }, { on: 'events', drop: true }]).map((h) => h.id)
    const c = fake.faults.add({ on: 'push', stall: true }).id
    return [a, b, ...batch, c, ...fake.faults.list().map((h) => h.id)]
  }
  const first = await ids()
  expect(first).toEqual(['rule-2', 'rule-3', 'rule-6', 'rule-5', 'rule-7', 'rule-8', 'rule-1', 'rule-2', 'rule-4', 'rule-3', 'rule-6', 'rule-5', 'rule-7', 'rule-8'])
  expect(await ids()).toEqual(first)
})

test('admin API: id-less rules posted after a rule named "rule-1" are added, each with a free id', async () => {
  await using fake = createDockside()
  const server = await fake.listen({ port: 0 })
  const post = async (path: string, body: unknown) => {
    const res = await fetch(server.url + path, { method: 'POST', body: JSON.stringify(body) })
    return { status: res.status, json: await res.json() }
  }
  expect(await post('/_dockside/faults', { id: 'rule-1', on: 'events', reply: 429 })).toEqual({ status: 201, json: { added: ['rule-1'] } })
  for (const id of ['rule-2', 'rule-3', 'rule-4']) expect(await post('/_dockside/faults', { on: 'events', reply: 503 })).toEqual({ status: 201, json: { added: [id] } })
  expect(await post('/_dockside/faults', { rules: [{ on: 'events', reply: 503 }, { id: 'rule-5', on: 'events', reply: 503 }, { on: 'push', reply: 500 }] })).toEqual({ status: 201, json: { added: ['rule-6', 'rule-5', 'rule-7'] } })
  expect((await post('/_dockside/scenario', { faults: [{ on: 'events', reply: 503 }] })).status).toBe(200)
  const listed = (await (await fetch(`${server.url}/_dockside/faults`)).json()) as { id: string }[]
  expect(listed.map((r) => r.id)).toEqual(['rule-1', 'rule-2', 'rule-3', 'rule-4', 'rule-6', 'rule-5', 'rule-7', 'rule-8'])
  // A chosen id that is taken is still refused, naming it.
  const taken = await post('/_dockside/faults', { id: 'rule-8', on: 'events', reply: 503 })
  expect(taken).toEqual({ status: 400, json: { message: 'id: a fault rule with id "rule-8" already exists' } })
})

test('scenario file: an id-less fault after one named rule-1 is valid and named rule-2; a timeline step adds rule-3', async () => {
  const text = ['faults:', '  - { id: rule-1, on: push, reply: 500 }', '  - { on: events, reply: 503, retryAfter: 1 }', 'timeline:', '  - { at: 10s, faults: [{ on: events, reply: 429, times: always }] }', ''].join('\n')
  const scenario = await parseScenario(text, 'autoid.yaml')
  await using fake = createDockside({ scenario })
  expect(fake.faults.list().map((h) => h.id)).toEqual(['rule-1', 'rule-2'])
  await fake.clock.advance('10s')
  expect(fake.faults.list().map((h) => h.id)).toEqual(['rule-1', 'rule-2', 'rule-3'])
  expect(fake.journal.ofType('timeline.error')).toEqual([])
})

// Needs src/scenario/apply.ts to add a scenario's faults with faults.addAll (as checkScenario checks them with
// faults.validate): added one by one, the id-less rule took "rule-1" before the rule that chose it was added.
test('scenario: an id-less fault before one named rule-1 keeps clear of it, in a file and on a running fake', async () => {
  const before = await parseScenario(['faults:', '  - { on: events, reply: 503 }', '  - { id: rule-1, on: push, reply: 500 }', ''].join('\n'), 'autoid-before.yaml')
  await using other = createDockside({ scenario: before })
  expect(other.faults.list().map((h) => h.id)).toEqual(['rule-2', 'rule-1'])
  await using running = createDockside()
  const server = await running.listen({ port: 0 })
  const res = await fetch(`${server.url}/_dockside/scenario`, { method: 'POST', body: JSON.stringify(before) })
  expect(res.status).toBe(200)
  expect(running.faults.list().map((h) => h.id)).toEqual(['rule-2', 'rule-1'])
})
