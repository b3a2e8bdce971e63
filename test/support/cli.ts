import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'

/** The checkout's root. */
export const root = resolve(import.meta.dirname, '../..')
// The CLI as a user runs it. DOCKSIDE_CLI points at another build of src/cli/main.ts (for working on the CLI itself).
export const cliEntry = process.env.DOCKSIDE_CLI ?? join(root, 'bin/dockside.js')

/** Builds dist/ once if it is missing (bin/dockside.js runs dist/cli.js); the tests that spawn the CLI call it first. */
export function ensureBuilt(): void {
  if (process.env.DOCKSIDE_CLI || existsSync(join(root, 'dist/cli.js'))) return
  const build = spawnSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'pipe', encoding: 'utf8' })
  if (build.status !== 0) throw new Error(`npx tsup failed:\n${build.stdout}\n${build.stderr}`)
}
