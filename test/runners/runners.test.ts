// Runs the jest projects beside this file as real jest processes against the built dist/, as a user's suite would
// load dockside: jest-cjs with jest's default configuration (CommonJS, no --experimental-vm-modules), jest-esm with
// --experimental-vm-modules, both --runInBand with files in name order (the isolation-1/-2 pair shares a worker).
// node-test/ runs under `node --test`. docs/jest.md and docs/testing.md show these files.
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt, root } from '../support/cli'

const run = promisify(execFile)
const here = join(root, 'test/runners')

beforeAll(async () => {
  // Rebuilt when missing or older than src/ (a stale dist/ would test yesterday's code).
  ensureBuilt()
  // `dockside` resolves to this checkout (its package.json `exports`, so the built dist/), as from a user's node_modules.
  mkdirSync(join(here, 'node_modules'), { recursive: true })
  if (!existsSync(join(here, 'node_modules/dockside'))) symlinkSync('../../..', join(here, 'node_modules/dockside'))
}, 60_000)

async function jest(project: string, env: Record<string, string> = {}) {
  const args = ['--rootDir', join(here, project), '--runInBand', '--testSequencer', join(here, 'sequencer.cjs'), '--json', '--ci']
  const out = await run(join(root, 'node_modules/.bin/jest'), args, { cwd: here, env: { ...process.env, ...env, NODE_OPTIONS: env.NODE_OPTIONS ?? '' } }).catch((e: { stdout: string; stderr: string }) => e)
  const report = JSON.parse(out.stdout) as { numPassedTests: number; numFailedTests: number; testResults: { name: string; status: string; message: string }[] }
  const failures = report.testResults.filter((r) => r.status !== 'passed').map((r) => `${r.name}: ${r.message}`)
  return { report, failures, passedFiles: report.testResults.filter((r) => r.status === 'passed').map((r) => r.name.slice(here.length + 1)) }
}

describe('jest 30', () => {
  it('default configuration (CommonJS): require() of every entry, in-process hooks, matchers, real server, fake timers, isolation across files', async () => {
    const { report, failures, passedFiles } = await jest('jest-cjs')
    expect(failures).toEqual([])
    expect(passedFiles).toEqual(['jest-cjs/fake-timers-before-load.test.js', 'jest-cjs/fake-timers.test.js', 'jest-cjs/in-process.test.js', 'jest-cjs/isolation-1-hooks-and-closes.test.js', 'jest-cjs/isolation-2-streams-a-push.test.js', 'jest-cjs/server.test.js', 'jest-cjs/waiting-helpers.test.js'])
    expect(report.numPassedTests).toBe(11)
  }, 60_000)

  it('ESM (--experimental-vm-modules): import of the entries, in-process hooks, matchers, real server, fake timers, isolation across files', async () => {
    const { report, failures, passedFiles } = await jest('jest-esm', { NODE_OPTIONS: '--experimental-vm-modules --no-warnings' })
    expect(failures).toEqual([])
    expect(passedFiles).toEqual(['jest-esm/fake-timers.test.js', 'jest-esm/in-process.test.js', 'jest-esm/isolation-1-hooks-and-closes.test.js', 'jest-esm/isolation-2-streams-a-push.test.js', 'jest-esm/waiting-helpers.test.js'])
    expect(report.numPassedTests).toBe(7)
  }, 60_000)
})

describe('node:test', () => {
  it('node --test runs the example of docs/testing.md and the waiting helpers of docs/time.md', async () => {
    const out = await run(process.execPath, ['--test', '--test-reporter=tap'], { cwd: join(here, 'node-test') }).catch((e: { stdout: string; stderr: string }) => e)
    expect(out.stdout).toMatch(/^# pass 3$/m)
    expect(out.stdout).toMatch(/^# fail 0$/m)
  }, 60_000)
})
