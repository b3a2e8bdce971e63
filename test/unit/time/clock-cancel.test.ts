// Cancelling a timer only marks it; the queue drops cancelled timers at its head and compacts once they are most of
// it (O(1) per cancel: every closing socket cancels its maximum-age timer). What fires, in what order, and what
// `pending` counts must be exactly what an eager removal gave.
import { expect, test } from 'vitest'
import { createClock } from '../../../src/time/clock'

test('of 300 timers with 200 cancelled here and there, the other 100 fire in time order, once each', async () => {
  const clock = createClock()
  const fired: number[] = []
  const handles = Array.from({ length: 300 }, (_, i) => clock.schedule(((i * 37) % 300) + 1, () => fired.push(i)))
  // Cancel two of every three (enough to compact the queue more than once), one twice.
  for (let i = 0; i < 300; i++) if (i % 3 !== 0) handles[i].cancel()
  handles[1].cancel()
  expect(clock.pending).toBe(100)
  await clock.advance(150)
  const kept = Array.from({ length: 100 }, (_, k) => k * 3)
  const due = (i: number) => ((i * 37) % 300) + 1
  expect(fired).toEqual(kept.filter((i) => due(i) <= 150).sort((a, b) => due(a) - due(b)))
  expect(clock.pending).toBe(100 - fired.length)
  // Cancelling a timer that already fired changes nothing; the rest still fire.
  handles[fired[0]].cancel()
  await clock.advance(150)
  expect(fired).toEqual([...kept].sort((a, b) => due(a) - due(b)))
  expect(clock.pending).toBe(0)
})

test('a timer scheduled after a compaction lands in order among the survivors', async () => {
  const clock = createClock()
  const fired: string[] = []
  const handles = Array.from({ length: 200 }, (_, i) => clock.schedule(1000 + i, () => fired.push(`old${i}`)))
  for (let i = 0; i < 199; i++) handles[i].cancel()
  clock.schedule(500, () => fired.push('early'))
  clock.schedule(2000, () => fired.push('late'))
  await clock.advance(5000)
  expect(fired).toEqual(['early', 'old199', 'late'])
})
