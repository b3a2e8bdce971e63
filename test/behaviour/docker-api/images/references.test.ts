// Regressions: three answers of the image model that a Docker 28 daemon gives otherwise.
// 1. After a pushed tag moved to another image (push repo:1.0 of A, tag B as repo:1.0, push again), `repo@<A's digest>`
//    was "No such image": the fake read digests from the registry's current tags. The daemon's reference store keeps
//    A's digest, so A stays, dangling (RepoTags [], RepoDigests [repo@digestA]), and the digest still names it.
// 2. `POST /images/x/tag?repo=x/app&tag=sha256:...` answered `Invalid image name "x/app:sha256"` (the repository cut at
//    the tag's colon); the daemon's reference.WithTag answers 400 "invalid tag format", before it looks the image up.
// 3. `[::1]:5000/app:1.0` was refused as a reference and `[::1]:5000` as a registry host, where docker/distribution's
//    reference grammar (Docker 28) takes a bracketed IPv6 host with an optional port as the domain.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer } from '../../../../src/index'
import type { Image } from '../../../../src/service/images'
import { hasCommand, skipUnless } from '../../../clients/support/clients'
import { dockerCli } from '../../../clients/support/docker-cli'

const skip = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm)')

const REPO = 'localhost:5000/team/app'

let fake: Dockside
let server: DocksideServer
let a: Image
let b: Image
let nginx: Image
beforeEach(async () => {
  fake = createDockside({ clock: 'auto', seed: 31 })
  a = fake.images.add(`${REPO}:1.0`, { layers: 1 })
  b = fake.images.add(`${REPO}:next`, { layers: 1 })
  nginx = fake.images.add('nginx', { layers: 1 })
  server = await fake.listen({ port: 0 })
})
afterEach(() => fake.close())

async function push(path: string) {
  const res = await fetch(server.url + path, { method: 'POST' })
  expect([res.status, await res.text()]).toEqual([200, expect.stringContaining('"aux"')])
}

type Summary = { Id: string; RepoTags: string[]; RepoDigests: string[] }
const refs = ({ Id, RepoTags, RepoDigests }: Summary) => ({ Id, RepoTags: [...RepoTags].sort(), RepoDigests })

async function inspect(ref: string): Promise<[number, Summary | { message: string }]> {
  const res = await fetch(`${server.url}/v1.47/images/${ref}/json`)
  return [res.status, (await res.json()) as Summary]
}

async function list(filters?: object): Promise<ReturnType<typeof refs>[]> {
  const res = await fetch(`${server.url}/v1.47/images/json${filters ? `?filters=${encodeURIComponent(JSON.stringify(filters))}` : ''}`)
  expect(res.status).toBe(200)
  return ((await res.json()) as Summary[]).map(refs).sort((x, y) => x.Id.localeCompare(y.Id))
}

describe('1. a pushed digest names its image after the tag moves to another image', () => {
  /** Push REPO:1.0 of A, tag B as REPO:1.0, push again: the digest of A is no tag's any more. */
  async function moveThePushedTag() {
    await push(`/images/${REPO}/push?tag=1.0`)
    const tag = await fetch(`${server.url}/images/${REPO}:next/tag?repo=${REPO}&tag=1.0`, { method: 'POST' })
    expect(tag.status).toBe(201)
    await push(`/images/${REPO}/push?tag=1.0`)
  }

  it('bug: GET /images/REPO@<old digest>/json was a 404; A is listed dangling with its digest, as the daemon lists it', async () => {
    await moveThePushedTag()
    const oldDigest = `${REPO}@${a.manifestDigest}`
    const newDigest = `${REPO}@${b.manifestDigest}`
    expect(await inspect(oldDigest)).toEqual([200, expect.objectContaining({ Id: a.id, RepoTags: [], RepoDigests: [oldDigest] })])
    expect(await inspect(`${REPO}:1.0`)).toEqual([200, expect.objectContaining({ Id: b.id, RepoDigests: [newDigest] })])
    // The library reads the same: the digest a push recorded, whatever the image's tags are now.
    expect(fake.images.resolve(oldDigest)).toBe(a)
    expect(fake.images.resolve(`${REPO}:1.0`)).toBe(b)

    const byId = (x: { Id: string }, y: { Id: string }) => x.Id.localeCompare(y.Id)
    expect(await list()).toEqual(
      [
        { Id: a.id, RepoTags: [], RepoDigests: [oldDigest] },
        { Id: b.id, RepoTags: [`${REPO}:1.0`, `${REPO}:next`], RepoDigests: [newDigest] },
        { Id: nginx.id, RepoTags: ['nginx:latest'], RepoDigests: [] },
      ].sort(byId),
    )
    // daemon/images/image_list.go: dangling=true keeps the images with no tag; dangling=false drops only those with no
    // reference at all; a reference filter matches the old digest as it matches a tag.
    expect(await list({ dangling: ['true'] })).toEqual([{ Id: a.id, RepoTags: [], RepoDigests: [oldDigest] }])
    expect((await list({ dangling: ['false'] })).map((s) => s.Id)).toEqual([a.id, b.id, nginx.id].sort())
    expect((await list({ reference: [REPO] })).map((s) => s.Id)).toEqual([a.id, b.id].sort())
    // `docker info` counts images, the dangling one too (it counted tagged images only: 2).
    expect(((await (await fetch(`${server.url}/v1.47/info`)).json()) as { Images: number }).Images).toBe(3)
    // `before`/`since` and a tag's source read the old digest too.
    const tag = await fetch(`${server.url}/images/${oldDigest}/tag?repo=${REPO}&tag=back`, { method: 'POST' })
    expect(tag.status).toBe(201)
    expect(fake.images.resolve(`${REPO}:back`)).toBe(a)
  })

  it('the digest names no other image of that repository, nor its image in another repository', async () => {
    await moveThePushedTag()
    expect((await inspect(`localhost:5000/other/app@${a.manifestDigest}`))[0]).toBe(404)
    expect((await inspect(`${REPO}@${nginx.manifestDigest}`))[0]).toBe(404)
  })

  it('untagging the last tag of a repository drops the image\'s digests there, as `docker rmi` does', async () => {
    fake.images.tag(`${REPO}:1.0`, 'localhost:5000/other/app:1')
    await push(`/images/${REPO}/push?tag=1.0`)
    fake.images.untag(`${REPO}:1.0`)
    expect((await inspect(`${REPO}@${a.manifestDigest}`))[0]).toBe(404)
    expect(fake.images.resolve(`${REPO}@${a.manifestDigest}`)).toBeUndefined()
    expect((await list()).find((s) => s.Id === a.id)).toEqual({ Id: a.id, RepoTags: ['localhost:5000/other/app:1'], RepoDigests: [] })
  })

  it.skipIf(skip)('docker CLI: `docker image inspect REPO@<old digest>` finds A; `docker images` shows it as REPO <none>, dangling', async () => {
    using cli = dockerCli(server.url)
    const ok = async (args: string[]) => {
      const r = await cli.docker(args)
      expect([r.code, r.stderr], args.join(' ')).toEqual([0, ''])
      return r.stdout
    }
    await ok(['push', `${REPO}:1.0`])
    await ok(['tag', `${REPO}:next`, `${REPO}:1.0`])
    await ok(['push', `${REPO}:1.0`])
    const oldDigest = `${REPO}@${a.manifestDigest}`
    expect(await ok(['image', 'inspect', '-f', '{{.Id}} {{json .RepoTags}} {{json .RepoDigests}}', oldDigest])).toBe(`${a.id} [] ${JSON.stringify([oldDigest])}\n`)
    const rows = (await ok(['images', '--digests', '--format', '{{.Repository}} {{.Tag}} {{.Digest}} {{.ID}}', REPO])).trim().split('\n').sort()
    expect(rows).toEqual(
      [
        `${REPO} 1.0 ${b.manifestDigest} ${b.id.slice(7, 19)}`,
        `${REPO} next ${b.manifestDigest} ${b.id.slice(7, 19)}`,
        `${REPO} <none> ${a.manifestDigest} ${a.id.slice(7, 19)}`,
      ].sort(),
    )
    expect(await ok(['images', '-q', '--filter', 'dangling=true'])).toBe(`${a.id.slice(7, 19)}\n`)
  })
})

describe('2. POST /images/{name}/tag with a tag a tag cannot be: 400 "invalid tag format"', () => {
  const ALLOWED = 'a tag may contain [A-Za-z0-9_][A-Za-z0-9_.-]{0,127} (up to 128 letters, digits, "_", "." and "-", not starting with "." or "-"), e.g. "1.0".'

  it.each([`sha256:${'a'.repeat(64)}`, 'bad!', '-x', '.x', 'a/b', 'a'.repeat(129)])('bug: tag=%s named a repository cut at its colon', async (tag) => {
    for (const name of ['nginx', 'missing']) {
      // Checked before the image is looked up, as the daemon's RepoTagReference runs before GetImage.
      const res = await fetch(`${server.url}/v1.47/images/${name}/tag?repo=x/app&tag=${encodeURIComponent(tag)}`, { method: 'POST' })
      // The daemon's text in the body; what is allowed in dockside's hint header.
      expect([res.status, res.headers.get('content-type'), await res.json()], name).toEqual([400, 'application/json', { message: 'invalid tag format' }])
      expect(res.headers.get('x-dockside-hint'), name).toBe(`invalid tag format ${JSON.stringify(tag)}: ${ALLOWED}`)
    }
    expect(fake.images.tagsOf('x/app')).toEqual([])
    expect(fake.journal.ofType('image.tag')).toEqual([])
  })

  it('bug: a repo that is no repository name was a 404 for a missing image (the daemon checks it first); now a 400 either way', async () => {
    // (`UPPER/app` is left out: distribution/reference, Engine 25 on, reads an upper-case first element as a domain.)
    for (const [repo, daemonText] of [
      ['x/UPPER', 'invalid reference format: repository name (x/UPPER) must be lowercase'],
      ['x//app', 'invalid reference format'],
      ['x/app:', 'invalid reference format'],
    ]) {
      for (const name of ['nginx', 'missing']) {
        const res = await fetch(`${server.url}/v1.47/images/${name}/tag?repo=${encodeURIComponent(repo)}&tag=1.0`, { method: 'POST' })
        expect(res.status, `${name} ${repo}`).toBe(400)
        expect(((await res.json()) as { message: string }).message, `${name} ${repo}`).toBe(daemonText)
        expect(res.headers.get('x-dockside-hint'), `${name} ${repo}`).toMatch(/^invalid reference format: "repo" ".*" is not a repository name; expected lower-case/)
      }
    }
    expect(fake.journal.ofType('image.tag')).toEqual([])
  })

  it('a tag of 128 allowed characters is taken', async () => {
    const tag = `_${'a.-'.repeat(42)}9`
    const res = await fetch(`${server.url}/images/nginx/tag?repo=x/app&tag=${tag}`, { method: 'POST' })
    expect(res.status).toBe(201)
    expect(fake.images.resolve(`x/app:${tag}`)).toBe(nginx)
  })
})

describe('3. a bracketed IPv6 registry host: `[::1]:5000/app:1.0` works as `localhost:5000/app:1.0` does', () => {
  it('bug: the library refused `[::1]:5000` as a registry host and `[::1]:5000/app` as an image name', () => {
    const r = fake.registries.add('[::1]:5000', { username: 'ci', password: 's3cret' })
    expect([r.host, r.auth.kind]).toEqual(['[::1]:5000', 'basic'])
    expect(fake.registries.add('[fe80::a:B]').host).toBe('[fe80::a:B]')
    const image = fake.images.add('[::1]:5000/team/app:1.0', { layers: 1 })
    expect(fake.images.tag('nginx', '[::1]/app')).toBe(nginx)
    expect([fake.images.resolve('[::1]:5000/team/app:1.0'), fake.images.tagsOf('[::1]:5000/team/app'), fake.images.tagsOf('[::1]/app')]).toEqual([image, ['1.0'], ['latest']])
    // Not IPv6 in brackets (a zone, no brackets closed), no path after the host, a port out of range, upper case in the path.
    for (const bad of ['[fe80::1%eth0]:5000/app', '[::1:5000/app', '[::1]:5000', '[::1]:5000/App', '[::g]/app']) expect(() => fake.images.add(bad), bad).toThrow(/^Invalid image name/)
    expect(() => fake.registries.add('[::1]:99999')).toThrow('Invalid registry host "[::1]:99999": port 99999 is not from 1 to 65535; expected host or host:port, e.g. "localhost:5000".')
    expect(() => fake.registries.add('[::1')).toThrow('Invalid registry host "[::1": expected host or host:port, e.g. "localhost:5000".')
  })

  it('bug: POST /images/[::1]:5000/app/push and a tag to it were 400s; now the push lands in that registry', async () => {
    fake.registries.add('[::1]:5000')
    const tag = await fetch(`${server.url}/images/nginx/tag?repo=${encodeURIComponent('[::1]:5000/app')}&tag=1.0`, { method: 'POST' })
    expect(tag.status).toBe(201)
    await push(`/images/${encodeURIComponent('[::1]:5000/app')}/push?tag=1.0`)
    await push('/images/[::1]:5000/app:1.0/push')
    expect(fake.registries.get('[::1]:5000').get('[::1]:5000/app', '1.0')?.digest).toBe(nginx.manifestDigest)
    expect(fake.journal.ofType('push.done').map((e) => e.registry)).toEqual(['[::1]:5000', '[::1]:5000'])
    const digest = `[::1]:5000/app@${nginx.manifestDigest}`
    expect(await inspect(encodeURIComponent(digest))).toEqual([200, expect.objectContaining({ Id: nginx.id, RepoDigests: [digest] })])
    // Still refused where the grammar refuses: no path, a zone.
    for (const bad of ['[::1]:5000', '[fe80::1%25eth0]:5000/app']) {
      const res = await fetch(`${server.url}/images/${bad}/push`, { method: 'POST' })
      expect([res.status, ((await res.json()) as { message: string }).message], bad).toEqual([400, expect.stringMatching(/^invalid reference format/)])
    }
  })

  it.skipIf(skip)('docker CLI: tag, push with the credentials stored for [::1]:5000, images and inspect, as for localhost:5000', async () => {
    const auths = { username: 'ci', password: 's3cret' }
    fake.registries.add('[::1]:5000', auths)
    fake.registries.add('localhost:5000', auths)
    using cli = dockerCli(server.url, { auths: { '[::1]:5000': auths, 'localhost:5000': auths } })
    const out: Record<string, string[]> = {}
    for (const host of ['localhost:5000', '[::1]:5000']) {
      const ref = `${host}/app:1.0`
      out[host] = []
      for (const args of [['tag', 'nginx', ref], ['push', ref], ['images', '--digests', '--format', '{{.Repository}} {{.Tag}} {{.Digest}}', `${host}/app`], ['image', 'inspect', '-f', '{{.Id}}', `${host}/app@${nginx.manifestDigest}`]]) {
        const r = await cli.docker(args)
        expect([r.code, r.stderr], args.join(' ')).toEqual([0, ''])
        out[host].push(r.stdout.replaceAll(host, 'HOST'))
      }
      expect(fake.registries.get(host).get(`${host}/app`, '1.0')).toMatchObject({ digest: nginx.manifestDigest, pushedBy: 'ci' })
    }
    const pushed = expect.stringMatching(new RegExp(`^The push refers to repository \\[HOST/app\\]\\n[\\s\\S]*1\\.0: digest: ${nginx.manifestDigest} size: \\d+\\n$`))
    expect(out['localhost:5000'].slice(1)).toEqual([pushed, `HOST/app 1.0 ${nginx.manifestDigest}\n`, `${nginx.id}\n`])
    // `docker images [::1]:5000/app` lists nothing, on the daemon as here: its reference filter is Go's path.Match, where
    // `[::1]` is a character class (':' or '1'), not the host.
    expect(out['[::1]:5000'].slice(1)).toEqual([pushed, '', `${nginx.id}\n`])
  })
})
