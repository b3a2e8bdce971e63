// A scenario's `clock.start` must name one instant on every machine ("a seed plus a script gives the same bytes every
// run"). Found by the scenario hunt: Date.parse reads "2024-01-01T00:00:00" (no zone) and "Jan 1 2024" in the machine's
// own time zone, so `dockside serve` of one file started its clock 9 hours apart under TZ=UTC and TZ=Asia/Tokyo, and
// rolled "2024-02-30" over to March 1st; `dockside validate` called all three valid.
// Found by the scenario hunt (was test/scenario/hunt-clock-start.test.ts).
import { spawnSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createDockside } from '../../../src/index'
import { cliEntry, ensureBuilt, root } from '../../support/cli'

let dir: string
beforeAll(async () => {
  ensureBuilt()
  dir = await mkdtemp(join(tmpdir(), 'dockside-hunt-clock-start-'))
}, 120_000)
afterAll(() => rm(dir, { recursive: true, force: true }))

const zoneless = 'which JavaScript reads in the time zone of the machine it runs on, so the clock would start at another time on each; write an ISO date with "Z" or an offset, like "2024-01-01T00:00:00Z" or "2024-01-01T09:00:00+09:00" (or a date alone, "2024-01-01", read as UTC), or epoch milliseconds'

it.each([
  ['2024-01-01T00:00:00', `"2024-01-01T00:00:00" is a time without a time zone, ${zoneless}`],
  ['Jan 1 2024', `"Jan 1 2024" is a date without a time zone, ${zoneless}`],
  ['2024-02-30', '"2024-02-30" names day 30 of a month that has fewer (JavaScript would start the clock in the next month); write a day that exists'],
  ['2023-02-29T12:00:00Z', '"2023-02-29T12:00:00Z" names day 29 of a month that has fewer (JavaScript would start the clock in the next month); write a day that exists'],
])('dockside validate refuses clock.start %j in every time zone, naming it (exit 2)', async (start, expected) => {
  const file = join(dir, 'start.yaml')
  await writeFile(file, `clock: { mode: virtual, start: ${JSON.stringify(start)} }\n`)
  for (const TZ of ['UTC', 'Asia/Tokyo']) {
    const run = spawnSync(process.execPath, [cliEntry, 'validate', file], { cwd: root, encoding: 'utf8', env: { ...process.env, TZ }, timeout: 30_000 })
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 2, stderr: `dockside: invalid scenario ${file}: at clock.start: ${expected}\n` })
  }
})

it.each([
  ['2024-01-01', Date.UTC(2024, 0, 1)],
  ['2024-02-29T23:59:59.5Z', Date.UTC(2024, 1, 29, 23, 59, 59, 500)],
  ['2024-01-01T09:00:00+09:00', Date.UTC(2024, 0, 1)],
  ['+275760-09-13T00:00:00.000Z', 8.64e15],
  // Not ISO, but naming their zone: the same instant on every machine.
  ['2024-01-01 00:00:00Z', Date.UTC(2024, 0, 1)],
  ['2024-01-01T09:00:00.000+0900', Date.UTC(2024, 0, 1)],
  ['Mon, 01 Jan 2024 00:00:00 GMT', Date.UTC(2024, 0, 1)],
  ['2024-01-01t00:00:00z', Date.UTC(2024, 0, 1)],
])('clock.start %j (one instant everywhere) is taken as before', (start, ms) => {
  const fake = createDockside({ scenario: { clock: { mode: 'virtual', start } } })
  expect(fake.clock.now()).toBe(ms)
  return fake.close()
})

it('createDockside({ clock: { start } }) refuses a zone-less time as a scenario does (the library option read it in the local zone)', () => {
  expect(() => createDockside({ clock: { mode: 'virtual', start: '2024-01-01T00:00:00' } })).toThrow(`clock.start: "2024-01-01T00:00:00" is a time without a time zone, ${zoneless}`)
  const fake = createDockside({ clock: { mode: 'virtual', start: '2024-01-01T00:00:00Z' } })
  expect(fake.clock.now()).toBe(Date.UTC(2024, 0, 1))
  return fake.close()
})
