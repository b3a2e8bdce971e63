import type { ChildProcess } from 'node:child_process'

/** A child process (the CLI) whose output a test reads as it comes. */
export interface CliRun {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  /** Resolves with the first stdout match of `re` (now or later); rejects if the process exits first. */
  waitFor(re: RegExp): Promise<RegExpMatchArray>
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

const running = new Set<ChildProcess>()

/** Watches a child's output; it is killed by {@link killRunning} if still running. */
export function watchChild(child: ChildProcess): CliRun {
  running.add(child)
  let out = ''
  let err = ''
  const waiters: (() => void)[] = []
  const poke = () => waiters.splice(0).forEach((w) => w())
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString()
    poke()
  })
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString()
    poke()
  })
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('close', (code, signal) => {
      poke()
      r({ code, signal })
    }),
  )
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exit,
    async waitFor(re) {
      for (;;) {
        const m = out.match(re)
        if (m) return m
        if (child.exitCode !== null || child.signalCode !== null) {
          throw new Error(`the CLI exited (${child.exitCode ?? child.signalCode}) before printing ${re}.\nstdout:\n${out}\nstderr:\n${err}`)
        }
        await new Promise<void>((r) => waiters.push(r))
      }
    },
  }
}

/** Kills every watched child still running (an afterEach). */
export function killRunning(): void {
  for (const c of running) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  running.clear()
}
