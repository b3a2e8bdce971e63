// Regressions of issue 8 points 5 and 11 found in review. Adding a registry whose host the fake already had
// silently replaced it: `POST /_dockside/registries {"host":"localhost:5000"}` turned a basic-auth registry open
// and dropped its pushed tags, after which `POST /auth` said "Login Succeeded" to any credentials (the same through
// fake.registries.add, fake.apply and POST /_dockside/scenario). A scenario with an empty `username` passed
// validateScenario and the schema, then failed half-way through POST /_dockside/scenario, leaving its first
// registry (and its rate limit) behind. POST /auth echoed a malformed body, password included, in its 400.
// fake.listen({ admintoken }) and fake.intercept({ regoin }) took a typo silently (leaving the admin API open).
import { afterEach, describe, expect, it, test } from 'vitest'
import { ConflictError, createDockside, validateScenario, type Dockside, type Scenario } from '../../../src/index'
import { interceptWay } from '../../support/intercept-way'
import type { Harness, WayIn } from '../../support/way-in'
import { registryAuth } from '../../support/helpers'

const serverWay: WayIn = {
  name: 'server',
  async start(fake) {
    const s = await fake.listen({ port: 0 })
    return { baseUrl: s.url, wsBaseUrl: s.wsUrl, fetch: (path, init) => fetch(s.url + path, init), connect: () => Promise.reject(new Error('unused')), close: () => s.close() }
  },
}

const post = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) })
const login = (h: Harness, username: string, password: string) => h.fetch('/auth', post({ username, password, serveraddress: 'localhost:5000' }))

test('bug: fake.registries.add of a known host replaced it (open, tags gone); now a ConflictError naming the host and what to do', async () => {
  await using fake = createDockside()
  fake.registries.add('localhost:5000', { username: 'ci', password: 's3cret' })
  fake.images.add('localhost:5000/team/app', { tags: ['1'], layers: 1 })
  fake.registries.get('localhost:5000')
  let error: unknown
  try {
    fake.registries.add('localhost:5000')
  } catch (e) {
    error = e
  }
  expect(error).toBeInstanceOf(ConflictError)
  expect((error as Error).message).toBe(
    'A registry at "localhost:5000" already exists (basic auth, 0 pushed tags); each host is added once, since adding it again would drop its credentials and tags. Add every registry before anything pushes to it, or reset the fake (fake.reset(), POST /_dockside/reset) to start over.',
  )
  expect(fake.registries.get('localhost:5000').auth).toEqual({ kind: 'basic', username: 'ci', password: 's3cret' })
  // A host a push created (open) is known too.
  expect(() => fake.registries.add('localhost:5000', { token: 't' })).toThrow(ConflictError)
})

test('bug: validateScenario accepted an empty username that createDockside refused; both refuse it now, with the same path', async () => {
  const cases: [object, string][] = [
    [{ host: 'b:1', username: '', password: 'x' }, 'username'],
    [{ host: 'b:1', username: 'u', password: '' }, 'password'],
    [{ host: 'b:1', token: '' }, 'token'],
  ]
  for (const [registry, field] of cases) {
    const scenario = { registries: [{ host: 'a:1' }, registry] } as Scenario
    const expected = `(scenario): at registries[1].${field}: must be a non-empty string`
    await expect(validateScenario(scenario)).rejects.toThrow(expected)
    expect(() => createDockside({ scenario })).toThrow(expected)
  }
  await using fake = createDockside()
  expect(() => fake.registries.add('c:1', { token: '' })).toThrow('Registry "c:1" needs a non-empty "token"')
  expect(() => fake.registries.add('c:1', { username: 'u', password: '' })).toThrow('Registry "c:1" needs both "username" and "password" (or a "token"), neither empty.')
  expect(fake.registries.list()).toEqual([])
})

describe.each([serverWay, interceptWay])('$name', (way) => {
  let fake: Dockside
  let h: Harness
  afterEach(async () => {
    await h?.close()
    await fake?.close()
  })
  const start = async () => {
    fake = createDockside()
    h = await way.start(fake)
  }

  it('bug: POST /_dockside/registries of a known host made a basic-auth registry open; now a 409 and the credentials still hold', async () => {
    await start()
    fake.registries.add('localhost:5000', { username: 'ci', password: 's3cret' })
    const res = await h.fetch('/_dockside/registries', post({ host: 'localhost:5000' }))
    expect(res.status).toBe(409)
    expect((await res.json()).message).toMatch(/^A registry at "localhost:5000" already exists \(basic auth, 0 pushed tags\); each host is added once/)
    expect((await login(h, 'x', 'y')).status).toBe(500)
    expect((await login(h, 'ci', 's3cret')).status).toBe(200)
    const other = await h.fetch('/_dockside/registries', post({ host: 'localhost:5001', token: 't' }))
    expect(other.status).toBe(201)
  })

  it('bug: a scenario applied at run time replaced a known registry; now refused with the path, nothing applied', async () => {
    await start()
    fake.registries.add('localhost:5000', { username: 'ci', password: 's3cret' })
    const scenario = { containers: [{ name: 'web', image: 'nginx' }], registries: [{ host: 'a:1' }, { host: 'localhost:5000' }], rateLimit: { limit: 1, window: '1s' } }
    const expected = '(scenario): at registries[1].host: a registry at "localhost:5000" already exists in the fake; each host is added once'
    const res = await h.fetch('/_dockside/scenario', post(scenario))
    expect(res.status).toBe(400)
    expect((await res.json()).message).toBe(expected)
    await expect(fake.apply(scenario)).rejects.toThrow(expected)
    expect(fake.registries.list().map((r) => r.host)).toEqual(['localhost:5000'])
    expect(fake.containers.list()).toEqual([])
    expect(fake.rateLimit.get()).toEqual([])
    expect((await login(h, 'x', 'y')).status).toBe(500)
  })

  it('bug: POST /_dockside/scenario with an empty username left its first registry and its rate limit behind; now all or nothing', async () => {
    await start()
    const before = await (await h.fetch('/_dockside/state')).text()
    const scenario = { containers: [{ name: 'x1', image: 'i' }], registries: [{ host: 'a:1' }, { host: 'b:1', username: '', password: 'x' }], rateLimit: { limit: 1, window: '1s' } }
    const res = await h.fetch('/_dockside/scenario', post(scenario))
    expect(res.status).toBe(400)
    expect((await res.json()).message).toBe('(scenario): at registries[1].username: must be a non-empty string')
    expect(await (await h.fetch('/_dockside/state')).text()).toBe(before)
    expect(fake.registries.list()).toEqual([])
    expect(fake.rateLimit.get()).toEqual([])
  })

  it('bug: POST /auth echoed a malformed body (password included) in its 400; now it names what was wrong without the value', async () => {
    await start()
    fake.registries.add('localhost:5000', { username: 'ci', password: 'hunter2' })
    const bodies: [string, RegExp][] = [
      ['{"username":"ci","password":"hunter2","serveraddress":"localhost:5000"', /^POST \/auth needs a JSON AuthConfig body .*; the body is not valid JSON \(\d+ bytes, not shown: it may hold a password\)\.$/],
      ['["hunter2"]', /^The POST \/auth body is not an AuthConfig: send one/],
      ['"hunter2"', /^The POST \/auth body is not an AuthConfig: send one/],
    ]
    for (const [body, message] of bodies) {
      const res = await h.fetch('/auth', { method: 'POST', body })
      const text = await res.text()
      // Go's json error in the body (a 500, as the daemon answers it), the help in the hint: neither holds the body.
      expect(res.status, body).toBe(500)
      expect(res.headers.get('x-dockside-hint')).toMatch(message)
      expect(text + (res.headers.get('x-dockside-hint') ?? '')).not.toContain('hunter2')
    }
  })

  it('bug: admin bodies that were not JSON were echoed (a registry password included); now their size is named, not their text', async () => {
    await start()
    for (const path of ['/_dockside/registries', '/_dockside/scenario', '/_dockside/faults', '/_dockside/images']) {
      const res = await h.fetch(path, post('{"host":"r:1","username":"u","password":"hunter2"'))
      const text = await res.text()
      expect(res.status, path).toBe(400)
      expect(JSON.parse(text).message, path).toMatch(/^The request body is not valid JSON \(\d+ bytes, not shown: it may hold a secret\)\./)
      expect(text).not.toContain('hunter2')
    }
    // X-Registry-Auth that is not an object, with a secret inside: not echoed either.
    fake.registries.add('localhost:5000', { username: 'ci', password: 's3cret' })
    fake.images.add('localhost:5000/team/app', { tags: ['1'], layers: 1 })
    const push = await h.fetch('/images/localhost:5000/team/app/push?tag=1', { method: 'POST', headers: { 'x-registry-auth': registryAuth(['hunter2']) } })
    expect(await push.text()).not.toContain('hunter2')
  })
})

test('bug: fake.listen({ admintoken }) and fake.intercept({ regoin }) were accepted silently; now refused naming the option', async () => {
  await using fake = createDockside()
  await expect(fake.listen({ port: 0, admintoken: 'x' } as never)).rejects.toThrow(/^fake\.listen options: unknown option "admintoken"; allowed: host, port, tls, adminToken, allowedOrigins, allowedHosts$/)
  await expect(fake.intercept({ regoin: 'x' } as never)).rejects.toThrow(/^fake\.intercept options: unknown option "regoin"; allowed: region, domain, baseUrl, wsBaseUrl, onUnhandled$/)
  await expect(fake.listen(null as never)).rejects.toThrow('fake.listen options: must be an object of options')
  // Nothing was hooked or bound by the refused calls.
  await expect(fetch('https://x.hyper.test/_ping')).rejects.toThrow()
})
