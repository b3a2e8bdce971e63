// Regression (issue 8, point 7): `GET /containers/json?filters={"name":["^(a+)+$"]}` compiled the pattern as a
// JavaScript RegExp, which backtracks: against a container named 'a' x 27 + 'b' it blocked the event loop ~1 s, and
// each extra character doubled that. Docker matches with Go's regexp (RE2, linear time); so does the fake now.
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'

const fakes: Dockside[] = []
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close()
})

const ways = [
  { name: 'server', start: async (fake: Dockside) => (await fake.listen({ port: 0 })).url },
  { name: 'in-process', start: async (fake: Dockside) => (await fake.intercept()).baseUrl },
]

const list = (url: string, name: string[]) => fetch(`${url}/containers/json?all=1&filters=${encodeURIComponent(JSON.stringify({ name }))}`)
const names = async (res: Response) => {
  expect(res.status).toBe(200)
  return ((await res.json()) as { Names: string[] }[]).map((c) => c.Names[0])
}

for (const way of ways) {
  describe(`${way.name}: the name filter matches in linear time`, () => {
    it('^(a+)+$ against a 30-character near miss answers at once, with no event-loop pause', async () => {
      const fake = createDockside({ seed: 1 })
      fakes.push(fake)
      // 2^30 backtracking steps per name before the fix: minutes of a frozen loop.
      fake.containers.create({ name: `${'a'.repeat(29)}b`, image: 'nginx' })
      fake.containers.create({ name: 'aaaa', image: 'nginx' })
      const url = await way.start(fake)
      const delay = monitorEventLoopDelay({ resolution: 1 })
      delay.enable()
      const t0 = performance.now()
      for (const pattern of ['^(a+)+$', '^(a|a)*$', '^(a*)*$', '(.*){1,32}x', '^(a+a?)*$']) {
        expect(await names(await list(url, [pattern])), pattern).toEqual(pattern.endsWith('x') ? [] : ['/aaaa'])
      }
      const took = performance.now() - t0
      delay.disable()
      expect(took).toBeLessThan(1000)
      expect(delay.max / 1e6).toBeLessThan(100)
    })

    it('Docker-style patterns match as before: ^web, web$, w.b, /web, alternation, (?i), \\d, classes', async () => {
      const fake = createDockside({ seed: 1 })
      fakes.push(fake)
      for (const name of ['web', 'my-web', 'web-2', 'wab', 'api']) fake.containers.create({ name, image: 'nginx' })
      const url = await way.start(fake)
      const ps = async (pattern: string) => (await names(await list(url, [pattern]))).sort()
      expect(await ps('^web')).toEqual(['/web', '/web-2'])
      expect(await ps('web$')).toEqual(['/my-web', '/web'])
      expect(await ps('w.b')).toEqual(['/my-web', '/wab', '/web', '/web-2'])
      expect(await ps('/web')).toEqual(['/web', '/web-2'])
      expect(await ps('^/(api|wab)$')).toEqual(['/api', '/wab'])
      expect(await ps('(?i)^WEB-\\d$')).toEqual(['/web-2'])
      expect(await ps('^[^w/]')).toEqual(['/api', '/my-web'])
      expect(await ps('\\bweb\\b')).toEqual(['/my-web', '/web', '/web-2'])
      // Go's regexp refuses backreferences and lookaround: Docker skips such a pattern, so it matches nothing.
      expect(await ps('^(w)eb\\1')).toEqual([])
      expect(await ps('^(?!api)')).toEqual([])
    })

    it('a pattern past the state budget is a JSON 400 naming the filter and the limit', async () => {
      const fake = createDockside({ seed: 1 })
      fakes.push(fake)
      fake.containers.create({ name: 'web', image: 'nginx' })
      const url = await way.start(fake)
      const res = await list(url, ['(a?){1000}(b?){1000}'])
      expect(res.status).toBe(400)
      expect(res.headers.get('content-type')).toBe('application/json')
      expect(((await res.json()) as { message: string }).message).toMatch(/^invalid filter 'name=\(a\?\)\{1000\}.*': the pattern compiles to 8002 instructions, more than 1000; the fake matches names in linear time/)
    })
  })
}

for (const way of ways) {
  it(`${way.name}: GET /images/json reference globs match in linear time too`, async () => {
    const fake = createDockside({ seed: 1 })
    fakes.push(fake)
    fake.images.add(`${'a'.repeat(100)}b`, { tags: ['1'], layers: 1 })
    fake.images.add('nginx', { tags: ['1.27'], layers: 1 })
    const url = await way.start(fake)
    const refs = async (reference: string[]) => {
      const res = await fetch(`${url}/images/json?filters=${encodeURIComponent(JSON.stringify({ reference }))}`)
      expect(res.status).toBe(200)
      return ((await res.json()) as { RepoTags: string[] }[]).flatMap((i) => i.RepoTags)
    }
    const t0 = performance.now()
    // As a backtracking RegExp, 8 stars against 101 characters took minutes.
    expect(await refs([`${'*a'.repeat(8)}c`])).toEqual([])
    expect(performance.now() - t0).toBeLessThan(1000)
    expect(await refs(['ngin*'])).toEqual(['nginx:1.27'])
    expect(await refs(['nginx:1.*'])).toEqual(['nginx:1.27'])
  })
}
