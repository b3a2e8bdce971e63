import { execFile, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** In CI every client test runs (a missing client fails loudly); on a dev machine it may skip. */
export const inCI = Boolean(process.env.CI)

/** True when `command` is on PATH. */
export function hasCommand(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0
}

/**
 * A python3 that can import `module`: the one on PATH, else Debian's /usr/bin/python3 (where apt's
 * python3-* packages live when PATH points at a pyenv or venv python). Undefined when none can.
 */
export function pythonWith(module: string): string | undefined {
  return ['python3', '/usr/bin/python3'].find((py) => spawnSync(py, ['-c', `import ${module}`], { stdio: 'ignore' }).status === 0)
}

/**
 * Whether to skip a client's tests: only on a developer machine, never in CI. Prints why, naming what
 * to install, so a skip is never silent.
 */
export function skipUnless(available: boolean, client: string, install: string): boolean {
  if (available) return false
  if (inCI) {
    process.stderr.write(`[test/clients] ${client} is missing in CI: these tests will fail. Install it: ${install}\n`)
    return false
  }
  process.stderr.write(`[test/clients] SKIPPED ${client} tests: ${client} is not installed. Install it: ${install}\n`)
  return true
}

export interface RunResult {
  code: number
  stdout: string
  stderr: string
}

/** Runs a program with a timeout; resolves with its exit code and output (never rejects on exit code). */
export function run(file: string, args: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { env: options.env, timeout: options.timeoutMs ?? 8000, signal: options.signal, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') {
        if (error.killed) return resolve({ code: -1, stdout, stderr: `${stderr}\n[killed: ${error.signal ?? 'timeout'}]` })
        return reject(error)
      }
      resolve({ code: error ? (error.code as number) : 0, stdout, stderr })
    })
  })
}

/** A temporary directory removed by the returned dispose function. */
export function tempDir(prefix: string): { path: string; write(name: string, content: string): string; [Symbol.dispose](): void } {
  const path = mkdtempSync(join(tmpdir(), prefix))
  return {
    path,
    write(name, content) {
      const file = join(path, name)
      writeFileSync(file, content)
      return file
    },
    [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }),
  }
}
