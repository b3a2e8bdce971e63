import { expect } from 'vitest'
import { refusal, type Case } from '../support/way-in'

const post = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
const registryAuth = (username: string, password: string) => Buffer.from(JSON.stringify({ username, password })).toString('base64')

export const overrideCases: Case[] = [
  {
    name: 'fake.use answers a route with a status, headers and JSON body until reset(); the fake answers again after',
    async run({ fake, h }) {
      fake.use('GET /_ping', { status: 503, headers: { 'retry-after': '7' }, body: { message: 'down for maintenance' } })
      const res = await h.fetch('/_ping')
      expect(res.status).toBe(503)
      expect(res.headers.get('retry-after')).toBe('7')
      expect(res.headers.get('content-type')).toBe('application/json')
      expect(await res.json()).toEqual({ message: 'down for maintenance' })
      // The API version prefix is not part of the path a pattern sees.
      expect((await h.fetch('/v1.47/_ping')).status).toBe(503)
      await fake.reset()
      expect((await h.fetch('/_ping')).status).toBe(200)
    },
  },
  {
    // node:http wrote the head of a string body as UTF-8 bytes, so the server's clients read `cafÃ©`.
    name: 'a header value with Latin-1 characters reads the same on every way in, for a fetch and for a refused upgrade',
    async run({ fake, h }) {
      fake.use('GET /version', { status: 200, headers: { 'x-team': 'café crème', 'x-sign': '±5 µs' }, body: 'ok' })
      const res = await h.fetch('/version')
      expect([res.headers.get('x-team'), res.headers.get('x-sign'), await res.text()]).toEqual(['café crème', '±5 µs', 'ok'])
      fake.use({ path: '/events/ws' }, { status: 503, headers: { 'x-team': 'café' }, body: { message: 'événements en pause' } }, { times: 1 })
      const refused = await h.connect('/events/ws')
      expect(refused.status).toBe(503)
      expect(refusal(refused).headers['x-team']).toBe('café')
      expect(JSON.parse(refusal(refused).body)).toEqual({ message: 'événements en pause' })
    },
  },
  {
    name: 'an override used `times` times then falls through; the newest match wins; remove() takes it away',
    async run({ fake, h }) {
      const base = fake.use({ method: 'GET', path: '/containers/json' }, { status: 500, body: 'always broken' })
      const once = fake.use({ method: 'GET', path: '/containers/json' }, { status: 429, body: { message: 'slow down' } }, { times: 1 })
      expect((await h.fetch('/containers/json')).status).toBe(429)
      const second = await h.fetch('/containers/json')
      expect(second.status).toBe(500)
      expect(second.headers.get('content-type')).toBe('text/plain; charset=utf-8')
      expect(await second.text()).toBe('always broken')
      expect([once.used, base.used]).toEqual([1, 1])
      expect(fake.overrides.list().map((o) => [o.id, o.times, o.used])).toEqual([
        [base.id, null, 1],
        [once.id, 1, 1],
      ])
      expect(base.remove()).toBe(true)
      expect((await h.fetch('/containers/json')).status).toBe(200)
    },
  },
  {
    name: 'an override stubs a Docker route the fake does not serve (container logs), on every way in',
    async run({ fake, h }) {
      fake.use('GET /containers/:id/logs', (req) => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: `logs of ${req.path.split('/')[2]} (stdout=${req.query.stdout})` }))
      const res = await h.fetch('/v1.47/containers/web/logs?stdout=1')
      expect(res.status).toBe(200)
      expect(await res.text()).toBe('logs of web (stdout=1)')
      expect(fake.requests.list('/containers/*/logs').map((r) => [r.status, r.override])).toEqual([[200, 'override-1']])
    },
  },
  {
    name: 'a delay waits on the fake clock: no answer until the test advances it',
    async run({ fake, h }) {
      fake.use('GET /version', { delay: '30s', passthrough: true })
      let answered = false
      const pending = h.fetch('/version').then((r) => {
        answered = true
        return r
      })
      await fake.clock.advance('29s')
      expect(answered).toBe(false)
      await fake.clock.advance('1s')
      const res = await pending
      expect(res.status).toBe(200)
      expect((await res.json()).ApiVersion).toBeDefined()
      expect(fake.journal.ofType('override')).toMatchObject([{ path: '/version', status: 'passthrough', delayMs: 30_000 }])
    },
  },
  {
    name: 'a handler looks at the request: answers some, passes the rest to the fake (faults included)',
    async run({ fake, h }) {
      fake.images.add('localhost:5000/team/app', { tags: ['1.0', '2.0'], layers: 1 })
      const seen: string[] = []
      fake.use({ method: 'POST', path: '/images/*/push' }, (req) => {
        seen.push(`${req.path} tag=${req.query.tag} client=${req.client}`)
        if (req.query.tag === '2.0') return { status: 404, body: { message: 'tag 2.0 is quarantined' } }
        return undefined
      })
      fake.faults.add({ on: 'push', reply: 500, times: 1 })
      const quarantined = await h.fetch('/images/localhost:5000/team/app/push?tag=2.0', { method: 'POST', headers: { 'x-dockside-client': 'ci' } })
      expect(quarantined.status).toBe(404)
      expect(await quarantined.json()).toEqual({ message: 'tag 2.0 is quarantined' })
      // Passed on: the fault plan answers as if there were no override.
      expect((await h.fetch('/images/localhost:5000/team/app/push?tag=1.0', { method: 'POST' })).status).toBe(500)
      expect(seen).toEqual(['/images/localhost:5000/team/app/push tag=2.0 client=ci', '/images/localhost:5000/team/app/push tag=1.0 client=undefined'])
    },
  },
  {
    name: 'the events websocket upgrade can be refused with a status of the test\'s choosing',
    async run({ fake, h }) {
      fake.use({ path: '/events/ws', query: { client: 'dashboard' } }, { status: 503, headers: { 'retry-after': '3' }, body: { message: 'events paused' } }, { times: 1 })
      const refused = await h.connect('/events/ws?client=dashboard')
      expect(refused.status).toBe(503)
      // Every way in shows a refusal's body and headers (refusal() fails the case when one does not).
      expect(JSON.parse(refusal(refused).body)).toEqual({ message: 'events paused' })
      expect(refusal(refused).headers['retry-after']).toBe('3')
      // Another client, and the same one after the override is spent, connect.
      const other = await h.connect('/events/ws?client=other')
      expect(other.status).toBe(101)
      const again = await h.connect('/events/ws?client=dashboard')
      expect(again.status).toBe(101)
      expect(fake.requests.list({ path: '/events/ws' }).map((r) => [r.client, r.status, r.websocket, r.override])).toEqual([
        ['dashboard', 503, true, 'override-1'],
        ['other', 101, true, undefined],
        ['dashboard', 101, true, undefined],
      ])
      other.close()
      again.close()
    },
  },
  {
    name: 'a delay holds the events websocket handshake on the fake clock, then lets it through',
    async run({ fake, h }) {
      fake.use('/events/ws', { delay: '5s', passthrough: true })
      const decided = new Promise<void>((resolve) => fake.on('journal', (e) => e.type === 'override' && resolve()))
      let settled = false
      const pending = h.connect('/events/ws?client=late').finally(() => (settled = true))
      // The upgrade has reached the fake and is held: 4 s later it is still not open.
      await decided
      await fake.clock.advance('4s')
      expect(settled).toBe(false)
      expect(fake.journal.ofType('ws.open')).toHaveLength(0)
      await fake.clock.advance('1s')
      const ws = await pending
      expect(ws.status).toBe(101)
      fake.containers.create({ name: 'web', image: 'nginx' }).start()
      expect(JSON.parse(await ws.nextMessage()).Action).toBe('start')
      ws.close()
    },
  },
  {
    name: 'overrides through the admin API: add, list, answer, delete; bad input is a 400 naming the field',
    async run({ h }) {
      const added = await h.fetch('/_dockside/overrides', post({ id: 'maint', request: { method: 'GET', pathPattern: '^/containers/[^/]+/json$' }, response: { status: 503, body: { message: 'maintenance' } }, times: 2 }))
      expect(added.status).toBe(201)
      expect(await added.json()).toEqual({ id: 'maint', request: 'GET /^/containers/[^/]+/json$/', response: { status: 503, body: { message: 'maintenance' } }, times: 2, used: 0 })
      expect((await h.fetch('/containers/web/json')).status).toBe(503)
      expect(await (await h.fetch('/_dockside/overrides')).json()).toMatchObject([{ id: 'maint', used: 1 }])
      expect((await h.fetch('/_dockside/overrides/maint', { method: 'DELETE' })).status).toBe(200)
      expect((await h.fetch('/containers/web/json')).status).toBe(404)
      const bad = await h.fetch('/_dockside/overrides', post({ request: { path: '/_ping' }, response: { status: 42 } }))
      expect(bad.status).toBe(400)
      expect((await bad.json()).message).toMatch(/^response\.status: must be an integer from 200 to 599/)
      const typo = await h.fetch('/_dockside/overrides', post({ request: { path: '/_ping', methd: 'GET' }, response: {} }))
      expect((await typo.json()).message).toBe('request.methd: unknown field; allowed: method, path, pathPattern, query, headers, body, client')
      const redos = await h.fetch('/_dockside/overrides', post({ request: { pathPattern: '(a+)+\\1' }, response: {} }))
      expect(redos.status).toBe(400)
      expect((await h.fetch('/_dockside/overrides/nope', { method: 'DELETE' })).status).toBe(404)
    },
  },
  {
    name: 'request verification: what the fake received, counted and queried; secrets masked; near misses named',
    async run({ fake, h }) {
      fake.registries.add('localhost:5000', { username: 'alice', password: 's3cret-pw' })
      fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 1 })
      const push = h.fetch('/v1.47/images/localhost:5000/team/app/push?tag=1.0', { method: 'POST', headers: { 'x-registry-auth': registryAuth('alice', 's3cret-pw'), 'x-dockside-client': 'ci' } })
      await fake.clock.advance('10s')
      expect((await push).status).toBe(200)
      await (await push).text()
      expect((await h.fetch('/auth', post({ username: 'alice', password: 's3cret-pw', serveraddress: 'localhost:5000' }))).status).toBe(200)
      await h.fetch('/containers/json?all=1')

      expect(fake.requests.count({ method: 'POST', path: '/images/:name*/push', query: { tag: '1.0' }, client: 'ci' })).toBe(1)
      expect(fake.requests.count({ method: 'POST', path: '/auth', body: { username: 'alice' } })).toBe(1)
      const [auth] = fake.requests.list('POST /auth')
      expect(JSON.parse(auth.body!)).toEqual({ username: 'alice', password: '***', serveraddress: 'localhost:5000' })
      const [pushed] = fake.requests.list({ path: /\/push$/ })
      expect(pushed).toMatchObject({ method: 'POST', path: '/images/localhost:5000/team/app/push', url: '/v1.47/images/localhost:5000/team/app/push?tag=1.0', query: { tag: '1.0' }, status: 200, client: 'ci' })
      expect(pushed.headers['x-registry-auth']).toBe('***')
      expect(JSON.stringify(fake.requests.list())).not.toContain('s3cret')

      // The same over the admin API; the admin calls themselves are not recorded.
      const q = await (await h.fetch('/_dockside/requests?method=POST&query.tag=1.0&header.x-dockside-client=ci')).json()
      expect(q.count).toBe(1)
      expect(q.requests[0].headers['x-registry-auth']).toBe('***')
      const miss = await (await h.fetch('/_dockside/requests?method=GET&path=/containers/jsn')).json()
      expect(miss.count).toBe(0)
      expect(miss.nearMisses[0].request.path).toBe('/containers/json')
      expect(miss.nearMisses[0].mismatches).toEqual([{ field: 'path', expected: '"/containers/jsn"', actual: '"/containers/json"' }])
      const all = await (await h.fetch('/_dockside/requests')).json()
      expect(all.requests.map((r: { path: string }) => r.path)).toEqual(['/images/localhost:5000/team/app/push', '/auth', '/containers/json'])
      expect(JSON.stringify(all)).not.toContain('s3cret')
      const bad = await h.fetch('/_dockside/requests?stauts=200')
      expect(bad.status).toBe(400)
      expect((await bad.json()).message).toMatch(/^Unknown query parameter "stauts"; allowed: method, path/)
      expect(await (await h.fetch('/_dockside/requests', { method: 'DELETE' })).json()).toEqual({ removed: 3 })
      expect(fake.requests.count()).toBe(0)
    },
  },
]
