import { expect, test } from 'vitest'
import { createDockside, InvalidInputError } from 'dockside'

// Regression: the admin API accepted reserved close codes such as 2000 (which `ws` refuses with a
// TypeError mid-close) and fake.closeSockets() did not check codes at all.
test('close codes are checked once for the library, the admin API and fault rules', async () => {
  await using fake = createDockside()
  const server = await fake.listen({ port: 0 })
  expect(() => fake.closeSockets(2000, 'x')).toThrow(InvalidInputError)
  expect(() => fake.closeSockets(1006, 'x')).toThrow(/expected 1000-1003, 1007-1014 or 3000-4999/)
  expect(() => fake.closeSockets(4000, 'x'.repeat(124))).toThrow(/at most 123 bytes/)
  expect(fake.closeSockets(4000, 'fine')).toBe(0)
  const res = await fetch(`${server.url}/_dockside/sockets/close`, { method: 'POST', body: JSON.stringify({ code: 2000 }) })
  expect(res.status).toBe(400)
  expect((await res.json()).message).toBe('code: must be a close code a server may send: 1000-1003, 1007-1014 or 3000-4999 (got 2000)')
  expect(() => fake.faults.add({ on: 'events', close: { code: 1005 } })).toThrow('close.code: must be a close code a server may send: 1000-1003, 1007-1014 or 3000-4999 (got 1005)')
})
