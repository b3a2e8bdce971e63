// Regression: container answers that differed from a Docker Engine v28 (API 1.47), seen through real clients:
// - `docker inspect -s` (`?size=1`, dockerode's `inspect({ size: true })`) printed `<nil>`: no SizeRw/SizeRootFs.
// - `docker stop -s BOGUS` stopped the container (204); the daemon refuses the signal (400 `invalid signal: BOGUS`)
//   and leaves it running. `?t=abc` was a 204 too (the daemon cannot read it as an integer).
// - `POST /containers/{id}/start` with a body (dockerode's old-style `start({ HostConfig })`) was a 204; since API 1.24
//   the daemon refuses any body over 7 bytes, before it looks the container up.
// - `docker ps --filter since=<short id>` listed containers; the daemon's before/since take a full id or a name
//   (idOrNameFilter: docker/for-linux#258), a short id is a 404.
// - `?limit=0x2` listed two containers; the daemon reads `limit` with strconv.Atoi and refuses it.
// - A name that is another container's full id found the one made first; the daemon's GetContainer tries the full id
//   before names.
// - `No such container` listed every name the fake holds (10,000 containers: a 100 kB message).
// Found by the engine hunt (was test/regressions/engine-hunt-containers.test.ts).
import Docker from 'dockerode'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer } from '../../../../src/index'
import { hasCommand, skipUnless } from '../../../clients/support/clients'
import { dockerCli } from '../../../clients/support/docker-cli'

const skip = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm)')

let fake: Dockside
let server: DocksideServer
let docker: Docker
beforeEach(async () => {
  fake = createDockside({ clock: 'virtual', seed: 31 })
  fake.images.add('nginx', { layers: [1000, 2345] })
  fake.containers.create({ name: 'web', image: 'nginx' }).start()
  fake.containers.create({ name: 'db', image: 'nginx' })
  server = await fake.listen({ port: 0 })
  docker = new Docker({ host: '127.0.0.1', port: server.port, protocol: 'http' })
})
afterEach(() => fake.close())

const post = (path: string, init: RequestInit = {}) => fetch(server.url + path, { method: 'POST', ...init })
const messageOf = async (res: Response) => ((await res.json()) as { message: string }).message

describe.skipIf(skip)('docker CLI', () => {
  it('bug: `docker inspect -s` printed <nil> for SizeRw and SizeRootFs', async () => {
    using cli = dockerCli(server.url)
    const r = await cli.docker(['inspect', '-s', '--format', '{{.SizeRw}} {{.SizeRootFs}}', 'web'])
    expect([r.code, r.stdout.trim(), r.stderr]).toEqual([0, '0 3345', ''])
  })

  it('bug: `docker stop -s BOGUS` stopped the container; the daemon refuses the signal and it keeps running', async () => {
    using cli = dockerCli(server.url)
    const r = await cli.docker(['stop', '-s', 'BOGUS', 'web'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^Error response from daemon: invalid signal: BOGUS/)
    expect(fake.containers.get('web').state).toBe('running')
    // Names with or without SIG, any case, and numbers are signals.
    for (const signal of ['SIGTERM', 'kill', 'RTMIN+3', '9']) {
      fake.containers.get('web').start()
      const ok = await cli.docker(['stop', '-s', signal, 'web'])
      expect([ok.code, ok.stdout.trim()], signal).toEqual([0, 'web'])
    }
  })

  it('bug: `docker ps --filter since=<short id>` listed containers; the daemon wants a full id or a name', async () => {
    using cli = dockerCli(server.url)
    const web = fake.containers.get('web')
    const short = web.id.slice(0, 12)
    const r = await cli.docker(['ps', '-a', '--filter', `since=${short}`])
    expect(r.code).toBe(1)
    // The daemon's words (the CLI runs at the fake's newest API version); the fake's why is in the hint.
    expect(r.stderr).toBe(`Error response from daemon: No such container: ${short}\n`)
    for (const ref of [web.id, 'web', '/web']) {
      const ok = await cli.docker(['ps', '-a', '--filter', `since=${ref}`, '--format', '{{.Names}}'])
      expect([ok.code, ok.stdout.trim()], ref).toEqual([0, 'db'])
    }
  })
})

describe('dockerode and the raw API', () => {
  it('bug: inspect({ size: true }) had no SizeRw/SizeRootFs; without size neither is sent', async () => {
    // dockerode passes options through as the query (or, for start, the body); its types lack these.
    expect(await docker.getContainer('web').inspect({ size: true } as Docker.ContainerInspectOptions)).toMatchObject({ SizeRw: 0, SizeRootFs: 3345 })
    const plain = await docker.getContainer('web').inspect()
    expect('SizeRw' in plain || 'SizeRootFs' in plain).toBe(false)
  })

  it('bug: start with a HostConfig body was a 204; since API 1.24 any body over 7 bytes is a 400', async () => {
    await expect(docker.getContainer('db').start({ HostConfig: { Binds: ['/a:/b'] } } as Docker.ContainerStartOptions)).rejects.toMatchObject({
      statusCode: 400,
      json: { message: expect.stringMatching(/^starting container with non-empty request body was deprecated since API v1\.22 and removed in v1\.24/) },
    })
    // Checked before the lookup, as the daemon does: a missing container with a body is the same 400.
    const missing = await post('/v1.47/containers/nope/start', { body: '{"HostConfig":{}}', headers: { 'content-type': 'application/json' } })
    expect(missing.status).toBe(400)
    expect(fake.containers.get('db').state).toBe('created')
    // `{}` (dockerode's start() with no options) is no body; neither is an empty one; an API 1.23 client may send one.
    expect((await post('/containers/db/start', { body: '{}', headers: { 'content-type': 'application/json' } })).status).toBe(204)
    fake.containers.get('db').stop()
    expect((await post('/v1.23/containers/db/start', { body: '{"HostConfig":{}}', headers: { 'content-type': 'application/json' } })).status).toBe(204)
  })

  it('bug: stop?t=abc was a 204; a timeout must be an integer (checked before the lookup)', async () => {
    // The daemon's strconv.Atoi error, a 500 (postContainersStop returns it unclassed); the fake's help in the hint.
    const res = await post('/containers/web/stop?t=abc')
    expect(res.status).toBe(500)
    expect(await messageOf(res)).toBe('strconv.Atoi: parsing "abc": invalid syntax')
    expect(res.headers.get('x-dockside-hint')).toMatch(/^Invalid "t" "abc": /)
    expect(fake.containers.get('web').state).toBe('running')
    expect((await post('/containers/nope/stop?t=1.5')).status).toBe(500)
    expect((await post('/containers/web/stop?t=-1')).status).toBe(204)
    // A bad signal on a container that is not running: the daemon answers 304 before it reads the signal.
    expect((await post('/containers/web/stop?signal=BOGUS')).status).toBe(304)
    // Before API 1.42 the daemon does not read `signal` at all.
    fake.containers.get('web').start()
    expect((await post('/v1.41/containers/web/stop?signal=BOGUS')).status).toBe(204)
  })

  it('bug: ?limit=0x2 (or 1e1, or 2.0) listed containers; the daemon reads limit as a Go integer', async () => {
    for (const limit of ['0x2', '1e1', '2.0', ' 2']) {
      const res = await fetch(`${server.url}/containers/json?limit=${encodeURIComponent(limit)}`)
      expect(res.status, limit).toBe(500)
      expect(await messageOf(res)).toBe(`strconv.Atoi: parsing ${JSON.stringify(limit)}: invalid syntax`)
    }
    expect((await docker.listContainers({ limit: 1 })).length).toBe(1)
    expect((await (await fetch(`${server.url}/containers/json?limit=%2B2`)).json() as unknown[]).length).toBe(2)
  })

  it('bug: a name that is another container\'s full id found the one made first; the full id wins, as in GetContainer', async () => {
    // The seed draws the same ids again when names are given: the first container of a second fake gets the first
    // id of this one, so a container can be named with the id the next one will get.
    const probe = createDockside({ seed: 77 })
    probe.containers.create({ name: 'one', image: 'nginx' })
    const nextId = probe.containers.create({ name: 'two', image: 'nginx' }).id
    await probe.close()
    const twin = createDockside({ seed: 77 })
    const named = twin.containers.create({ name: nextId, image: 'nginx' })
    const owner = twin.containers.create({ name: 'two', image: 'busybox' })
    expect(owner.id).toBe(nextId)
    expect(twin.containers.find(nextId)).toBe(owner)
    expect(twin.containers.get(named.id)).toBe(named)
    await twin.close()
  })

  it('bug: "No such container" listed every name; it names a few and counts the rest', async () => {
    for (let i = 0; i < 30; i++) fake.containers.create({ name: `c${i}`, image: 'nginx' })
    const res = await post('/containers/nope/stop')
    expect(res.status).toBe(404)
    // The daemon's text in the body; the known names in dockside's hint header.
    expect(await messageOf(res)).toBe('No such container: nope')
    const message = res.headers.get('x-dockside-hint') ?? ''
    expect(message).toMatch(/^No such container: nope\. Known containers: web, db, c0, /)
    expect(message).toContain('and 22 more')
    expect(message.length).toBeLessThan(200)
  })
})

describe('in process (fake.intercept())', () => {
  it('answers the new refusals as the server does: status, Content-Type and body', async () => {
    await using _h = await fake.intercept()
    const cases: [string, RequestInit][] = [
      ['/v1.47/containers/db/start', { method: 'POST', body: '{"HostConfig":{}}', headers: { 'content-type': 'application/json' } }],
      ['/containers/web/stop?signal=NOPE', { method: 'POST' }],
      ['/containers/web/stop?t=soon', { method: 'POST' }],
      ['/containers/json?limit=0x1', {}],
      [`/containers/json?all=1&filters=${encodeURIComponent(JSON.stringify({ before: [fake.containers.get('db').id.slice(0, 12)] }))}`, {}],
    ]
    for (const [path, init] of cases) {
      const inProcess = await fetch(`https://us-west-1.hyper.test${path}`, init)
      const served = await fetch(server.url + path, init)
      expect([inProcess.status, inProcess.headers.get('content-type'), await inProcess.text()], path).toEqual([served.status, served.headers.get('content-type'), await served.text()])
      expect(served.status, path).toBeGreaterThanOrEqual(400)
    }
    expect(fake.containers.get('web').state).toBe('running')
    expect(fake.containers.get('db').state).toBe('created')
  })
})
