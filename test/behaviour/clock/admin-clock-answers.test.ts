// Regressions: a `POST /_dockside/clock/advance` running when the fake was reset answered 200 with the time the old,
// disposed clock was asked to reach (30 days on) while the fake's clock read 0; and one clock answer read the clock
// three times, so under a fast real clock its `now`, `nowMs` and `elapsedMs` disagreed by seconds.
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'

const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

it('an advance cut short by a reset answers 409, not a time the fake never reached', async () => {
  const fake = createDockside({ seed: 1, scenario: { timeline: [{ at: '0s', every: '30s', restart: true }] } })
  open.push(fake)
  const server = await fake.listen({ host: '127.0.0.1', port: 0 })
  const advance = fetch(`${server.url}/_dockside/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"by":"30d"}' })
  await expect.poll(() => fake.journal.ofType('timeline').length).toBeGreaterThan(100)
  expect((await fetch(`${server.url}/_dockside/reset`, { method: 'POST' })).status).toBe(200)
  const res = await advance
  expect(res.status).toBe(409)
  expect(((await res.json()) as { message: string }).message).toBe(
    "The fake was reset or closed during the advance, which stopped there; the clock now reads from the scenario's start (GET /_dockside/clock).",
  )
  const clock = (await (await fetch(`${server.url}/_dockside/clock`)).json()) as { elapsedMs: number }
  expect(clock.elapsedMs).toBeLessThan(30 * 86_400_000)
})

it('GET /_dockside/clock reads the clock once: now, nowMs and elapsedMs agree under a real clock at 1000000x', async () => {
  const fake = createDockside({ clock: { mode: 'real', speed: 1_000_000 } })
  open.push(fake)
  const server = await fake.listen({ host: '127.0.0.1', port: 0 })
  for (const path of ['clock', 'state']) {
    const body = (await (await fetch(`${server.url}/_dockside/${path}`)).json()) as { now: string; nowMs?: number; elapsedMs: number; clock?: { now: string; elapsedMs: number } }
    const c = body.clock ?? body
    // At 1000000x a microsecond of wall time is a second of clock time: two readings never agree within 1 ms.
    expect(Math.abs(Date.parse(c.now) - (fake.clock.startedAt + c.elapsedMs)), path).toBeLessThan(1)
    if (body.nowMs !== undefined) expect(Math.abs(body.nowMs - Date.parse(c.now))).toBeLessThan(1)
  }
})
