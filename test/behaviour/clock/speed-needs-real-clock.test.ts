// Regression: a speed given with a clock that is not `real` was silently ignored, so a test asking for a clock at twice
// the pace got one that moved only when advanced: a scenario's `clock: { mode: virtual, speed: 2 }` (the CLI refused
// `--clock virtual --speed 2`, the scenario file passed), `createDockside({ clock: { speed: 2 } })` and a scenario's
// real-clock speed under a virtual clock from the options or from `--clock virtual`. Each is now refused naming
// `clock.speed` and why; a speed with a real clock, from either place, still applies.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockside, InvalidInputError, ScenarioError, validateScenario } from 'dockside'
import { ensureBuilt, runCliUntilListening } from '../../support/cli'

const WHY = {
  virtual: 'sets the pace of the "real" clock, and the virtual clock moves only when advanced; use mode "real", or leave speed out',
  auto: 'sets the pace of the "real" clock, and the auto clock runs at wall pace and skips ahead to what someone waits on; use mode "real", or leave speed out',
}

function thrown(make: () => unknown): Error {
  try {
    make()
  } catch (error) {
    return error as Error
  }
  throw new Error('nothing was thrown')
}

describe('library', () => {
  it('createDockside refuses a speed with the virtual or auto clock, its mode given or the default', () => {
    for (const [clock, mode] of [[{ mode: 'virtual', speed: 2 }, 'virtual'], [{ speed: 2 }, 'virtual'], [{ mode: 'auto', speed: 2 }, 'auto']] as const) {
      const error = thrown(() => createDockside({ clock }))
      expect(error, JSON.stringify(clock)).toBeInstanceOf(InvalidInputError)
      expect(error.message).toBe(`clock.speed: ${WHY[mode]}`)
    }
  })

  it('a scenario clock { mode: virtual, speed: 2 } is refused by validateScenario and createDockside at clock.speed', async () => {
    const scenario = { clock: { mode: 'virtual' as const, speed: 2 } }
    await expect(validateScenario(scenario)).rejects.toThrow(new ScenarioError('(scenario)', 'clock.speed', WHY.virtual))
    expect(() => createDockside({ scenario })).toThrow(`(scenario): at clock.speed: ${WHY.virtual}`)
  })

  it("a scenario's real-clock speed under the options' virtual clock is refused, saying the options made the clock virtual", () => {
    const error = thrown(() => createDockside({ scenario: { clock: { mode: 'real', speed: 2 } }, clock: 'virtual' }))
    expect(error).toBeInstanceOf(ScenarioError)
    expect(error.message).toBe(`(scenario): at clock.speed: ${WHY.virtual} (the clock is virtual by the createDockside clock option)`)
  })

  it("a speed with the real clock applies, from the scenario or from the options (the options' mode with the scenario's speed)", async () => {
    await using a = createDockside({ scenario: { clock: { speed: 3 } }, clock: 'real' })
    await using b = createDockside({ clock: { mode: 'real', speed: 4 } })
    expect([a.clock.mode, a.clock.speed, b.clock.mode, b.clock.speed]).toEqual(['real', 3, 'real', 4])
  })
})

describe('CLI', () => {
  let dir: string
  beforeAll(async () => {
    ensureBuilt()
    dir = await mkdtemp(join(tmpdir(), 'dockside-speed-mode-'))
  }, 120_000)
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  const run = runCliUntilListening

  it('validate and serve refuse a scenario clock { mode: virtual, speed: 2 } (exit 2, the path)', async () => {
    const file = join(dir, 'virtual-speed.yaml')
    await writeFile(file, 'clock: { mode: virtual, speed: 2 }\n')
    const expected = { code: 2, stderr: `dockside: invalid scenario ${file}: at clock.speed: ${WHY.virtual}\n` }
    expect(await run('validate', file)).toEqual(expected)
    expect(await run('serve', '--port', '0', '--quiet', '--scenario', file)).toEqual(expected)
  })

  it("serve --clock virtual with a scenario's real-clock speed exits 2; without --clock it serves, and validate passes it", async () => {
    const file = join(dir, 'real-speed.yaml')
    await writeFile(file, 'clock: { speed: 2 }\n')
    expect(await run('serve', '--port', '0', '--quiet', '--scenario', file, '--clock', 'virtual')).toEqual({
      code: 2,
      stderr: "dockside: the scenario's clock.speed 2 sets the pace of the real clock, and --clock virtual makes the clock virtual. Use --clock real, or leave --clock out\n",
    })
    expect(await run('validate', file)).toEqual({ code: 0, stderr: '' })
    expect((await run('serve', '--port', '0', '--quiet', '--scenario', file)).url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  })
})
