import Docker from 'dockerode'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer } from '../../src/index'

type Line = { status?: string; error?: string; errorDetail?: { message: string }; aux?: { Tag: string; Digest: string; Size: number } }

/** dockerode's documented way to read a push: `modem.followProgress` collects every line. */
function follow(docker: Docker, stream: NodeJS.ReadableStream): Promise<Line[]> {
  return new Promise((resolve, reject) => docker.modem.followProgress(stream, (err: Error | null, out: Line[]) => (err ? reject(err) : resolve(out))))
}

describe('dockerode 5 against the fake', () => {
  let fake: Dockside
  let server: DocksideServer
  let docker: Docker
  beforeEach(async () => {
    fake = createDockside({ clock: 'auto', seed: 5 })
    fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 3 })
    fake.registries.add('localhost:5000', { username: 'ci', password: 's3cret' })
    server = await fake.listen({ port: 0 })
    docker = new Docker({ host: '127.0.0.1', port: server.port, protocol: 'http' })
  })
  afterEach(() => fake.close())

  it('image.push({ tag, authconfig }) with followProgress: progress, the aux digest, and the registry records the push', async () => {
    const image = fake.images.resolve('localhost:5000/team/app:1.0')!
    const stream = await docker.getImage('localhost:5000/team/app').push({ tag: '1.0', authconfig: { username: 'ci', password: 's3cret', serveraddress: 'localhost:5000' } })
    const lines = await follow(docker, stream)
    expect(lines[0]).toEqual({ status: 'The push refers to repository [localhost:5000/team/app]' })
    expect(lines.filter((l) => l.status === 'Pushed')).toHaveLength(3)
    expect(lines.at(-1)).toEqual({ progressDetail: {}, aux: { Tag: '1.0', Digest: image.manifestDigest, Size: image.manifestSize } })
    expect(lines.some((l) => l.error)).toBe(false)
    expect(fake.registries.get('localhost:5000').get('localhost:5000/team/app', '1.0')).toMatchObject({ digest: image.manifestDigest, pushedBy: 'ci' })
    expect(fake.journal.ofType('push.start').at(-1)).toMatchObject({ auth: { username: 'ci', password: '***', serveraddress: 'localhost:5000' } })
  })

  it('error lines arrive as data in followProgress (wrong credentials, and a mid-push fault)', async () => {
    const denied = await follow(docker, await docker.getImage('localhost:5000/team/app').push({ tag: '1.0', authconfig: { username: 'ci', password: 'nope' } }))
    expect(denied.at(-1)).toEqual({ errorDetail: { message: 'unauthorized: authentication required' }, error: 'unauthorized: authentication required' })

    fake.faults.add({ on: 'push', error: 'denied: requested access to the resource is denied', afterLayer: 2 })
    const faulted = await follow(docker, await docker.getImage('localhost:5000/team/app').push({ tag: '1.0', authconfig: { username: 'ci', password: 's3cret' } }))
    expect(faulted.at(-1)?.error).toBe('denied: requested access to the resource is denied')
    expect(faulted.filter((l) => l.status === 'Pushed')).toHaveLength(2)
    expect(fake.registries.get('localhost:5000').tags).toEqual([])
  })

  it('an unknown image rejects with the 404 message', async () => {
    await expect(docker.getImage('localhost:5000/team/nope').push({ tag: '1.0' })).rejects.toMatchObject({
      statusCode: 404,
      message: expect.stringContaining('No such image: localhost:5000/team/nope:1.0'),
    })
  })

  it('getEvents({ filters }) with list-form filters streams only matching events; since/until end the stream', async () => {
    const web = fake.containers.create({ name: 'web', image: 'nginx', labels: { app: 'web', tier: '' } })
    const db = fake.containers.create({ name: 'db', image: 'postgres', labels: { app: 'db' } })
    const start = fake.clock.now() / 1000
    web.start()
    db.start()
    web.stop()
    // An `until` ahead of the clock is a wait the client is blocked on: the auto clock skips to it and the stream ends
    // (decision 0001), after replaying what `since` asks for.
    const stream = (await docker.getEvents({ since: Math.floor(start), until: Math.floor(start) + 60, filters: { event: ['start'], label: ['app=web', 'tier'] } })) as NodeJS.ReadableStream
    let text = ''
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()))
    await new Promise((resolve) => stream.on('end', resolve))
    expect(fake.clock.now()).toBeGreaterThanOrEqual((Math.floor(start) + 60) * 1000)
    const events = text.trim().split('\n').map((l) => JSON.parse(l) as { Action: string; id: string; scope: string; Actor: { Attributes: Record<string, string> } })
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ Action: 'start', id: web.id, scope: 'local', Actor: { Attributes: { app: 'web', tier: '', name: 'web' } } })
  })

  it('lists, inspects, tags, starts and stops through the Docker routes', async () => {
    const c = fake.containers.create({ name: 'web', image: 'localhost:5000/team/app:1.0' })
    expect((await docker.listContainers({ all: true })).map((x) => x.Names)).toEqual([['/web']])
    expect(await docker.listContainers()).toEqual([])
    await docker.getContainer('web').start()
    expect((await docker.getContainer(c.id.slice(0, 12)).inspect()).State.Running).toBe(true)
    await docker.getContainer('web').stop()
    expect(c.state).toBe('exited')
    await docker.getImage('localhost:5000/team/app:1.0').tag({ repo: 'localhost:5000/team/app', tag: 'stable' })
    expect((await docker.listImages()).flatMap((i) => i.RepoTags)).toEqual(['localhost:5000/team/app:1.0', 'localhost:5000/team/app:stable'])
    expect((await docker.getImage('localhost:5000/team/app:stable').inspect()).Id).toBe(fake.images.resolve('localhost:5000/team/app:1.0')!.id)
    await expect(docker.getContainer('nope').start()).rejects.toMatchObject({ statusCode: 404 })
  })
})
