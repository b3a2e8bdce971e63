// Regressions in how a push's X-Registry-Auth reaches a password registry, against what the daemon does with it:
// - The daemon decodes the header with Go's encoding/json and, on any decode error, pushes with an empty AuthConfig
//   (api/server/router/image: "to increase compatibility to existing api it is defaulting to be empty"). A field of
//   the wrong type (`"email": 5`) is such an error: the username and password beside it go too, and the push is
//   refused. The fake dropped only that field and pushed.
// - With no username and password at all, the daemon's basic-auth handler refuses before it asks the registry
//   (docker/distribution's ErrNoBasicAuthCredentials): `docker push` prints `no basic auth credentials`, as it does
//   against any private registry before `docker login`. The fake printed the registry's 401 for wrong credentials.
// Found by the push hunt (was test/regressions/push-hunt-registry-auth.test.ts).
import Docker from 'dockerode'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer } from '../../../../src/index'
import { hasCommand, skipUnless } from '../../../clients/support/clients'
import { dockerCli } from '../../../clients/support/docker-cli'

const skipCli = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm), or a static client from download.docker.com')

type Line = { status?: string; error?: string; errorDetail?: { message: string }; aux?: { Tag: string } }

let fake: Dockside
let server: DocksideServer
let docker: Docker
beforeEach(async () => {
  fake = createDockside({ clock: 'auto', seed: 8 })
  fake.registries.add('localhost:5000', { username: 'ci', password: 's3cret' })
  fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 2 })
  server = await fake.listen({ port: 0 })
  docker = new Docker({ host: '127.0.0.1', port: server.port, protocol: 'http' })
})
afterEach(() => fake.close())

const follow = (stream: NodeJS.ReadableStream) =>
  new Promise<Line[]>((resolve, reject) => docker.modem.followProgress(stream, (err: Error | null, out: Line[]) => (err ? reject(err) : resolve(out))))
const pushed = () => fake.registries.get('localhost:5000').tags.map((t) => `${t.repository}:${t.tag}`)

describe('X-Registry-Auth as the daemon reads it', () => {
  it('bug: the right username and password beside a non-string field were pushed with; the daemon drops the whole AuthConfig', async () => {
    const authconfig = { username: 'ci', password: 's3cret', email: 5 } as unknown as Docker.AuthConfig
    const lines = await follow(await docker.getImage('localhost:5000/team/app').push({ tag: '1.0', authconfig }))
    expect(lines.at(-1)).toEqual({ errorDetail: { message: 'no basic auth credentials' }, error: 'no basic auth credentials' })
    expect(pushed()).toEqual([])
    // The same credentials, well typed, push.
    const ok = await follow(await docker.getImage('localhost:5000/team/app').push({ tag: '1.0', authconfig: { username: 'ci', password: 's3cret', email: 'ci@example.com' } }))
    expect(ok.at(-1)?.aux?.Tag).toBe('1.0')
    expect(pushed()).toEqual(['localhost:5000/team/app:1.0'])
  })

  it.skipIf(skipCli)('bug: docker push before docker login printed "unauthorized: authentication required"; the daemon says "no basic auth credentials"', async () => {
    using anonymous = dockerCli(server.url)
    const r = await anonymous.docker(['push', 'localhost:5000/team/app:1.0'])
    expect(r.code).toBe(1)
    expect(r.stderr.trim()).toBe('no basic auth credentials')
    expect(fake.journal.ofType('push.failed').at(-1)).toMatchObject({ message: 'no basic auth credentials' })
    // Wrong credentials still reach the registry, which answers its 401.
    using wrong = dockerCli(server.url, { auths: { 'localhost:5000': { username: 'ci', password: 'nope' } } })
    const denied = await wrong.docker(['push', 'localhost:5000/team/app:1.0'])
    expect(denied.code).toBe(1)
    expect(denied.stderr.trim()).toBe('unauthorized: authentication required')
    expect(pushed()).toEqual([])
  })
})
