import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'

/** The checkout's root. */
export const root = resolve(import.meta.dirname, '../..')
// The CLI as a user runs it. DOCKSIDE_CLI points at another build of src/cli/main.ts (for working on the CLI itself).
export const cliEntry = process.env.DOCKSIDE_CLI ?? join(root, 'bin/dockside.js')

/** The newest modification time of a file under `dir`. */
function newest(dir: string): number {
  let max = 0
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) max = Math.max(max, statSync(join(entry.parentPath, entry.name)).mtimeMs)
  }
  return max
}

/** Whether dist/ is missing or older than a file of src/ (or of the build's config). */
export function distIsStale(): boolean {
  const built = join(root, 'dist/cli.js')
  if (!existsSync(built)) return true
  return statSync(built).mtimeMs < Math.max(newest(join(root, 'src')), statSync(join(root, 'tsup.config.ts')).mtimeMs)
}

/** Blocks the thread for `ms` (only while another test worker holds the build lock). */
const block = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

/**
 * Builds dist/ when it is missing or older than src/ (bin/dockside.js runs dist/cli.js), so a test of the CLI never
 * runs yesterday's build; the tests that spawn the CLI call it first. One build at a time across test workers.
 */
export function ensureBuilt(): void {
  if (process.env.DOCKSIDE_CLI || !distIsStale()) return
  const lock = join(root, '.tmp/build.lock')
  mkdirSync(join(root, '.tmp'), { recursive: true })
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      // A lock left by a killed worker is older than any build takes.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 180_000) rmdirSync(lock)
      block(200)
    }
  }
  try {
    if (!distIsStale()) return
    const build = spawnSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'pipe', encoding: 'utf8' })
    if (build.status !== 0) throw new Error(`npx tsup failed:\n${build.stdout}\n${build.stderr}`)
  } finally {
    rmdirSync(lock)
  }
}

/**
 * Runs the CLI until it exits, or until it prints its ready line (then kills it): the exit code (null when it was
 * listening), its stderr, and its base URL if it listened.
 */
export function runCliUntilListening(...args: string[]): Promise<{ code: number | null; stderr: string; url?: string }> {
  const child = spawn(process.execPath, [cliEntry, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  return new Promise((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) {
        child.kill('SIGKILL')
        resolve({ code: null, stderr: err, url: m[1] })
      }
    })
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.once('close', (code) => resolve({ code, stderr: err }))
  })
}
