// Issue 31: dockside record when the upstream is down, drops mid-stream or is busy; and the CLI's lifecycle.
import { execFile, spawn } from 'node:child_process'
import { createServer, type Server, type ServerResponse } from 'node:http'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { record } from '../../../src/record/index'
import { loadScenario } from '../../../src/scenario/load'
import { createDockside } from '../../../src/index'

const dir = mkdtempSync(join(tmpdir(), 'dockside-record-robust-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const id = (n: number) => n.toString(16).padStart(64, 'a')
/** Whole seconds from now: the events of a busy daemon a few seconds after the recording begins. */
const base = BigInt(Math.ceil(Date.now() / 1000))
const nanoOf = (n: number) => (base + BigInt(n)) * 1_000_000_000n + 123n
const startLine = (n: number) =>
  `${JSON.stringify({ status: 'start', id: id(n), from: 'busybox', Type: 'container', Action: 'start', Actor: { ID: id(n), Attributes: { image: 'busybox', name: `c${n}` } }, scope: 'local', time: Number(base) + n, timeNano: 0 }).replace('"timeNano":0', `"timeNano":${nanoOf(n)}`)}\n`

/** A small Docker-like upstream: `GET /events` streams what `events` holds, the rest answers as each test says. */
async function upstream(routes: (path: string, res: ServerResponse) => boolean, events: string[] = []): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/events?')) {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write(events.join(''))
      return
    }
    if (!routes(req.url ?? '', res)) res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"page not found"}\n')
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `tcp://127.0.0.1:${(server.address() as { port: number }).port}`
  return { url, server, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) }
}

describe('dockside record, robust', () => {
  it('an upstream that is down: a clear 502 to the client and in the log, and the file is still written', async () => {
    const free = createServer()
    await new Promise<void>((r) => free.listen(0, '127.0.0.1', r))
    const port = (free.address() as { port: number }).port
    await new Promise((r) => free.close(r))
    const log: string[] = []
    const out = join(dir, 'down.yaml')
    const rec = await record({ upstream: `tcp://127.0.0.1:${port}`, out, log: (l) => log.push(l) })
    const res = await fetch(`${rec.url}/v1.41/containers/json`)
    expect(res.status).toBe(502)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect((await res.json()).message).toBe(`dockside record: cannot reach the upstream tcp://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`)
    expect(log.join('\n')).toContain('cannot follow the upstream')
    expect(log.join('\n')).toContain('ECONNREFUSED')
    await rec.stop()
    expect(parse(readFileSync(out, 'utf8'))['x-recording'].upstream).toBe(`tcp://127.0.0.1:${port}`)
    await expect(loadScenario(out)).resolves.toBeDefined()
  })

  it('an upstream that drops a push mid-stream: the client gets an error line, the log says so, the rest is still recorded', async () => {
    const up = await upstream((path, res) => {
      if (!path.includes('/push')) return false
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{"status":"The push refers to repository [127.0.0.1:5000/app]"}\r\n{"status":"Preparing","progressDetail":{},"id":"0123456789ab"}\r\n')
      setImmediate(() => res.socket?.destroy())
      return true
    })
    const log: string[] = []
    const out = join(dir, 'dropped.json')
    const rec = await record({ upstream: up.url, out, log: (l) => log.push(l) })
    const body = await fetch(`${rec.url}/v1.41/images/127.0.0.1:5000/app/push?tag=1.0`, { method: 'POST' }).then((r) => r.text())
    const lines = body.trim().split('\r\n').map((l) => JSON.parse(l))
    expect(lines.at(-1).error).toMatch(/^dockside record: the upstream tcp:\/\/127\.0\.0\.1:\d+ closed the connection mid-stream/)
    expect(lines.at(-1).errorDetail.message).toBe(lines.at(-1).error)
    await rec.stop()
    expect(log.join('\n')).toMatch(/error {3}the upstream cut POST \/v1\.41\/images\/127\.0\.0\.1:5000\/app\/push\?tag=1\.0 short/)
    const written = JSON.parse(readFileSync(out, 'utf8'))
    expect(written.registries).toEqual([{ host: '127.0.0.1:5000' }])
    expect(written['x-recording'].notes).toEqual(['the upstream cut the push of 127.0.0.1:5000/app:1.0 short: no outcome recorded for it'])
    await up.close()
  })

  it('--max-events: the first N events in order, and a note of how many were dropped', async () => {
    const events = [1, 2, 3, 4, 5].map(startLine)
    const list = [1, 2, 3, 4, 5].map((n) => ({ Id: id(n), Names: [`/c${n}`], Image: 'busybox', Labels: {}, State: 'running' }))
    const up = await upstream((path, res) => {
      if (!path.startsWith('/v1.41/containers/json')) return false
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(list))
      return true
    }, events)
    const out = join(dir, 'busy.yaml')
    const rec = await record({ upstream: up.url, out, maxEvents: 3 })
    // The follower read the five events before the client lists the containers: each is then one it saw.
    await fetch(`${rec.url}/v1.41/containers/json?all=1`).then((r) => r.text())
    const result = await rec.stop()
    expect(result).toMatchObject({ events: 3, droppedEvents: 2 })
    const written = parse(readFileSync(out, 'utf8'))
    expect(written.timeline.map((s: { start: string }) => s.start)).toEqual(['c1', 'c2', 'c3'])
    expect(written.timeline.map((s: { timeNano: string }) => s.timeNano)).toEqual([1, 2, 3].map((n) => String(nanoOf(n))))
    expect(written['x-recording'].notes).toEqual(['2 start/stop events after the first 3 were dropped (--max-events 3)'])
    // Replayed: the recorded times to the nanosecond.
    const fake = createDockside({ scenario: await loadScenario(out), clock: { mode: 'virtual' } })
    await fake.clock.advance('1m')
    expect(fake.events.events.map((e) => e.timeNano)).toEqual([1, 2, 3].map(nanoOf))
    await fake.close()
    await up.close()
  })
})

describe('dockside record, the command', () => {
  it('prints the URL first, and on SIGTERM writes the file and exits 0', async () => {
    const up = await upstream(() => false)
    const out = join(dir, 'cli.yaml')
    const child = spawn(process.execPath, ['bin/dockside.js', 'record', '--upstream', up.url, '--out', out, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    const first = await new Promise<string>((resolve) =>
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString()
        if (stdout.includes('\n')) resolve(stdout.split('\n')[0])
      }),
    )
    expect(first).toMatch(/^dockside listening on http:\/\/127\.0\.0\.1:\d+ \(recording tcp:\/\/127\.0\.0\.1:\d+ into /)
    const url = /http:\/\/127\.0\.0\.1:\d+/.exec(first)![0]
    expect((await fetch(`${url}/nope`)).status).toBe(404)
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(existsSync(out)).toBe(true)
    expect(stdout).toContain(`dockside wrote ${out}: 0 start/stop events`)
    await up.close()
  })

  it('POST /_dockside/record/stop writes the file before it answers, then the command exits 0', async () => {
    const up = await upstream(() => false)
    const out = join(dir, 'stop.json')
    const child = spawn(process.execPath, ['bin/dockside.js', 'record', '--upstream', up.url, '--out', out, '--port', '0', '--quiet'], { stdio: ['ignore', 'pipe', 'pipe'] })
    const first = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString())))
    const url = /http:\/\/127\.0\.0\.1:\d+/.exec(first)![0]
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
    const answer = await fetch(`${url}/_dockside/record/stop`, { method: 'POST' }).then((r) => r.json())
    expect(answer).toEqual({ file: out, events: 0, droppedEvents: 0 })
    expect(JSON.parse(readFileSync(out, 'utf8'))['x-recording'].upstream).toBe(up.url)
    expect(await exited).toBe(0)
    await up.close()
  })

  it('refuses a missing --upstream or --out, and a bad one, with exit 2', async () => {
    const run = (args: string[]) => new Promise<{ code: number; err: string }>((r) => execFile(process.execPath, ['bin/dockside.js', 'record', ...args], (e, _o, err) => r({ code: e ? ((e as { code?: number }).code ?? 1) : 0, err })))
    expect(await run(['--out', 'x.yaml'])).toMatchObject({ code: 2, err: expect.stringContaining('record needs --upstream') })
    expect(await run(['--upstream', 'unix:///var/run/docker.sock'])).toMatchObject({ code: 2, err: expect.stringContaining('record needs --out FILE') })
    expect(await run(['--upstream', 'ftp://x', '--out', 'x.yaml'])).toMatchObject({ code: 2, err: expect.stringContaining('Invalid upstream "ftp://x"') })
  })
})

describe('a replayed recording under --clock auto', () => {
  it('plays a day of recorded events in milliseconds for a client that waits on until', async () => {
    const start = Date.UTC(2026, 0, 1)
    const nano = (ms: number) => String(BigInt(start + ms) * 1_000_000n + 7n)
    const hour = 3_600_000
    const timeline = Array.from({ length: 24 }, (_, h) => [
      { at: h * hour, start: 'web', timeNano: nano(h * hour) },
      { at: h * hour + 60_000, stop: 'web', exitCode: 137, timeNano: nano(h * hour + 60_000) },
    ]).flat()
    const fake = createDockside({ scenario: { clock: { start }, containers: [{ id: id(7), name: 'web', image: 'busybox' }], timeline }, clock: { mode: 'auto' } })
    const server = await fake.listen({ port: 0 })
    const began = performance.now()
    const body = await fetch(`${server.url}/events?since=${start / 1000}&until=${start / 1000 + 86_400}`).then((r) => r.text())
    const took = performance.now() - began
    const lines = body.trim().split('\n').map((l) => JSON.parse(l))
    expect(lines).toHaveLength(48)
    expect(lines.at(-1).timeNano).toBe(Number(nano(23 * hour + 60_000)))
    expect(took).toBeLessThan(2000)
    await fake.close()
  })
})

describe('a replayed recording under --clock real', () => {
  it('shows a container Created until its recorded start comes round, then running (docs/recording.md)', async () => {
    const start = Date.UTC(2026, 0, 1)
    const timeline = [{ at: 300, start: 'web', timeNano: String(BigInt(start + 300) * 1_000_000n + 7n) }]
    const fake = createDockside({ scenario: { clock: { start }, containers: [{ id: id(8), name: 'web', image: 'busybox' }], timeline }, clock: { mode: 'real' } })
    try {
      const server = await fake.listen({ port: 0 })
      const ps = async () => ((await (await fetch(`${server.url}/containers/json?all=1`)).json()) as { Names: string[]; State: string; Status: string }[]).map((c) => [c.Names[0], c.State, c.Status])
      expect(await ps()).toEqual([['/web', 'created', 'Created']])
      // The recorded start, awaited as a client would: the first line of the events stream.
      const events = await fetch(`${server.url}/events?since=${start / 1000}&filters=${encodeURIComponent('{"event":["start"]}')}`)
      const reader = events.body!.getReader()
      const first = JSON.parse(new TextDecoder().decode((await reader.read()).value).split('\n')[0]) as { Action: string; timeNano: number }
      await reader.cancel()
      expect([first.Action, first.timeNano]).toEqual(['start', Number(timeline[0].timeNano)])
      expect(await ps()).toEqual([['/web', 'running', expect.stringMatching(/^Up /)]])
    } finally {
      await fake.close()
    }
  })
})
