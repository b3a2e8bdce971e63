// Regression (real-client review): `busybox`, `library/busybox` and `docker.io/library/busybox` added through the admin
// API (or a scenario, or fake.images.add) were three images, listed as three `busybox latest` rows by docker images,
// of which docker inspect found one. The daemon names all three `busybox`: so does the fake now, and a scenario that
// lists the same image under two of its names is refused as a duplicate.
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

const fakes: Dockside[] = []
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close()
})

it('the admin API adds one image under the name the daemon uses; a later add moves the tag, as docker tag does', async () => {
  const fake = createDockside({ seed: 1 })
  fakes.push(fake)
  const { url } = await fake.listen({ port: 0 })
  const add = (body: unknown) => fetch(`${url}/_dockside/images`, { method: 'POST', body: JSON.stringify(body) }).then((r) => r.status)
  expect(await add({ name: 'busybox' })).toBe(201)
  expect(await add({ name: 'docker.io/library/busybox', layers: 2 })).toBe(201)
  expect(await add({ name: 'library/busybox', layers: 3 })).toBe(201)
  expect(await add({ name: 'docker.io/myuser/app:1.0' })).toBe(201)
  const listed = (await (await fetch(`${url}/images/json`)).json()) as { RepoTags: string[]; RootFS?: unknown; Id: string }[]
  expect(listed.flatMap((i) => i.RepoTags).sort()).toEqual(['busybox:latest', 'myuser/app:1.0'])
  const inspected = (await (await fetch(`${url}/images/docker.io/library/busybox/json`)).json()) as { RootFS: { Layers: string[] } }
  expect(inspected.RootFS.Layers).toHaveLength(3)
})

it('a scenario that lists one image under two of its names is refused, naming both entries', () => {
  expect(() => createDockside({ scenario: { images: [{ name: 'nginx' }, { name: 'docker.io/library/nginx' }] } })).toThrow(
    /images\[1\]: "nginx:latest" is already listed at images\[0\]/,
  )
})
