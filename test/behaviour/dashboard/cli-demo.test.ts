// `dockside demo` and `serve --open`, as a user runs them: the built CLI in a child process.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { cliEntry, root } from '../../support/cli'
import { ensureUiBuilt } from './support'

let dir: string
const children = new Set<ChildProcess>()
beforeAll(async () => {
  ensureUiBuilt()
  dir = await mkdtemp(join(tmpdir(), 'dockside-demo-'))
}, 120_000)
afterEach(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM')
  children.clear()
})
afterAll(() => rm(dir, { recursive: true, force: true }))

/** Starts the CLI (in a terminal made by `script` when `tty`); `waitFor` resolves with the first stdout match of a pattern. */
function cli(args: string[], env: Record<string, string | undefined>, tty = false) {
  const command = [process.execPath, cliEntry, ...args].map((a) => `'${a}'`).join(' ')
  const child = tty
    ? spawn('script', ['-qfec', command, '/dev/null'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, DISPLAY: undefined, WAYLAND_DISPLAY: undefined, ...env } })
    : spawn(process.execPath, [cliEntry, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DISPLAY: undefined, WAYLAND_DISPLAY: undefined, ...env } })
  children.add(child)
  let out = ''
  let err = ''
  const waiters = new Set<() => void>()
  child.stdout!.on('data', (d: Buffer) => ((out += d), waiters.forEach((w) => w())))
  child.stderr!.on('data', (d: Buffer) => ((err += d), waiters.forEach((w) => w())))
  child.once('close', () => waiters.forEach((w) => w()))
  return {
    waitFor: (re: RegExp) =>
      new Promise<RegExpMatchArray>((resolve, reject) => {
        const check = () => {
          const m = re.exec(out)
          if (m) return (waiters.delete(check), resolve(m))
          if (child.exitCode !== null) reject(new Error(`exited ${child.exitCode} before ${re}: ${out}${err}`))
        }
        waiters.add(check)
        check()
      }),
    stdout: () => out,
    type: (text: string) => child.stdin!.write(text),
  }
}

describe('dockside demo', () => {
  it('serves the scenario on the real clock, prints the dashboard address where no browser can open, and logs captions as steps run', async () => {
    const run = cli(['demo', 'examples/deploy-story.yaml', '--port', '0'], {})
    const [, url] = await run.waitFor(/no browser to open here \(no display\): open (http:\/\/127\.0\.0\.1:\d+\/_dockside\/ui) in your browser/)
    expect(run.stdout()).toMatch(/dockside listening on http:\/\/127\.0\.0\.1:\d+ \(.*dashboard: http:\/\/127\.0\.0\.1:\d+\/_dockside\/ui, clock: real, .*scenario: examples\/deploy-story\.yaml/)
    const page = await fetch(url)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<div id="app">')
    // The first step (at 1 s of real time) says its caption in the log.
    await run.waitFor(/ say {5}Version 2\.0 of the shop is built/)
  })

  it.skipIf(!existsSync('/usr/bin/script'))('a paused story goes on when the presenter presses Enter in the terminal', async () => {
    const file = join(dir, 'pause.yaml')
    await writeFile(file, 'timeline:\n  - { at: 200ms, say: "over to you", pause: true }\n  - { at: 400ms, say: "and on we go" }\n')
    const run = cli(['demo', file, '--port', '0'], {}, true)
    await run.waitFor(/ paused {2}the scenario waits: press Enter here/)
    expect(run.stdout()).not.toMatch(/and on we go/)
    run.type('\n')
    await run.waitFor(/ continue the scenario goes on/)
    await run.waitFor(/ say {5}and on we go/)
  })

  it('serve --open starts xdg-open with the dashboard address when there is a display', async () => {
    const bin = join(dir, 'bin')
    const opened = join(dir, 'opened.txt')
    await import('node:fs/promises').then((fs) => fs.mkdir(bin, { recursive: true }))
    await writeFile(join(bin, 'xdg-open'), `#!/bin/sh\necho "$@" > ${JSON.stringify(opened)}\n`)
    await chmod(join(bin, 'xdg-open'), 0o755)
    const run = cli(['serve', '--port', '0', '--open', '--quiet'], { DISPLAY: ':99', PATH: `${bin}:${process.env.PATH}` })
    const [, url] = await run.waitFor(/opening the dashboard in your browser: (\S+)/)
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_dockside\/ui$/)
    await expect.poll(() => readFile(opened, 'utf8').catch(() => '')).toBe(`${url}\n`)
  })

  it('never fails when no opener exists: it prints the address and keeps serving', async () => {
    const empty = join(dir, 'empty')
    await import('node:fs/promises').then((fs) => fs.mkdir(empty, { recursive: true }))
    const run = cli(['demo', '--port', '0', '--quiet'], { DISPLAY: ':99', PATH: empty })
    const [, url] = await run.waitFor(/could not start xdg-open: open (\S+) in your browser/)
    expect((await fetch(url)).status).toBe(200)
  })
})
