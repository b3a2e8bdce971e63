// A YAML key that is a list or mapping (`? [a, b] : c`), through the real CLI. Found by the scenario hunt: `dockside
// validate` and `serve` took it as the string "[ a, b ]" (an access key id here), and the only sign was the yaml
// library's process warning on stderr, "(node:PID) Warning: Keys with collection values will be stringified ... Set
// mapAsMap: true", which names no line and advises an option the user cannot set.
// Found by the scenario hunt (was test/scenario/hunt-yaml-keys.test.ts).
import { spawnSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { cliEntry, ensureBuilt, root } from '../../support/cli'

let dir: string
beforeAll(async () => {
  ensureBuilt()
  dir = await mkdtemp(join(tmpdir(), 'dockside-hunt-yaml-'))
}, 120_000)
afterAll(() => rm(dir, { recursive: true, force: true }))

const expected = 'expected a key that is a name (a string or number): this key is a list or mapping ("? [a, b] : ..."), which no scenario field takes'

it.each([
  ['a list as a key', 'accessKeys:\n  ? [a, b]\n  : secret\n', 'line 2, column 5'],
  ['a mapping as a key, in flow style', 'containers:\n  - name: web\n    image: nginx\n    labels: {{app: web}: x}\n', 'line 4, column 14'],
  ['an alias of a list as a key', 'x-ids: &ids [a, b]\naccessKeys:\n  ? *ids\n  : secret\n', 'line 3, column 5'],
])('%s is refused naming its line, with exit 2 and no process warning', async (_, yaml, where) => {
  const file = join(dir, 'keys.yaml')
  await writeFile(file, yaml)
  for (const command of [['validate', file], ['serve', '--port', '0', '--scenario', file]]) {
    const run = spawnSync(process.execPath, [cliEntry, ...command], { cwd: root, encoding: 'utf8', timeout: 30_000 })
    expect(run.stderr).toBe(`dockside: invalid scenario ${file}: at ${where}: ${expected}\n`)
    expect(run.status).toBe(2)
  }
})

it('scalar keys of every kind stay valid (a number as a label key, a merge key)', async () => {
  const file = join(dir, 'ok.yaml')
  await writeFile(file, 'x-base: &base {image: nginx}\ncontainers:\n  - <<: *base\n    name: web\n    labels: {1: one}\n')
  const run = spawnSync(process.execPath, [cliEntry, 'validate', file], { cwd: root, encoding: 'utf8', timeout: 30_000 })
  expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({ status: 0, stdout: `${file}: valid scenario\n`, stderr: '' })
})
