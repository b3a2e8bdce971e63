// A review of the CLI: a background server stopped by its terminal, a YAML alias bomb crashing with a stack, flags that
// were ignored or misread, and log lines that said `failed: undefined` or came before the ready line.
// Found by a review of the CLI (was test/cli/cli-review.test.ts).
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt, root, cliEntry as entry } from '../../support/cli'
import { skipUnless } from '../../clients/support/clients'
import { killRunning, watchChild, type CliRun } from '../../support/cli-run'

let dir: string
beforeAll(async () => {
  ensureBuilt()
  dir = await mkdtemp(join(tmpdir(), 'dockside-cli-review-'))
}, 120_000)
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** Processes a test started outside `running` (a server inside a terminal session), killed after each test. */
const pids = new Set<number>()
afterEach(() => {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
  pids.clear()
  killRunning()
})

const watch = watchChild

/** The CLI with `args`, stdin /dev/null. No browser opens (`demo` opens the dashboard): no display. */
function cli(...args: string[]): CliRun {
  return watch(spawn(process.execPath, [entry, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DISPLAY: '', WAYLAND_DISPLAY: '' } }))
}

/** Starts `dockside serve`, returns its base URL once ready. */
async function serve(...args: string[]) {
  const run = cli('serve', '--port', '0', ...args)
  const [, url] = await run.waitFor(/(http:\/\/127\.0\.0\.1:\d+)/)
  return { ...run, url }
}

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name)
  await writeFile(path, text)
  return path
}

// `script` (util-linux) runs a shell in a pseudo-terminal of its own, so a test can have an interactive shell with job
// control: the terminal, process groups and SIGTTIN as a person's shell has them.
// util-linux's script (Debian's bsdutils, an essential package): missing in CI, the tests run and fail (skipUnless).
const haveScript = !skipUnless(process.platform === 'linux' && spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0, 'script (util-linux)', 'apt-get install bsdutils')
const sh = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`

/** Runs `shellScript` in `bash -i` (job control on) inside a terminal made by `script`; stdin writes go to the terminal. */
async function inTerminal(shellScript: string): Promise<CliRun> {
  const path = await file(`session-${Math.random().toString(36).slice(2)}.sh`, `NODE=${sh(process.execPath)}\nDOCKSIDE=${sh(entry)}\n${shellScript}`)
  const child = spawn('script', ['-qfec', `bash --norc --noprofile -i ${sh(path)}`, '/dev/null'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TERM: 'dumb', DISPLAY: '', WAYLAND_DISPLAY: '' } })
  return watch(child)
}

/** The state letter of a process in /proc (`T`: stopped, as by SIGTTIN). */
const procState = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
}

describe('1. a background server keeps serving (the terminal never stops it)', () => {
  it.skipIf(!haveScript)('`dockside serve &` in a shell with job control keeps answering when someone types in the terminal (SIGTTIN stopped it)', async () => {
    // Bug: with a terminal on stdin it read stdin for Enter from the start, and a background job that reads its terminal
    // gets SIGTTIN: the server stopped (state T) at the first input in the terminal and answered nothing.
    const term = await inTerminal(['set -m', '"$NODE" "$DOCKSIDE" serve --port 0 --quiet &', 'echo "server pid $!"', 'wait', 'echo "shell done"', ''].join('\n'))
    const pid = Number((await term.waitFor(/server pid (\d+)/))[1])
    pids.add(pid)
    const [, url] = await term.waitFor(/dockside listening on (http:\/\/127\.0\.0\.1:\d+)/)
    // Someone types in the terminal while the server runs in the background; the terminal echoes it once it holds it.
    term.child.stdin!.write('typed in the terminal\n')
    await term.waitFor(/typed in the terminal/)
    const ping = await fetch(`${url}/_ping`, { signal: AbortSignal.timeout(5000) }).then(
      async (res) => `${res.status} ${await res.text()}`,
      (error: Error) => `no answer: ${error.name}`,
    )
    expect(ping).toBe('200 OK')
    expect(procState(pid)).not.toBe('T')
    // It still stops on a signal as usual; `wait` would have warned had the job been stopped.
    process.kill(pid, 'SIGTERM')
    await term.waitFor(/shell done/)
    expect(term.stdout()).not.toMatch(/stopped/)
    expect((await term.exit).code).toBe(0)
  })

  it.skipIf(!haveScript)('started in the background and brought to the foreground with fg, Enter continues a paused scenario', async () => {
    const paused = await file('paused.yaml', 'timeline:\n  - { at: 0s, say: "first", pause: true }\n')
    const log = join(dir, 'paused.log')
    const term = await inTerminal(
      [
        'set -m',
        `"$NODE" "$DOCKSIDE" serve --port 0 --scenario ${sh(paused)} | tee ${sh(log)} &`,
        // Paused while in the background: then into the foreground (no signal tells a running job so).
        `until grep -q "scenario waits" ${sh(log)} 2>/dev/null; do sleep 0.05; done`,
        'echo "to the foreground"',
        'fg %1 >/dev/null',
        'echo "shell done"',
        '',
      ].join('\n'),
    )
    await term.waitFor(/to the foreground/)
    // Enter sits in the terminal until the server, now in the foreground, reads it.
    term.child.stdin!.write('\n')
    await term.waitFor(/continue the scenario goes on/)
    const [, port] = await term.waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/)
    const clock = (await (await fetch(`http://127.0.0.1:${port}/_dockside/clock`)).json()) as { paused: boolean }
    expect(clock.paused).toBe(false)
    // Ctrl-C in the terminal ends the foreground job: the server and tee.
    term.child.stdin!.write('\x03')
    await term.waitFor(/shell done/)
    await term.exit
    expect(term.stdout()).not.toMatch(/Error|    at /)
  })

  it.skipIf(!haveScript)('in the foreground, Enter continues a paused scenario as before', async () => {
    const paused = await file('paused-fg.yaml', 'timeline:\n  - { at: 0s, say: "first", pause: true }\n')
    const term = await inTerminal(`"$NODE" "$DOCKSIDE" serve --port 0 --scenario ${sh(paused)}\n`)
    await term.waitFor(/paused +the scenario waits/)
    term.child.stdin!.write('\n')
    await term.waitFor(/continue the scenario goes on/)
    term.child.stdin!.write('\x03')
    expect((await term.exit).code).toBe(0)
  })
})

describe('2. scenario files', () => {
  const bomb = () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x]']
    const names = 'abcdefghi'
    for (let i = 1; i < names.length; i++) lines.push(`${names[i]}: &${names[i]} [${Array(9).fill(`*${names[i - 1]}`).join(', ')}]`)
    return `${lines.join('\n')}\n`
  }

  it('a YAML alias bomb is refused with exit 2 naming maxAliasCount, by validate and by serve (was a ReferenceError stack, exit 1)', async () => {
    const path = await file('bomb.yaml', bomb())
    const expected = `dockside: invalid scenario ${path}: at (root): expected YAML whose aliases (*name) expand within the yaml library's maxAliasCount (100): these expand further, as an "alias bomb" does (Excessive alias count indicates a resource exhaustion attack)\n`
    const validate = cli('validate', path)
    expect((await validate.exit).code).toBe(2)
    expect(validate.stderr()).toBe(expected)
    const served = cli('serve', '--port', '0', '--scenario', path)
    expect((await served.exit).code).toBe(2)
    expect(served.stderr()).toBe(expected)
  })

  it('YAML merge keys (<<: *anchor) work (were refused as a misleading missing field)', async () => {
    const path = await file('merge.yaml', ['containers:', '  - &web { name: web, image: nginx:1.27, labels: { app: web } }', '  - <<: *web', '    name: web2', ''].join('\n'))
    const validate = cli('validate', path)
    expect((await validate.exit).code).toBe(0)
    const s = await serve('--scenario', path, '--clock', 'virtual', '--quiet')
    const containers = (await (await fetch(`${s.url}/_dockside/containers`)).json()) as { name: string; image: string; labels: Record<string, string> }[]
    expect(containers.map((c) => [c.name, c.image, c.labels.app])).toEqual([
      ['web', 'nginx:1.27', 'web'],
      ['web2', 'nginx:1.27', 'web'],
    ])
  })

  it('a UTF-8 byte order mark is dropped in JSON as in YAML (JSON refused it as an "Unexpected token")', async () => {
    const json = await file('bom.json', '\uFEFF{"seed": 3}')
    const yaml = await file('bom.yaml', '\uFEFFseed: 3\n')
    const run = cli('validate', json, yaml)
    expect((await run.exit).code).toBe(0)
    expect(run.stdout()).toBe(`${json}: valid scenario\n${yaml}: valid scenario\n`)
  })

  it('an empty JSON file is an empty scenario, as an empty YAML file is (JSON refused it)', async () => {
    const json = await file('empty.json', '')
    const blank = await file('blank.json', '  \n')
    const yaml = await file('empty.yaml', '')
    const run = cli('validate', json, blank, yaml)
    expect((await run.exit).code).toBe(0)
    expect(run.stdout()).toBe(`${json}: valid scenario\n${blank}: valid scenario\n${yaml}: valid scenario\n`)
  })

  it('a key given twice in a JSON object is refused with its line, as YAML refuses it (JSON kept the last)', async () => {
    const json = await file('twice.json', '{"seed": 1,\n "containers": [{"name": "a", "image": "nginx", "name": "b"}]}\n')
    const run = cli('validate', json)
    expect((await run.exit).code).toBe(2)
    expect(run.stderr()).toBe(`dockside: invalid scenario ${json}: at line 2, column 49: expected valid JSON with each key once in an object: "name" is given twice (JSON.parse would keep only the last)\n`)
  })
})

describe('3. arguments', () => {
  it.each([
    [['serve', '--help'], /^Usage:\n {2}dockside serve \[--host/],
    [['serve', '-h'], /^Usage:\n {2}dockside serve \[--host/],
    [['serve', '--port', '0', '--help'], /^Usage:\n {2}dockside serve /],
    [['demo', '--help'], /^Usage:\n {2}dockside demo \[FILE\|demo\] \[serve options\]\n/],
    [['validate', '--help'], /^Usage:\n {2}dockside validate FILE\.\.\.\n/],
    [['validate', '-h'], /^Usage:\n {2}dockside validate FILE\.\.\.\n/],
    [['help', 'validate'], /^Usage:\n {2}dockside validate FILE\.\.\.\n/],
    // record and verify read their flags as the other commands do: --help wins over a mistake on the same line (they
    // exited 2 on the mistake), and -h is --help.
    [['record', '-h'], /^Usage:\n {2}dockside record --upstream /],
    [['record', '--bogus', '--help'], /^Usage:\n {2}dockside record --upstream /],
    [['record', 'stray', '-h'], /^Usage:\n {2}dockside record --upstream /],
    [['verify', '--port', '--help'], /^Usage:\n {2}dockside verify --against /],
    [['verify', '-h'], /^Usage:\n {2}dockside verify --against /],
    [['help', 'record'], /^Usage:\n {2}dockside record --upstream /],
  ])('%j prints that command\'s usage and exits 0', async (args, usage) => {
    // Bug: serve --help was "Unknown option '--help'" (exit 2), validate --help read a file named --help.
    const run = cli(...args)
    expect((await run.exit).code).toBe(0)
    expect(run.stdout()).toMatch(usage)
    expect(run.stderr()).toBe('')
  })

  it('each command usage agrees with the synopsis of docs/cli.md', async () => {
    const docs = readFileSync(join(root, 'docs/cli.md'), 'utf8')
    const synopsis = docs.slice(docs.indexOf('```\n') + 4, docs.indexOf('```', docs.indexOf('```\n') + 4))
    for (const command of ['serve', 'demo', 'validate', 'verify', 'record']) {
      const run = cli(command, '--help')
      await run.exit
      // The usage's synopsis lines, indented as in the docs (the docs indent by 0, the CLI by 2).
      const lines = run.stdout().split('\n\n')[0].split('\n').slice(1).map((l) => l.slice(2))
      expect(synopsis).toContain(lines.join('\n'))
    }
  })

  it('validate checks every FILE given (it read only the first), exit 2 when one is refused', async () => {
    const good = await file('good.yaml', 'seed: 3\n')
    const bad = await file('bad.yaml', 'seed: many\n')
    const run = cli('validate', good, bad, 'demo')
    expect((await run.exit).code).toBe(2)
    expect(run.stdout()).toBe(`${good}: valid scenario\ndemo: valid scenario\n`)
    expect(run.stderr()).toMatch(new RegExp(`^dockside: invalid scenario ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: at seed: `))
    const all = cli('validate', good, 'demo')
    expect((await all.exit).code).toBe(0)
  })

  it.each([
    // Bug: ran with no scenario at all.
    [['serve', '--port', '0', '--scenario='], /^dockside: invalid --scenario "": expected a scenario file \(YAML or JSON\), or demo/],
    // Bug: bound every interface and printed http://:PORT.
    [['serve', '--port', '0', '--host', ''], /^dockside: invalid --host "": expected an address to bind/],
    // Bug: the certificate silently won over --tls.
    [['serve', '--port', '0', '--tls', '--cert', 'c.pem', '--key', 'k.pem'], /^dockside: --tls and --cert\/--key both ask for TLS: .*pass one or the other/],
    [['demo', 'a.yaml', 'b.yaml'], /^dockside: demo takes one scenario FILE \(or demo\), not 2: a\.yaml, b\.yaml/],
    [['validate', '--strict', 'a.yaml'], /^dockside: Unknown option '--strict'/],
  ])('refuses %j with exit 2, naming what was wrong', async (args, message) => {
    const run = cli(...args)
    expect((await run.exit).code).toBe(2)
    expect(run.stderr()).toMatch(message)
    expect(run.stdout()).not.toMatch(/listening/)
  })

  it('demo takes serve flags before the FILE too (docs/cli.md: dockside demo FILE --port 0 --speed 2)', async () => {
    // Bug: `demo --port 0 FILE` said the command "does not take positional arguments".
    const run = cli('demo', '--port', '0', '--quiet', 'examples/chaos-story.yaml', '--speed', '2')
    await run.waitFor(/dockside listening on http:\/\/127\.0\.0\.1:\d+ .*clock: real.*scenario: examples\/chaos-story\.yaml/)
    run.child.kill('SIGTERM')
    expect((await run.exit).code).toBe(0)
    expect(run.stderr()).toBe('')
  })
})

describe('4. the log', () => {
  it('says how a reset, truncate or stall fault ended a push (it said "failed: undefined"), and a stall is not a failure', async () => {
    const scenario = await file(
      'push-faults.yaml',
      [
        'images:',
        '  - { name: localhost:5000/team/reset, tags: ["1"], layers: 2 }',
        '  - { name: localhost:5000/team/cut, tags: ["1"], layers: 2 }',
        '  - { name: localhost:5000/team/stall, tags: ["1"], layers: 2 }',
        'faults:',
        '  - { on: push, match: { image: localhost:5000/team/reset }, reset: true, afterLayer: 1 }',
        '  - { on: push, match: { image: localhost:5000/team/cut }, truncate: true, afterLayer: 1 }',
        '  - { on: push, match: { image: localhost:5000/team/stall }, stall: true, afterLayer: 1 }',
        '',
      ].join('\n'),
    )
    const s = await serve('--scenario', scenario, '--clock', 'auto')
    const push = (repo: string, signal?: AbortSignal) =>
      fetch(`${s.url}/images/localhost:5000/team/${repo}/push?tag=1`, { method: 'POST', signal }).then((res) => res.text()).catch(() => 'cut')
    await push('reset')
    await s.waitFor(/push +localhost:5000\/team\/reset reset by a fault after 1 layer \(\d+ bytes\): the connection was cut\n/)
    await push('cut')
    await s.waitFor(/push +localhost:5000\/team\/cut truncated mid-line by a fault after 1 layer \(\d+ bytes\), then the connection was cut\n/)
    const leave = new AbortController()
    const stalled = push('stall', leave.signal)
    await s.waitFor(/push +localhost:5000\/team\/stall stalled by a fault after 1 layer \(\d+ bytes\): no more output until the client gives up or the fake is reset\n/)
    leave.abort()
    await stalled
    expect(s.stdout()).not.toMatch(/undefined/)
    expect(s.stdout()).not.toMatch(/stall failed/)
  })

  it('a log reader that goes away (`serve | head -1`) stops the log, not the server (the next line crashed it: EPIPE)', async () => {
    const s = await serve('--scenario', 'demo', '--clock', 'virtual')
    await s.waitFor(/event +container start .*name=api/)
    // The reader of its standard output closes, as head does once it has the ready line.
    s.child.stdout!.destroy()
    for (let i = 0; i < 3; i++) expect((await fetch(`${s.url}/_ping`)).status).toBe(200)
    s.child.kill('SIGTERM')
    expect(await s.exit).toEqual({ code: 0, signal: null })
    expect(s.stderr()).toBe('')
  })

  it('the ready line comes first; the scenario\'s time-0 events follow it (they came before it)', async () => {
    const s = await serve('--scenario', 'demo', '--clock', 'virtual')
    await s.waitFor(/event +container start .*name=web/)
    const lines = s.stdout().split('\n')
    expect(lines[0]).toMatch(/^dockside listening on http:\/\/127\.0\.0\.1:\d+ /)
    // Not lost: both containers the demo starts at time 0.
    expect(lines.filter((l) => / event +container start /.test(l))).toHaveLength(2)
  })
})
