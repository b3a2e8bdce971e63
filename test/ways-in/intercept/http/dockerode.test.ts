import Docker from 'dockerode'
import { expect, it } from 'vitest'
import { createDockside } from '../../../../src/index'

type Line = { status?: string; aux?: { Tag: string; Digest: string; Size: number } }

// A real client on node:https (docker-modem), pointed at the real service's address, answered in process.
it('dockerode on https://us-west-1.hyper.test:443 pushes, follows events and gets errors through the in-process hooks', async () => {
  await using fake = createDockside({ clock: 'auto', seed: 5 })
  const image = fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 3 })
  await using _h = await fake.intercept()
  const docker = new Docker({ host: 'us-west-1.hyper.test', port: 443, protocol: 'https' })

  const stream = await docker.getImage('localhost:5000/team/app').push({ tag: '1.0' })
  const lines = await new Promise<Line[]>((resolve, reject) => docker.modem.followProgress(stream, (err: Error | null, out: Line[]) => (err ? reject(err) : resolve(out))))
  expect(lines.at(-1)).toEqual({ progressDetail: {}, aux: { Tag: '1.0', Digest: image.manifestDigest, Size: image.manifestSize } })
  expect(lines.filter((l) => l.status === 'Pushed')).toHaveLength(3)

  // getEvents resolves on the response headers, before any event: the hooks send them at once, as the server does.
  const events = (await docker.getEvents({ filters: { event: ['start'] } })) as NodeJS.ReadableStream & { destroy(): void }
  const first = new Promise<string>((resolve) => events.once('data', (d) => resolve(String(d))))
  const web = fake.containers.create({ name: 'web', image: 'nginx' }).start()
  expect(JSON.parse(await first)).toMatchObject({ Action: 'start', id: web.id })
  events.destroy()

  await expect(docker.getImage('localhost:5000/team/nope').push({ tag: '1.0' })).rejects.toMatchObject({ statusCode: 404 })
})
