import { expect } from 'vitest'
import type { Case } from '../support/way-in'
import { drainWithClock, registryAuth } from '../support/helpers'

const lines = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l))

export const pushCases: Case[] = [
  {
    name: 'a push streams the daemon sequence and records the tag in the registry',
    async run({ fake, h }) {
      const image = fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: [3_000_000, 1_000_000] })
      const res = await h.fetch('/v1.47/images/localhost:5000/team/app/push?tag=1.0', { method: 'POST' })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('application/json')
      const text = await drainWithClock(res, () => fake.clock.advance('100ms'))
      const out = lines(text)
      expect(out[0]).toEqual({ status: 'The push refers to repository [localhost:5000/team/app]' })
      // Literal fixtures (seed 7): layer ids, progress text as Docker prints it, the manifest's digest and size.
      expect(image.layers.map((l) => l.shortId)).toEqual(['1b9ffbb15aeb', 'd5fecac26aaa'])
      expect(text).toContain('{"status":"Preparing","progressDetail":{},"id":"d5fecac26aaa"}')
      // The bar's head as Go's JSON encoder writes it, \u003e, as in every real daemon's push stream.
      expect(text).toContain('{"status":"Pushing","progressDetail":{"current":1000000,"total":3000000},"progress":"[================\\u003e                                  ]      1MB/3MB","id":"1b9ffbb15aeb"}')
      expect(text).toContain('{"status":"Pushing","progressDetail":{"current":1000000,"total":1000000},"progress":"[==================================================\\u003e]      1MB/1MB","id":"d5fecac26aaa"}')
      expect(out.filter((l) => l.status === 'Pushed').map((l) => l.id).sort()).toEqual(['1b9ffbb15aeb', 'd5fecac26aaa'])
      const digest = 'sha256:596be8eda1aed6efe3ff9d0fcea465d2da92fbd5b3cc6bd5c9dc2e6abad1c70a'
      expect(out.at(-2)).toEqual({ status: `1.0: digest: ${digest} size: 739` })
      expect(text.trimEnd().split('\n').at(-1)).toBe(`{"progressDetail":{},"aux":{"Tag":"1.0","Digest":"${digest}","Size":739}}`)
      expect(fake.registries.get('localhost:5000').get('localhost:5000/team/app', '1.0')?.digest).toBe(digest)
    },
  },
  {
    name: 'push pacing follows the clock: 1 MB/s bandwidth means a 3 MB layer takes 3 s of clock time',
    options: { pushBandwidth: 1_000_000 },
    async run({ fake, h }) {
      fake.images.add('localhost:5000/app:1', { layers: [3_000_000] })
      const t0 = fake.clock.now()
      const res = await h.fetch('/images/localhost:5000/app:1/push', { method: 'POST' })
      await drainWithClock(res, () => fake.clock.advance('100ms'))
      expect(fake.clock.now() - t0).toBeGreaterThanOrEqual(3000)
      expect(fake.clock.now() - t0).toBeLessThan(3300)
    },
  },
  {
    name: 'no tag pushes every tag; the second tag finds its layers already there',
    async run({ fake, h }) {
      fake.images.add('localhost:5000/team/app', { tags: ['1.0', 'latest'], layers: 2 })
      const res = await h.fetch('/images/localhost:5000%2Fteam%2Fapp/push', { method: 'POST' })
      const out = lines(await drainWithClock(res, () => fake.clock.advance('1s')))
      expect(out.filter((l) => l.aux).map((l) => l.aux.Tag)).toEqual(['1.0', 'latest'])
      expect(out.filter((l) => l.status === 'Layer already exists')).toHaveLength(2)
      expect(fake.registries.get('localhost:5000').tags.map((t) => t.tag)).toEqual(['1.0', 'latest'])
    },
  },
  {
    name: 'the tag query wins over a tag in the name',
    async run({ fake, h }) {
      fake.images.add('localhost:5000/app', { tags: ['1', '2'], layers: 1 })
      const res = await h.fetch('/images/localhost:5000/app:1/push?tag=2', { method: 'POST' })
      const out = lines(await drainWithClock(res, () => fake.clock.advance('1s')))
      expect(out.filter((l) => l.aux).map((l) => l.aux.Tag)).toEqual(['2'])
    },
  },
  {
    name: 'an unknown image is a 404 with a JSON message and exact content type',
    async run({ h }) {
      const res = await h.fetch('/v1.47/images/localhost:5000/nope/push?tag=1', { method: 'POST' })
      expect(res.status).toBe(404)
      expect(res.headers.get('content-type')).toBe('application/json')
      expect(await res.json()).toEqual({ message: 'No such image: localhost:5000/nope:1' })
    },
  },
  {
    name: 'a private-registry name must already be tagged into that repository',
    async run({ fake, h }) {
      fake.images.add('team/app:1.0', { layers: 1 })
      const res = await h.fetch('/images/localhost:5000/team/app/push?tag=1.0', { method: 'POST' })
      expect(res.status).toBe(404)
      fake.images.tag('team/app:1.0', 'localhost:5000/team/app:1.0')
      const ok = await h.fetch('/images/localhost:5000/team/app/push?tag=1.0', { method: 'POST' })
      expect(ok.status).toBe(200)
      await drainWithClock(ok, () => fake.clock.advance('1s'))
    },
  },
  {
    name: 'credentials: right ones push, wrong ones give an in-stream unauthorized error, never a 401',
    async run({ fake, h }) {
      fake.registries.add('registry.example.com', { username: 'alice', password: 's3cret' })
      fake.images.add('registry.example.com/team/app:1', { layers: 1 })
      const path = '/images/registry.example.com/team/app/push?tag=1'
      const bad = await h.fetch(path, { method: 'POST', headers: { 'X-Registry-Auth': registryAuth({ username: 'alice', password: 'nope' }) } })
      expect(bad.status).toBe(200)
      const badLines = lines(await drainWithClock(bad, () => fake.clock.advance('1s')))
      expect(badLines.at(-1)).toEqual({ errorDetail: { message: 'unauthorized: authentication required' }, error: 'unauthorized: authentication required' })
      const none = await h.fetch(path, { method: 'POST' })
      expect(lines(await drainWithClock(none, () => fake.clock.advance('1s'))).at(-1).error).toBe('no basic auth credentials')
      expect(fake.registries.get('registry.example.com').tags).toHaveLength(0)
      // base64url without padding decodes too.
      const good = await h.fetch(path, { method: 'POST', headers: { 'X-Registry-Auth': registryAuth({ username: 'alice', password: 's3cret', email: 'a@example.com' }, true).replace(/=+$/, '') } })
      const goodLines = lines(await drainWithClock(good, () => fake.clock.advance('1s')))
      expect(goodLines.at(-1).aux.Tag).toBe('1')
      expect(fake.registries.get('registry.example.com').get('registry.example.com/team/app', '1')?.pushedBy).toBe('alice')
      const journal = JSON.stringify(fake.journal.entries)
      expect(journal).not.toContain('s3cret')
      expect(fake.journal.ofType('push.start').at(-1)).toMatchObject({ auth: { username: 'alice', password: '***' } })
    },
  },
  {
    name: 'a token registry accepts the registrytoken form',
    async run({ fake, h }) {
      fake.registries.add('localhost:5001', { token: 'tok-123' })
      fake.images.add('localhost:5001/app:1', { layers: 1 })
      const ok = await h.fetch('/images/localhost:5001/app/push?tag=1', { method: 'POST', headers: { 'X-Registry-Auth': registryAuth({ registrytoken: 'tok-123' }) } })
      expect(lines(await drainWithClock(ok, () => fake.clock.advance('1s'))).at(-1).aux).toMatchObject({ Tag: '1', Digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) })
      const bad = await h.fetch('/images/localhost:5001/app/push?tag=1', { method: 'POST', headers: { 'X-Registry-Auth': 'e30=' } })
      expect(lines(await drainWithClock(bad, () => fake.clock.advance('1s'))).at(-1).error).toMatch(/unauthorized/)
    },
  },
  {
    name: 'the first line arrives before the clock moves; a client abort cancels and leaves nothing in the registry',
    async run({ fake, h }) {
      fake.images.add('localhost:5000/big:1', { layers: [500_000_000] })
      const controller = new AbortController()
      const res = await h.fetch('/images/localhost:5000/big/push?tag=1', { method: 'POST', signal: controller.signal })
      const reader = res.body!.getReader()
      const first = new TextDecoder().decode((await reader.read()).value)
      expect(first).toContain('The push refers to repository [localhost:5000/big]')
      await fake.clock.advance('1s')
      controller.abort()
      await expect.poll(() => fake.journal.ofType('push.cancelled').length).toBe(1)
      await fake.clock.advance('1m')
      expect(fake.registries.get('localhost:5000').tags).toHaveLength(0)
      expect(fake.registries.get('localhost:5000').blobs.size).toBe(0)
    },
  },
  {
    name: 'a dockerode-style JSON body and Content-Type are ignored',
    async run({ fake, h }) {
      fake.images.add('localhost:5000/app:1.0', { layers: 1 })
      const res = await h.fetch('/images/localhost:5000/app/push', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"tag":"1.0"}' })
      expect(lines(await drainWithClock(res, () => fake.clock.advance('1s'))).at(-1).aux.Tag).toBe('1.0')
    },
  },
]
