// Regression: answers that differed from a standalone Docker Engine v28 (API 1.47):
// - `GET /images/json` counted containers in `Containers`; the daemon leaves it -1 unless `system df` asks.
// - `GET /info` had no `Swarm` (`docker info` printed an empty "Swarm:" line, `{{.Swarm.LocalNodeState}}` nothing)
//   and `/_ping` no `Swarm: inactive` header.
// - An id prefix two containers share was a 404; the daemon answers 400 "multiple IDs found with provided prefix".
// - `POST /images/nginx/tag?repo=localhost:5000/d@sha256:...` made `localhost:5000/d:latest`; the daemon refuses a
//   digest in `repo` ("cannot import digest reference").
// - `filters=null` was a 400 on `GET /containers/json`; the daemon's filters.FromJSON reads JSON null as no filter.
// - `docker images --filter until=1h` (or an RFC 3339 date) was a 400; the daemon reads `until` with
//   timetypes.GetTimestamp: a Go duration before now, an RFC 3339 date or time, or Unix seconds.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer } from '../../../src/index'
import type { Container } from '../../../src/service/containers'
import { hasCommand, skipUnless } from '../../clients/support/clients'
import { dockerCli } from '../../clients/support/docker-cli'

const skip = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm)')

let fake: Dockside
let server: DocksideServer
beforeEach(async () => {
  // A virtual clock: it moves only when told, so `until` cases a fraction of a second apart stay exact.
  fake = createDockside({ clock: 'virtual', seed: 24 })
  fake.images.add('nginx', { layers: 1 })
  fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 1 })
  fake.containers.create({ name: 'web', image: 'nginx', labels: { app: 'web' } }).start()
  fake.containers.create({ name: 'db', image: 'nginx' })
  server = await fake.listen({ port: 0 })
})
afterEach(() => fake.close())

const get = async (path: string) => {
  const res = await fetch(server.url + path)
  return { status: res.status, body: (await res.json()) as unknown }
}

/** Containers until two ids share a first hex digit (17 ids over 16 digits: always); returns that digit and them. */
function sharedPrefix(): { prefix: string; shared: Container[] } {
  for (let i = 0; ; i++) {
    const all = fake.containers.list()
    const prefix = all.map((c) => c.id[0]).find((d, j, ds) => ds.indexOf(d) !== j)
    if (prefix) return { prefix, shared: all.filter((c) => c.id.startsWith(prefix)) }
    fake.containers.create({ name: `x${i}`, image: 'nginx' })
  }
}

describe.skipIf(skip)('docker CLI', () => {
  it('bug: `docker info` printed an empty Swarm line; a standalone daemon says inactive', async () => {
    using cli = dockerCli(server.url)
    const state = await cli.docker(['info', '--format', '{{.Swarm.LocalNodeState}} {{.Swarm.ControlAvailable}}'])
    expect([state.code, state.stdout.trim()]).toEqual([0, 'inactive false'])
    const info = await cli.docker(['info'])
    expect(info.stdout).toMatch(/^ Swarm: inactive$/m)
  })

  it('bug: `docker images --filter until=1h` (and an RFC 3339 time) was a 400', async () => {
    using cli = dockerCli(server.url)
    const images = async (until: string) => {
      const r = await cli.docker(['images', '--format', '{{.Repository}}:{{.Tag}}', '--filter', `until=${until}`])
      expect([r.code, r.stderr], until).toEqual([0, ''])
      return r.stdout.trim().split('\n').filter(Boolean).sort()
    }
    const all = ['localhost:5000/team/app:1.0', 'nginx:latest']
    // The images were made at the clock's start, 2026-01-01T00:00:00Z; now is two hours later.
    await fake.clock.advance('2h')
    expect(await images('1h')).toEqual(all)
    // A duration's time is cut to the whole second (the daemon formats it with Unix()): 00:00:00.5 is 00:00:00.
    expect(await images('1h59m59s')).toEqual(all)
    expect(await images('1h59m59.5s')).toEqual([])
    expect(await images('3h')).toEqual([])
    expect(await images('2026-01-01T00:00:01Z')).toEqual(all)
    expect(await images('2026-01-01T00:00:00Z')).toEqual([])
    expect(await images('2026-01-01T00:00:00.5+00:00')).toEqual(all)
    expect(await images('2026-01-01T01:00:00+01:00')).toEqual([])
    expect(await images('2026-01-02')).toEqual(all)
    expect(await images('2026-01-01T00:01')).toEqual(all)
    expect(await images(String(Date.UTC(2026, 0, 1) / 1000 + 1))).toEqual(all)
    const bad = await cli.docker(['images', '--filter', 'until=soon'])
    expect([bad.code, bad.stderr.trim()]).toEqual([1, expect.stringMatching(/^Error response from daemon: failed to parse value as time or duration: "soon": "until" takes /)])
  })

  it('bug: an ambiguous id prefix was "No such container"; the daemon answers 400 "multiple IDs found with provided prefix"', async () => {
    const { prefix } = sharedPrefix()
    using cli = dockerCli(server.url)
    const inspect = await cli.docker(['inspect', '--type', 'container', prefix])
    expect(inspect.code).toBe(1)
    expect(inspect.stderr).toBe(`Error response from daemon: multiple IDs found with provided prefix: ${prefix}\n`)
    const start = await cli.docker(['start', prefix])
    expect(start.stderr).toBe(`Error response from daemon: multiple IDs found with provided prefix: ${prefix}\nError: failed to start containers: ${prefix}\n`)
  })
})

describe('over HTTP', () => {
  it('bug: GET /images/json counted containers; Containers is -1 as the daemon leaves it', async () => {
    const { body } = await get('/v1.47/images/json')
    expect((body as { Containers: number }[]).map((i) => i.Containers)).toEqual([-1, -1])
  })

  it('bug: GET /info had no Swarm and /_ping no Swarm header', async () => {
    const { body } = await get('/v1.47/info')
    expect((body as { Swarm: unknown }).Swarm).toEqual({ NodeID: '', NodeAddr: '', LocalNodeState: 'inactive', ControlAvailable: false, Error: '', RemoteManagers: null })
    for (const method of ['GET', 'HEAD']) expect((await fetch(`${server.url}/_ping`, { method })).headers.get('swarm'), method).toBe('inactive')
  })

  it('bug: an ambiguous id prefix was a 404 on inspect, start and stop; a unique one and a name still resolve', async () => {
    const { prefix, shared } = sharedPrefix()
    const message = `multiple IDs found with provided prefix: ${prefix}. It starts the ids of ${shared.map((c) => c.name).join(', ')}: give more of the id, or the container's name.`
    for (const [method, path] of [['GET', 'json'], ['POST', 'start'], ['POST', 'stop']]) {
      const res = await fetch(`${server.url}/v1.47/containers/${prefix}/${path}`, { method })
      // The daemon's text in the body; which containers share the prefix in the hint.
      expect([res.status, res.headers.get('content-type'), ((await res.json()) as { message: string }).message, res.headers.get('x-dockside-hint')], path).toEqual([400, 'application/json', `multiple IDs found with provided prefix: ${prefix}`, message])
      // The 20.10 daemon's truncindex error (API 1.41): capital M, a 500.
      const old = await fetch(`${server.url}/v1.41/containers/${prefix}/${path}`, { method })
      expect([old.status, ((await old.json()) as { message: string }).message], path).toEqual([500, `Multiple IDs found with provided prefix: ${prefix}`])
    }
    expect(fake.containers.list().filter((c) => c.state === 'running').map((c) => c.name)).toEqual(['web'])
    expect((await get(`/containers/${shared[0].id.slice(0, 12)}/json`)).status).toBe(200)
    expect((await get('/containers/nope/json')).status).toBe(404)
  })

  it('bug: POST /images/{name}/tag with a digest in repo made a :latest tag; the daemon refuses it, before looking up the image', async () => {
    const digest = `sha256:${'a'.repeat(64)}`
    const before = fake.images.list().length
    for (const [query, message] of [
      [`repo=localhost:5000/d%40${digest}`, 'cannot import digest reference'],
      [`repo=localhost:5000/d%40${digest}&tag=1`, 'cannot import digest reference'],
      ['repo=sha256&tag=1', 'refusing to create an ambiguous tag using digest algorithm as name'],
    ]) {
      for (const source of ['nginx', 'nope']) {
        const res = await fetch(`${server.url}/v1.47/images/${source}/tag?${query}`, { method: 'POST' })
        expect(res.status, query).toBe(400)
        // The daemon's text, byte for byte; the fake's help rides in X-Dockside-Hint.
        expect(((await res.json()) as { message: string }).message).toBe(message)
        expect(res.headers.get('x-dockside-hint')).toMatch(new RegExp(`^${message}: `))
      }
    }
    expect(fake.images.list().length).toBe(before)
  })

  it('bug: filters=null was a 400 on GET /containers/json; JSON null is no filter, as on GET /images/json', async () => {
    const all = await get('/containers/json?all=1')
    for (const value of ['null', ' null ']) {
      expect(await get(`/containers/json?all=1&filters=${encodeURIComponent(value)}`)).toEqual(all)
      expect((await get(`/images/json?filters=${encodeURIComponent(value)}`)).status).toBe(200)
    }
    expect((all.body as unknown[]).length).toBe(2)
  })
})
