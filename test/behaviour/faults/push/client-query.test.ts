// Regression: `match.client` on a push fault ignored the `client` query parameter, which docs/faults.md names beside the
// `X-Dockside-Client` header: `POST /images/app/push?tag=1&client=bill` did not match `{ match: { client: 'bill' } }`.
// Over a real socket.
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

let fake: Dockside | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

it('a push fault matches the client named by the client query parameter, as by the header', async () => {
  fake = createDockside({ seed: 2, clock: 'auto' })
  fake.images.add('localhost:5000/app:1', { layers: 1 })
  fake.faults.add({ on: 'push', reply: 503, match: { client: 'bill' }, times: 2 })
  const server = await fake.listen({ port: 0 })
  const push = async (query: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}/images/localhost:5000/app/push?tag=1${query}`, { method: 'POST', headers })
    await res.arrayBuffer()
    return res.status
  }
  expect(await push('&client=bill')).toBe(503)
  expect(await push('', { 'X-Dockside-Client': 'bill' })).toBe(503)
  expect(await push('&client=ann')).toBe(200)
  expect(await push('')).toBe(200)
})
