// bin/dockside.js turns on Node's on-disk compile cache before it loads the CLI (decision 0017): a second start of
// `dockside serve` skips compiling dockside's and faker's modules. TMPDIR points its default folder
// (os.tmpdir()/node-compile-cache) at a fresh one here; NODE_COMPILE_CACHE would turn the cache on by itself.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { cliEntry, ensureBuilt } from '../../support/cli'

const dir = mkdtempSync(join(tmpdir(), 'dockside-compile-cache-'))
beforeAll(() => ensureBuilt(), 120_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const files = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(d, e.name)) : [e.name]))

test('the CLI fills the compile cache on its first run, and runs the same with it turned off', () => {
  const { NODE_COMPILE_CACHE: _, ...base } = process.env
  const run = (env: Record<string, string>) => spawnSync(process.execPath, [cliEntry, '--version'], { encoding: 'utf8', env: { ...base, ...env } })
  const off = run({ TMPDIR: dir, NODE_DISABLE_COMPILE_CACHE: '1' })
  expect(off.status).toBe(0)
  expect(files(dir)).toEqual([])
  const on = run({ TMPDIR: dir })
  expect(on.status).toBe(0)
  expect(on.stdout).toBe(off.stdout)
  expect(files(dir).length).toBeGreaterThan(0)
})
