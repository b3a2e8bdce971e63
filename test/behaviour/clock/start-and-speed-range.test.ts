// Regression: clock values the fake cannot represent were accepted, and then every route answered
// `400 Invalid time value`, /_ping included: a scenario's `clock.start: 1e308` or `-1e308`, `clock.speed: 1e308`
// (a real clock that ran past the last date a JavaScript Date holds within a millisecond), `dockside serve --speed 1e15`,
// and `POST /_dockside/fakes` with such a scenario. The admin API capped the speed at 1000000; the CLI and scenario
// files did not. Now one check serves every way in: a start among the dates a JavaScript Date holds
// (-271821-04-20 to +275760-09-13: every time the fake shows is one), a speed above 0 and at most 1000000, refused with
// the path and the allowed range. `--speed` with a clock that has no speed (`--clock virtual --speed 2`) was silently
// ignored; it is refused with a message saying why.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, test } from 'vitest'
import { createDockside, InvalidInputError, ScenarioError, validateScenario } from 'dockside'
import { ensureBuilt, runCliUntilListening } from '../../support/cli'

const START_RANGE = 'expected epoch milliseconds or an ISO date from -271821-04-20T00:00:00.000Z to +275760-09-13T00:00:00.000Z (-8640000000000000 to 8640000000000000 ms, the dates a JavaScript Date holds)'
const SPEED_RANGE = 'expected a number above 0 and at most 1000000 (clock milliseconds per wall millisecond)'

const BAD_STARTS: [start: number | string, shown: string][] = [
  [1e308, '1e+308 is out of range'],
  [-1e308, '-1e+308 is out of range'],
  [8.64e15 + 1, '8640000000000001 is out of range'],
  [-8.64e15 - 1, '-8640000000000001 is out of range'],
  ['+275760-09-13T00:00:00.001Z', '"+275760-09-13T00:00:00.001Z" is not a date JavaScript can read'],
  ['not a date', '"not a date" is not a date JavaScript can read'],
]
const BAD_SPEEDS: [speed: number, shown: string][] = [
  [1e308, '1e+308 is out of range'],
  [1e15, '1000000000000000 is out of range'],
  [1_000_001, '1000001 is out of range'],
]

describe('library', () => {
  test.each(BAD_STARTS)('createDockside({ clock: { start: %s } }) is refused naming clock.start and the range', (start, shown) => {
    const refused = (() => {
      try {
        createDockside({ clock: { mode: 'virtual', start } })
      } catch (error) {
        return error
      }
    })()
    expect(refused).toBeInstanceOf(InvalidInputError)
    expect((refused as Error).message).toBe(`clock.start: ${shown}; ${START_RANGE}`)
  })

  test.each(BAD_SPEEDS)('createDockside({ clock: { mode: "real", speed: %s } }) is refused naming clock.speed and the range', (speed, shown) => {
    expect(() => createDockside({ clock: { mode: 'real', speed } })).toThrow(`clock.speed: ${shown}; ${SPEED_RANGE}`)
  })

  test.each(BAD_STARTS)('a scenario with clock.start %s: validateScenario and createDockside refuse it with its path', async (start, shown) => {
    const scenario = { clock: { mode: 'virtual' as const, start } }
    const message = `(scenario): at clock.start: ${shown}; ${START_RANGE}`
    await expect(validateScenario(scenario)).rejects.toThrow(new ScenarioError('(scenario)', 'clock.start', `${shown}; ${START_RANGE}`))
    expect(() => createDockside({ scenario })).toThrow(message)
  })

  test('a scenario with clock.speed 1e308 is refused; fake.clock.setSpeed refuses what the admin API refuses', async () => {
    await expect(validateScenario({ clock: { mode: 'real', speed: 1e308 } })).rejects.toThrow(`(scenario): at clock.speed: 1e+308 is out of range; ${SPEED_RANGE}`)
    await using fake = createDockside({ clock: 'real' })
    expect(() => fake.clock.setSpeed(1e15)).toThrow(RangeError)
    expect(() => fake.clock.setSpeed(1e15)).toThrow(`Invalid clock speed 1000000000000000: ${SPEED_RANGE}.`)
    expect(fake.clock.speed).toBe(1)
    fake.clock.setSpeed(1_000_000)
    expect(fake.clock.speed).toBe(1_000_000)
    expect(new Date(fake.clock.now()).toISOString()).toMatch(/^20\d\d-/)
  })

  test('the ends of the range work: the fake answers and its clock reads; at the last date, an advance is refused, runAll stops there', async () => {
    for (const start of [-8.64e15, '1970-01-01T00:00:00Z', 8.64e15]) {
      await using fake = createDockside({ clock: { mode: 'virtual', start }, scenario: { containers: [{ name: 'web', image: 'nginx', running: true }] } })
      const server = await fake.listen({ host: '127.0.0.1', port: 0 })
      if (start === 8.64e15) {
        await expect(fake.clock.advance(1)).rejects.toThrow('it would pass +275760-09-13, the latest date JavaScript can hold')
        // A maximum-age timer of a socket lies past the last date: it never fires, and time stays showable.
        fake.clock.schedule('24h', () => {})
        await fake.clock.runAll()
        expect(fake.clock.now()).toBe(8.64e15)
      } else await fake.clock.advance('36500d')
      for (const path of ['/_ping', '/_dockside/clock', '/containers/json', '/events?since=0&until=1']) {
        const res = await fetch(server.url + path)
        expect(res.status, `${path} from ${start}`).toBe(200)
        await res.body?.cancel()
      }
    }
  })
})

describe('admin API', () => {
  it('POST /_dockside/fakes with a scenario clock out of range is a 400 naming clock.start or clock.speed; no fake is made', async () => {
    await using fake = createDockside({ fleet: true })
    const server = await fake.listen({ host: '127.0.0.1', port: 0 })
    const create = (clock: object) => fetch(`${server.url}/_dockside/fakes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scenario: { clock } }) })
    for (const [start, shown] of BAD_STARTS) {
      const res = await create({ mode: 'virtual', start })
      expect(res.status, String(start)).toBe(400)
      expect(await res.json()).toEqual({ message: `(scenario): at clock.start: ${shown}; ${START_RANGE}` })
    }
    const fast = await create({ mode: 'real', speed: 1e308 })
    expect([fast.status, await fast.json()]).toEqual([400, { message: `(scenario): at clock.speed: 1e+308 is out of range; ${SPEED_RANGE}` }])
    expect(await (await fetch(`${server.url}/_dockside/fakes`)).json()).toEqual([])
    // The last start allowed makes a fake that serves.
    const made = (await (await create({ mode: 'virtual', start: '+275760-09-13T00:00:00.000Z' })).json()) as { url: string }
    const ping = await fetch(`${made.url}/_ping`)
    expect(ping.status).toBe(200)
    expect(await (await fetch(`${made.url}/_dockside/clock`)).json()).toMatchObject({ now: '+275760-09-13T00:00:00.000Z' })
  })
})

describe('CLI', () => {
  let dir: string
  beforeAll(async () => {
    ensureBuilt()
    dir = await mkdtemp(join(tmpdir(), 'dockside-clock-range-'))
  }, 120_000)
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  const run = runCliUntilListening

  it('serve --speed 1e15 exits 2 naming the cap (it served, and every route answered 400 "Invalid time value")', async () => {
    expect(await run('serve', '--port', '0', '--quiet', '--speed', '1e15')).toEqual({ code: 2, stderr: 'dockside: invalid --speed 1e15: expected a finite number above 0, at most 1000000 (clock seconds per wall second)\n' })
  })

  it('serve --clock virtual --speed 2 (and auto) exits 2 saying the clock has no speed, instead of ignoring it', async () => {
    expect(await run('serve', '--port', '0', '--quiet', '--clock', 'virtual', '--speed', '2')).toEqual({
      code: 2,
      stderr: 'dockside: --speed 2 sets the pace of the real clock, and the clock is virtual (--clock virtual): it moves only when advanced (POST /_dockside/clock/advance). Use --clock real --speed 2, or leave --speed out\n',
    })
    const file = join(dir, 'auto.yaml')
    await writeFile(file, 'clock: auto\n')
    const auto = await run('serve', '--port', '0', '--quiet', '--scenario', file, '--speed', '3')
    expect(auto.code).toBe(2)
    expect(auto.stderr).toMatch(/^dockside: --speed 3 sets the pace of the real clock, and the clock is auto \(the scenario's clock\)/)
  })

  it('serve and validate refuse a scenario whose clock starts at 1e308 or -1e308 or runs at 1e308, naming the path (exit 2)', async () => {
    for (const [name, text, path, shown] of [
      ['huge.yaml', 'clock: { mode: virtual, start: 1e308 }\n', 'clock.start', `1e+308 is out of range; ${START_RANGE}`],
      ['neg.yaml', 'clock: { mode: virtual, start: -1e308 }\n', 'clock.start', `-1e+308 is out of range; ${START_RANGE}`],
      ['fast.yaml', 'clock: { mode: real, speed: 1e308 }\n', 'clock.speed', `1e+308 is out of range; ${SPEED_RANGE}`],
    ]) {
      const file = join(dir, name)
      await writeFile(file, text)
      const expected = { code: 2, stderr: `dockside: invalid scenario ${file}: at ${path}: ${shown}\n` }
      expect(await run('validate', file)).toEqual(expected)
      expect(await run('serve', '--port', '0', '--quiet', '--scenario', file)).toEqual(expected)
    }
  })

  it('serve --clock real --speed 1000000 (the cap) serves', async () => {
    const served = await run('serve', '--port', '0', '--quiet', '--clock', 'real', '--speed', '1000000')
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  })
})
