// Regression: a push naming a tag in the path AND in `?tag=` (dockerode's getImage('repo:1.0').push({ tag: '2.0' })
// sends `POST /images/localhost:5000/team/app:1.0/push?tag=2.0`) matched fault rules and journaled the image as
// `localhost:5000/team/app:1.0:2.0`, so a rule for `...:1.0` fired on a push of 2.0. PROTOCOL.md: the `tag` query
// wins (the daemon's reference.WithTag replaces the name's tag), for what is pushed, reported, journaled and matched.
import Docker from 'dockerode'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer } from '../../../../src/index'

type Line = { status?: string; error?: string; aux?: { Tag: string } }

function follow(docker: Docker, stream: NodeJS.ReadableStream): Promise<Line[]> {
  return new Promise((resolve, reject) => docker.modem.followProgress(stream, (err: Error | null, out: Line[]) => (err ? reject(err) : resolve(out))))
}

let fake: Dockside
let server: DocksideServer
let docker: Docker
beforeEach(async () => {
  fake = createDockside({ clock: 'auto', seed: 12 })
  fake.images.add('localhost:5000/team/app', { tags: ['1.0', '2.0'], layers: 2 })
  server = await fake.listen({ port: 0 })
  docker = new Docker({ host: '127.0.0.1', port: server.port, protocol: 'http' })
})
afterEach(() => fake.close())

const pushedTags = () => fake.registries.list().flatMap((r) => r.tags.map((t) => `${t.repository}:${t.tag}`))

describe('the tag query wins over a tag in the name (dockerode 5)', () => {
  it('getImage("...:1.0").push({ tag: "2.0" }) pushes 2.0, reports 2.0 and a fault for 2.0 fires on it', async () => {
    fake.faults.add({ id: 'two', on: 'push', match: { image: 'localhost:5000/team/app:2.0' }, error: 'blob upload unknown: simulated', afterLayer: 1 })
    const lines = await follow(docker, await docker.getImage('localhost:5000/team/app:1.0').push({ tag: '2.0' }))
    expect(fake.requests.list().filter((q) => q.method === 'POST').map((q) => q.url)).toEqual(['/images/localhost:5000/team/app:1.0/push?tag=2.0'])
    expect(lines.at(-1)?.error).toBe('blob upload unknown: simulated')
    expect(fake.journal.ofType('fault')).toMatchObject([{ rule: 'two', image: 'localhost:5000/team/app:2.0' }])
    expect(fake.journal.ofType('push.start')).toMatchObject([{ repository: 'localhost:5000/team/app', tags: ['2.0'] }])
    expect(pushedTags()).toEqual([])
  })

  it('bug: getImage("...:2.0").push({ tag: "1.0" }) was matched as "...:2.0:1.0" and the 2.0 fault fired on a push of 1.0', async () => {
    fake.faults.add({ id: 'two', on: 'push', match: { image: 'localhost:5000/team/app:2.0' }, error: 'blob upload unknown: simulated', afterLayer: 1 })
    const lines = await follow(docker, await docker.getImage('localhost:5000/team/app:2.0').push({ tag: '1.0' }))
    expect(lines.filter((l) => l.error)).toEqual([])
    expect(lines.at(-1)?.aux?.Tag).toBe('1.0')
    expect(fake.journal.ofType('fault')).toEqual([])
    expect(fake.faults.pending().map((r) => r.id)).toEqual(['two'])
    expect(pushedTags()).toEqual(['localhost:5000/team/app:1.0'])
    expect(fake.journal.ofType('push.tag')).toMatchObject([{ repository: 'localhost:5000/team/app', tag: '1.0' }])
  })
})

describe('over HTTP: a registry port is not a tag', () => {
  it.each([
    ['/images/localhost:5000/team/app/push?tag=2.0', 'localhost:5000/team/app:2.0', ['2.0']],
    ['/images/localhost:5000/team/app:1.0/push?tag=2.0', 'localhost:5000/team/app:2.0', ['2.0']],
    ['/images/localhost%3A5000%2Fteam%2Fapp%3A2.0/push?tag=1.0', 'localhost:5000/team/app:1.0', ['1.0']],
    ['/images/localhost:5000/team/app:2.0/push', 'localhost:5000/team/app:2.0', ['2.0']],
    // An empty `tag` query is no tag (the daemon's r.Form.Get("tag") == ""): the name's tag, else every tag.
    ['/images/localhost:5000/team/app:1.0/push?tag=', 'localhost:5000/team/app:1.0', ['1.0']],
    ['/images/localhost:5000/team/app/push', 'localhost:5000/team/app', ['1.0', '2.0']],
  ])('POST %s is matched as %s and pushes %j', async (path, image, tags) => {
    fake.faults.add({ id: 'watch', on: 'push', latency: { connect: 0 } })
    const res = await fetch(server.url + path, { method: 'POST' })
    expect(res.status).toBe(200)
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l))
    expect(lines.filter((l) => l.aux).map((l) => l.aux.Tag)).toEqual(tags)
    expect(fake.journal.ofType('fault')).toMatchObject([{ rule: 'watch', image }])
    expect(pushedTags()).toEqual(tags.map((t) => `localhost:5000/team/app:${t}`))
  })
})
