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

  // Past the grammar, reference.Parse checks the name's length counted normalized (`docker.io/library/` counts), then
  // the digest as go-digest validates it; the push and the tag route answered these 404 "No such image" (audit, checked
  // against dockerd 20.10: 500 below API 1.42, where the daemon did not class the error, else 400).
  it.each([
    ['a one-part name of 238 characters (256 with docker.io/library/)', `/images/${'a'.repeat(238)}/push?tag=1`, 'repository name must not be more than 255 characters', /256 characters as the daemon counts it/],
    ['a registry name of 256 characters', `/images/localhost:5000/${'c'.repeat(241)}/push`, 'repository name must not be more than 255 characters', /256 characters as the daemon counts it/],
    ['a short sha256 digest', `/images/nginx@sha256:${'0'.repeat(32)}/push`, 'invalid checksum digest length', /must be sha256:<64 hex digits>/],
    ['an upper-case digest', `/images/nginx@sha256:${'A'.repeat(64)}/push`, 'invalid checksum digest format', /in lower case/],
    ['an unknown digest algorithm', `/images/nginx@md5:${'0'.repeat(32)}/push`, 'unsupported digest algorithm', /must be sha256/],
  ])('%s: the daemon\'s text, 400 (500 at API 1.41)', async (_, path, body, hint) => {
    const { fake, url } = await started()
    for (const [prefix, status] of [['', 400], ['/v1.41', 500], ['/v1.42', 400]] as const) {
      const res = await fetch(url + prefix + path, { method: 'POST' })
      expect([res.status, (await res.json()).message], prefix + path).toEqual([status, body])
      expect(res.headers.get('x-dockside-hint')).toMatch(hint)
    }
    expect(fake.journal.ofType('push.start')).toEqual([])
  })

  it('a tag to a name over 255 characters or a malformed digest: the daemon\'s text, from the repo or from the source', async () => {
    const { fake, url } = await started()
    const tag = async (path: string) => {
      const res = await fetch(url + path, { method: 'POST' })
      return [res.status, (await res.json()).message]
    }
    const long = 'a'.repeat(238)
    // The new name is parsed first (httputils.RepoTagReference): 500 on the 20.10 daemon, 400 from API 1.42.
    expect(await tag(`/v1.41/images/nginx:1.27/tag?repo=${long}&tag=1`)).toEqual([500, 'repository name must not be more than 255 characters'])
    expect(await tag(`/v1.47/images/nginx:1.27/tag?repo=${long}&tag=1`)).toEqual([400, 'repository name must not be more than 255 characters'])
    expect(await tag(`/v1.41/images/nginx:1.27/tag?repo=app@sha256:${'0'.repeat(32)}`)).toEqual([500, 'invalid checksum digest length'])
    // A source no image could be called: GetImage's 400 on the 20.10 daemon, the tag route's 404 from API 1.42.
    expect(await tag(`/v1.41/images/app@sha256:${'0'.repeat(32)}/tag?repo=x`)).toEqual([400, 'invalid checksum digest length'])
    expect(await tag(`/v1.47/images/${long}/tag?repo=x`)).toEqual([404, 'repository name must not be more than 255 characters'])
    expect(fake.journal.ofType('image.tag')).toEqual([])
  })

  it('a broken escape in the name is refused before any route, as Go\'s HTTP server refuses it; one in the query as ParseForm does', async () => {
    // Was 404, then the fake's own JSON 400: dockerd 20.10 answers a bare plain-text 400 and closes the connection.
    const { fake, url } = await started()
    const res = await fetch(`${url}/v1.41/images/%ZZ/push`, { method: 'POST' })
    expect([res.status, res.headers.get('content-type'), res.headers.get('connection'), await res.text()]).toEqual([400, 'text/plain; charset=utf-8', 'close', '400 Bad Request'])
    expect(res.headers.get('api-version')).toBeNull()
    expect(res.headers.get('x-dockside-hint')).toMatch(/broken escape "%ZZ"/)
    for (const [query, message] of [['tag=%ZZ', 'invalid URL escape "%ZZ"'], ['tag=1&x=%4', 'invalid URL escape "%4"'], ['tag=1;x=2', 'invalid semicolon separator in query']]) {
      const q = await fetch(`${url}/v1.41/images/nginx/push?${query}`, { method: 'POST' })
      expect([q.status, (await q.json()).message], query).toEqual([400, message])
      expect(q.headers.get('x-dockside-hint'), query).toMatch(/in the query part|holds a ";"/)
    }
    expect(fake.journal.ofType('push.start')).toEqual([])
  })

  it('valid references still push (percent-encoded, tag query)', async () => {
    const { url } = await started()
    const res = await fetch(`${url}/v1.47/images/localhost%3A5000%2Fteam%2Fapp/push?tag=1.0`, { method: 'POST' })
    expect(res.status).toBe(200)
    expect(await res.text()).toContain('"aux":{"Tag":"1.0"')
  })
})
