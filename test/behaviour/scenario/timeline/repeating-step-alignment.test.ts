// Regression: repeating timeline steps applied with `from: 'start'` after their time were misaligned. With the clock
// at 105 s, applying `{ at: 10s, every: 10s, stop: x }` and `{ at: 11s, every: 10s, start: x }` ran both at 105 s, then
// 115, 125...: a stop and a start in the same instant, forever. `at` counts from the clock's start (docs/scenarios.md),
// so they run at 110/111, 120/121... A repeating step keeps its own grid (`at + k × every`): its first run is the next
// time on the grid, and each run schedules the next on the grid, so a run the real clock fired late does not push the
// ones after it either.
import { expect, test } from 'vitest'
import { createDockside, type Dockside } from 'dockside'
import type { HostTimers } from '../../../../src/time/clock'

const START = Date.parse('2026-01-01T00:00:00Z')
const storyboard = {
  containers: [{ name: 'x', image: 'nginx', running: true }],
  timeline: [
    { at: '10s', every: '10s', stop: 'x' },
    { at: '11s', every: '10s', start: 'x' },
  ],
}

/** `action@seconds` of each container event, in order. */
const actions = (fake: Dockside) => fake.events.events.map((e) => `${e.action}@${(e.timeMs - START) / 1000}`)

test('fake.apply from the start at 105 s: the steps run at 110/111, 120/121, 130/131 (not both at 105, 115, 125)', async () => {
  await using fake = createDockside()
  await fake.clock.advance('105s')
  await fake.apply(storyboard)
  await fake.clock.advance('30s')
  expect(actions(fake)).toEqual(['start@105', 'stop@110', 'start@111', 'stop@120', 'start@121', 'stop@130', 'start@131'])
})

test('applied exactly on the grid, a repeating step runs at once; from now, its grid counts from now', async () => {
  await using onGrid = createDockside()
  await onGrid.clock.advance('110s')
  await onGrid.apply(storyboard)
  await onGrid.clock.advance('11s')
  expect(actions(onGrid)).toEqual(['start@110', 'stop@110', 'start@111', 'stop@120', 'start@121'])

  await using fromNow = createDockside()
  await fromNow.clock.advance('105s')
  await fromNow.apply(storyboard, { from: 'now' })
  await fromNow.clock.advance('21s')
  expect(actions(fromNow)).toEqual(['start@105', 'stop@115', 'start@116', 'stop@125', 'start@126'])
})

test('POST /_dockside/scenario at 105 s: the events come at 110, 111, 120, 121, 130, 131', async () => {
  await using fake = createDockside()
  const server = await fake.listen({ host: '127.0.0.1', port: 0 })
  const post = (path: string, body: unknown) => fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  expect((await post('/_dockside/clock/advance', { by: '105s' })).status).toBe(200)
  expect((await post('/_dockside/scenario', storyboard)).status).toBe(200)
  expect((await post('/_dockside/clock/advance', { by: '30s' })).status).toBe(200)
  const lines = (await (await fetch(`${server.url}/events?since=0&until=${START / 1000 + 135}`)).text()).trim().split('\n')
  expect(lines.map((l) => JSON.parse(l) as { Action: string; time: number }).map((e) => `${e.Action}@${e.time - START / 1000}`)).toEqual([
    'start@105',
    'stop@110',
    'start@111',
    'stop@120',
    'start@121',
    'stop@130',
    'start@131',
  ])
})

test('real clock: a run the host fired late does not push the later runs off the grid', async () => {
  // Host timers fired by hand: the test decides how late the host is.
  let hostNow = 0
  const timers = new Set<{ at: number; fn: () => void }>()
  const host: HostTimers = {
    now: () => hostNow,
    after: (ms, fn) => {
      const t = { at: hostNow + ms, fn }
      timers.add(t)
      return t
    },
    cancel: (t) => void timers.delete(t as { at: number; fn: () => void }),
    immediate: (fn) => setImmediate(fn),
  }
  const runHostTo = (ms: number) => {
    hostNow = ms
    for (const t of [...timers].sort((a, b) => a.at - b.at)) {
      if (t.at > ms || !timers.delete(t)) continue
      t.fn()
    }
  }
  await using fake = createDockside({
    clock: { mode: 'real', start: START, host },
    scenario: { containers: [{ name: 'x', image: 'nginx', running: true }], timeline: [{ at: '10s', every: '10s', stop: 'x' }, { at: '15s', every: '10s', start: 'x' }] },
  })
  runHostTo(10_050) // 50 ms late
  runHostTo(15_000)
  runHostTo(20_000)
  runHostTo(25_000)
  expect(actions(fake)).toEqual(['start@0', 'stop@10.05', 'start@15', 'stop@20', 'start@25'])
})
