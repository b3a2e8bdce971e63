import { expect } from 'vitest'
import { refusal, type Case } from '../support/way-in'
import { enc } from '../support/helpers'

const web = (fake: Parameters<Case['run']>[0]['fake']) =>
  fake.containers.create({ name: 'web', image: 'nginx:1.27', labels: { app: 'web', empty: '', eq: 'a=b=c' }, instanceType: 's4' })

export const eventsCases: Case[] = [
  {
    name: 'a start event arrives as one text frame with every field, in wire order, times as integers',
    async run({ fake, h }) {
      const c = web(fake)
      const ws = await h.connect('/events/ws')
      expect(ws.status).toBe(101)
      c.start()
      const frame = await ws.nextMessage()
      const t = Math.floor(fake.clock.now() / 1000)
      expect(frame).toBe(
        `{"status":"start","id":"${c.id}","from":"nginx:1.27","Type":"container","Action":"start","Actor":{"ID":"${c.id}","Attributes":{"app":"web","empty":"","eq":"a=b=c","exitCode":"0","image":"nginx:1.27","name":"web","sh_hyper_instancetype":"s4"}},"time":${t},"timeNano":${BigInt(fake.clock.now()) * 1_000_000n}}`,
      )
      expect(c.id).toMatch(/^[0-9a-f]{64}$/)
    },
  },
  {
    name: 'a stop event carries its exit code as a string and the clock time',
    async run({ fake, h }) {
      const c = web(fake).start()
      const ws = await h.connect('/events/ws')
      await fake.clock.advance('90s')
      c.stop({ exitCode: 137 })
      const e = JSON.parse(await ws.nextMessage())
      expect(e.Action).toBe('stop')
      expect(e.status).toBe('stop')
      expect(e.Actor.Attributes.exitCode).toBe('137')
      expect(e.time).toBe(Math.floor(fake.clock.startedAt / 1000) + 90)
    },
  },
  {
    name: 'float time format writes the spec sample notation',
    options: { timeFormat: 'float' },
    async run({ fake, h }) {
      const ws = await h.connect('/events/ws')
      web(fake).start()
      const frame = await ws.nextMessage()
      expect(frame).toMatch(/"time":1\.767225600e\+09|"time":1\.7672256e\+09/)
      expect(frame).toMatch(/"timeNano":1\.[0-9]+e\+18\}$/)
    },
  },
  {
    name: 'filters: event kind, object-of-true and list spellings',
    async run({ fake, h }) {
      const c = web(fake)
      const a = await h.connect(`/events/ws?filters=${enc({ event: { stop: true } })}`)
      const b = await h.connect(`/events/ws?filters=${enc({ event: ['stop'] })}`)
      const off = await h.connect(`/events/ws?filters=${enc({ event: { start: false, stop: true } })}`)
      c.start()
      c.stop({ exitCode: 1 })
      for (const ws of [a, b, off]) expect(JSON.parse(await ws.nextMessage()).Action).toBe('stop')
      expect(a.messages).toHaveLength(1)
    },
  },
  {
    name: 'filters: container by name, id and prefix',
    async run({ fake, h }) {
      const c = web(fake)
      const other = fake.containers.create({ name: 'api', image: 'api:1' })
      const byName = await h.connect(`/events/ws?filters=${enc({ container: { web: true } })}`)
      const byPrefix = await h.connect(`/events/ws?filters=${enc({ container: [c.id.slice(0, 8)] })}`)
      const byNamePrefix = await h.connect(`/events/ws?filters=${enc({ container: ['we'] })}`)
      other.start()
      c.start()
      for (const ws of [byName, byPrefix, byNamePrefix]) expect(JSON.parse(await ws.nextMessage()).id).toBe(c.id)
    },
  },
  {
    name: 'filters: image matches exactly or with the tag stripped, never the other way',
    async run({ fake, h }) {
      const tagged = fake.containers.create({ name: 'a', image: 'alpine:latest' })
      const bare = fake.containers.create({ name: 'b', image: 'alpine' })
      const plain = await h.connect(`/events/ws?filters=${enc({ image: ['alpine'] })}`)
      const withTag = await h.connect(`/events/ws?filters=${enc({ image: ['alpine:latest'] })}`)
      bare.start()
      tagged.start()
      expect(JSON.parse(await plain.nextMessage()).from).toBe('alpine')
      expect(JSON.parse(await plain.nextMessage()).from).toBe('alpine:latest')
      expect(JSON.parse(await withTag.nextMessage()).from).toBe('alpine:latest')
      expect(withTag.messages).toHaveLength(1)
    },
  },
  {
    // The service's own client (hyperhq/websocket-client) documents `image` as "imageid or name" and its test lists
    // filter by a full id and a 12-digit prefix; Docker's GET /events does not (its matchImage compares the actor's id).
    name: 'filters: image by id on the websocket (full, with or without sha256:, or a prefix of 12 or more hex digits)',
    async run({ fake, h }) {
      const alpine = fake.images.add('alpine:3.20', { layers: 1 })
      const hex = alpine.id.slice('sha256:'.length)
      const c = fake.containers.create({ name: 'a', image: 'alpine:3.20' })
      const other = fake.containers.create({ name: 'o', image: 'nginx:1.27' })
      const byId = await Promise.all([alpine.id, hex, hex.slice(0, 12)].map((v) => h.connect(`/events/ws?filters=${enc({ image: [v] })}`)))
      const tooShort = await h.connect(`/events/ws?filters=${enc({ image: [hex.slice(0, 11)] })}`)
      other.start()
      c.start()
      for (const ws of byId) expect(JSON.parse(await ws.nextMessage()).id).toBe(c.id)
      fake.containers.create({ name: 'sentinel', image: hex.slice(0, 11) }).start()
      // An 11-digit prefix is a name: only the container created with that image name matches it.
      expect(JSON.parse(await tooShort.nextMessage()).Actor.Attributes.name).toBe('sentinel')
      // Docker's route, over the same events (until: now, so the stream ends): nothing.
      const docker = await h.fetch(`/events?since=0&until=${fake.clock.now() / 1000}&filters=${enc({ image: [alpine.id] })}`)
      expect(await docker.text()).toBe('')
    },
  },
  {
    name: 'filters: label key, key=value split on the first =, every label must match, names AND together',
    async run({ fake, h }) {
      const c = web(fake)
      const other = fake.containers.create({ name: 'x', image: 'nginx:1.27', labels: { app: 'other', eq: 'a' } })
      const key = await h.connect(`/events/ws?filters=${enc({ label: ['empty'] })}`)
      const eq = await h.connect(`/events/ws?filters=${enc({ label: { 'eq=a=b=c': true } })}`)
      const all = await h.connect(`/events/ws?filters=${enc({ label: ['app=web', 'eq=a'] })}`)
      const and = await h.connect(`/events/ws?filters=${enc({ event: ['stop'], label: ['app=web'] })}`)
      other.start()
      c.start()
      c.stop()
      expect(JSON.parse(await key.nextMessage()).id).toBe(c.id)
      expect(JSON.parse(await eq.nextMessage()).id).toBe(c.id)
      const stop = JSON.parse(await and.nextMessage())
      expect([stop.id, stop.Action]).toEqual([c.id, 'stop'])
      fake.containers.create({ name: 'sentinel', image: 'nginx:1.27', labels: { app: 'web', eq: 'a' } }).start()
      expect(JSON.parse(await all.nextMessage()).Actor.Attributes.name).toBe('sentinel')
    },
  },
  {
    name: 'refusals: bad JSON, wrong shape, unknown filter and bad event value are 400 with a JSON message',
    async run({ h }) {
      const cases: [string, RegExp][] = [
        [encodeURIComponent('{"event":'), /not valid JSON/],
        [enc(['start']), /expected a JSON object/],
        [enc({ event: 'start' }), /expected an object of booleans/],
        [enc({ event: { start: 'yes' } }), /map values to true or false/],
        [enc({ colour: ['red'] }), /Invalid filter "colour".*Allowed filter names: container, event, image, label/],
        [enc({ event: ['die'] }), /"die".*Allowed values: start, stop/],
        // A value given as false is still a value: a typo is refused, not read as "selects nothing".
        [enc({ event: { strat: false } }), /"strat".*Allowed values: start, stop/],
        [enc({ event: { start: true, die: false } }), /"die".*Allowed values: start, stop/],
      ]
      for (const [q, message] of cases) {
        const ws = await h.connect(`/events/ws?filters=${q}`)
        expect(ws.status).toBe(400)
        const { message: text, headers, body } = refusal(ws)
        expect(text).toMatch(message)
        expect(headers['content-length']).toBe(String(Buffer.byteLength(body)))
        expect(headers['content-type']).toBe('application/json')
      }
    },
  },
  {
    name: 'the server closes at the maximum connection age with 1000 and a reason',
    options: { maxConnectionAge: '1h' },
    async run({ fake, h }) {
      const ws = await h.connect('/events/ws')
      await fake.clock.advance('59m')
      web(fake).start()
      await ws.nextMessage()
      await fake.clock.advance('1m')
      const closed = await ws.closed
      expect(closed.code).toBe(1000)
      expect(closed.reason).toMatch(/maximum connection age of 1h/)
    },
  },
  {
    name: 'the default maximum age is 24 hours of clock time',
    async run({ fake, h }) {
      const ws = await h.connect('/events/ws')
      await fake.clock.advance('23h59m')
      expect(fake.journal.ofType('ws.close')).toHaveLength(0)
      await fake.clock.advance('1m')
      expect((await ws.closed).code).toBe(1000)
    },
  },
  {
    name: 'a maintenance restart closes every events socket with 1001 and a reason',
    async run({ fake, h }) {
      const a = await h.connect('/events/ws')
      const b = await h.connect(`/events/ws?filters=${enc({ event: ['start'] })}`)
      expect(fake.restart()).toBe(2)
      for (const ws of [a, b]) {
        const closed = await ws.closed
        expect(closed.code).toBe(1001)
        expect(closed.reason).toMatch(/maintenance/)
      }
    },
  },
  {
    name: 'closing with 1011 reports an error to the client',
    async run({ fake, h }) {
      const ws = await h.connect('/events/ws')
      fake.closeSockets(1011, 'internal error')
      expect(await ws.closed).toEqual({ code: 1011, reason: 'internal error' })
    },
  },
  {
    name: 'a client close unsubscribes it and is journaled',
    async run({ fake, h }) {
      const ws = await h.connect('/events/ws')
      ws.close(1000, 'bye')
      await ws.closed
      await expect.poll(() => fake.protocol.hub.sockets.size).toBe(0)
      expect(fake.journal.ofType('ws.close')[0]).toMatchObject({ by: 'client', code: 1000 })
    },
  },
  {
    name: 'a websocket to an unknown path is refused with the protocol\'s 404 naming GET /events/ws',
    async run({ h }) {
      const ws = await h.connect('/events/nope')
      expect(ws.status).toBe(404)
      expect(ws.headers['content-type']).toBe('application/json')
      expect(JSON.parse(ws.body!).message).toContain('GET /events/ws')
      expect(ws.messages).toEqual([])
    },
  },
]
