// Regression: image references the daemon resolves were "No such image" on the fake.
// 1. `library/nginx`: Docker's ParseNormalizedNamed makes it `docker.io/library/nginx`, the official image `nginx`
//    (as `docker.io/nginx` and `index.docker.io/library/nginx`), but `docker image inspect library/nginx`, `docker tag
//    library/nginx ...` and `docker ps --filter ancestor=library/nginx` found nothing. (`registry-1.docker.io/...` is
//    not normalised by Docker: it names another registry, so it is no such image.)
// 2. `repo@sha256:...`: after a push, RepoDigests lists `localhost:5000/team/app@sha256:...`, a reference the daemon
//    records on push and resolves, but `docker image inspect localhost:5000/team/app@sha256:...` was a 404.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer } from '../../../../src/index'
import type { Image } from '../../../../src/service/images'
import { hasCommand, skipUnless } from '../../../clients/support/clients'
import { dockerCli } from '../../../clients/support/docker-cli'

const skip = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm)')

let fake: Dockside
let server: DocksideServer
let nginx: Image
let app: Image
beforeEach(async () => {
  fake = createDockside({ clock: 'auto', seed: 22 })
  nginx = fake.images.add('nginx', { tags: ['latest', '1.27'], layers: 1 })
  app = fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 2 })
  fake.registries.add('localhost:5000')
  fake.containers.create({ name: 'web', image: 'nginx' })
  fake.containers.create({ name: 'db', image: 'localhost:5000/team/app:1.0' })
  server = await fake.listen({ port: 0 })
})
afterEach(() => fake.close())

async function push(path: string) {
  const res = await fetch(server.url + path, { method: 'POST' })
  expect(await res.text()).toContain('"aux"')
}

const inspectStatus = async (ref: string) => (await fetch(`${server.url}/v1.47/images/${ref}/json`)).status

describe.skipIf(skip)('docker CLI: library/NAME and repo@digest resolve as the daemon resolves them', () => {
  it('bug: `docker image inspect library/nginx`, `docker tag library/nginx ...` and `ancestor=library/nginx` found nothing', async () => {
    using cli = dockerCli(server.url)
    const inspect = await cli.docker(['image', 'inspect', '-f', '{{.Id}}', 'library/nginx'])
    expect([inspect.code, inspect.stdout.trim(), inspect.stderr]).toEqual([0, nginx.id, ''])
    const tag = await cli.docker(['tag', 'library/nginx:1.27', 'localhost:5000/x:1'])
    expect([tag.code, tag.stderr]).toEqual([0, ''])
    expect(fake.images.resolve('localhost:5000/x:1')).toBe(nginx)
    const ps = await cli.docker(['ps', '-a', '--format', '{{.Names}}', '--filter', 'ancestor=library/nginx'])
    expect([ps.code, ps.stdout.trim()]).toEqual([0, 'web'])
  })

  it('bug: `docker image inspect REPO@DIGEST` of a digest RepoDigests lists was "No such image"', async () => {
    await push('/images/localhost:5000/team/app/push?tag=1.0')
    using cli = dockerCli(server.url)
    const digests = await cli.docker(['image', 'inspect', '-f', '{{json .RepoDigests}}', 'localhost:5000/team/app:1.0'])
    const ref = `localhost:5000/team/app@${app.manifestDigest}`
    expect(JSON.parse(digests.stdout)).toEqual([ref])
    const inspect = await cli.docker(['image', 'inspect', '-f', '{{.Id}}', ref])
    expect([inspect.code, inspect.stdout.trim(), inspect.stderr]).toEqual([0, app.id, ''])
    const ps = await cli.docker(['ps', '-a', '--format', '{{.Names}}', '--filter', `ancestor=${ref}`])
    expect([ps.code, ps.stdout.trim()]).toEqual([0, 'db'])
    const tag = await cli.docker(['tag', ref, 'localhost:5000/team/app:pinned'])
    expect([tag.code, tag.stderr]).toEqual([0, ''])
    expect(fake.images.resolve('localhost:5000/team/app:pinned')).toBe(app)
  })
})

describe('the same over HTTP', () => {
  it.each(['library/nginx', 'library/nginx:1.27', 'docker.io/nginx', 'docker.io/library/nginx', 'index.docker.io/nginx', 'index.docker.io/library/nginx:latest', 'library%2Fnginx'])(
    'GET /images/%s/json is nginx',
    async (ref) => {
      const res = await fetch(`${server.url}/v1.47/images/${ref}/json`)
      expect(res.status).toBe(200)
      expect(((await res.json()) as { Id: string }).Id).toBe(nginx.id)
    },
  )

  it('names Docker does not read as the official image stay other names: 404 naming them', async () => {
    for (const [ref, shown] of [
      ['registry-1.docker.io/library/nginx', 'registry-1.docker.io/library/nginx:latest'],
      ['library/nginx/x', 'library/nginx/x:latest'],
      ['docker.io/library/a/nginx', 'library/a/nginx:latest'],
      ['Library/nginx', 'Library/nginx:latest'],
    ]) {
      const res = await fetch(`${server.url}/images/${ref}/json`)
      expect([res.status, ((await res.json()) as { message: string }).message], ref).toEqual([404, `No such image: ${shown}`])
    }
  })

  it('a digest reference resolves once the image was pushed as that repository, with or without a tag, in any Docker Hub spelling', async () => {
    const ref = `localhost:5000/team/app@${app.manifestDigest}`
    expect(await inspectStatus(ref)).toBe(404)
    await push('/images/localhost:5000/team/app/push?tag=1.0')
    expect(await inspectStatus(ref)).toBe(200)
    // A tag beside a digest is ignored, as the daemon's reference store reads it.
    expect(await inspectStatus(`localhost:5000/team/app:nope@${app.manifestDigest}`)).toBe(200)
    expect(await inspectStatus(encodeURIComponent(ref))).toBe(200)
    // Another repository, or another image's digest, is no such image.
    expect(await inspectStatus(`localhost:5000/other/app@${app.manifestDigest}`)).toBe(404)
    expect(await inspectStatus(`localhost:5000/team/app@${nginx.manifestDigest}`)).toBe(404)
    await push('/images/nginx/push?tag=latest')
    for (const hub of [`nginx@${nginx.manifestDigest}`, `library/nginx@${nginx.manifestDigest}`, `docker.io/library/nginx@${nginx.manifestDigest}`]) expect(await inspectStatus(hub), hub).toBe(200)
    const missing = await fetch(`${server.url}/images/localhost:5000/team/app@${nginx.manifestDigest}/json`)
    expect(((await missing.json()) as { message: string }).message).toBe(`No such image: localhost:5000/team/app@${nginx.manifestDigest}`)
  })

  it('a container whose image is a digest reference shows that image\'s id; tag, ancestor, before/since read digests too', async () => {
    await push('/images/localhost:5000/team/app/push?tag=1.0')
    const ref = `localhost:5000/team/app@${app.manifestDigest}`
    fake.containers.create({ name: 'pinned', image: ref })
    const inspect = (await (await fetch(`${server.url}/containers/pinned/json`)).json()) as { Image: string; Config: { Image: string } }
    expect([inspect.Image, inspect.Config.Image]).toEqual([app.id, ref])
    const list = async (filters: object) =>
      ((await (await fetch(`${server.url}/containers/json?all=1&filters=${encodeURIComponent(JSON.stringify(filters))}`)).json()) as { Names: string[]; ImageID: string }[]).map((c) => [c.Names[0], c.ImageID])
    expect(await list({ ancestor: [ref] })).toEqual([
      ['/pinned', app.id],
      ['/db', app.id],
    ])
    const tag = await fetch(`${server.url}/images/${ref}/tag?repo=localhost:5000/team/app&tag=by-digest`, { method: 'POST' })
    expect(tag.status).toBe(201)
    expect(fake.images.resolve('localhost:5000/team/app:by-digest')).toBe(app)
    expect(fake.journal.ofType('image.tag').at(-1)).toMatchObject({ source: ref, target: 'localhost:5000/team/app:by-digest' })
    const images = await fetch(`${server.url}/images/json?filters=${encodeURIComponent(JSON.stringify({ before: [ref] }))}`)
    expect(images.status).toBe(200)
  })
})
