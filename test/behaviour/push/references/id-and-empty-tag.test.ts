// Regression: `POST /images/sha256:<64 hex>/push` answered 200, pushed a tag "<hex>" of a repository "sha256" to
// docker.io and gave the image the RepoDigest "sha256@sha256:..."; a push never reads an image id (the daemon reads
// "sha256:<hex>" as repository docker.io/library/sha256, tag <hex>, which no image has). And
// `POST /images/localhost:5000/team/app:/push` (an empty tag) pushed every tag where the daemon's reference parser
// refuses it: "invalid reference format".
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer } from '../../../../src/index'
import type { Image } from '../../../../src/service/images'
import { hasCommand, skipUnless } from '../../../clients/support/clients'
import { dockerCli } from '../../../clients/support/docker-cli'

let fake: Dockside
let server: DocksideServer
let app: Image
beforeEach(async () => {
  fake = createDockside({ clock: 'auto', seed: 13 })
  app = fake.images.add('localhost:5000/team/app', { tags: ['1.0', '2.0'], layers: 1 })
  server = await fake.listen({ port: 0 })
})
afterEach(() => fake.close())

const push = (path: string) => fetch(server.url + path, { method: 'POST' })

/** Nothing the push could change did: no push started, no registry, no tag, no digest, no fault rule counted. */
async function expectNoChange() {
  expect(fake.journal.ofType('push.start')).toEqual([])
  expect(fake.registries.list()).toEqual([])
  const inspect = (await (await fetch(`${server.url}/images/${app.id}/json`)).json()) as { RepoTags: string[]; RepoDigests: string[] }
  expect(inspect).toMatchObject({ RepoTags: ['localhost:5000/team/app:1.0', 'localhost:5000/team/app:2.0'], RepoDigests: [] })
  expect(fake.journal.ofType('fault')).toEqual([])
}

describe('a push by image id is refused before the stream, and changes nothing', () => {
  const hex = () => app.id.slice('sha256:'.length)

  it.each([
    ['bug: sha256:<64 hex> pushed to docker.io', () => `sha256:${hex()}`],
    ['bug: sha256:<short id> pushed to docker.io', () => `sha256:${hex().slice(0, 12)}`],
  ])('%s: 404, as the daemon answers a tag that does not exist', async (_, ref) => {
    fake.faults.add({ id: 'any', on: 'push', error: 'should not fire', afterLayer: 0 })
    const name = ref()
    const res = await push(`/v1.47/images/${name}/push`)
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toBe('application/json')
    const { message } = (await res.json()) as { message: string }
    expect(message).toMatch(new RegExp(`^No such image: ${name}: a push takes a repository and tag, not an image id; tag the image first, e.g\\. docker tag ${name} localhost:5000/team/app:1\\.0, then push that\\.$`))
    // A rule matching every push was not even counted: the reference is read before faults.
    expect(fake.faults.pending().map((r) => r.id)).toEqual(['any'])
    await expectNoChange()
  })

  it('with a tag query, the query names the tag (sha256:1.0), which no image has: the plain 404', async () => {
    const res = await push(`/images/sha256:${hex()}/push?tag=1.0`)
    expect(res.status).toBe(404)
    expect(((await res.json()) as { message: string }).message).toBe('No such image: sha256:1.0')
    await expectNoChange()
  })

  it('a bare 64-hex id: 400, the daemon\'s "cannot specify 64-byte hexadecimal strings"', async () => {
    const res = await push(`/images/${hex()}/push`)
    expect(res.status).toBe(400)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(((await res.json()) as { message: string }).message).toBe(`invalid repository name (${hex()}), cannot specify 64-byte hexadecimal strings`)
    expect(res.headers.get('x-dockside-hint')).toBe(
      `invalid repository name (${hex()}), cannot specify 64-byte hexadecimal strings: push by repository and tag, e.g. "localhost:5000/team/app:1.0".`,
    )
    await expectNoChange()
  })
})

describe('an empty tag after the colon is an invalid reference, not "every tag"', () => {
  it.each([['/images/localhost:5000/team/app:/push'], ['/images/localhost:5000/team/app:/push?tag=1.0'], ['/images/localhost%3A5000%2Fteam%2Fapp%3A/push']])(
    'bug: POST %s pushed every tag',
    async (path) => {
      const res = await push(path)
      expect(res.status).toBe(400)
      expect(res.headers.get('content-type')).toBe('application/json')
      expect(((await res.json()) as { message: string }).message).toBe('invalid reference format')
      expect(res.headers.get('x-dockside-hint')).toBe(
        'invalid reference format "localhost:5000/team/app:": the tag after ":" is empty; expected lower-case [host[:port]/]path[:tag], e.g. "localhost:5000/team/app:1.0".',
      )
      await expectNoChange()
    },
  )
})

const skip = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm)')

describe.skipIf(skip)('docker CLI 28', () => {
  it('`docker push sha256:<id>` (sent as docker.io/library/sha256?tag=<hex>) is no such image and pushes nothing', async () => {
    using cli = dockerCli(server.url)
    const r = await cli.docker(['push', app.id])
    expect(r.code).toBe(1)
    expect(r.stderr.trim()).toMatch(/^Error response from daemon: No such image: sha256:[0-9a-f]{64}: a push takes a repository and tag, not an image id;/)
    await expectNoChange()
  })
})
