// Regression: a push fault rule's `match.image` was compared with the short name the fake stores (`nginx:latest`,
// `myuser/app:1`), so a rule written as the docker CLI pushes the image, `docker.io/library/nginx:latest` or
// `docker.io/myuser/app:1`, never fired. The rule's image is now read as the push route reads names (familiarName).
// `match.route` is the request path as sent (docs/faults.md), so it is left as it is: a rule naming the CLI's path
// (`/images/docker.io/library/nginx/push`) fires on the CLI's push, `/images/nginx/push` on a client sending that path.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer, type PushFaultRule } from '../../../../src/index'
import { hasCommand, skipUnless } from '../../../clients/support/clients'
import { dockerCli } from '../../../clients/support/docker-cli'

const skip = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm)')

let fake: Dockside
let server: DocksideServer
beforeEach(async () => {
  fake = createDockside({ clock: 'auto', seed: 13 })
  fake.images.add('nginx', { layers: 1 })
  fake.images.add('myuser/app:1', { layers: 1 })
  server = await fake.listen({ port: 0 })
})
afterEach(() => fake.close())

const pushedTags = () => fake.registries.list().flatMap((r) => r.tags.map((t) => `${t.repository}:${t.tag}`))
const fired = () => fake.journal.ofType('fault').map((e) => e.rule)

describe.skipIf(skip)('docker CLI: push fault rules naming the image as the CLI pushes it', () => {
  it.each([
    ['nginx', 'docker.io/library/nginx:latest'],
    ['nginx', 'docker.io/library/nginx'],
    ['nginx', 'index.docker.io/library/nginx:latest'],
    ['myuser/app:1', 'docker.io/myuser/app:1'],
    ['myuser/app:1', 'docker.io/myuser/app'],
  ])('bug: `docker push %s` never matched match.image %s', async (ref, image) => {
    fake.faults.add({ id: 'hub', on: 'push', match: { image }, error: 'blob upload unknown: simulated', afterLayer: 0 })
    using cli = dockerCli(server.url)
    const r = await cli.docker(['push', ref])
    expect(r.code).toBe(1)
    expect(`${r.stdout}${r.stderr}`).toContain('blob upload unknown: simulated')
    expect(fired()).toEqual(['hub'])
    expect(pushedTags()).toEqual([])
  })

  it('a rule for another tag or another repository still lets the push through', async () => {
    fake.faults.add({ id: 'other-tag', on: 'push', match: { image: 'docker.io/library/nginx:1.27' }, error: 'no' })
    fake.faults.add({ id: 'other-repo', on: 'push', match: { image: 'docker.io/myuser/nginx' }, error: 'no' })
    using cli = dockerCli(server.url)
    const r = await cli.docker(['push', 'nginx'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(fired()).toEqual([])
    expect(pushedTags()).toEqual(['nginx:latest'])
  })

  it('decision: match.route is the path as the CLI sent it, /images/docker.io/library/nginx/push', async () => {
    fake.faults.add({ id: 'short-path', on: 'push', match: { route: '/images/nginx/push' }, error: 'short' })
    fake.faults.add({ id: 'cli-path', on: 'push', match: { route: '/images/docker.io/library/nginx/push' }, error: 'blob upload unknown: simulated' })
    using cli = dockerCli(server.url)
    const r = await cli.docker(['push', 'nginx'])
    expect(r.code).toBe(1)
    expect(fired()).toEqual(['cli-path'])
    expect(fake.faults.pending().map((h) => h.id)).toEqual(['short-path'])
  })
})

describe('fetch on 127.0.0.1: the requests the CLI sends, against rules in either spelling', () => {
  const push = (path: string) => fetch(server.url + path, { method: 'POST' })

  it.each<[string, NonNullable<PushFaultRule['match']>]>([
    ['/v1.47/images/docker.io/library/nginx/push?tag=latest', { image: 'docker.io/library/nginx:latest' }],
    ['/v1.47/images/docker.io/myuser/app/push?tag=1', { image: 'docker.io/myuser/app:1' }],
    // Either side may be qualified: a rule written short matches the CLI's name, a qualified rule a short name.
    ['/v1.47/images/docker.io/library/nginx/push?tag=latest', { image: 'nginx:latest' }],
    ['/images/nginx/push?tag=latest', { image: 'docker.io/library/nginx' }],
  ])('POST %s is refused by a rule matching %j', async (path, match) => {
    fake.faults.add({ id: 'hub', on: 'push', match, reply: 503, message: 'registry down' })
    const res = await push(path)
    expect(res.status).toBe(503)
    expect(await res.json()).toEqual({ message: 'registry down' })
    expect(fired()).toEqual(['hub'])
  })

  it('the rule is kept as written: toJSON (a reproduction) shows the qualified name', () => {
    fake.faults.add({ id: 'hub', on: 'push', match: { image: 'docker.io/library/nginx:latest' }, reply: 503 })
    expect(fake.faults.toJSON()[0].match).toEqual({ image: 'docker.io/library/nginx:latest' })
  })
})
