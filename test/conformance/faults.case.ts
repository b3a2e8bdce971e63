import { expect } from 'vitest'
import { refusal, type Case } from '../support/way-in'
import { drainWithClock } from '../support/helpers'

const lines = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l))

export const faultCases: Case[] = [
  {
    name: '429 with Retry-After to the next events connection, then normal service',
    async run({ fake, h }) {
      fake.faults.add({ on: 'events', reply: 429, retryAfter: 7 })
      const refused = await h.connect('/events/ws')
      expect(refused.status).toBe(429)
      const { headers, body, message } = refusal(refused)
      expect(headers['retry-after']).toBe('7')
      expect(headers['content-length']).toBe(String(Buffer.byteLength(body)))
      expect(message).toBe('too many requests')
      expect((await h.connect('/events/ws')).status).toBe(101)
      expect(fake.journal.ofType('fault')).toHaveLength(1)
    },
  },
  {
    name: '500 to the next events connection is a refused handshake with a JSON message, then normal service',
    async run({ fake, h }) {
      fake.faults.add({ on: 'events', reply: 500, message: 'chaos: backend down' })
      const refused = await h.connect('/events/ws')
      expect(refused.status).toBe(500)
      expect(refused.messages).toEqual([])
      expect(refusal(refused).headers['content-type']).toBe('application/json')
      expect(refusal(refused).message).toBe('chaos: backend down')
      expect((await refused.closed).code).toBe(1006)
      expect((await h.connect('/events/ws')).status).toBe(101)
      expect(fake.journal.ofType('request').map((e) => e.status)).toEqual([500, 101])
    },
  },
  {
    name: '500 to the next two events connections, with a JSON message and Content-Length',
    async run({ fake, h }) {
      fake.faults.add({ on: 'events', reply: 500, times: 2, message: 'events backend down' })
      for (const status of [500, 500, 101]) {
        const ws = await h.connect('/events/ws')
        expect(ws.status).toBe(status)
        if (status === 500) {
          const { headers, body, message } = refusal(ws)
          expect(headers['content-type']).toBe('application/json')
          expect(headers['content-length']).toBe(String(Buffer.byteLength(body)))
          expect(message).toBe('events backend down')
        }
      }
      expect(fake.journal.ofType('fault')).toHaveLength(2)
    },
  },
  {
    name: '500 to the next two pushes',
    async run({ fake, h }) {
      fake.images.add('localhost:5000/app:1', { layers: 1 })
      fake.faults.add({ on: 'push', reply: 500, times: 2 })
      for (const status of [500, 500, 200]) {
        const res = await h.fetch('/images/localhost:5000/app/push?tag=1', { method: 'POST' })
        expect(res.status).toBe(status)
        if (status === 500) expect((await res.json()).message).toBe('internal server error (injected fault)')
        else await drainWithClock(res, () => fake.clock.advance('1s'))
      }
    },
  },
  {
    name: 'an error line mid-push after layer K, with both fields, and nothing committed',
    async run({ fake, h }) {
      fake.images.add('localhost:5000/app:1', { layers: [1000, 2000, 3000] })
      fake.faults.add({ on: 'push', error: 'blob upload unknown', afterLayer: 1 })
      const res = await h.fetch('/images/localhost:5000/app/push?tag=1', { method: 'POST' })
      const out = lines(await drainWithClock(res, () => fake.clock.advance('100ms')))
      expect(out.filter((l) => l.status === 'Pushed')).toHaveLength(1)
      expect(out.at(-1)).toEqual({ errorDetail: { message: 'blob upload unknown' }, error: 'blob upload unknown' })
      expect(fake.registries.get('localhost:5000').tags).toHaveLength(0)
    },
  },
  {
    name: 'an error line after N bytes',
    options: { pushBandwidth: 1_000_000 },
    async run({ fake, h }) {
      fake.images.add('localhost:5000/app:1', { layers: [5_000_000] })
      fake.faults.add({ on: 'push', error: 'connection reset by peer', afterBytes: 1_000_000 })
      const res = await h.fetch('/images/localhost:5000/app/push?tag=1', { method: 'POST' })
      const out = lines(await drainWithClock(res, () => fake.clock.advance('100ms')))
      const pushing = out.filter((l) => l.status === 'Pushing')
      expect(pushing.at(-1).progressDetail.current).toBe(1_000_000)
      expect(out.at(-1).error).toBe('connection reset by peer')
    },
  },
  {
    name: 'a forced close after N messages with a chosen code and reason',
    async run({ fake, h }) {
      fake.faults.add({ on: 'events', close: { code: 4000, reason: 'chaos' }, afterMessages: 2 })
      const ws = await h.connect('/events/ws')
      const c = fake.containers.create({ name: 'w', image: 'busybox' })
      c.start()
      c.stop()
      c.start()
      expect(await ws.closed).toEqual({ code: 4000, reason: 'chaos' })
      expect(ws.messages).toHaveLength(2)
    },
  },
  {
    name: 'a forced close right away (afterMessages 0)',
    async run({ fake, h }) {
      fake.faults.add({ on: 'events', close: { code: 1011, reason: 'boom' } })
      const ws = await h.connect('/events/ws')
      expect(await ws.closed).toEqual({ code: 1011, reason: 'boom' })
    },
  },
  {
    name: 'pending() lists rules that never fired',
    async run({ fake }) {
      fake.faults.add({ id: 'never', on: 'push', reply: 500 })
      expect(fake.faults.pending().map((r) => r.id)).toEqual(['never'])
      expect(() => fake.faults.assertAllFired()).toThrow(/never\s+on push/)
    },
  },
]
