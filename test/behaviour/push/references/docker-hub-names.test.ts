// Regression: `docker push myuser/app:1` failed with "No such image: docker.io/myuser/app:1". The docker CLI 28
// sends Docker Hub names fully qualified (`POST /v1.47/images/docker.io/myuser/app/push?tag=1`,
// `.../images/docker.io/library/nginx/push?tag=latest`); image inspect read them as `myuser/app` and `nginx`, push
// did not. And the first line must be what the daemon prints for that name: the fully qualified repository.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer } from '../../../../src/index'
import { hasCommand, skipUnless } from '../../../clients/support/clients'
import { dockerCli } from '../../../clients/support/docker-cli'

const skip = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm)')

let fake: Dockside
let server: DocksideServer
beforeEach(async () => {
  fake = createDockside({ clock: 'auto', seed: 11 })
  fake.images.add('myuser/app:1', { layers: 2 })
  fake.images.add('nginx', { layers: 1 })
  server = await fake.listen({ port: 0 })
})
afterEach(() => fake.close())

describe.skipIf(skip)('docker push of a Docker Hub name (the CLI sends docker.io/...)', () => {
  it('bug: `docker push myuser/app:1` answered "No such image: docker.io/myuser/app:1"', async () => {
    using cli = dockerCli(server.url)
    const r = await cli.docker(['push', 'myuser/app:1'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const image = fake.images.resolve('myuser/app:1')!
    expect(r.stdout.split('\n')[0]).toBe('The push refers to repository [docker.io/myuser/app]')
    expect(r.stdout).toContain(`1: digest: ${image.manifestDigest} size: ${image.manifestSize}`)
    // What the CLI sent, so this test pins the route it takes.
    expect(fake.requests.list().filter((q) => q.method === 'POST').map((q) => q.url)).toEqual(['/v1.47/images/docker.io/myuser/app/push?tag=1'])
    // Stored as image inspect shows it: a Docker Hub repository by its familiar name.
    expect(fake.registries.get('docker.io').get('myuser/app', '1')?.digest).toBe(image.manifestDigest)
  })

  it('bug: `docker push nginx` (docker.io/library/nginx) was no such image; the daemon says [docker.io/library/nginx]', async () => {
    using cli = dockerCli(server.url)
    const r = await cli.docker(['push', 'nginx'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    // The first line is the CLI's own.
    expect(r.stdout.split('\n').slice(0, 2)).toEqual(['Using default tag: latest', 'The push refers to repository [docker.io/library/nginx]'])
    expect(fake.registries.get('docker.io').get('nginx', 'latest')?.digest).toBe(fake.images.resolve('nginx')!.manifestDigest)
    // The digest the push made shows in inspect under the familiar name, as Docker's RepoDigests do.
    const inspect = await cli.docker(['image', 'inspect', '--format', '{{json .RepoDigests}}', 'nginx'])
    expect(JSON.parse(inspect.stdout)).toEqual([`nginx@${fake.images.resolve('nginx')!.manifestDigest}`])
  })
})

describe('the same over HTTP: push names resolve as image inspect resolves them', () => {
  it.each([
    ['/v1.47/images/docker.io/myuser/app/push?tag=1', 'docker.io/myuser/app', 'myuser/app'],
    ['/images/docker.io/myuser/app:1/push', 'docker.io/myuser/app', 'myuser/app'],
    ['/images/docker.io%2Flibrary%2Fnginx/push?tag=latest', 'docker.io/library/nginx', 'nginx'],
    ['/images/index.docker.io/library/nginx/push', 'docker.io/library/nginx', 'nginx'],
    // A name given as people write it is reported as the daemon reports it, fully qualified.
    ['/images/nginx/push', 'docker.io/library/nginx', 'nginx'],
    ['/images/myuser/app/push?tag=1', 'docker.io/myuser/app', 'myuser/app'],
  ])('POST %s pushes, reporting [%s]', async (path, reported, stored) => {
    const inspect = await fetch(`${server.url}/images/${path.includes('nginx') ? 'docker.io/library/nginx' : 'docker.io/myuser/app:1'}/json`)
    expect(inspect.status).toBe(200)
    const res = await fetch(server.url + path, { method: 'POST' })
    expect(res.status).toBe(200)
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l))
    expect(lines[0]).toEqual({ status: `The push refers to repository [${reported}]` })
    expect(lines.filter((l) => l.error)).toEqual([])
    expect(fake.registries.get('docker.io').tags.map((t) => t.repository)).toEqual([stored])
    expect(fake.journal.ofType('push.start')).toMatchObject([{ repository: stored, registry: 'docker.io' }])
  })

  it('a registry with a host keeps its name as it is', async () => {
    fake.images.add('localhost:5000/team/app:1.0', { layers: 1 })
    const res = await fetch(`${server.url}/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST' })
    expect(JSON.parse((await res.text()).split('\n')[0])).toEqual({ status: 'The push refers to repository [localhost:5000/team/app]' })
  })
})
