import Docker from 'dockerode'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer } from '../../src/index'

// Issue 8, point 4, with dockerode 5: container filters, checkAuth, events types, unserved routes.
describe('dockerode 5: listContainers filters, checkAuth, getEvents types, unserved routes', () => {
  let fake: Dockside
  let server: DocksideServer
  let docker: Docker
  beforeEach(async () => {
    fake = createDockside({ clock: 'auto', seed: 9 })
    fake.images.add('nginx', { layers: 1 })
    fake.registries.add('localhost:5000', { username: 'ci', password: 's3cret' })
    fake.containers.create({ name: 'web', image: 'nginx', labels: { app: 'web' } }).start()
    fake.containers.create({ name: 'db', image: 'nginx', labels: { app: 'db' } })
    server = await fake.listen({ port: 0 })
    docker = new Docker({ host: '127.0.0.1', port: server.port, protocol: 'http' })
  })
  afterEach(() => fake.close())

  const names = (list: Docker.ContainerInfo[]) => list.map((c) => c.Names[0])

  it('listContainers({ all, filters }) honours label, status and name, in object and string form', async () => {
    expect(names(await docker.listContainers({ all: true, filters: { label: ['app=db'] } }))).toEqual(['/db'])
    expect(names(await docker.listContainers({ all: true, filters: JSON.stringify({ label: { 'app=web': true } }) }))).toEqual(['/web'])
    expect(names(await docker.listContainers({ filters: { status: ['created'] } }))).toEqual(['/db'])
    expect(names(await docker.listContainers({ all: true, filters: { name: ['^/w'] } }))).toEqual(['/web'])
    await expect(docker.listContainers({ filters: { colour: ['red'] } })).rejects.toMatchObject({ statusCode: 400, json: { message: expect.stringMatching(/^invalid filter 'colour'/) } })
  })

  it('checkAuth: right credentials succeed, wrong ones reject with the daemon\'s 500 and words, an unknown registry is open', async () => {
    expect(await docker.checkAuth({ username: 'ci', password: 's3cret', serveraddress: 'localhost:5000' })).toEqual({ Status: 'Login Succeeded', IdentityToken: '' })
    await expect(docker.checkAuth({ username: 'ci', password: 'nope', serveraddress: 'localhost:5000' })).rejects.toMatchObject({
      statusCode: 500,
      json: { message: 'login attempt to http://localhost:5000/v2/ failed with status: 401 Unauthorized' },
    })
    expect(await docker.checkAuth({ username: 'x', password: 'y', serveraddress: 'localhost:5999' })).toMatchObject({ Status: 'Login Succeeded' })
  })

  it('getEvents({ filters: { type } }): container events for type=container, none for type=image', async () => {
    const start = Math.floor(fake.clock.startedAt / 1000)
    await fake.clock.advance('10s')
    const read = async (filters: Record<string, string[]>) => {
      const stream = (await docker.getEvents({ since: start, until: start + 5, filters })) as NodeJS.ReadableStream
      let text = ''
      for await (const chunk of stream) text += chunk.toString()
      return text.split('\n').filter(Boolean).map((l) => `${JSON.parse(l).Type} ${JSON.parse(l).Action}`)
    }
    expect(await read({ type: ['container'] })).toEqual(['container start'])
    expect(await read({ type: ['image'] })).toEqual([])
  })

  it('a route the fake does not serve rejects with 501 naming it', async () => {
    await expect(docker.createContainer({ Image: 'nginx', name: 'x' })).rejects.toMatchObject({
      statusCode: 501,
      json: { message: expect.stringMatching(/^POST \/containers\/create is not served by this fake \(dockside serves .*; see docs\/docker-compat\.md\)\.$/) },
    })
    await expect(docker.listNetworks()).rejects.toMatchObject({ statusCode: 501 })
    expect(fake.containers.list()).toHaveLength(2)
  })
})
