// Mutation testing (docs/contributing/testing-internals.md) of src/service/push.ts: a push that names an image by its id (`sha256:<hex>`) is
// Docker's 404 with a hint to tag it first, through the route and through a scenario's push step alike.
// Found by mutation testing of src/service/push.ts (was test/regressions/mutation-push.test.ts).
import { describe, expect, it } from 'vitest'
import { createDockside } from '../../../../src/index'
import type { ProtoRequest } from '../../../../src/protocol/types'

const post = (url: string): ProtoRequest => ({ method: 'POST', url, headers: {}, signal: new AbortController().signal, body: async () => '' })

describe('POST /images/{name}/push', () => {
  it('of sha256:<id> is a 404 telling to tag the image first, and pushes nothing', async () => {
    await using fake = createDockside({ seed: 4 })
    const image = fake.images.add('localhost:5000/team/app:1.0', { layers: 1 })
    for (const url of [`/images/${image.id}/push`, `/images/sha256/push?tag=${image.id.slice(7)}`]) {
      const res = await fake.protocol.handle(post(url))
      expect(res.status, url).toBe(404)
      expect(JSON.parse(res.body as string).message).toBe(
        `No such image: ${image.id}: a push takes a repository and tag, not an image id; tag the image first, e.g. docker tag ${image.id} localhost:5000/team/app:1.0, then push that.`,
      )
    }
    expect(fake.journal.ofType('push.start')).toEqual([])
  })

  it('a scenario step pushing sha256:<id> fails with the same hint (the step has no route to check it first)', async () => {
    await using fake = createDockside({ seed: 4 })
    const image = fake.images.add('localhost:5000/team/app:1.0', { layers: 1 })
    await fake.apply({ timeline: [{ at: '1s', push: image.id }] }, { from: 'now' })
    await fake.clock.advance('1m')
    expect(fake.journal.ofType('timeline.error').map((e) => e.message)).toEqual([
      `No such image: ${image.id}: a push takes a repository and tag, not an image id; tag the image first, e.g. docker tag ${image.id} localhost:5000/team/app:1.0, then push that.`,
    ])
    expect(fake.journal.ofType('push.start')).toEqual([])
  })
})
