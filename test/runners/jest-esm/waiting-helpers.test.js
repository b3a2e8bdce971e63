// The waiting helpers (docs/time.md) from an ESM jest test (--experimental-vm-modules), on a real port: clock.advanceUntil, journal.next, and a
// request on its way in reaching the fake before the clock moves. The same in jest-cjs/ and node-test/.
import net from 'node:net'
import { expect, test } from '@jest/globals'
import { createDockside } from 'dockside'

test('advanceUntil, journal.next and requests in flight, on a real port', async () => {
  const fake = createDockside({ seed: 1 })
  const server = await fake.listen({ port: 0 })
  try {
    fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 1 })
    fake.faults.add({ on: 'push', reply: 429, retryAfter: 5, times: 1 })
    const push = async () => {
      for (;;) {
        const res = await fetch(`${server.url}/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST' })
        await res.text()
        if (res.status !== 429) return res.status
        await fake.clock.sleep(Number(res.headers.get('retry-after')) * 1000)
      }
    }
    const done = fake.journal.next('push.done', { where: { repository: 'localhost:5000/team/app' } })
    expect(await fake.clock.advanceUntil(push(), { step: '1s' })).toBe(200)
    expect((await done).tags).toEqual(['1.0'])
    // A request that comes a few turns after its connection opened is seen before the clock moves.
    const s = net.connect(server.port, '127.0.0.1')
    await new Promise((resolve) => s.once('connect', resolve))
    let turns = 8
    const send = () => (--turns > 0 ? setImmediate(send) : s.end('GET /_ping HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'))
    setImmediate(send)
    const at = fake.clock.elapsed()
    const ping = fake.journal.next('request', { where: { path: '/_ping' } })
    await fake.clock.advance('1s')
    expect((await ping).time - fake.clock.startedAt).toBe(at)
    s.destroy()
    await fake.clock.advanceUntil(Promise.resolve())
    expect(fake.journal.ofType('request').map((r) => [r.status, r.time - fake.clock.startedAt])).toEqual([[429, 0], [200, 5000], [200, at]])
  } finally {
    await server.close()
    await fake.close()
  }
})
