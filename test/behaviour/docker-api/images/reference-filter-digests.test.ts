// Regression: after a push, `docker images localhost:5000/other/app` listed an extra `localhost:5000/team/app <none>`
// row: `GET /images/json?filters={"reference":[...]}` filtered RepoTags but returned every RepoDigests entry, and the
// CLI prints a row for each repository a digest names. The Engine (daemon/images/image_list.go) matches every
// reference of an image, tag or digest, against the filter (reference.FamiliarMatch) and keeps only those that match.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer } from '../../../../src/index'
import type { Image } from '../../../../src/service/images'
import { hasCommand, skipUnless } from '../../../clients/support/clients'
import { dockerCli } from '../../../clients/support/docker-cli'

let fake: Dockside
let server: DocksideServer
let app: Image
let nginx: Image
beforeEach(async () => {
  fake = createDockside({ clock: 'auto', seed: 14 })
  app = fake.images.add('localhost:5000/team/app:1.0', { layers: 1 })
  fake.images.tag('localhost:5000/team/app:1.0', 'localhost:5000/other/app:1')
  nginx = fake.images.add('nginx:1.27', { layers: 1 })
  server = await fake.listen({ port: 0 })
  for (const path of ['/images/localhost:5000/team/app/push?tag=1.0', '/images/nginx/push?tag=1.27']) {
    const res = await fetch(server.url + path, { method: 'POST' })
    expect(await res.text()).toContain('"aux"')
  }
})
afterEach(() => fake.close())

type Summary = { Id: string; RepoTags: string[]; RepoDigests: string[] }
async function list(reference: string[]): Promise<Summary[]> {
  const res = await fetch(`${server.url}/v1.47/images/json?filters=${encodeURIComponent(JSON.stringify({ reference }))}`)
  expect(res.status).toBe(200)
  return ((await res.json()) as Summary[]).map(({ Id, RepoTags, RepoDigests }) => ({ Id, RepoTags, RepoDigests }))
}

describe('GET /images/json: the reference filter applies to RepoDigests too', () => {
  it('bug: a listed image kept the digests of repositories the filter does not name', async () => {
    expect(await list(['localhost:5000/other/app'])).toEqual([{ Id: app.id, RepoTags: ['localhost:5000/other/app:1'], RepoDigests: [] }])
    const digest = `localhost:5000/team/app@${app.manifestDigest}`
    expect(await list(['localhost:5000/team/app'])).toEqual([{ Id: app.id, RepoTags: ['localhost:5000/team/app:1.0'], RepoDigests: [digest] }])
    // A pattern with a tag matches no digest reference (`repo@sha256:...` is not `repo:tag`), as FamiliarMatch does.
    expect(await list(['localhost:5000/team/app:1.0'])).toEqual([{ Id: app.id, RepoTags: ['localhost:5000/team/app:1.0'], RepoDigests: [] }])
    expect(await list(['localhost:5000/*/app'])).toEqual([{ Id: app.id, RepoTags: ['localhost:5000/other/app:1', 'localhost:5000/team/app:1.0'], RepoDigests: [digest] }])
    // A pattern over the whole digest reference selects the digests only.
    expect(await list(['localhost:5000/team/app@sha256:*'])).toEqual([{ Id: app.id, RepoTags: [], RepoDigests: [digest] }])
    expect(await list(['nginx', 'localhost:5000/other/app'])).toEqual([
      { Id: app.id, RepoTags: ['localhost:5000/other/app:1'], RepoDigests: [] },
      { Id: nginx.id, RepoTags: ['nginx:1.27'], RepoDigests: [`nginx@${nginx.manifestDigest}`] },
    ])
  })

  it('an image none of whose tags or digests match is not listed; no filter lists everything', async () => {
    expect(await list(['localhost:5000/nope/app'])).toEqual([])
    const all = (await (await fetch(`${server.url}/images/json`)).json()) as Summary[]
    expect(all.map((s) => s.RepoDigests)).toEqual([[`localhost:5000/team/app@${app.manifestDigest}`], [`nginx@${nginx.manifestDigest}`]])
  })
})

const skip = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm)')

describe.skipIf(skip)('docker CLI 28: docker images REPO', () => {
  const rows = (stdout: string) => stdout.trim().split('\n').slice(1).map((l) => l.split(/\s{2,}/).slice(0, 3))

  it('bug: `docker images localhost:5000/other/app` printed a `localhost:5000/team/app <none>` row too', async () => {
    using cli = dockerCli(server.url)
    const r = await cli.docker(['images', 'localhost:5000/other/app'])
    expect(r.code).toBe(0)
    expect(rows(r.stdout)).toEqual([['localhost:5000/other/app', '1', app.id.slice(7, 19)]])
  })

  it('`docker images --digests` shows the digest on the matching repository only', async () => {
    using cli = dockerCli(server.url)
    const team = await cli.docker(['images', '--digests', 'localhost:5000/team/app'])
    expect(rows(team.stdout)).toEqual([['localhost:5000/team/app', '1.0', app.manifestDigest]])
    const other = await cli.docker(['images', '--digests', 'localhost:5000/other/app'])
    expect(rows(other.stdout)).toEqual([['localhost:5000/other/app', '1', '<none>']])
  })
})
