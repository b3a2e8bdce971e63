// Regression: a size at an exact rounding tie was rounded up in the progress text. The daemon formats sizes with
// go-units' HumanSize, `%.4g`, and Go's strconv rounds an exact tie to even: 10125 bytes (10.125 kB, exact in binary) is
// `10.12kB`, 100250 is `100.2kB`, 1062500 is `1.062MB`; toPrecision(4) rounds the tie up (`10.13kB`). A tie after an
// odd digit (12375 bytes) rounds up in both.
// Found by the push hunt (was test/regressions/push-hunt-human-size-ties.test.ts).
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

let fake: Dockside | undefined
afterEach(() => fake?.close())

it('bug: a 10125-byte layer was reported 10.13kB on the wire; the daemon writes 10.12kB', async () => {
  fake = createDockside({ clock: 'auto', seed: 5, pushBandwidth: 100_000_000 })
  fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: [10_125, 100_250, 1_062_500, 12_375] })
  const server = await fake.listen({ port: 0 })
  const res = await fetch(`${server.url}/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST' })
  const pushing = (await res.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { status?: string; progress?: string; progressDetail?: { total?: number } })
  const text = (total: number) => pushing.find((l) => l.status === 'Pushing' && l.progressDetail?.total === total)?.progress?.slice(53).trim()
  expect(text(10_125)).toBe('10.12kB/10.12kB')
  expect(text(100_250)).toBe('100.2kB/100.2kB')
  expect(text(1_062_500)).toBe('1.062MB/1.062MB')
  expect(text(12_375)).toBe('12.38kB/12.38kB')
})
