// Regression: `docker inspect nope` printed "Error response from daemon: GET /networks/{id} is not served by this
// fake..." where Docker prints "Error: No such object: nope". Without a type the CLI tries a container, an image, a
// network, a volume and a plugin (swarm objects only on a manager) and stops at the first answer that is not a 404;
// the fake answered the network lookup 501. The fake has no networks, volumes or plugins: those three lookups now
// answer the daemon's 404s (`network nope not found`, `get nope: no such volume`, `plugin "nope" not found`).
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer } from '../../../src/index'
import { hasCommand, skipUnless } from '../../clients/support/clients'
import { dockerCli } from '../../clients/support/docker-cli'

const skip = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm)')

let fake: Dockside
let server: DocksideServer
beforeEach(async () => {
  fake = createDockside({ clock: 'auto', seed: 23 })
  fake.images.add('nginx', { layers: 1 })
  fake.containers.create({ name: 'web', image: 'nginx' })
  server = await fake.listen({ port: 0 })
})
afterEach(() => fake.close())

describe.skipIf(skip)('docker inspect of a name that is nothing', () => {
  it('bug: `docker inspect nope` printed a 501 about networks; Docker prints "Error: No such object: nope"', async () => {
    using cli = dockerCli(server.url)
    const r = await cli.docker(['inspect', 'nope'])
    expect(r).toEqual({ code: 1, stdout: '[]\n', stderr: 'Error: No such object: nope\n' })
    // The CLI's own order of lookups, each a 404; /info tells it the daemon is no swarm manager.
    expect(fake.requests.list().filter((q) => q.method === 'GET' && !q.url.includes('_ping')).map((q) => q.url.replace(/\?.*/, ''))).toEqual([
      '/v1.47/containers/nope/json',
      '/v1.47/images/nope/json',
      '/v1.47/networks/nope',
      '/v1.47/volumes/nope',
      '/v1.47/info',
      '/v1.47/plugins/nope/json',
    ])
  })

  it('bug: `docker inspect web nope` printed web and the 501; Docker prints web and "Error: No such object: nope"', async () => {
    using cli = dockerCli(server.url)
    const r = await cli.docker(['inspect', 'web', 'nope'])
    expect([r.code, r.stderr]).toEqual([1, 'Error: No such object: nope\n'])
    expect((JSON.parse(r.stdout) as { Name: string }[]).map((c) => c.Name)).toEqual(['/web'])
  })

  it('docker network/volume/plugin inspect print the daemon\'s messages', async () => {
    using cli = dockerCli(server.url)
    // What the CLI prints against dockerd 20.10 (seen side by side): `[]`, the daemon's words, exit 1.
    expect(await cli.docker(['network', 'inspect', 'nope'])).toMatchObject({ code: 1, stdout: '[]\n', stderr: 'Error response from daemon: network nope not found\n' })
    expect(await cli.docker(['volume', 'inspect', 'nope'])).toMatchObject({ code: 1, stdout: '[]\n', stderr: 'Error response from daemon: get nope: no such volume\n' })
    expect(await cli.docker(['plugin', 'inspect', 'nope'])).toMatchObject({ code: 1, stdout: '[]\n', stderr: 'Error response from daemon: plugin "nope" not found\n' })
  })
})

describe('GET /networks/{id}, /volumes/{name}, /plugins/{name}/json: the daemon\'s 404 JSON', () => {
  const cases = [
    ['/networks/nope', 'network nope not found'],
    ['/networks/bridge', 'network bridge not found'],
    ['/volumes/nope', 'get nope: no such volume'],
    ['/volumes/a%2Fb', 'get a/b: no such volume'],
    ['/plugins/nope/json', 'plugin "nope" not found'],
    ['/plugins/vieux/sshfs:latest/json', 'plugin "vieux/sshfs:latest" not found'],
  ]

  it.each(cases)('server: GET %s is a 404 "%s"', async (path, message) => {
    for (const prefix of ['', '/v1.47']) {
      const res = await fetch(server.url + prefix + path)
      expect(res.status).toBe(404)
      expect(res.headers.get('content-type')).toBe('application/json')
      // The daemon's body, byte for byte; why the fake has none in the hint.
      expect(((await res.json()) as { message: string }).message).toBe(message)
      expect(res.headers.get('x-dockside-hint')).toMatch(/: this fake has no (networks|volumes|plugins) /)
    }
  })

  it('in process: the same answers', async () => {
    const other = createDockside({ seed: 23 })
    // A function lets the fake's own answer through (the in-process route list does not name these routes yet).
    const hooks = await other.intercept({ region: 'us-west-1', onUnhandled: () => {} })
    try {
      for (const [path, message] of cases) {
        const res = await fetch(`https://us-west-1.hyper.test/v1.47${path}`)
        expect(res.status, path).toBe(404)
        expect(((await res.json()) as { message: string }).message, path).toBe(message)
      }
    } finally {
      hooks.restore()
      await other.close()
    }
  })
})
