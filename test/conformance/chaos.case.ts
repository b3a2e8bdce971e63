import { expect } from 'vitest'
import type { Dockside } from '../../src/index'
import { refusal, type Case } from '../support/way-in'

/** Resolves at the next journal entry of `type` (or at once if `already` holds). */
const journalEntry = (fake: Dockside, type: string) =>
  new Promise<void>((resolve) => {
    const off = fake.on('journal', (e) => {
      if (e.type === type) {
        off()
        resolve()
      }
    })
  })

/** Reads a streaming body while advancing the clock; resolves with the text, or rejects like the client does. */
async function readAdvancing(fake: Dockside, res: Response, step = '100ms') {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let done = false
  let failure: unknown
  const read = (async () => {
    try {
      for (;;) {
        const r = await reader.read()
        if (r.done) break
        text += decoder.decode(r.value, { stream: true })
      }
    } catch (error) {
      failure = error
    }
    done = true
  })()
  for (let i = 0; !done && i < 2000; i++) {
    await fake.clock.advance(step)
    await new Promise((r) => setImmediate(r))
  }
  await read
  return { text, failure }
}

/** The message of each injected reply status (docs/faults.md). */
const REPLY_MESSAGES: Record<number, string> = {
  400: 'bad request (injected fault)',
  404: 'not found (injected fault)',
  429: 'too many requests',
  500: 'internal server error (injected fault)',
  503: 'service unavailable',
}

const nsOf = (frame: string) => /"timeNano":(\d+)/.exec(frame)![1]

export const chaosCases: Case[] = [
  {
    name: 'rate limit: 429 with a Retry-After that tells the truth (earlier fails, exactly then succeeds)',
    options: { rateLimit: { route: 'events', limit: 1, window: '2s' } },
    async run({ fake, h }) {
      expect((await h.connect('/events/ws?client=a')).status).toBe(101)
      const refused = await h.connect('/events/ws?client=a')
      expect(refused.status).toBe(429)
      expect(refusal(refused).headers['retry-after']).toBe('2')
      expect(refusal(refused).message).toBe('too many requests: 1 per 2s per client on events; retry in 2s')
      // Another client has its own bucket.
      expect((await h.connect('/events/ws?client=b')).status).toBe(101)
      await fake.clock.advance(1999)
      expect((await h.connect('/events/ws?client=a')).status).toBe(429)
      await fake.clock.advance(1)
      expect((await h.connect('/events/ws?client=a')).status).toBe(101)
    },
  },
  {
    name: 'rate limit: a bucket shared by every client (per route), its burst, and its own bucket per route',
    options: { rateLimit: { route: '*', limit: 2, window: '10s', burst: 1, per: 'route' } },
    async run({ fake, h }) {
      fake.images.add('localhost:5000/app:1', { layers: 1 })
      expect((await h.connect('/events/ws?client=a')).status).toBe(101)
      // Burst 1: the second request in the same instant waits for the next token, 10 s / 2 = 5 s, whoever sends it.
      const other = await h.connect('/events/ws?client=b')
      expect(other.status).toBe(429)
      expect(refusal(other).headers['retry-after']).toBe('5')
      expect(refusal(other).message).toBe('too many requests: 2 per 10s on events; retry in 5s')
      // Push has its own bucket under the same rule.
      const push = await h.fetch('/images/localhost:5000/app/push?tag=1', { method: 'POST', headers: { 'x-dockside-client': 'c' } })
      expect(push.status).toBe(200)
      await readAdvancing(fake, push)
      expect(fake.clock.elapsed()).toBeLessThan(5000)
      await fake.clock.advance(5000 - fake.clock.elapsed())
      expect((await h.connect('/events/ws?client=b')).status).toBe(101)
      expect(fake.journal.ofType('ratelimit').map((e) => e.allowed)).toEqual([true, false, true, true])
    },
  },
  {
    name: 'rate limit on push, set at run time',
    async run({ fake, h }) {
      fake.images.add('localhost:5000/app:1', { layers: 1 })
      fake.rateLimit.set({ route: 'push', limit: 1, window: '10s' })
      const first = await h.fetch('/images/localhost:5000/app/push?tag=1', { method: 'POST', headers: { 'x-dockside-client': 'ci' } })
      expect(first.status).toBe(200)
      // At the same clock instant: the whole window is left to wait.
      const second = await h.fetch('/images/localhost:5000/app/push?tag=1', { method: 'POST', headers: { 'x-dockside-client': 'ci' } })
      expect(second.status).toBe(429)
      expect(second.headers.get('retry-after')).toBe('10')
      expect((await second.json()).message).toBe('too many requests: 1 per 10s per client on push; retry in 10s')
      await readAdvancing(fake, first)
      // After the push took its clock time, Retry-After is the rest of the window, rounded up.
      await fake.clock.advance(8500 - fake.clock.elapsed())
      const third = await h.fetch('/images/localhost:5000/app/push?tag=1', { method: 'POST', headers: { 'x-dockside-client': 'ci' } })
      expect(third.headers.get('retry-after')).toBe('2')
      await third.body?.cancel()
    },
  },
  {
    name: 'an abrupt drop after N messages: the client sees 1006 and no close frame',
    async run({ fake, h }) {
      fake.faults.add({ on: 'events', drop: true, afterMessages: 2 })
      const ws = await h.connect('/events/ws')
      const c = fake.containers.create({ name: 'w', image: 'busybox' })
      c.start()
      c.stop()
      c.start()
      expect((await ws.closed).code).toBe(1006)
      expect(ws.messages).toHaveLength(2)
      expect(fake.journal.ofType('ws.close').at(-1)).toMatchObject({ by: 'drop', code: 1006 })
    },
  },
  {
    name: 'a server close with any code and reason at a clock time after connect',
    async run({ fake, h }) {
      fake.faults.add({ on: 'events', close: { code: 4321, reason: 'scheduled chaos' }, afterTime: '5s' })
      const ws = await h.connect('/events/ws')
      await fake.clock.advance(4999)
      expect(fake.protocol.hub.sockets.size).toBe(1)
      await fake.clock.advance(1)
      expect(await ws.closed).toEqual({ code: 4321, reason: 'scheduled chaos' })
    },
  },
  {
    name: 'refuse the next 2 reconnects, never the first connect; the report measures the backoff between attempts',
    async run({ fake, h }) {
      fake.faults.add({ id: 'refuse', on: 'events', refuse: 2, retryAfter: 3 })
      const first = await h.connect('/events/ws?client=r')
      expect(first.status).toBe(101)
      const recorded = journalEntry(fake, 'ws.close')
      first.close()
      await first.closed
      await recorded
      // The client backs off 1 s, then 2 s, then 3 s of clock time: the report measures each interval.
      await fake.clock.advance('1s')
      expect((await h.connect('/events/ws?client=r')).status).toBe(503)
      await fake.clock.advance('2s')
      expect((await h.connect('/events/ws?client=r')).status).toBe(503)
      await fake.clock.advance('3s')
      expect((await h.connect('/events/ws?client=r')).status).toBe(101)
      const report = fake.deliveries.report('r')
      expect(report.refusals.map((r) => r.retryAfter)).toEqual([3, 3])
      expect(report.backoffMs).toEqual([1000, 2000, 3000])
      expect(report.timeline.map((t) => t.kind)).toEqual(['attempt', 'open', 'close', 'attempt', 'refused', 'attempt', 'refused', 'attempt', 'open'])
    },
  },
  {
    name: 'latency on connect: the upgrade is answered only after clock time passes',
    async run({ fake, h }) {
      fake.faults.add({ on: 'events', latency: { connect: '2s' } })
      let opened = false
      const arrived = journalEntry(fake, 'fault')
      const pending = h.connect('/events/ws').then((p) => ((opened = true), p))
      await arrived
      await fake.clock.advance(1999)
      await new Promise((r) => setImmediate(r))
      expect(opened).toBe(false)
      await fake.clock.advance(1)
      expect((await pending).status).toBe(101)
    },
  },
  {
    name: 'latency per event with seeded jitter keeps the order',
    async run({ fake, h }) {
      fake.faults.add({ on: 'events', latency: { perEvent: '100ms', jitter: '50ms' } })
      const ws = await h.connect('/events/ws')
      const c = fake.containers.create({ name: 'j', image: 'busybox' })
      c.start()
      c.stop()
      await new Promise((r) => setImmediate(r))
      expect(ws.messages).toHaveLength(0)
      await fake.clock.advance('150ms')
      const a = JSON.parse(await ws.nextMessage())
      const b = JSON.parse(await ws.nextMessage())
      expect([a.Action, b.Action]).toEqual(['start', 'stop'])
      expect(fake.journal.ofType('fault.draw').filter((d) => String(d.purpose).startsWith('event'))).toHaveLength(2)
    },
  },
  {
    name: 'since replays from the log then continues live; until closes when reached',
    async run({ fake, h }) {
      const c = fake.containers.create({ name: 's', image: 'busybox' })
      c.start()
      await fake.clock.advance('1s')
      c.stop()
      // Literal times (the clock starts at 2026-01-01T00:00:00Z = 1767225600 s): the first event at 0 s, the second at 1 s.
      expect(fake.events.events.map((e) => e.timeNano)).toEqual([1767225600000000000n, 1767225601000000000n])
      // Resume exactly after the first event (its timeNano + 1 ns); until 5 s after the second.
      const ws = await h.connect('/events/ws?since=1767225600.000000001&until=1767225606.000000000')
      expect(nsOf(await ws.nextMessage())).toBe('1767225601000000000')
      c.start()
      expect(JSON.parse(await ws.nextMessage()).Action).toBe('start')
      await fake.clock.advance('5s')
      expect(await ws.closed).toEqual({ code: 1000, reason: 'until reached; stream complete' })
      expect(ws.messages).toHaveLength(2)
    },
  },
  {
    name: 'two events in one millisecond get distinct timeNano, so since = last + 1 ns neither loses nor repeats',
    async run({ fake, h }) {
      const c = fake.containers.create({ name: 'm', image: 'busybox' })
      c.start()
      c.stop()
      c.start()
      expect(fake.events.events.map((e) => e.timeNano)).toEqual([1767225600000000000n, 1767225600000000001n, 1767225600000000002n])
      const ws = await h.connect('/events/ws?since=1767225600.000000001')
      expect([nsOf(await ws.nextMessage()), nsOf(await ws.nextMessage())]).toEqual(['1767225600000000001', '1767225600000000002'])
    },
  },
  {
    name: 'a since older than retention is refused with close 4410 and a reason naming where to resume',
    options: { retainEvents: 2 },
    async run({ fake, h }) {
      const c = fake.containers.create({ name: 'r', image: 'busybox' })
      for (let i = 0; i < 3; i++) {
        c.start()
        await fake.clock.advance('1s')
        c.stop()
      }
      const oldest = fake.events.events[0]
      const ws = await h.connect('/events/ws?since=1767225600')
      const closed = await ws.closed
      expect(closed.code).toBe(4410)
      expect(closed.reason).toBe('since 1767225600.000000000 is older than retention; resume with since=1767225602.000000001 or later')
      expect(ws.messages).toHaveLength(0)
      const ok = await h.connect('/events/ws?since=1767225602.000000001')
      expect(nsOf(await ok.nextMessage())).toBe(oldest.timeNano.toString())
      expect(oldest.timeNano).toBe(1767225602000000001n)
    },
  },
  {
    name: 'push: a transport reset mid-push (the client sees the connection fail, not an error line)',
    async run({ fake, h }) {
      fake.images.add('localhost:5000/app:1', { layers: [1000, 2000] })
      fake.faults.add({ on: 'push', reset: true, afterLayer: 1 })
      const res = await h.fetch('/images/localhost:5000/app/push?tag=1', { method: 'POST' })
      expect(res.status).toBe(200)
      const { text, failure } = await readAdvancing(fake, res)
      expect(failure).toBeInstanceOf(Error)
      expect(text).toContain('"status":"Pushed"')
      expect(text).not.toContain('"error"')
      expect(fake.registries.get('localhost:5000').tags).toHaveLength(0)
    },
  },
  {
    name: 'push: a truncated JSON line, then a reset',
    async run({ fake, h }) {
      fake.images.add('localhost:5000/app:1', { layers: [1000] })
      fake.faults.add({ on: 'push', truncate: true, afterLayer: 0 })
      const res = await h.fetch('/images/localhost:5000/app/push?tag=1', { method: 'POST' })
      const { text, failure } = await readAdvancing(fake, res)
      expect(failure).toBeInstanceOf(Error)
      const last = text.split('\n').at(-1)!
      expect(last.length).toBeGreaterThan(0)
      expect(() => JSON.parse(last)).toThrow()
    },
  },
  {
    name: 'push: a slow dribble, one line per step of clock time',
    async run({ fake, h }) {
      fake.images.add('localhost:5000/app:1', { layers: [1000] })
      fake.faults.add({ on: 'push', dribble: { line: '1s' } })
      // Some ways in hand over headers only with the first byte: move the clock until lines come.
      const started = journalEntry(fake, 'push.start')
      const answer = h.fetch('/images/localhost:5000/app/push?tag=1', { method: 'POST' })
      await started
      const t0 = fake.clock.elapsed()
      let first: string | undefined
      const done = answer.then(async (res) => {
        const reader = res.body!.getReader()
        first = new TextDecoder().decode((await reader.read()).value)
        await reader.cancel()
      })
      for (let i = 0; first === undefined && i < 100; i++) {
        await fake.clock.advance('100ms')
        await new Promise((r) => setImmediate(r))
      }
      await done
      expect(first).toBe('{"status":"The push refers to repository [localhost:5000/app]"}\r\n')
      expect(fake.clock.elapsed() - t0).toBeGreaterThanOrEqual(1000)
    },
  },
  {
    name: 'push: a stall (headers, then silence until the client gives up)',
    async run({ fake, h }) {
      fake.images.add('localhost:5000/app:1', { layers: [1000, 1000] })
      fake.faults.add({ on: 'push', stall: true, afterLayer: 1 })
      const controller = new AbortController()
      const res = await h.fetch('/images/localhost:5000/app/push?tag=1', { method: 'POST', signal: controller.signal })
      expect(res.status).toBe(200)
      const reader = res.body!.getReader()
      let text = ''
      for (let i = 0; i < 20 && !text.includes('"Pushed"'); i++) {
        await fake.clock.advance('100ms')
        const r = await reader.read()
        text += new TextDecoder().decode(r.value)
      }
      await fake.clock.advance('60s')
      expect(fake.journal.ofType('push.failed').at(-1)).toMatchObject({ fault: 'stall' })
      expect(fake.registries.get('localhost:5000').tags).toHaveLength(0)
      controller.abort()
    },
  },
  {
    name: 'the delivery report per client, in the library and the admin API',
    async run({ fake, h }) {
      const c = fake.containers.create({ name: 'd', image: 'busybox' })
      const ws = await h.connect('/events/ws?client=watcher')
      c.start()
      await ws.nextMessage()
      // The server closes (a maintenance restart): what happens until the client is back is owed, and missed.
      fake.restart()
      expect((await ws.closed).code).toBe(1001)
      c.stop()
      await fake.clock.advance('3s')
      const again = await h.connect('/events/ws?client=watcher')
      c.start()
      await again.nextMessage()
      const r = fake.deliveries.report('watcher')
      expect(r.missed.map((e) => e.action)).toEqual(['stop'])
      expect(r.gaps).toHaveLength(1)
      expect(r.gaps[0].ms).toBe(3000)
      // The client closes on its own and comes back later: the stretch it chose to be away is not owed.
      const recorded = journalEntry(fake, 'ws.close')
      again.close()
      await recorded
      c.stop()
      await fake.clock.advance('2s')
      const third = await h.connect('/events/ws?client=watcher')
      c.start()
      await third.nextMessage()
      const after = fake.deliveries.report('watcher')
      expect(after.missed.map((e) => `${e.seq} ${e.action}`)).toEqual(r.missed.map((e) => `${e.seq} ${e.action}`))
      expect(after.gaps).toEqual(r.gaps)
      expect(after.expected).toBe(r.expected + 1)
      expect(after.delivered).toBe(r.delivered + 1)
      const res = await h.fetch('/_dockside/deliveries/watcher')
      expect((await res.json()).missed).toHaveLength(1)
      const unknown = await h.fetch('/_dockside/deliveries/nobody')
      expect(unknown.status).toBe(404)
      expect((await unknown.json()).message).toMatch(/Known clients: "watcher"/)
      third.close()
    },
  },
  {
    name: 'admin API: rate limit, pending faults table, sockets drop',
    async run({ fake, h }) {
      const post = (path: string, body: unknown) => h.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      const bad = await post('/_dockside/rate-limit', { route: 'everything', limit: 1, window: '1s' })
      expect(bad.status).toBe(400)
      expect((await bad.json()).message).toBe('route: must be one of "events", "push", "*"')
      expect((await post('/_dockside/rate-limit', { route: 'events', limit: 1, window: '1s' })).status).toBe(200)
      expect(await (await h.fetch('/_dockside/rate-limit')).json()).toEqual([{ route: 'events', limit: 1, window: '1s' }])
      expect((await post('/_dockside/faults', { id: 'later', on: 'events', drop: true, from: '1h' })).status).toBe(201)
      const pending = await (await h.fetch('/_dockside/faults/pending')).json()
      expect(pending.pending.map((p: { id: string }) => p.id)).toEqual(['later'])
      expect(pending.table).toMatch(/later\s+on events\s+drop/)
      const ws = await h.connect('/events/ws')
      expect(await (await post('/_dockside/sockets/drop', {})).json()).toEqual({ dropped: 1 })
      expect((await ws.closed).code).toBe(1006)
      expect((await h.fetch('/_dockside/rate-limit', { method: 'DELETE' })).status).toBe(200)
      void fake
    },
  },
  {
    name: 'every reply status on both sites: 400, 404, 429, 500, 503 with a JSON message, Retry-After on 429 and 503 only',
    async run({ fake, h }) {
      fake.images.add('localhost:5000/app:1', { layers: 1 })
      for (const status of [400, 404, 429, 500, 503]) {
        fake.faults.add({ on: 'events', reply: status })
        const ws = await h.connect('/events/ws')
        expect(ws.status).toBe(status)
        expect(refusal(ws).message).toBe(REPLY_MESSAGES[status])
        expect(refusal(ws).headers['retry-after']).toBe(status === 429 || status === 503 ? '1' : undefined)
        fake.faults.add({ on: 'push', reply: status, retryAfter: status === 503 ? 9 : undefined })
        const push = await h.fetch('/images/localhost:5000/app/push?tag=1', { method: 'POST' })
        expect(push.status).toBe(status)
        expect((await push.json()).message).toBe(REPLY_MESSAGES[status])
        expect(push.headers.get('retry-after')).toBe(status === 429 ? '1' : status === 503 ? '9' : null)
      }
      expect(fake.faults.pending()).toEqual([])
    },
  },
  {
    name: 'events: a stall never answers the handshake; the client gives up and nothing was opened',
    async run({ fake, h }) {
      fake.faults.add({ on: 'events', stall: true })
      const stalled = journalEntry(fake, 'fault')
      // The global WebSocket: on the server way it is undici's on a real socket; in process, the hook's.
      const ws = new WebSocket(`${h.wsBaseUrl}/events/ws?client=stuck`)
      const events: string[] = []
      ws.addEventListener('open', () => events.push('open'))
      const closed = new Promise<number>((r) => ws.addEventListener('close', (e) => r(e.code)))
      await stalled
      await fake.clock.advance('60s')
      // The fake's own state says the handshake was never answered: no socket opened, none in the hub.
      expect(fake.journal.ofType('ws.open')).toHaveLength(0)
      expect(fake.protocol.hub.sockets.size).toBe(0)
      expect(events).toEqual([])
      expect(ws.readyState).toBe(WebSocket.CONNECTING)
      // The client's connect timeout fires: it gives up, and the fake let go of the request.
      ws.close()
      expect(await closed).toBe(1006)
      expect(fake.journal.ofType('ws.open')).toHaveLength(0)
      expect(fake.deliveries.report('stuck').connections).toEqual([])
    },
  },
  {
    name: 'Docker /events: a stall sends headers, then silence while events happen',
    async run({ fake, h }) {
      fake.faults.add({ on: 'events', stall: true })
      const controller = new AbortController()
      const res = await h.fetch('/events', { signal: controller.signal })
      expect(res.status).toBe(200)
      const c = fake.containers.create({ name: 'quiet', image: 'busybox' })
      c.start()
      c.stop()
      // What the pending read ends with: a stalled stream neither sends nor ends, so only the abort settles it.
      const outcome = res.body!.getReader().read().then(
        (r) => (r.done ? 'ended' : `data ${new TextDecoder().decode(r.value)}`),
        (error: Error) => `failed ${error.name}`,
      )
      await fake.clock.advance('30s')
      // The fake holds the stream open and has sent nothing on it.
      const [connection] = fake.deliveries.report(fake.deliveries.clients()[0]).connections
      expect(connection).toMatchObject({ via: 'stream', sent: 0 })
      expect(connection.closedAt).toBeUndefined()
      expect(fake.journal.ofType('stream.backlog')).toHaveLength(0)
      controller.abort()
      expect(await outcome).toBe('failed AbortError')
    },
  },
  {
    name: 'Docker /events: per-event latency with seeded jitter keeps the order, one draw per event',
    async run({ fake, h }) {
      fake.faults.add({ on: 'events', latency: { perEvent: '1s', jitter: '500ms' } })
      const c = fake.containers.create({ name: 'late', image: 'busybox' })
      const res = await h.fetch('/events?client=late')
      c.start()
      c.stop()
      const reader = res.body!.getReader()
      let text = ''
      const read = (async () => {
        for (;;) {
          const r = await reader.read()
          if (r.done) return
          text += new TextDecoder().decode(r.value)
          if (text.split('\n').length > 2) return
        }
      })()
      await fake.clock.advance('999ms')
      // Each event waits its 1 s (plus jitter) on the clock: none was handed to the stream yet.
      expect(fake.deliveries.report('late').delivered).toBe(0)
      expect(text).toBe('')
      await fake.clock.advance('1s')
      await read
      expect(text.trim().split('\n').map((l) => JSON.parse(l).Action)).toEqual(['start', 'stop'])
      expect(fake.journal.ofType('fault.draw').filter((d) => String(d.purpose).startsWith('event'))).toHaveLength(2)
      await reader.cancel()
    },
  },
  {
    name: 'Docker /events: a drop after N lines fails the stream like a reset; a close ends it cleanly',
    async run({ fake, h }) {
      const c = fake.containers.create({ name: 'cut', image: 'busybox' })
      for (const [rule, fails] of [[{ on: 'events', drop: true, afterMessages: 1 }, true], [{ on: 'events', close: { code: 4000 }, afterMessages: 1 }, false]] as const) {
        fake.faults.add(rule)
        const res = await h.fetch('/events')
        c.start()
        c.stop()
        const { text, failure } = await readAdvancing(fake, res)
        expect(text.trim().split('\n')).toHaveLength(1)
        if (fails) expect(failure).toBeInstanceOf(Error)
        else expect(failure).toBeUndefined()
      }
      expect(fake.deliveries.clients()).toHaveLength(1)
      expect(fake.deliveries.report(fake.deliveries.clients()[0]).connections.map((x) => [x.closedBy, x.code, x.reason])).toEqual([
        ['drop', 1006, 'events stream dropped by an injected fault'],
        ['server', 4000, 'closed by fault rule-2'],
      ])
    },
  },
  {
    name: 'push: latency on connect answers only after clock time passes',
    async run({ fake, h }) {
      fake.images.add('localhost:5000/app:1', { layers: 1 })
      fake.faults.add({ on: 'push', latency: { connect: '3s' } })
      let answered = false
      const arrived = journalEntry(fake, 'fault')
      const pending = h.fetch('/images/localhost:5000/app/push?tag=1', { method: 'POST' }).then((r) => ((answered = true), r))
      await arrived
      await fake.clock.advance(2999)
      // The fake has not started the push: the answer is still owed.
      expect(fake.journal.ofType('push.start')).toHaveLength(0)
      expect(answered).toBe(false)
      // Some ways in hand over headers only with the first byte: move the clock until the answer comes.
      for (let i = 0; !answered && i < 50; i++) {
        await fake.clock.advance('100ms')
        await new Promise((r) => setImmediate(r))
      }
      const res = await pending
      expect(res.status).toBe(200)
      const { text } = await readAdvancing(fake, res)
      expect(text).toContain('"aux"')
    },
  },
  {
    name: 'retention by time: a since older than retainEventsFor gets 4410 on /events/ws and 410 on Docker /events',
    options: { retainEventsFor: '10s' },
    async run({ fake, h }) {
      const c = fake.containers.create({ name: 't', image: 'busybox' })
      c.start()
      const first = fake.events.events[0]
      await fake.clock.advance('11s')
      c.stop()
      expect(fake.events.events.map((e) => e.action)).toEqual(['stop'])
      expect(first.timeNano).toBe(1767225600000000000n)
      const since = '1767225600.000000000'
      const ws = await h.connect(`/events/ws?since=${since}`)
      const closed = await ws.closed
      expect(closed.code).toBe(4410)
      expect(closed.reason).toBe('since 1767225600.000000000 is older than retention; resume with since=1767225600.000000001 or later')
      const res = await h.fetch(`/events?since=${since}`)
      expect(res.status).toBe(410)
      expect((await res.json()).message).toBe(closed.reason)
      // Within retention, the replay works.
      const ok = await h.connect('/events/ws?since=1767225600.000000001')
      expect(JSON.parse(await ok.nextMessage()).Action).toBe('stop')
    },
  },
]
