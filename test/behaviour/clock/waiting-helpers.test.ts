// Issue 30, §2: the waits every user wrote by hand, on a real port. `clock.advanceUntil(promise)` advances until any
// promise settles (drainWithClock took only a Response); `journal.next(type)` waits for an entry of a type; and
// requests on their way in reach the server before the clock moves (`fake.settled()`, which every advance awaits): a
// request sent before an advance was seen up to a whole step of clock time late.
import net from 'node:net'
import { expect, test } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'

/** A client of the user's own, on the fake's clock: it pushes, and on a 429 or 503 sleeps `Retry-After` and tries again. */
function pushClient(base: string, sleep: (ms: number) => Promise<unknown>) {
  return async (image: string, tag: string) => {
    for (let attempt = 1; ; attempt++) {
      const res = await fetch(`${base}/images/${image}/push?tag=${tag}`, { method: 'POST' })
      const text = await res.text()
      if (res.status !== 429 && res.status !== 503) return { status: res.status, attempt, last: text.trim().split('\n').at(-1) }
      await sleep(Number(res.headers.get('retry-after')) * 1000)
    }
  }
}

const elapsedOf = (fake: Dockside, type: 'request') => fake.journal.ofType(type).map((e) => [e.status, e.time - fake.clock.startedAt])

test('clock.advanceUntil: a client that sleeps Retry-After on the fake clock gets its push through, each retry on time', async () => {
  await using fake = createDockside({ seed: 1 })
  fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 2 })
  fake.faults.add({ on: 'push', reply: 429, retryAfter: 5, times: 2 })
  const server = await fake.listen({ port: 0 })
  const push = pushClient(server.url, (ms) => fake.clock.sleep(ms))

  const result = await fake.clock.advanceUntil(push('localhost:5000/team/app', '1.0'), { step: '1s' })

  expect(result).toMatchObject({ status: 200, attempt: 3 })
  expect(JSON.parse(result.last!).aux.Tag).toBe('1.0')
  // Refused at 0 and 5 s, through at 10 s: each retry exactly Retry-After later, not a step late.
  expect(elapsedOf(fake, 'request')).toEqual([[429, 0], [429, 5000], [200, 10000]])
})

test('clock.advanceUntil answers what the promise rejects with, and says where it stopped after maxSteps', async () => {
  await using fake = createDockside()
  const failing = fake.clock.sleep('2s').then(() => Promise.reject(new Error('client gave up')))
  await expect(fake.clock.advanceUntil(failing, { step: '500ms' })).rejects.toThrow('client gave up')
  expect(fake.clock.elapsed()).toBe(2000)

  const never = new Promise(() => {})
  await expect(fake.clock.advanceUntil(never, { step: '1s', maxSteps: 3 })).rejects.toThrow(
    'clock.advanceUntil: the promise was still pending after 3 steps of 1000 ms (3000 ms of clock time); the clock stopped at 2026-01-01T00:00:05.000Z.',
  )
  // A promise already settled costs no clock time.
  await expect(fake.clock.advanceUntil(Promise.resolve('now'))).resolves.toBe('now')
  expect(fake.clock.elapsed()).toBe(5000)
})

test('journal.next: the next entry of a type, typed, with where; after: 0 takes one already kept; a reset rejects', async () => {
  await using fake = createDockside({ seed: 1 })
  fake.images.add('localhost:5000/team/app', { tags: ['1.0', '2.0'], layers: 1 })
  const server = await fake.listen({ port: 0 })
  const second = fake.journal.next('push.tag', { where: { tag: '2.0' } })
  const done = fake.journal.next('push.done', { where: (e) => e.tags.includes('1.0') })
  const res = await fetch(`${server.url}/images/localhost:5000/team/app/push`, { method: 'POST' })
  const body = res.text()
  const entry = await fake.clock.advanceUntil(done)
  expect(entry).toMatchObject({ type: 'push.done', repository: 'localhost:5000/team/app', tags: ['1.0', '2.0'] })
  expect((await second).tag).toBe('2.0')
  await body

  // Entries already kept: only with `after`, from that seq on.
  expect((await fake.journal.next('push.start', { after: 0 })).repository).toBe('localhost:5000/team/app')
  const later = fake.journal.next('push.start')
  const aborted = new AbortController()
  const stopped = fake.journal.next('ws.open', { signal: aborted.signal })
  aborted.abort(new Error('the test stopped waiting'))
  await expect(stopped).rejects.toThrow('the test stopped waiting')
  await fake.reset()
  await expect(later).rejects.toThrow('journal.next("push.start"): the fake was reset or closed before such an entry was recorded')
})

test('journal.next by a prefix waits for any entry under it', async () => {
  await using fake = createDockside()
  const server = await fake.listen({ port: 0 })
  const ws = fake.journal.next('ws.')
  const socket = new WebSocket(`${server.wsUrl}/events/ws?client=sdk`)
  const entry = await ws
  expect(entry).toMatchObject({ type: 'ws.open', client: 'sdk' })
  socket.close()
  await fake.journal.next('ws.close', { after: entry.seq })
})

/**
 * A request that takes a few host turns to reach the server once its connection is open (TLS, another process, a
 * client's own promise hops): a raw client connects, then writes `GET /_ping` after `turns` turns of its event loop.
 */
function slowPing(port: number, turns: number) {
  const s = net.connect(port, '127.0.0.1')
  const connected = new Promise<void>((resolve) => s.once('connect', () => resolve()))
  const answer = new Promise<string>((resolve, reject) => {
    let out = ''
    s.on('data', (d) => (out += d.toString('latin1')))
    s.on('end', () => resolve(out))
    s.on('error', reject)
    s.on('connect', () => {
      let left = turns
      const step = () => (--left > 0 ? setImmediate(step) : s.end('GET /_ping HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'))
      setImmediate(step)
    })
  })
  return { connected, answer }
}

test('a request on its way in when the clock moves is seen at the time it was sent: advance waits for it (fake.settled)', async () => {
  await using fake = createDockside()
  const server = await fake.listen({ port: 0 })
  for (let i = 0; i < 5; i++) {
    const ping = slowPing(server.port, 8)
    // The connection is open before the advance; its request comes a few turns later.
    await ping.connected
    await fake.clock.advance('1s')
    expect(await ping.answer).toMatch(/^HTTP\/1.1 200 OK\r\n[\s\S]*\r\n\r\nOK$/)
  }
  // Each ping reached the fake before its advance moved the clock: at 0, 1, 2, 3, 4 s, not a step later.
  expect(elapsedOf(fake, 'request')).toEqual([[200, 0], [200, 1000], [200, 2000], [200, 3000], [200, 4000]])
})

test('fake.settled() resolves at once with nothing on its way, and a connection that never sends holds it at most 500 ms', async () => {
  await using fake = createDockside()
  await fake.settled() // no server
  const server = await fake.listen({ port: 0 })
  await server.settled()
  const idle = net.connect(server.port, '127.0.0.1')
  await new Promise((r) => idle.once('connect', r))
  await expect.poll(() => server.connections()).toBe(1)
  const started = performance.now()
  await fake.settled()
  const waited = performance.now() - started
  expect(waited).toBeGreaterThan(100)
  expect(waited).toBeLessThan(1500)
  // Past its 500 ms, the silent connection no longer holds anything.
  const again = performance.now()
  await fake.clock.advance('1s')
  expect(performance.now() - again).toBeLessThan(250)
  idle.destroy()
})
