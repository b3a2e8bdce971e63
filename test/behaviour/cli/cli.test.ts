import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt, root, cliEntry as entry } from '../../support/cli'
import { killRunning, watchChild, type CliRun } from '../../support/cli-run'


let dir: string
beforeAll(async () => {
  ensureBuilt()
  dir = await mkdtemp(join(tmpdir(), 'dockside-cli-'))
}, 120_000)
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

afterEach(killRunning)

function cli(...args: string[]): CliRun {
  return watchChild(spawn(process.execPath, [entry, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }))
}

/** Starts `dockside serve`, returns its base URL once ready. */
async function serve(...args: string[]) {
  const run = cli('serve', '--port', '0', ...args)
  const [, url, port] = await run.waitFor(/(http:\/\/127\.0\.0\.1:(\d+))/)
  return { ...run, url, port: Number(port) }
}

describe('dockside serve', () => {
  it('--max-body-size sets the request body cap (413 naming it)', async () => {
    const s = await serve('--max-body-size', '1KiB', '--quiet')
    const res = await fetch(`${s.url}/_dockside/faults`, { method: 'POST', body: JSON.stringify({ on: 'events', reply: 503, message: 'x'.repeat(2000) }) })
    expect(res.status).toBe(413)
    expect(((await res.json()) as { message: string }).message).toMatch(/over the 1 KiB \(1024 bytes\) limit/)
  })

  it('prints the real base URL with --port 0, serves /_ping and logs each request', async () => {
    const s = await serve('--scenario', 'demo')
    expect(s.port).toBeGreaterThan(0)
    expect(s.stdout()).toMatch(/seed: 42/)
    expect(s.stdout()).toMatch(/scenario: demo/)
    // `serve` defaults to the real clock, so the demo unfolds at human pace.
    expect(s.stdout()).toMatch(/clock: real/)
    const res = await fetch(`${s.url}/_ping`)
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('OK')
    await s.waitFor(/request GET \/_ping -> 200/)
    // A fault decision is logged on one line too.
    await fetch(`${s.url}/_dockside/faults`, { method: 'POST', body: '{"id":"nope","on":"push","reply":500}' })
    expect((await fetch(`${s.url}/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST' })).status).toBe(500)
    await s.waitFor(/fault +nope on push: reply .*"status":500/)
    s.child.kill('SIGINT')
    expect(await s.exit).toEqual({ code: 0, signal: null })
    expect(s.stderr()).toBe('')
  })

  it('exits 0 on SIGTERM, closing a live events socket with 1001', async () => {
    const s = await serve('--scenario', 'demo', '--quiet')
    const ws = new WebSocket(`${s.url.replace('http', 'ws')}/events/ws`)
    await new Promise((r, j) => ws.once('open', r).once('error', j))
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)))
    s.child.kill('SIGTERM')
    expect(await closed).toBe(1001)
    expect(await s.exit).toEqual({ code: 0, signal: null })
  })

  it('--clock virtual: the admin clock advance drives the demo timeline, and events are logged', async () => {
    const s = await serve('--scenario', 'demo', '--clock', 'virtual')
    expect(s.stdout()).toMatch(/clock: virtual/)
    const ws = new WebSocket(`${s.url.replace('http', 'ws')}/events/ws?filters=${encodeURIComponent('{"container":["worker"]}')}`)
    await new Promise((r, j) => ws.once('open', r).once('error', j))
    const frames: Record<string, unknown>[] = []
    const got = new Promise<void>((r) =>
      ws.on('message', (d) => {
        frames.push(JSON.parse(d.toString()) as Record<string, unknown>)
        if (frames.length === 2) r()
      }),
    )
    const res = await fetch(`${s.url}/_dockside/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"by":"5s"}' })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ elapsedMs: 5000 })
    await got
    expect(frames.map((f) => f.status)).toEqual(['start', 'stop'])
    expect(frames.map((f) => Number(f.time) - Date.UTC(2026, 0, 1) / 1000)).toEqual([2, 5])
    await s.waitFor(/2026-01-01T00:00:02\.000Z event +container start [0-9a-f]{12} \(.*name=worker/)
    await s.waitFor(/2026-01-01T00:00:05\.000Z event +container stop [0-9a-f]{12} \(.*name=worker/)
    ws.close()
    s.child.kill('SIGINT')
    expect((await s.exit).code).toBe(0)
  })

  it('--seed overrides the scenario seed', async () => {
    const a = await serve('--scenario', 'demo', '--seed', '9', '--clock', 'virtual', '--quiet')
    expect(a.stdout()).toMatch(/seed: 9/)
    const state = (await (await fetch(`${a.url}/_dockside/state`)).json()) as { seed: number; containers: { id: string }[] }
    expect(state.seed).toBe(9)
    a.child.kill('SIGINT')
    await a.exit
    const b = await serve('--scenario', 'demo', '--clock', 'virtual', '--quiet')
    const other = (await (await fetch(`${b.url}/_dockside/state`)).json()) as { seed: number; containers: { id: string }[] }
    expect(other.seed).toBe(42)
    expect(other.containers[0].id).not.toBe(state.containers[0].id)
    b.child.kill('SIGINT')
    await b.exit
  })

  it('refuses a bad scenario with the file, the path and the expectation, exit 2', async () => {
    const file = join(dir, 'bad.yaml')
    await writeFile(file, 'timeline:\n  - at: 1s\n    start: web\n  - at: soon\n    start: web\n')
    const run = cli('serve', '--port', '0', '--scenario', file)
    expect((await run.exit).code).toBe(2)
    expect(run.stderr()).toContain(file)
    expect(run.stderr()).toContain('timeline[1].at')
    expect(run.stderr()).toMatch(/must be a duration/)
    expect(run.stdout()).not.toMatch(/listening/)
  })

  it.each([
    [['serve', '--bogus'], /Unknown option '--bogus'/],
    [['serve', '--port', 'abc'], /invalid --port abc: expected 0-65535/],
    [['serve', '--port', '70000'], /invalid --port 70000/],
    [['serve', '--clock', 'fast'], /invalid --clock fast: expected real, auto or virtual/],
    [['serve', '--seed', '1.5'], /invalid --seed 1\.5: expected an integer/],
    [['serve', '--speed', '0'], /invalid --speed 0/],
    // Audit: Number() took these, so '' and '0x10' listened on a port nobody asked for, Infinity broke the real clock.
    [['serve', '--port', ''], /invalid --port : expected 0-65535/],
    [['serve', '--port', '0x10'], /invalid --port 0x10: expected 0-65535/],
    [['serve', '--seed', ''], /invalid --seed : expected an integer/],
    [['serve', '--speed', 'Infinity'], /invalid --speed Infinity: expected a finite number above 0/],
    [['serve', '--max-body-size', 'lots'], /Invalid --max-body-size "lots": expected a whole number of bytes above 0, or a size like "512KiB"/],
    [['serve', '--max-backlog', '0'], /Invalid --max-backlog "0"/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['validate'], /validate needs a FILE/],
  ])('refuses %j with exit 2', async (args, message) => {
    const run = cli(...args)
    expect((await run.exit).code).toBe(2)
    expect(run.stderr()).toMatch(message)
    if (!['--port', '--clock', '--seed', '--speed', '--max-body-size', '--max-backlog'].some((flag) => args.includes(flag))) expect(run.stderr()).toMatch(/Usage:/)
  })

  it('prints usage with --help and exits 0', async () => {
    const run = cli('--help')
    expect((await run.exit).code).toBe(0)
    expect(run.stdout()).toMatch(/Usage:\n {2}dockside serve/)
  })
})

describe('dockside validate', () => {
  it('accepts a good file and the demo', async () => {
    const file = join(dir, 'good.yaml')
    await writeFile(file, 'seed: 3\ncontainers:\n  - name: web\n    image: busybox\n    running: true\ntimeline:\n  - at: 2s\n    every: 4s\n    stop: web\n')
    const run = cli('validate', file)
    expect((await run.exit).code).toBe(0)
    expect(run.stdout()).toBe(`${file}: valid scenario\n`)
    const demo = cli('validate', 'demo')
    expect((await demo.exit).code).toBe(0)
  })

  it('refuses a bad file with the path inside it, exit 2', async () => {
    const file = join(dir, 'bad.json')
    await writeFile(file, JSON.stringify({ faults: [{ on: 'events', reply: 418 }] }))
    const run = cli('validate', file)
    expect((await run.exit).code).toBe(2)
    expect(run.stderr()).toBe(`dockside: invalid scenario ${file}: at faults[0].reply: must be one of 400, 404, 429, 500, 503\n`)
  })

  it('bug: validate passed what serve refuses (a container name twice, a registry host twice); now exit 2 with the path', async () => {
    const file = join(dir, 'twice.yaml')
    await writeFile(file, 'containers:\n  - name: web\n    image: nginx\n  - name: web\n    image: busybox\n')
    const run = cli('validate', file)
    expect((await run.exit).code).toBe(2)
    expect(run.stderr()).toBe(`dockside: invalid scenario ${file}: at containers[1].name: "web" is already used by containers[0]; container names are unique\n`)
    await writeFile(file, 'registries:\n  - host: localhost:5000\n    token: t\n  - host: localhost:5000\n')
    const again = cli('validate', file)
    expect((await again.exit).code).toBe(2)
    expect(again.stderr()).toMatch(/at registries\[1\]\.host: "localhost:5000" is already listed at registries\[0\]/)
    const serve = cli('serve', '--port', '0', '--scenario', file)
    expect((await serve.exit).code).toBe(2)
    expect(serve.stderr()).toBe(again.stderr())
  })

  it('refuses a missing file, exit 2', async () => {
    const run = cli('validate', join(dir, 'missing.yaml'))
    expect((await run.exit).code).toBe(2)
    expect(run.stderr()).toMatch(/missing\.yaml: at \(root\): a readable scenario file \(ENOENT\)/)
  })
})

describe('npx dockside', () => {
  it('runs from the checkout, offline and with an empty npm cache', async () => {
    const cache = join(dir, 'npm-cache')
    const run = spawnSync('npx', ['--offline', 'dockside', '--version'], { cwd: root, encoding: 'utf8', env: { ...process.env, npm_config_cache: cache }, timeout: 60_000 })
    expect(run.status, run.stderr).toBe(0)
    expect(run.stdout.trim()).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version)
  }, 90_000)
})
