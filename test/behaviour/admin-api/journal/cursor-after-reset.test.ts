// Regression (admin API hunt): a reset starts the journal's seq numbers again at 1, so a poller of
// `GET /_dockside/journal?after=N` holding a cursor from before the reset got `200 []` until the new journal passed N:
// every entry in between (a container created, a socket opened) was hidden, and a test waiting for "no new entries"
// passed. A cursor past the newest entry is now a 400 saying the journal restarted and to read from after=0.
// Found by the admin API hunt (was test/regressions/admin-hunt-journal-cursor.test.ts).
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

it('after a reset, ?after=<a cursor from before it> is a 400 naming the newest seq, not 200 []', async () => {
  const fake = createDockside({ seed: 7 })
  open.push(fake)
  const { url } = await fake.listen({ host: '127.0.0.1', port: 0 })
  const post = (path: string, body?: unknown) => fetch(`${url}/_dockside/${path}`, { method: 'POST', body: body === undefined ? undefined : JSON.stringify(body) })
  for (const name of ['a', 'b', 'c']) await post('containers', { name, image: 'nginx' })
  const before = (await (await fetch(`${url}/_dockside/journal`)).json()) as { seq: number }[]
  const cursor = before.at(-1)!.seq
  expect(cursor).toBeGreaterThan(3)

  await post('reset')
  await post('containers', { name: 'after-reset', image: 'nginx' })
  const stale = await fetch(`${url}/_dockside/journal?after=${cursor}`)
  expect(stale.status).toBe(400)
  const newest = fake.journal.entries.at(-1)!.seq
  expect(await stale.json()).toEqual({
    message: `Invalid "after" ${cursor}: the journal's newest entry is ${newest}. Its seq numbers start again at 1 after a reset (POST /_dockside/reset), so a cursor from before one is stale: read again from after=0.`,
  })
  // Read again from 0: the entry the stale cursor hid is there; the newest seq itself is a valid cursor.
  const fresh = (await (await fetch(`${url}/_dockside/journal?after=0&type=container.create`)).json()) as { name: string }[]
  expect(fresh.map((e) => e.name)).toEqual(['after-reset'])
  expect(await (await fetch(`${url}/_dockside/journal?after=${newest}`)).json()).toEqual([])
})
