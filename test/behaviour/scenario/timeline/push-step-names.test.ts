// Regression: a scenario timeline step `push: docker.io/library/nginx` (the name as the docker CLI pushes it) was
// "No such image" (journaled as timeline.error), while `POST /images/docker.io/library/nginx/push` pushes the image
// the fake stores as `nginx`. The step now resolves names as the push route does (familiarName), and push fault rules
// match it as they match the route's push.
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type Scenario } from '../../../../src/index'

const fakes: Dockside[] = []
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close()
})

const images: Scenario['images'] = [
  { name: 'nginx', layers: 1 },
  { name: 'myuser/app:1', layers: 2 },
]

function fresh(scenario: Scenario) {
  const fake = createDockside({ seed: 17, scenario })
  fakes.push(fake)
  return fake
}

const hubTags = (fake: Dockside) => fake.registries.list().flatMap((r) => r.tags.map((t) => `${r.host} ${t.repository}:${t.tag}`))

describe('scenario push steps name images as the push route reads them', () => {
  it.each([
    ['docker.io/library/nginx', 'docker.io nginx:latest', 'nginx'],
    ['docker.io/library/nginx:latest', 'docker.io nginx:latest', 'nginx'],
    ['docker.io/myuser/app:1', 'docker.io myuser/app:1', 'myuser/app:1'],
    ['index.docker.io/myuser/app', 'docker.io myuser/app:1', 'myuser/app:1'],
  ])('bug: `push: %s` was "no such image"; it pushes %s', async (push, pushed, stored) => {
    const fake = fresh({ images, timeline: [{ at: '1s', push }] })
    await fake.clock.advance('1m')
    expect(fake.journal.ofType('timeline.error')).toEqual([])
    expect(hubTags(fake)).toEqual([pushed])
    expect(fake.registries.get('docker.io').tags[0].digest).toBe(fake.images.resolve(stored)!.manifestDigest)
    expect(fake.journal.ofType('push.done')).toHaveLength(1)
  })

  it('bug: through the admin API (POST /_dockside/scenario?from=now) on 127.0.0.1, as a storyboard', async () => {
    const fake = fresh({ images })
    const { url } = await fake.listen({ port: 0 })
    const res = await fetch(`${url}/_dockside/scenario?from=now`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ timeline: [{ at: '2s', push: 'docker.io/library/nginx:latest' }] }),
    })
    expect(res.status).toBe(200)
    await fake.clock.advance('1m')
    const state = (await (await fetch(`${url}/_dockside/registries`)).json()) as { host: string; tags: { repository: string; tag: string }[] }[]
    expect(state.flatMap((r) => r.tags.map((t) => `${r.host} ${t.repository}:${t.tag}`))).toEqual(['docker.io nginx:latest'])
    expect(fake.journal.ofType('timeline.error')).toEqual([])
  })

  it('a push fault rule written either way matches the step, as it matches the route', async () => {
    const fake = fresh({
      images,
      faults: [{ id: 'hub', on: 'push', match: { image: 'docker.io/library/nginx' }, error: 'blob upload unknown: simulated', afterLayer: 0 }],
      timeline: [{ at: '1s', push: 'docker.io/library/nginx' }],
    })
    await fake.clock.advance('1m')
    expect(fake.journal.ofType('timeline.error')).toEqual([])
    expect(fake.journal.ofType('fault')).toMatchObject([{ rule: 'hub', image: 'nginx' }])
    expect(fake.journal.ofType('push.failed')).toMatchObject([{ repository: 'nginx', message: 'blob upload unknown: simulated' }])
    expect(hubTags(fake)).toEqual([])
  })

  it('a name the fake does not have is still a timeline.error, named as the push route names it', async () => {
    const fake = fresh({ images, timeline: [{ at: '1s', push: 'docker.io/library/redis' }] })
    await fake.clock.advance('1m')
    expect(fake.journal.ofType('timeline.error')).toMatchObject([{ message: 'No such image: redis' }])
  })
})
