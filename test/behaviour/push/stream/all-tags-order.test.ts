// Regression: a push of every tag (`docker push --all-tags`, or no tag at all) pushed the tags in the order they were
// created. The daemon pushes them in its reference store's order, sorted by name (reference/store.go's
// ReferencesByName sorts with lexicalAssociations; the containerd store lists images by name too): `1.0`, `2.0`,
// `latest`. Its digest lines and aux lines come in that order.
// Found by the push hunt (was test/regressions/push-hunt-all-tags-order.test.ts).
import Docker from 'dockerode'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer } from '../../../../src/index'
import { hasCommand, skipUnless } from '../../../clients/support/clients'
import { dockerCli } from '../../../clients/support/docker-cli'

const skipCli = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm), or a static client from download.docker.com')

let fake: Dockside
let server: DocksideServer
beforeEach(async () => {
  fake = createDockside({ clock: 'auto', seed: 21 })
  // Created out of name order, as `docker tag` might leave them.
  fake.images.add('localhost:5000/team/app', { tags: ['latest', '2.0', '1.0'], layers: 1 })
  server = await fake.listen({ port: 0 })
})
afterEach(() => fake.close())

describe('a push of every tag goes in name order, as the daemon pushes them', () => {
  it.skipIf(skipCli)('bug: docker push --all-tags printed latest, 2.0, 1.0 (creation order); the daemon prints 1.0, 2.0, latest', async () => {
    using cli = dockerCli(server.url)
    const r = await cli.docker(['push', '--all-tags', 'localhost:5000/team/app'])
    expect(r.code).toBe(0)
    expect([...r.stdout.matchAll(/^(\S+): digest: /gm)].map((m) => m[1])).toEqual(['1.0', '2.0', 'latest'])
    expect(fake.journal.ofType('push.start')).toMatchObject([{ tags: ['1.0', '2.0', 'latest'] }])
  })

  it('bug: dockerode image.push() with no tag reported the aux lines in creation order', async () => {
    const docker = new Docker({ host: '127.0.0.1', port: server.port, protocol: 'http' })
    const stream = await docker.getImage('localhost:5000/team/app').push({})
    const lines = await new Promise<{ aux?: { Tag: string } }[]>((resolve, reject) => docker.modem.followProgress(stream, (err: Error | null, out: { aux?: { Tag: string } }[]) => (err ? reject(err) : resolve(out))))
    expect(lines.filter((l) => l.aux).map((l) => l.aux!.Tag)).toEqual(['1.0', '2.0', 'latest'])
    expect(fake.registries.get('localhost:5000').tags.map((t) => t.tag)).toEqual(['1.0', '2.0', 'latest'])
  })
})
