// Regression: advances that overlapped lost time. Three concurrent `POST /_dockside/clock/advance {"by":"1d"}` all
// answered 200, but the clock moved 1.03 days: each took its target from the same moment. The same with
// `Promise.all` of `fake.clock.advance()` calls. Overlapping advances (and runAll/next) now run one after another, each
// by its full amount from where the one before it stopped, and each answer tells the time it reached.
import { expect, test } from 'vitest'
import { createDockside } from 'dockside'

const DAY = 86_400_000

test('library: three advance("1d") at once move the clock 3 days, each resolving at its own day, timers in order', async () => {
  await using fake = createDockside()
  const fired: number[] = []
  for (const at of [DAY / 2, DAY + 1, 2 * DAY + 7, 3 * DAY]) fake.clock.schedule(at, () => fired.push(fake.clock.elapsed()))
  const reached: number[] = []
  await Promise.all([1, 2, 3].map(() => fake.clock.advance('1d').then(() => reached.push(fake.clock.elapsed()))))
  expect(fake.clock.elapsed()).toBe(3 * DAY)
  expect(reached).toEqual([DAY, 2 * DAY, 3 * DAY])
  expect(fired).toEqual([DAY / 2, DAY + 1, 2 * DAY + 7, 3 * DAY])
})

test('library: an advance, runAll and next started together compose; a bad one refuses at once and does not block the rest', async () => {
  await using fake = createDockside()
  fake.clock.schedule('10d', () => {})
  fake.clock.schedule('20d', () => {})
  const bad = fake.clock.advance(1e308)
  const all = Promise.all([fake.clock.advance('1d'), fake.clock.next(), fake.clock.advance('1d')])
  await expect(bad).rejects.toThrow(RangeError)
  const [, nextFired] = await all
  expect(nextFired).toBe(true)
  // 1d, then the next timer (at 10d), then 1d more.
  expect(fake.clock.elapsed()).toBe(11 * DAY)
  await fake.clock.runAll()
  expect(fake.clock.elapsed()).toBe(20 * DAY)
})

test('admin API: three concurrent POST /_dockside/clock/advance {"by":"1d"} answer 1, 2 and 3 days, and the clock is at 3 days', async () => {
  await using fake = createDockside({ scenario: { containers: [{ name: 'web', image: 'nginx' }], timeline: [{ at: '1s', every: '6h', start: 'web' }, { at: '2s', every: '6h', stop: 'web' }] } })
  const server = await fake.listen({ host: '127.0.0.1', port: 0 })
  const advance = () => fetch(`${server.url}/_dockside/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"by":"1d"}' })
  const answers = await Promise.all([advance(), advance(), advance()])
  expect(answers.map((r) => r.status)).toEqual([200, 200, 200])
  const elapsed = (await Promise.all(answers.map(async (r) => ((await r.json()) as { elapsedMs: number }).elapsedMs))).sort((a, b) => a - b)
  expect(elapsed).toEqual([DAY, 2 * DAY, 3 * DAY])
  expect(await (await fetch(`${server.url}/_dockside/clock`)).json()).toMatchObject({ elapsedMs: 3 * DAY, now: '2026-01-04T00:00:00.000Z' })
  // Every start and stop of the 3 days ran, once each, at its time.
  const events = await (await fetch(`${server.url}/events?since=0&until=${Date.parse('2026-01-04T00:00:00Z') / 1000}`)).text()
  const times = events.trim().split('\n').map((l) => (JSON.parse(l) as { time: number }).time - Date.parse('2026-01-01T00:00:00Z') / 1000)
  expect(times).toEqual(Array.from({ length: 12 }, (_, i) => [i * 21600 + 1, i * 21600 + 2]).flat())
})
