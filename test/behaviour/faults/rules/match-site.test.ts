// Regression: a fault rule whose `match` named a field its site's requests never carry was accepted and could never
// fire (a push has no container, filters or reconnects; an events client has no image): `{"on":"push","reply":500,
// "match":{"container":"x"}}` answered 201, and pushes went through as if no rule existed. It is now refused naming the
// field and the fields that apply.
import { expect, it } from 'vitest'
import { createDockside, InvalidInputError } from '../../../../src/index'

it.each([
  ['push', { container: 'x' }, 'match.container: does not apply to "push" (a push has no container, filters or reconnects), so the rule could never fire; match fields on "push": route, image, client'],
  ['push', { reconnect: true }, 'match.reconnect: does not apply to "push"'],
  ['push', { filters: { event: ['start'] } }, 'match.filters: does not apply to "push"'],
  ['events', { image: 'nginx' }, 'match.image: does not apply to "events" (an events client has no image; match its filters), so the rule could never fire; match fields on "events": route, client, container, filters, reconnect'],
] as const)('on %s, match %j is refused', async (on, match, message) => {
  await using fake = createDockside()
  const rule = { on, reply: 500, match } as Parameters<typeof fake.faults.add>[0]
  expect(() => fake.faults.add(rule)).toThrow(InvalidInputError)
  expect(() => fake.faults.add(rule)).toThrow(message)
  const server = await fake.listen({ host: '127.0.0.1', port: 0 })
  const res = await fetch(`${server.url}/_dockside/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rule) })
  expect(res.status).toBe(400)
  expect(fake.faults.list()).toEqual([])
})

it('the fields that apply are still taken', async () => {
  await using fake = createDockside()
  fake.faults.add({ on: 'push', reply: 500, match: { image: 'nginx', client: 'ci', route: '/images/*' } })
  fake.faults.add({ on: 'events', reply: 429, match: { container: 'web', filters: { event: ['stop'] }, reconnect: false, client: 'ci' } })
  expect(fake.faults.list()).toHaveLength(2)
})
