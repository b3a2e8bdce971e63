import { expect, test } from 'vitest'
import { createDockside } from 'dockside'

test('a tour of the library API', async () => {
  await using fake = createDockside({ seed: 42, maxConnectionAge: '1h', pushBandwidth: 50_000_000 })

  // State: images, registries, containers.
  fake.registries.add('registry.example.com', { username: 'alice', password: 's3cret' })
  const image = fake.images.add('registry.example.com/team/app', { tags: ['1.0'], layers: [10_000_000, 40_000_000] })
  const web = fake.containers.create({ name: 'web', image: 'nginx:1.27', labels: { app: 'web' } })
  expect(web.id).toMatch(/^[0-9a-f]{64}$/)

  // A real server on 127.0.0.1 and a free port.
  const server = await fake.listen({ port: 0 })
  expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)

  // Events: the model emits, the event log numbers and times them.
  web.start()
  await fake.clock.advance('2s')
  web.stop({ exitCode: 137 })
  expect(fake.events.events.map((e) => [e.seq, e.action, e.attributes.exitCode])).toEqual([
    [1, 'start', '0'],
    [2, 'stop', '137'],
  ])

  // A push over HTTP, paced by the virtual clock: the test moves time while it reads.
  const auth = Buffer.from(JSON.stringify({ username: 'alice', password: 's3cret' })).toString('base64')
  const res = await fetch(`${server.url}/images/registry.example.com/team/app/push?tag=1.0`, {
    method: 'POST',
    headers: { 'X-Registry-Auth': auth },
  })
  const body = res.text()
  await fake.clock.advance('1s') // 50 MB at 50 MB/s
  expect((await body).trim().split('\n').at(-1)).toBe(
    `{"progressDetail":{},"aux":{"Tag":"1.0","Digest":"${image.manifestDigest}","Size":${image.manifestSize}}}`,
  )
  expect(fake.registries.get('registry.example.com').get('registry.example.com/team/app', '1.0')?.pushedBy).toBe('alice')

  // Faults and the journal.
  const rule = fake.faults.add({ on: 'push', reply: 500 })
  expect((await fetch(`${server.url}/images/registry.example.com/team/app/push`, { method: 'POST' })).status).toBe(500)
  expect(rule.fired).toBe(1)
  expect(fake.journal.ofType('fault')).toHaveLength(1)
  expect(JSON.stringify(fake.journal.entries)).not.toContain('s3cret')
})
