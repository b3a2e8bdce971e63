// The waiting helpers (docs/time.md) under node:test with node:assert, on a real port: clock.advanceUntil, journal.next, and a
// request on its way in reaching the fake before the clock moves. The same in jest-cjs/ and jest-esm/.
import assert from 'node:assert/strict'
import net from 'node:net'
import { test } from 'node:test'
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
    assert.equal(await fake.clock.advanceUntil(push(), { step: '1s' }), 200)
    assert.deepEqual((await done).tags, ['1.0'])
    // A request that comes a few turns after its connection opened is seen before the clock moves.
    const s = net.connect(server.port, '127.0.0.1')
    await new Promise((resolve) => s.once('connect', resolve))
    let turns = 8
    const send = () => (--turns > 0 ? setImmediate(send) : s.end('GET /_ping HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'))
    setImmediate(send)
    const at = fake.clock.elapsed()
    const ping = fake.journal.next('request', { where: { path: '/_ping' } })
    await fake.clock.advance('1s')
    assert.equal((await ping).time - fake.clock.startedAt, at)
    s.destroy()
    await fake.clock.advanceUntil(Promise.resolve())
    assert.deepEqual(fake.journal.ofType('request').map((r) => [r.status, r.time - fake.clock.startedAt]), [[429, 0], [200, 5000], [200, at]])
  } finally {
    await server.close()
    await fake.close()
  }
})
