import { spawn, type ChildProcess } from 'node:child_process'
import { Worker } from 'node:worker_threads'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createDockside } from 'dockside'
import { hasCommand, run, skipUnless } from '../../clients/support/clients'
import { dockerCli } from '../../clients/support/docker-cli'
import { ensureBuilt, root, cliEntry } from '../../support/cli'

/** `dockside serve` as a CI sidecar runs it; resolves with its base URL. */
async function serve(...args: string[]): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
  const child = spawn(process.execPath, [cliEntry, 'serve', '--port', '0', '--quiet', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) resolve(m[1])
    })
    child.once('close', (code) => reject(new Error(`dockside serve exited ${code} before listening:\n${out}\n${err}`)))
  })
  return { url, child, stderr: () => err }
}

const post = (url: string, body?: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) })

// One CI worker, as a thread: creates its own fake on the shared sidecar, waits until every worker has one, then uses it
// with plain fetch and the global WebSocket (events, a push, verification over the admin API), then ends it.
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads')
const next = () => new Promise((resolve) => parentPort.once('message', resolve))
const post = (url, body) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
;(async () => {
  const { parent, index } = workerData
  const created = await post(parent + '/_dockside/fakes', { seed: 100 + index })
  const me = await created.json()
  parentPort.postMessage({ stage: 'created', status: created.status, me })
  await next() // every worker has its fake: from here on all eight run at once
  const ws = new WebSocket(me.wsUrl + '/events/ws?client=worker-' + index)
  const frames = []
  let wake
  ws.onmessage = (e) => { frames.push(JSON.parse(e.data)); wake?.() }
  await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject })
  const name = 'job-' + index
  await post(me.url + '/_dockside/containers', { name, image: 'busybox', start: true })
  while (!frames.some((f) => f.Action === 'start' && f.Actor.Attributes.name === name)) await new Promise((r) => (wake = r))
  const push = await post(me.url + '/images/localhost:5000/team/app/push?tag=1.0')
  const lastLine = (await push.text()).trim().split('\\n').at(-1)
  const names = (await (await fetch(me.url + '/containers/json?all=1')).json()).map((c) => c.Names[0])
  const verified = await (await fetch(me.url + '/_dockside/requests?method=POST&path=/images/*/push&client=' + name)).json()
  const requests = await (await fetch(me.url + '/_dockside/requests?path=/images/*/push')).json()
  ws.close()
  parentPort.postMessage({ stage: 'used', names, events: frames.map((f) => f.Action + ' ' + f.Actor.Attributes.name), pushed: JSON.parse(lastLine).aux?.Tag, pushes: requests.count, verifiedAsOtherClient: verified.count })
  await next() // the test looks at the fleet while all eight are live
  const removed = await fetch(parent + '/_dockside/fakes/' + me.id, { method: 'DELETE' })
  parentPort.postMessage({ stage: 'removed', status: removed.status })
})().catch((error) => parentPort.postMessage({ stage: 'error', message: String(error && error.stack || error) }))
`

class Pool {
  readonly workers: Worker[]
  readonly inbox: { stage: string; [k: string]: unknown }[][]
  #waiters: (() => void)[] = []
  constructor(size: number, parent: string) {
    this.inbox = Array.from({ length: size }, () => [])
    this.workers = Array.from({ length: size }, (_, index) => {
      const w = new Worker(WORKER, { eval: true, workerData: { parent, index } })
      w.on('message', (m: { stage: string }) => {
        this.inbox[index].push(m)
        this.#waiters.splice(0).forEach((f) => f())
      })
      w.on('error', (e) => {
        this.inbox[index].push({ stage: 'error', message: String(e) })
        this.#waiters.splice(0).forEach((f) => f())
      })
      return w
    })
  }
  /** Every worker's message of `stage` (fails at once on a worker's error). */
  async all(stage: string) {
    for (;;) {
      const errors = this.inbox.flat().filter((m) => m.stage === 'error')
      if (errors.length) throw new Error(errors.map((e) => e.message).join('\n'))
      const got = this.inbox.map((box) => box.find((m) => m.stage === stage))
      if (got.every(Boolean)) return got as { stage: string; [k: string]: unknown }[]
      await new Promise<void>((r) => this.#waiters.push(r))
    }
  }
  release() {
    for (const w of this.workers) w.postMessage('go')
  }
  terminate() {
    return Promise.all(this.workers.map((w) => w.terminate()))
  }
}

describe('a fleet on one shared `dockside serve`', () => {
  let sidecar: Awaited<ReturnType<typeof serve>>
  beforeAll(async () => {
    ensureBuilt()
    sidecar = await serve('--scenario', 'demo', '--clock', 'auto', '--max-fakes', '8')
  }, 120_000)
  afterAll(() => void sidecar?.child.kill('SIGKILL'))
  // A failed test leaves no fakes behind for the next one.
  afterEach(async () => {
    for (const m of (await (await fetch(`${sidecar.url}/_dockside/fakes`)).json()) as { id: string }[]) await fetch(`${sidecar.url}/_dockside/fakes/${m.id}`, { method: 'DELETE' })
  })

  it('a worker pool of 8 each gets its own fake, used at once: own state, events, clock, push and request log', async () => {
    const pool = new Pool(8, sidecar.url)
    try {
      const created = await pool.all('created')
      const members = created.map((c) => c.me as { id: string; url: string; wsUrl: string; port: number; seed: number; clock: string })
      expect(created.map((c) => c.status)).toEqual(Array(8).fill(201))
      expect(new Set(members.map((m) => m.port)).size).toBe(8)
      members.forEach((m, i) => {
        expect(m.url).toBe(`http://127.0.0.1:${m.port}`)
        expect(m.wsUrl).toBe(`ws://127.0.0.1:${m.port}`)
        expect(m).toMatchObject({ seed: 100 + i, clock: 'auto' })
      })
      pool.release()
      const used = await pool.all('used')
      used.forEach((u, i) => {
        // The demo scenario's containers plus this worker's job, and nobody else's.
        expect((u.names as string[]).sort()).toEqual(['/api', `/job-${i}`, '/web', '/worker'])
        // The demo's own timeline runs on each fake's clock too; no other worker's job ever shows up.
        expect((u.events as string[]).filter((e) => e.includes('job-'))).toEqual([`start job-${i}`])
        expect(u.pushed).toBe('1.0')
        expect(u.pushes).toBe(1)
        expect(u.verifiedAsOtherClient).toBe(0)
      })
      // While all eight live: listed on the sidecar, and a ninth is refused with the limit named.
      const listed = (await (await fetch(`${sidecar.url}/_dockside/fakes`)).json()) as { id: string }[]
      expect(listed.map((m) => m.id).sort()).toEqual(members.map((m) => m.id).sort())
      const ninth = await post(`${sidecar.url}/_dockside/fakes`)
      expect(ninth.status).toBe(409)
      expect(((await ninth.json()) as { message: string }).message).toMatch(/^The fleet is full: 8 fakes live \(the limit, --max-fakes/)
      pool.release()
      expect((await pool.all('removed')).map((r) => r.status)).toEqual(Array(8).fill(200))
      expect(await (await fetch(`${sidecar.url}/_dockside/fakes`)).json()).toEqual([])
      // An ended fake's port no longer answers.
      await expect(fetch(`${members[0].url}/_ping`)).rejects.toThrow()
    } finally {
      await pool.terminate()
    }
  })

  it.skipIf(skipUnless(hasCommand('docker'), 'the docker CLI', 'a docker client on PATH'))('the docker CLI works against a fleet member unchanged (docker -H tcp://127.0.0.1:PORT ps)', async () => {
    const created = await post(`${sidecar.url}/_dockside/fakes`, { scenario: { seed: 3, containers: [{ name: 'alpha', image: 'nginx:1.27', running: true }, { name: 'beta', image: 'redis:7' }] } })
    expect(created.status).toBe(201)
    const member = (await created.json()) as { id: string; port: number; seed: number }
    expect(member.seed).toBe(3)
    using cli = dockerCli(sidecar.url)
    const ps = await run('docker', ['-H', `tcp://127.0.0.1:${member.port}`, 'ps', '--format', '{{.Names}} {{.Image}} {{.State}}'], { env: { ...cli.env, DOCKER_HOST: undefined } })
    expect(ps.stderr).toBe('')
    expect(ps.stdout.trim()).toBe('alpha nginx:1.27 running')
    const all = await run('docker', ['-H', `tcp://127.0.0.1:${member.port}`, 'ps', '-a', '--format', '{{.Names}}'], { env: { ...cli.env, DOCKER_HOST: undefined } })
    expect(all.stdout.trim().split('\n').sort()).toEqual(['alpha', 'beta'])
    // The sidecar itself still has only the demo's containers.
    expect(((await (await fetch(`${sidecar.url}/containers/json?all=1`)).json()) as { Names: string[] }[]).map((c) => c.Names[0]).sort()).toEqual(['/api', '/web', '/worker'])
    expect((await fetch(`${sidecar.url}/_dockside/fakes/${member.id}`, { method: 'DELETE' })).status).toBe(200)
  })

  it('bad bodies and unknown fakes are clear 4xx; each fake has its own clock; a member grows no fleet', async () => {
    const bad = async (body: string, status: number, message: RegExp) => {
      const res = await post(`${sidecar.url}/_dockside/fakes`, body)
      expect(res.status).toBe(status)
      expect(((await res.json()) as { message: string }).message).toMatch(message)
    }
    await bad('{"sed":1}', 400, /^sed: unknown field; allowed: scenario, seed, ttl$/)
    await bad('{"seed":"x"}', 400, /^seed: must be an integer$/)
    await bad('[1]', 400, /^request body: must be a JSON object/)
    await bad('{nope', 400, /not valid JSON \(5 bytes, not shown/)
    await bad('{"scenario":{"containers":[{"name":"x"}]}}', 400, /^\(scenario\): at containers\[0\]: missing required field "image"/)
    expect((await fetch(`${sidecar.url}/_dockside/fakes/fake-999`, { method: 'DELETE' })).status).toBe(404)

    const [a, b] = await Promise.all([1, 2].map(async () => (await (await post(`${sidecar.url}/_dockside/fakes`)).json()) as { id: string; url: string }))
    await post(`${a.url}/_dockside/clock/advance`, { by: '1h' })
    const clock = async (url: string) => ((await (await fetch(`${url}/_dockside/clock`)).json()) as { elapsedMs: number }).elapsedMs
    expect(await clock(a.url)).toBeGreaterThanOrEqual(3_600_000)
    expect(await clock(b.url)).toBeLessThan(3_600_000)
    await post(`${a.url}/_dockside/faults`, { on: 'push', reply: 500 })
    expect((await post(`${a.url}/images/localhost:5000/team/app/push?tag=1.0`)).status).toBe(500)
    expect((await post(`${b.url}/images/localhost:5000/team/app/push?tag=1.0`)).status).toBe(200)
    const nested = await post(`${a.url}/_dockside/fakes`)
    expect(nested.status).toBe(404)
    expect(((await nested.json()) as { message: string }).message).toMatch(/^This fake serves no fleet/)
    for (const m of [a, b]) expect((await fetch(`${sidecar.url}/_dockside/fakes/${m.id}`, { method: 'DELETE' })).status).toBe(200)
    expect(sidecar.stderr()).toBe('')
  })
})

describe('a fleet in process', () => {
  it('dockside serve logs each member it creates and ends, with its port', async () => {
    const { formatEntry } = await import('../../../src/cli/format')
    const line = formatEntry({ seq: 1, time: Date.UTC(2026, 0, 1), type: 'fleet.create', id: 'fake-3', port: 40123, seed: 7 })
    expect(line).toBe('2026-01-01T00:00:00.000Z fleet   fake-3 listening on port 40123 (seed 7)')
    expect(formatEntry({ seq: 2, time: Date.UTC(2026, 0, 1), type: 'fleet.remove', id: 'fake-3' })).toBe('2026-01-01T00:00:00.000Z fleet   fake-3 ended')
  })

  it('createDockside({ fleet }) serves one; closing the fake ends every member', async () => {
    const fake = createDockside({ fleet: { maxFakes: 2 } })
    const server = await fake.listen({ port: 0 })
    const member = (await (await post(`${server.url}/_dockside/fakes`, { seed: 9 })).json()) as { id: string; url: string; seed: number; clock: string }
    expect(member).toMatchObject({ id: 'fake-1', seed: 9, clock: 'virtual' })
    expect(await (await fetch(`${member.url}/_ping`)).text()).toBe('OK')
    expect(fake.journal.ofType('fleet.create')).toMatchObject([{ id: 'fake-1', seed: 9 }])
    await fake.close()
    await expect(fetch(`${member.url}/_ping`)).rejects.toThrow()
    expect(() => createDockside({ fleet: { maxFakes: 0 } })).toThrow('fleet.maxFakes: must be an integer of 1 or more')
  })

  it('a fake without a fleet says how to get one', async () => {
    await using fake = createDockside()
    const server = await fake.listen({ port: 0 })
    const res = await post(`${server.url}/_dockside/fakes`)
    expect(res.status).toBe(404)
    expect(((await res.json()) as { message: string }).message).toMatch(/--max-fakes N, 0 turns it off\), and so does createDockside\(\{ fleet: \{ maxFakes: 8 \} \}\)/)
  })
})
