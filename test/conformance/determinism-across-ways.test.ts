// An outside review of "a seed plus a script gives the same bytes every run" and "every way in behaves the same",
// run through the real server on 127.0.0.1 and the in-process hooks side by side.
// 1. The fault plan drew from the same seeded sequence as ids, names and digests: under a `latency` jitter rule each
//    subscriber draws once per event, so the container created after an event got another id and name with one
//    more events client connected (a dashboard-minded presenter's extra tab, a client's extra reconnect under the
//    auto clock). The fault draws now have a stream of their own.
// 2. A `latency` rule on events dropped what `until` bounds: `GET /events?since=&until=` (and `/events/ws`) with
//    `until` already past answered nothing at all, and a live event delayed past `until` was never sent, where the
//    docs say a latency delays each event (order kept) and the stream ends after what it replays.
// Found by an outside review of determinism (was test/conformance/determinism-review.test.ts).
import { describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../src/index'
import { enc, registryAuth } from '../support/helpers'
import { readToEnd, streamWays } from '../support/stream-ways'

const T0 = 1767225600 // the clock's start, 2026-01-01T00:00:00Z, in seconds

/** Lets the frames and chunks of this turn reach their clients. */
const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r))
}

/** Advances the virtual clock 100 ms at a time until `done` says so (at most `max` steps). */
async function advanceUntil(fake: Dockside, done: () => boolean, max = 100) {
  for (let i = 0; i < max && !done(); i++) {
    await fake.clock.advance('100ms')
    await settle()
  }
}

describe('fault draws never move the ids, names and digests', () => {
  it('the container and image made after an event are the same with 0, 1 or 2 subscribers under a jitter rule, on both ways in', async () => {
    const seen: Record<string, unknown> = {}
    for (const way of streamWays) {
      for (const subscribers of [0, 1, 2]) {
        await using fake = createDockside({ seed: 42 })
        const w = await way.start(fake)
        try {
          fake.faults.add({ id: 'lag', on: 'events', latency: { perEvent: '20ms', jitter: '80ms' } })
          // One refusal drawn per connect: a probability below 1 draws on every attempt.
          fake.faults.add({ id: 'flaky', on: 'events', reply: 503, probability: 0.01, times: 'always' })
          const sockets: WebSocket[] = []
          for (let i = 0; i < subscribers; i++) {
            const ws = new WebSocket(`${w.wsBase}/events/ws?client=c${i}`)
            await new Promise((r) => (ws.onopen = r))
            sockets.push(ws)
          }
          fake.containers.create({ name: 'web', image: 'busybox' }).start()
          const next = fake.containers.create({ image: 'busybox' })
          fake.images.add('localhost:5000/team/app:1', { layers: 2 })
          const res = await fetch(`${w.base}/images/localhost:5000/team/app/json`)
          const image = (await res.json()) as { Id: string }
          seen[`${way.name} with ${subscribers}`] = { name: next.name, id: next.id, image: image.Id }
          // Each subscriber did draw: the jitter of the start event, journaled.
          expect(fake.journal.ofType('fault.draw').filter((d) => d.rule === 'lag')).toHaveLength(subscribers)
          for (const ws of sockets) ws.close()
        } finally {
          await w.close()
        }
      }
    }
    const [first, ...rest] = Object.values(seen)
    for (const other of rest) expect(other).toEqual(first)
    // And the same as a fake with no fault rule at all.
    await using plain = createDockside({ seed: 42 })
    plain.containers.create({ name: 'web', image: 'busybox' }).start()
    expect((first as { name: string }).name).toBe(plain.containers.create({ image: 'busybox' }).name)
  })

  it('the fault draws themselves still repeat with the seed', async () => {
    const draws = async () => {
      await using fake = createDockside({ seed: 42 })
      const rule = fake.faults.add({ on: 'events', latency: { perEvent: '0ms', jitter: '1s' } })
      return [1, 2, 3].map(() => fake.faults.jitter(rule.id, 1000, 'x'))
    }
    expect(await draws()).toEqual(await draws())
  })
})

describe('a latency rule delays what `until` bounds, never drops it', () => {
  /** The script, on one way in: two events, then `GET /events` and `/events/ws` bounded by a past and a future `until`. */
  async function run(way: (typeof streamWays)[number]) {
    await using fake = createDockside({ seed: 42 })
    const w = await way.start(fake)
    try {
      const web = fake.containers.create({ name: 'web', image: 'nginx:1.27', labels: { app: 'web' } })
      web.start()
      await fake.clock.advance('1s')
      web.stop({ exitCode: 137 })
      await fake.clock.advance('1s')
      fake.faults.add({ id: 'lag', on: 'events', latency: { perEvent: '300ms', jitter: '50ms' } })
      const out: Record<string, unknown> = {}

      // `until` already past: the replay, late by the latency, then the end.
      const past = await fetch(`${w.base}/events?since=${T0}&until=${T0 + 1}&filters=${enc({ label: ['app=web'] })}`)
      const pastBody = readToEnd(past)
      let ended = false
      void pastBody.then(() => (ended = true))
      await advanceUntil(fake, () => ended)
      out.past = await pastBody

      const ws = new WebSocket(`${w.wsBase}/events/ws?since=${T0}&until=${T0 + 1}`)
      const frames: string[] = []
      ws.onmessage = (m) => frames.push(String(m.data))
      let closed = false
      ws.onclose = (e) => {
        frames.push(`close ${e.code} ${e.reason}`)
        closed = true
      }
      await new Promise((r) => (ws.onopen = r))
      await advanceUntil(fake, () => closed)
      out.ws = frames

      // `until` ahead: a live event just before it comes after it, then the end.
      const until = fake.clock.now() + 1000
      const ahead = await fetch(`${w.base}/events?until=${Math.floor(until / 1000)}.${String(until % 1000).padStart(3, '0')}000000`)
      const aheadBody = readToEnd(ahead)
      ended = false
      void aheadBody.then(() => (ended = true))
      await fake.clock.advance('900ms')
      web.start()
      await advanceUntil(fake, () => ended)
      out.ahead = await aheadBody
      out.missed = fake.deliveries.clients().map((c) => fake.deliveries.report(c).missed.length)
      return out
    } finally {
      await w.close()
    }
  }

  it('GET /events and /events/ws send every event up to `until`, late, then end; the same bytes on both ways in', async () => {
    const server = await run(streamWays[0])
    const lines = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { Action: string; time: number })
    const past = server.past as { how: string; text: string }
    expect(past.how).toBe('end')
    expect(lines(past.text).map((e) => [e.Action, e.time])).toEqual([
      ['start', T0],
      ['stop', T0 + 1],
    ])
    const ws = server.ws as string[]
    expect(ws.map((f) => (f.startsWith('{') ? JSON.parse(f).Action : f))).toEqual(['start', 'stop', 'close 1000 until reached; stream complete'])
    const ahead = server.ahead as { how: string; text: string }
    expect(ahead.how).toBe('end')
    expect(lines(ahead.text).map((e) => e.Action)).toEqual(['start', 'stop', 'start'])
    expect(new Set(server.missed as number[])).toEqual(new Set([0]))
    expect(await run(streamWays[1])).toEqual(server)
  })
})

describe('a mixed script repeats byte for byte and answers the same on both ways in', () => {
  /** Pushes with credentials and faults, containers, events with filters and `since`/`until`: every answer's bytes. */
  async function script(way: (typeof streamWays)[number]) {
    await using fake = createDockside({ seed: 7 })
    const w = await way.start(fake)
    const out: string[] = []
    try {
      const call = async (path: string, init?: RequestInit) => {
        const res = await fetch(w.base + path, init)
        const body = res.body ? readToEnd(res) : Promise.resolve({ how: 'no body', text: '' })
        let done = false
        void body.then(() => (done = true))
        await advanceUntil(fake, () => done, 400)
        const { how, text } = await body
        out.push(`${res.status} ${res.headers.get('content-type')} retry-after=${res.headers.get('retry-after')} api=${res.headers.get('api-version')} ${how} ${text}`)
        return text
      }
      const admin = (path: string, body: unknown) => call(`/_dockside${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      const auth = { 'X-Registry-Auth': registryAuth({ username: 'alice', password: 's3cret', serveraddress: 'localhost:5000' }) }
      await admin('/registries', { host: 'localhost:5000', username: 'alice', password: 's3cret' })
      await admin('/images', { name: 'localhost:5000/team/app', tags: ['1.0', '2.0'], layers: 3 })
      const frames: string[] = []
      const ws = new WebSocket(`${w.wsBase}/events/ws?filters=${enc({ label: ['app=web'] })}`)
      ws.onmessage = (m) => frames.push(String(m.data))
      await new Promise((r) => (ws.onopen = r))
      const made = JSON.parse(await admin('/containers', { image: 'nginx:1.27', labels: { app: 'web' } })) as { id: string }
      await call(`/containers/${made.id}/start`, { method: 'POST' })
      await call(`/containers/${made.id.slice(0, 12)}/stop`, { method: 'POST' })
      await call('/images/localhost:5000/team/app/push?tag=1.0', { method: 'POST', headers: auth })
      await admin('/faults', { on: 'push', error: 'blob upload unknown', afterLayer: 1 })
      await call('/images/localhost:5000/team/app/push?tag=2.0', { method: 'POST', headers: auth })
      await admin('/faults', { on: 'push', reply: 429, retryAfter: 3 })
      await call('/images/localhost:5000/team/app/push?tag=2.0', { method: 'POST', headers: auth })
      await call('/images/localhost:5000/team/app/push?tag=2.0', { method: 'POST', headers: auth })
      await call(`/events?since=${T0}&until=${T0 + 1}`)
      await call('/containers/json?all=1')
      await call('/_ping', { method: 'HEAD' })
      ws.close()
      await settle()
      out.push(...frames)
      // An anonymous client is known by its address: 127.0.0.1 on the server, `in-process` in process.
      out.push(JSON.stringify(fake.journal.entries).replaceAll('"client":"127.0.0.1 ', '"client":"ADDRESS ').replaceAll('"client":"in-process ', '"client":"ADDRESS '))
      return out
    } finally {
      await w.close()
    }
  }

  it('twice through the server gives the same bytes, and the in-process hooks give them too', async () => {
    const a = await script(streamWays[0])
    expect(await script(streamWays[0])).toEqual(a)
    expect(a.join('\n')).toMatch(/"aux":\{"Tag":"1.0"/)
    expect(a.join('\n')).toMatch(/^429 application\/json retry-after=3/m)
    expect(await script(streamWays[1])).toEqual(a)
  })
})
