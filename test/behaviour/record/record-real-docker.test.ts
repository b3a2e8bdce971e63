// Issue 31: dockside record against a real daemon and registries, then the replay of its file compared with what the
// docker CLI, dockerode and websocket clients saw through the recorder.
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Docker from 'dockerode'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'
import { record, type Recorder } from '../../../src/record/index'
import { loadScenario } from '../../../src/scenario/load'
import { skipUnless } from '../../clients/support/clients'
import { realDockerMissing, startRealDocker, type RealDocker } from '../../support/real-docker'

const missing = realDockerMissing()
const skip = skipUnless(missing === undefined, 'a real Docker daemon and registries', missing ?? '')

type Run = { code: number; out: string; err: string }
const dir = mkdtempSync(join(tmpdir(), 'dockside-record-'))
/** The docker CLI against a host, with a config folder of its own (no credentials of the machine's). */
const docker = (url: string, args: string[]) =>
  new Promise<Run>((resolve) =>
    execFile('docker', ['-H', url.replace(/^http:/, 'tcp:'), ...args], { env: { ...process.env, DOCKER_CONFIG: dir, DOCKER_API_VERSION: '1.41' } }, (e, out, err) => resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, out, err })),
  )

/** Frames a websocket receives, from its open on. */
async function frames(url: string): Promise<{ got: string[]; close(): void }> {
  const ws = new WebSocket(url)
  const got: string[] = []
  ws.on('message', (d) => got.push(d.toString()))
  await new Promise((r, j) => ws.once('open', r).once('error', j))
  return { got, close: () => ws.close() }
}
const FILTERS = ['', `?filters=${encodeURIComponent('{"label":["app=web"]}')}`, '?filters={"event":{"stop":true}}', `?filters=${encodeURIComponent('{"container":["job"],"event":["start"]}')}`]

/** `docker events` lines as the service reports them: start and stop only, a die being the stop (docs/recording.md). */
function serviceLines(out: string): { time: string; action: string; id: string; attrs: Record<string, string> }[] {
  const lines: { time: string; action: string; id: string; attrs: Record<string, string> }[] = []
  const died = new Set<string>()
  for (const l of out.trim().split('\n')) {
    const m = /^(\S+) container (start|die|stop) ([0-9a-f]{64}) \((.*)\)$/.exec(l)
    if (!m) continue
    const attrs = Object.fromEntries(m[4].split(', ').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]))
    if (m[2] === 'stop' && died.delete(m[3])) continue
    if (m[2] === 'die') died.add(m[3])
    // The service's own attributes: exitCode on a start too, the instance type (s4 unless labelled).
    lines.push({ time: m[1], action: m[2] === 'die' ? 'stop' : m[2], id: m[3], attrs: { exitCode: '0', sh_hyper_instancetype: 's4', ...attrs } })
  }
  return lines
}

/** Push output as the CLI prints it, one line a status (the progress bars a terminal would show are not printed). */
const pushKinds = (r: Run) => [...r.out.trim().split('\n'), ...(r.err.trim() ? [`stderr: ${r.err.trim()}`] : [])].filter((l) => !/: Pushing/.test(l))

describe.skipIf(skip)('dockside record against dockerd 20.10 and distribution 2.8, replayed', () => {
  let real: RealDocker
  let rec: Recorder
  const file = join(dir, 'session.yaml')
  const through: Record<string, unknown> = {}
  const recorderFrames: string[][] = []
  let since = ''
  let until = ''

  beforeAll(async () => {
    real = await startRealDocker()
    const log: string[] = []
    rec = await record({ upstream: real.host, out: file, log: (l) => log.push(l) })
    const sockets = await Promise.all(FILTERS.map((f) => frames(`${rec.wsUrl}/events/ws${f}`)))
    since = (Date.now() / 1000).toFixed(3)
    const h = rec.url
    expect((await docker(h, ['run', '-d', '--name', 'web', '--label', 'app=web', '--label', 'tier=', '--label', 'eq=a=b', '--network', 'none', real.image, 'sleep', '60'])).code).toBe(0)
    expect((await docker(h, ['run', '-d', '--name', 'job', '--label', 'sh_hyper_instancetype=s3', '--network', 'none', real.image, 'sh', '-c', 'exit 3'])).code).toBe(0)
    expect((await docker(h, ['wait', 'job'])).out.trim()).toBe('3')
    expect((await docker(h, ['stop', '-t', '1', 'web'])).code).toBe(0)
    const open = `${real.registry}/rec/app:1.0`
    const authed = `${real.authRegistry.host}/rec/app:1.0`
    await docker(h, ['tag', real.image, open])
    await docker(h, ['tag', real.image, authed])
    through.pushOpen = await docker(h, ['push', open])
    through.pushAuth = await docker(h, ['push', authed])
    // A push with credentials (dockerode): they pass through, and never reach the file.
    const node = new Docker({ host: '127.0.0.1', port: Number(new URL(h).port), version: 'v1.41' })
    await docker(h, ['tag', real.image, `${real.authRegistry.host}/rec/app:2.0`])
    const stream = await node.getImage(`${real.authRegistry.host}/rec/app`).push({ tag: '2.0', authconfig: { username: real.authRegistry.username, password: real.authRegistry.password, serveraddress: real.authRegistry.host } })
    through.pushWithCredentials = await new Promise<unknown[]>((r, j) => node.modem.followProgress(stream, (e, out) => (e ? j(e) : r(out))))
    until = (Date.now() / 1000).toFixed(3)
    through.events = await docker(h, ['events', '--since', since, '--until', until])
    through.ps = await docker(h, ['ps', '-a', '--format', '{{.ID}}|{{.Names}}|{{.Image}}|{{.Labels}}'])
    through.list = (await node.listContainers({ all: true })).map((c) => ({ Id: c.Id, Names: c.Names, Image: c.Image, Labels: c.Labels })).sort((a, b) => (a.Id < b.Id ? -1 : 1))
    // Every frame the session made has arrived once the recorder wrote its file: its websockets close at stop.
    const result = await rec.stop()
    for (const s of sockets) recorderFrames.push(s.got)
    expect(result.events, log.join('\n')).toBe(4)
  }, 120_000)
  afterAll(async () => {
    await rec?.stop()
    await real?.stop()
    rmSync(dir, { recursive: true, force: true })
  }, 60_000)

  /** A replay of the file on the virtual clock, moved past the session's last event. */
  async function replay(mode: 'virtual' | 'auto' = 'virtual'): Promise<{ fake: Dockside; url: string; wsUrl: string; frames: string[][] }> {
    const fake = createDockside({ scenario: await loadScenario(file), clock: { mode } })
    const server = await fake.listen({ port: 0 })
    const sockets = await Promise.all(FILTERS.map((f) => frames(`${server.wsUrl}/events/ws${f}`)))
    if (mode === 'virtual') await fake.clock.advance(Math.ceil(Number(until) * 1000 - fake.clock.startedAt) + 1000)
    return { fake, url: server.url, wsUrl: server.wsUrl, frames: sockets.map((s) => s.got) }
  }

  it('writes a scenario dockside validate accepts, with the containers, images, registries and events seen', async () => {
    const v = await new Promise<Run>((resolve) => execFile(process.execPath, ['bin/dockside.js', 'validate', file], (e, out, err) => resolve({ code: e ? 1 : 0, out, err })))
    expect(v).toEqual({ code: 0, out: `${file}: valid scenario\n`, err: '' })
    const s = await loadScenario(file)
    expect(s.containers?.map((c) => [c.name, c.image, c.labels])).toEqual([
      ['web', real.image, { app: 'web', eq: 'a=b', tier: '' }],
      ['job', real.image, { sh_hyper_instancetype: 's3' }],
    ])
    expect(s.timeline?.map((t) => [t.start ?? t.stop, t.exitCode])).toEqual([['web', undefined], ['job', undefined], ['job', 3], ['web', 137]])
    expect(s.registries).toEqual([
      { host: real.authRegistry.host, username: '<USERNAME>', password: '<PASSWORD>' },
      { host: real.registry },
    ].sort((a, b) => (a.host < b.host ? -1 : 1)))
  })

  it('keeps no secret: no credential, X-Registry-Auth or Authorization value reaches the file', () => {
    const text = readFileSync(file, 'utf8')
    const { username, password } = real.authRegistry
    expect(text).not.toContain(password)
    expect(text).not.toContain(Buffer.from(JSON.stringify({ username, password })).toString('base64').slice(0, 16))
    expect(text).not.toMatch(/x-registry-auth|authorization|identitytoken|registrytoken/i)
    expect(text).toContain('<PASSWORD>')
  })

  it('replays docker events --since --until: the same start/stop lines (ids, names, attributes, times) as through the recorder', async () => {
    const { fake, url } = await replay()
    try {
      const replayed = await docker(url, ['events', '--since', since, '--until', until])
      expect(replayed.code).toBe(0)
      const recorded = serviceLines((through.events as Run).out)
      expect(recorded.map((l) => l.action)).toEqual(['start', 'start', 'stop', 'stop'])
      expect(serviceLines(replayed.out)).toEqual(recorded)
      // With a filter: the same selection on both.
      const filtered = await docker(url, ['events', '--since', since, '--until', until, '--filter', 'label=app=web'])
      expect(serviceLines(filtered.out)).toEqual(recorded.filter((l) => l.attrs.app === 'web'))
    } finally {
      await fake.close()
    }
  })

  it('replays the events websocket: the same frames, byte for byte, with and without filters', async () => {
    const { fake, frames: replayed } = await replay()
    try {
      expect(recorderFrames[0]).toHaveLength(4)
      expect(recorderFrames[1].map((f) => JSON.parse(f).Actor.Attributes.name)).toEqual(['web', 'web'])
      expect(recorderFrames[2].map((f) => JSON.parse(f).Actor.Attributes.exitCode)).toEqual(['3', '137'])
      expect(recorderFrames[3]).toHaveLength(1)
      expect(replayed).toEqual(recorderFrames)
    } finally {
      await fake.close()
    }
  })

  it('replays docker ps -a and dockerode listContainers: the same ids, names, images and labels', async () => {
    const { fake, url } = await replay()
    try {
      // The service's containers carry their instance type as a label (s4 unless given): the one difference.
      const typed = (labels: string[]) => (labels.some((l) => l.startsWith('sh_hyper_instancetype=')) ? labels : [...labels, 'sh_hyper_instancetype=s4'])
      const lines = (r: Run) => r.out.trim().split('\n').map((l) => l.split('|').map((p, i) => (i === 3 ? typed(p.split(',').filter(Boolean)).sort().join(',') : p)).join('|')).sort()
      expect(lines(await docker(url, ['ps', '-a', '--format', '{{.ID}}|{{.Names}}|{{.Image}}|{{.Labels}}']))).toEqual(lines(through.ps as Run))
      const node = new Docker({ host: '127.0.0.1', port: Number(new URL(url).port), version: 'v1.41' })
      const list = (await node.listContainers({ all: true })).map((c) => ({ Id: c.Id, Names: c.Names, Image: c.Image, Labels: c.Labels })).sort((a, b) => (a.Id < b.Id ? -1 : 1))
      expect(list).toEqual((through.list as { Labels: Record<string, string> }[]).map((c) => ({ ...c, Labels: { sh_hyper_instancetype: 's4', ...c.Labels } })))
    } finally {
      await fake.close()
    }
  })

  it('replays a push of a recorded tag: the same lines and digest; the refused one the same error', async () => {
    const { fake, url } = await replay('auto')
    try {
      const open = await docker(url, ['push', `${real.registry}/rec/app:1.0`])
      expect(pushKinds(open)).toEqual(pushKinds(through.pushOpen as Run))
      expect(open.out).toMatch(/1\.0: digest: sha256:[0-9a-f]{64} size: \d+/)
      const authed = await docker(url, ['push', `${real.authRegistry.host}/rec/app:1.0`])
      expect(pushKinds(authed)).toEqual(pushKinds(through.pushAuth as Run))
      expect(authed.err).toContain('no basic auth credentials')
    } finally {
      await fake.close()
    }
  })

  it('replays the same bytes twice', async () => {
    const bodies = async () => {
      const r = await replay()
      try {
        const events = await fetch(`${r.url}/events?since=${since}&until=${until}`).then((x) => x.text())
        return { events, frames: r.frames }
      } finally {
        await r.fake.close()
      }
    }
    const [a, b] = [await bodies(), await bodies()]
    expect(a.events.split('\n').length).toBe(5)
    expect(b).toEqual(a)
  })
})
