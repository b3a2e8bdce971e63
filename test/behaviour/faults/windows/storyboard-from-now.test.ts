import { expect, test } from 'vitest'
import { createDockside } from 'dockside'

// Regression: with ?from=now a storyboard's timeline `at` counted from now, but the `from`/`until` of its
// faults still counted from the clock's start. The documented storyboard (a 429 storm at 30s "until 50s")
// posted to a fake running for more than 50 s added a fault that could never fire.
test('POST /_dockside/scenario?from=now moves fault windows with the timeline', async () => {
  await using fake = createDockside()
  const server = await fake.listen({ port: 0 })
  await fake.clock.advance('2m')
  const storyboard = {
    faults: [{ on: 'push', reply: 500, from: '10s', until: '20s', times: 'always' }],
    timeline: [{ at: '30s', faults: [{ on: 'events', reply: 429, retryAfter: 5, until: '50s', times: 'always' }] }],
  }
  const res = await fetch(`${server.url}/_dockside/scenario?from=now`, { method: 'POST', body: JSON.stringify(storyboard) })
  expect(res.status).toBe(200)
  const events = async () => {
    const r = await fetch(`${server.url}/events`)
    await r.body?.cancel()
    return r.status
  }
  const push = async () => (await fetch(`${server.url}/images/nope/push`, { method: 'POST' })).status
  expect(await push()).toBe(404)
  await fake.clock.advance('10s')
  expect(await push()).toBe(500)
  await fake.clock.advance('10s')
  expect(await push()).toBe(404)
  await fake.clock.advance('10s')
  expect(await events()).toBe(429)
  await fake.clock.advance('20s')
  expect(await events()).toBe(200)
})
