// Regression found by the fidelity audit: malformed push references answered 404 "No such image"
// (or, for a digest, silently pushed every tag) where the daemon refuses them with a 400.
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside } from '../../../../src/index'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0)) await c()
})

async function started() {
  const fake = createDockside({ clock: 'auto' })
  closers.push(() => fake.close())
  fake.images.add('localhost:5000/team/app:1.0', { layers: 1 })
  fake.images.add('nginx:1.27', { layers: 1 })
  return { fake, url: (await fake.listen({ port: 0 })).url }
}

describe('push references the daemon would refuse are 400s naming what is allowed (audit)', () => {
  // The body is the daemon's text (distribution/reference's, through moby's postImagesPush), byte for byte; the
  // fake's help, naming what is allowed, rides in X-Dockside-Hint.
  it.each([
    ['bug: upper case answered 404', '/images/UPPER/push', 'invalid reference format: repository name (library/UPPER) must be lowercase', /invalid reference format "UPPER": expected lower-case/],
    ['bug: a bad tag query answered 404', '/images/localhost:5000/team/app/push?tag=bad!', 'invalid tag format', /invalid tag format "bad!"/],
    ['bug: a bad tag in the name answered 404', '/images/nginx:-x/push', 'invalid reference format', /invalid tag format "-x"/],
    ['bug: malformed percent-encoding answered 404', '/images/%ZZ/push', 'invalid reference format: repository name (library/%ZZ) must be lowercase', /invalid reference format "%ZZ"/],
    ['bug: a digest reference pushed every tag', '/images/nginx@sha256:abc/push', 'invalid reference format', /cannot push a digest reference "nginx@sha256:abc"/],
  ])('%s', async (_, path, body, hint) => {
    const { fake, url } = await started()
    const res = await fetch(url + path, { method: 'POST' })
    expect(res.status).toBe(400)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect((await res.json()).message).toBe(body)
    expect(res.headers.get('x-dockside-hint')).toMatch(hint)
    expect(fake.journal.ofType('push.start')).toEqual([])
  })

  it('valid references still push (percent-encoded, tag query)', async () => {
    const { url } = await started()
    const res = await fetch(`${url}/v1.47/images/localhost%3A5000%2Fteam%2Fapp/push?tag=1.0`, { method: 'POST' })
    expect(res.status).toBe(200)
    expect(await res.text()).toContain('"aux":{"Tag":"1.0"')
  })
})
