// `--speed` read as POST /_dockside/clock/speed reads ?speed=: a decimal number. Found by the CLI hunt: Number() took
// "0x10" as 16, "0b11" as 3 and " 2" as 2, so the real clock ran at a pace nobody typed (--port, --seed and the admin
// API's speed refuse such forms already).
// Found by the CLI hunt (was test/cli/hunt-speed-flag.test.ts).
import { expect, it } from 'vitest'
import { ensureBuilt, runCliUntilListening } from '../../support/cli'

it.each(['0x10', '0b11', '0o7', ' 2', '2 ', '1_000'])('serve --speed %j is refused with exit 2, naming the flag', async (value) => {
  ensureBuilt()
  expect(await runCliUntilListening('serve', '--port', '0', '--quiet', '--speed', value)).toEqual({
    code: 2,
    stderr: `dockside: invalid --speed ${value}: expected a finite number above 0, at most 1000000 (clock seconds per wall second)\n`,
  })
}, 120_000)

it.each(['2', '0.5', '.5', '1e3', '+3'])('serve --speed %s is taken', async (value) => {
  ensureBuilt()
  const run = await runCliUntilListening('serve', '--port', '0', '--quiet', '--speed', value)
  expect(run.code).toBe(null)
  expect(run.url).toMatch(/^http:/)
}, 120_000)
