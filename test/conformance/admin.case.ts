import { expect } from 'vitest'
import type { Case } from '../support/way-in'

const post = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

export const adminCases: Case[] = [
  {
    name: 'create, start, stop and remove a container through the admin API; the events socket sees it',
    async run({ h }) {
      const ws = await h.connect('/events/ws')
      const created = await h.fetch('/_dockside/containers', post({ name: 'web', image: 'nginx', labels: { app: 'web' } }))
      expect(created.status).toBe(201)
      expect((await h.fetch('/_dockside/containers/web/start', { method: 'POST' })).status).toBe(200)
      expect(JSON.parse(await ws.nextMessage()).Action).toBe('start')
      expect((await h.fetch('/_dockside/containers/web/stop', post({ exitCode: 2 }))).status).toBe(200)
      expect(JSON.parse(await ws.nextMessage()).Actor.Attributes.exitCode).toBe('2')
      expect((await h.fetch('/_dockside/containers/web', { method: 'DELETE' })).status).toBe(200)
      expect(await (await h.fetch('/_dockside/containers')).json()).toEqual([])
    },
  },
  {
    name: 'bad admin input is a 400 naming the field',
    async run({ h }) {
      const res = await h.fetch('/_dockside/containers', post({ name: 'x' }))
      expect(res.status).toBe(400)
      expect((await res.json()).message).toMatch(/"image"/)
      const bad = await h.fetch('/_dockside/faults', post({ on: 'nowhere', reply: 500 }))
      expect(bad.status).toBe(400)
      expect((await bad.json()).message).toBe('on: must be one of "events", "push"')
      const notJson = await h.fetch('/_dockside/images', { method: 'POST', body: '{nope' })
      expect(notJson.status).toBe(400)
      const unknown = await h.fetch('/_dockside/containers/ghost/start', { method: 'POST' })
      expect(unknown.status).toBe(404)
    },
  },
  {
    name: 'faults, clock, sockets and journal through the admin API',
    async run({ fake, h }) {
      expect((await h.fetch('/_dockside/faults', post({ on: 'events', reply: 429 }))).status).toBe(201)
      expect((await h.connect('/events/ws')).status).toBe(429)
      const ws = await h.connect('/events/ws')
      const closed = await h.fetch('/_dockside/sockets/close', post({ code: 1011, reason: 'admin' }))
      expect(await closed.json()).toEqual({ closed: 1 })
      expect(await ws.closed).toEqual({ code: 1011, reason: 'admin' })
      const before = fake.clock.now()
      await h.fetch('/_dockside/clock/advance', post({ by: '5s' }))
      expect(fake.clock.now() - before).toBe(5000)
      const journal = await (await h.fetch('/_dockside/journal?type=fault')).json()
      expect(journal).toHaveLength(1)
    },
  },
  {
    name: 'registry contents and reset through the admin API',
    async run({ fake, h }) {
      await h.fetch('/_dockside/registries', post({ host: 'localhost:5000' }))
      await h.fetch('/_dockside/images', post({ name: 'localhost:5000/app', tags: ['1'], layers: 1 }))
      const regs = await (await h.fetch('/_dockside/registries')).json()
      expect(regs[0]).toMatchObject({ host: 'localhost:5000', auth: 'open', tags: [] })
      expect((await h.fetch('/_dockside/reset', { method: 'POST' })).status).toBe(200)
      expect(fake.images.list()).toEqual([])
    },
  },
  {
    name: 'a storyboard posted to a running fake: timeline steps counted from now, faults and rate limits',
    async run({ fake, h }) {
      await fake.clock.advance('1m')
      const storyboard = {
        containers: [{ name: 'job', image: 'busybox' }],
        timeline: [
          { at: '5s', every: '10s', start: 'job' },
          { at: '8s', every: '10s', stop: 'job', exitCode: 3 },
          { at: '30s', restart: true },
        ],
        faults: [{ on: 'push', reply: 503, retryAfter: 2 }],
      }
      const res = await h.fetch('/_dockside/scenario?from=now', post(storyboard))
      expect(res.status).toBe(200)
      const ws = await h.connect('/events/ws')
      await fake.clock.advance('5s')
      expect(JSON.parse(await ws.nextMessage())).toMatchObject({ Action: 'start', Actor: { Attributes: { name: 'job' } } })
      await fake.clock.advance('3s')
      expect(JSON.parse(await ws.nextMessage()).Actor.Attributes.exitCode).toBe('3')
      await fake.clock.advance('22s')
      expect((await ws.closed).code).toBe(1001)
      expect(fake.faults.list().map((f) => f.rule.reply)).toEqual([503])
    },
  },
  {
    name: 'a posted scenario is validated: start-only fields and bad steps are 400s naming what is wrong',
    async run({ fake, h }) {
      const seed = await h.fetch('/_dockside/scenario', post({ seed: 3 }))
      expect(seed.status).toBe(400)
      expect((await seed.json()).message).toMatch(/^\(scenario\): at seed: can only be set when the fake starts/)
      const bad = await h.fetch('/_dockside/scenario', post({ timeline: [{ at: 'soon', restart: true }] }))
      expect(bad.status).toBe(400)
      expect((await bad.json()).message).toMatch(/timeline\[0\]\.at/)
      const from = await h.fetch('/_dockside/scenario?from=later', post({}))
      expect(from.status).toBe(400)
      expect(fake.clock.pending).toBe(0)
    },
  },
  {
    name: 'bug: fault rules of the wrong types were accepted with 201 (match.route 5 then made every /events/ws a 500; id 7 broke faults/pending; match 5 matched everything): now 400 naming the path',
    async run({ fake, h }) {
      const cases: [object, string][] = [
        [{ on: 'events', reply: 500, match: { route: 5 } }, 'match.route: must be a string'],
        [{ on: 'events', reply: 500, id: 7 }, 'id: must be a string'],
        [{ on: 'push', reply: 500, match: 5 }, 'match: must be an object'],
        [{ on: 'events', reply: 500, match: { clients: 'a' } }, 'match: unknown field "clients"; allowed: route, image, container, client, filters, reconnect'],
        [{ on: 'events', reply: 500, match: { filters: { event: 'stop' } } }, 'match.filters.event: must be a list'],
      ]
      for (const [rule, message] of cases) {
        const res = await h.fetch('/_dockside/faults', post(rule))
        expect(res.status, JSON.stringify(rule)).toBe(400)
        expect((await res.json()).message).toBe(message)
      }
      expect(fake.faults.list()).toEqual([])
      expect((await h.fetch('/_dockside/faults/pending')).status).toBe(200)
      const ws = await h.connect('/events/ws')
      expect(ws.status).toBe(101)
      ws.close()
    },
  },
  {
    name: 'a batch of fault rules is added all or nothing; the error names the index and the field',
    async run({ fake, h }) {
      const ok = { on: 'events', reply: 429 }
      const bad = await h.fetch('/_dockside/faults', post({ rules: [ok, { ...ok, id: 'twice' }, { on: 'events', reply: 429, match: { route: 5 } }] }))
      expect(bad.status).toBe(400)
      expect((await bad.json()).message).toBe('rules[2].match.route: must be a string')
      // A rule the schema accepts but the plan refuses (an action on the wrong site, an id used twice) is refused the same way.
      const wrongSite = await h.fetch('/_dockside/faults', post({ rules: [ok, { on: 'push', close: { code: 4000 } }] }))
      expect((await wrongSite.json()).message).toBe('rules[1].close: does not apply to "push"; actions on "push": reply, error, reset, truncate, stall, unreachable, dribble, latency')
      const sameId = await h.fetch('/_dockside/faults', post({ rules: [{ ...ok, id: 'a' }, { ...ok, id: 'a' }] }))
      expect((await sameId.json()).message).toBe('rules[1].id: a fault rule with id "a" already exists')
      const extra = await h.fetch('/_dockside/faults', post({ rules: [ok], times: 2 }))
      expect((await extra.json()).message).toBe('request body: unknown field "times"; allowed: rules')
      expect(fake.faults.list()).toEqual([])
      const good = await h.fetch('/_dockside/faults', post({ rules: [ok, { on: 'push', reply: 503 }] }))
      expect(good.status).toBe(201)
      expect(await good.json()).toEqual({ added: ['rule-1', 'rule-2'] })
    },
  },
  {
    name: 'a storyboard is applied all or nothing; the error names the index and the field',
    async run({ fake, h }) {
      fake.containers.create({ name: 'db', image: 'postgres' })
      const storyboard = {
        registries: [{ host: 'localhost:5000' }],
        images: [{ name: 'localhost:5000/app', tags: ['1'] }],
        containers: [{ name: 'web', image: 'nginx', running: true }],
        timeline: [{ at: '1s', stop: 'web' }],
        rateLimit: { limit: 1, window: '1s' },
      }
      const cases: [object, string][] = [
        [{ ...storyboard, faults: [{ on: 'events', reply: 429 }, { on: 'events', reply: 429, match: { route: 5 } }] }, 'faults[1].match.route: must be a string'],
        [{ ...storyboard, containers: [...storyboard.containers, { name: 'db', image: 'x' }] }, 'containers[1].name: a container named "db" already exists in the fake'],
        [{ ...storyboard, containers: [...storyboard.containers, { name: 'web', image: 'x' }] }, 'containers[1].name: "web" is already used by containers[0]; container names are unique'],
        [{ ...storyboard, registries: [...storyboard.registries, { host: 'localhost:5000', token: 't' }] }, 'registries[1].host: "localhost:5000" is already listed at registries[0]; list each registry host once'],
        [{ ...storyboard, timeline: [{ at: '2s', close: { code: 1005 } }] }, 'timeline[0].close.code: must be a close code a server may send: 1000-1003, 1007-1014 or 3000-4999 (got 1005)'],
        [{ ...storyboard, images: [{ name: 'UPPER/case' }] }, 'images[0]: Invalid image name "UPPER/case": expected lower-case [host[:port]/]path[:tag], e.g. "localhost:5000/team/app:1.0".'],
      ]
      for (const [body, message] of cases) {
        const res = await h.fetch('/_dockside/scenario', post(body))
        expect(res.status, message).toBe(400)
        expect((await res.json()).message).toBe(`(scenario): at ${message}`)
      }
      // Nothing of the refused storyboards was applied.
      expect(fake.containers.list().map((c) => c.name)).toEqual(['db'])
      expect(fake.registries.list()).toEqual([])
      expect(fake.images.list()).toEqual([])
      expect(fake.faults.list()).toEqual([])
      expect(fake.rateLimit.get()).toEqual([])
      expect(fake.clock.pending).toBe(0)
      expect(fake.events.events).toEqual([])
      expect((await h.fetch('/_dockside/scenario', post(storyboard))).status).toBe(200)
      expect(fake.containers.list().map((c) => c.name)).toEqual(['db', 'web'])
    },
  },
]
