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
      expect((await bad.json()).message).toMatch(/Allowed: events, push/)
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
      expect((await seed.json()).message).toMatch(/"seed" can only be set when the fake starts/)
      const bad = await h.fetch('/_dockside/scenario', post({ timeline: [{ at: 'soon', restart: true }] }))
      expect(bad.status).toBe(400)
      expect((await bad.json()).message).toMatch(/timeline\[0\]\.at/)
      const from = await h.fetch('/_dockside/scenario?from=later', post({}))
      expect(from.status).toBe(400)
      expect(fake.clock.pending).toBe(0)
    },
  },
]
