// Regression (issue 8, point 7): no input stops the process. Each of these used to end or freeze `dockside serve`, or
// answer without JSON: a scenario with more than 10,000 timers due at once (the host-driven clock threw from a timer
// callback: an uncaught exception), `clock/advance` by 1e308, CONNECT (the socket was dropped unanswered), a request
// with no Host (node's bare 400), and a long advance that never gave the event loop a turn.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideOptions } from '../../../src/index'
import { ensureBuilt, root } from '../../support/cli'

const fakes: Dockside[] = []
const children: ChildProcess[] = []
let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dockside-no-stop-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  for (const f of fakes.splice(0)) await f.close()
})

function fresh(options: DocksideOptions = {}) {
  const fake = createDockside({ seed: 1, ...options })
  fakes.push(fake)
  return fake
}

/** The two ways in that serve the admin API over HTTP: the real server and the in-process hooks. */
const ways = [
  { name: 'server', start: async (fake: Dockside) => (await fake.listen({ port: 0 })).url },
  { name: 'in-process', start: async (fake: Dockside) => (await fake.intercept()).baseUrl },
]

/** 10,001 timeline steps due at the same instant (maintenance restarts): one more than the clock's loop limit. */
const crowdedTimeline = (at = '1s', length = 10_001) => Array.from({ length }, () => ({ at, restart: true }))

/** Counts journal entries of a type as they are written (the journal itself keeps a bounded window). */
function counting(fake: Dockside, type: string) {
  let n = 0
  fake.on('journal', (entry) => {
    if (entry.type === type) n++
  })
  return () => n
}

/** Sends raw bytes, resolves with everything the server answered before it closed (or 2 s passed). */
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    let out = ''
    const done = () => {
      clearTimeout(timer)
      socket.destroy()
      resolve(out)
    }
    // A server that never answers fails the test here, by name, rather than at vitest's timeout.
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no complete answer within 2 s to ${JSON.stringify(text.slice(0, 60))}; got ${JSON.stringify(out.slice(0, 200))}`))
    }, 2000)
    socket.on('data', (d: Buffer) => {
      out += d.toString()
      // One complete answer is enough (keep-alive would otherwise hold the socket open).
      const [head, body] = out.split('\r\n\r\n')
      const length = /content-length: (\d+)/i.exec(head ?? '')
      if (length && body !== undefined && Buffer.byteLength(body) >= Number(length[1])) done()
    })
    socket.on('close', done)
    socket.on('error', done)
    socket.write(text)
  })
}

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1])
const jsonBodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { message: string }

/** Measures the longest event-loop pause and serves a ping every turn while `work` runs; resolves with both. */
async function whileResponsive(url: string, work: () => Promise<unknown>) {
  const histogram = monitorEventLoopDelay({ resolution: 5 })
  histogram.enable()
  let done = false
  let pings = 0
  let slowestPing = 0
  const pinging = (async () => {
    while (!done) {
      const t0 = performance.now()
      expect((await fetch(`${url}/_ping`)).status).toBe(200)
      if (!done) {
        pings++
        slowestPing = Math.max(slowestPing, performance.now() - t0)
      }
    }
  })()
  try {
    await work()
  } finally {
    done = true
    histogram.disable()
    await pinging
  }
  return { maxDelayMs: histogram.max / 1e6, pings, slowestPing }
}

describe('clock/advance is bounded: a clear 400 with the allowed range', () => {
  for (const way of ways) {
    it.each([
      ['1e308', { by: 1e308 }, /Invalid clock advance 1e\+308: longer than the 100-year maximum; expected from 0 to 3153600000000 ms \(100 years\)/],
      ['"1e308ms"', { by: '1e308ms' }, /by: must be a duration: milliseconds or a string like "250ms".*from 0 to 3153600000000 ms \(100 years\)/],
      ['400 nines and "d"', { by: '9'.repeat(400) + 'd' }, /Invalid clock advance "9{60}\.\.\." \(401 characters\): longer than the 100-year maximum/],
      ['"9d" 100,000 times', { by: '9d'.repeat(100_000) }, /Invalid clock advance "(9d){30}\.\.\." \(200000 characters\): longer than the 100-year maximum/],
      ['a 100,000-character string', { by: 'x'.repeat(100_000) }, /by: must be a duration: milliseconds or a string like "250ms".*from 0 to 3153600000000 ms \(100 years\)/],
      ['-1', { by: -1 }, /by: must be a duration: milliseconds or a string like "250ms".*from 0 to 3153600000000 ms \(100 years\)/],
      ['"-1s"', { by: '-1s' }, /by: must be a duration: milliseconds or a string like "250ms".*from 0 to 3153600000000 ms \(100 years\)/],
      ['"NaN"', { by: 'NaN' }, /by: must be a duration: milliseconds or a string like "250ms".*from 0 to 3153600000000 ms \(100 years\)/],
      ['"36501d"', { by: '36501d' }, /longer than the 100-year maximum/],
      ['null', { by: null }, /by: must be a duration: milliseconds or a string like "250ms".*from 0 to 3153600000000 ms \(100 years\)/],
    ])(`${way.name}: by %s`, async (_, body, message) => {
      const fake = fresh()
      const url = await way.start(fake)
      const res = await fetch(`${url}/_dockside/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      expect(res.status).toBe(400)
      expect((await res.json()).message).toMatch(message)
      expect(fake.clock.elapsed()).toBe(0)
      expect((await fetch(`${url}/_ping`)).status).toBe(200)
    })

    it(`${way.name}: 100 years is allowed, twice; the clock never passes the last date JavaScript can hold`, async () => {
      const fake = fresh({ clock: { mode: 'virtual', start: '+275600-01-01T00:00:00Z' } })
      const url = await way.start(fake)
      const advance = (by: string) => fetch(`${url}/_dockside/clock/advance`, { method: 'POST', body: JSON.stringify({ by }) })
      expect((await advance('36500d')).status).toBe(200)
      const past = await advance('36500d')
      expect(past.status).toBe(400)
      expect((await past.json()).message).toMatch(/would pass \+275760-09-13, the latest date JavaScript can hold/)
      expect((await fetch(`${url}/_dockside/clock`)).status).toBe(200)
    })
  }
})

/**
 * The event-loop bounds below (no pause over 100 ms, no ping slower than 1 s) also measure the OS's scheduling: on a
 * loaded 2-core machine (a parallel suite, CI) a pause of another process's making can pass them once. A run that
 * fails is tried again, twice: work that does not yield fails every time.
 */
const TIMING = { retry: 2 }

describe('more than 10,000 timers due at once run (in slices), never an exit or a frozen loop', TIMING, () => {
  it('library: createDockside({ scenario }) with 10,001 steps at one instant, then advance()', async () => {
    const fake = fresh({ scenario: { timeline: crowdedTimeline() } })
    const steps = counting(fake, 'timeline')
    const { url } = await fake.listen({ port: 0 })
    const seen = await whileResponsive(url, () => fake.clock.advance('2s'))
    expect(steps()).toBe(10_001)
    expect(seen.pings).toBeGreaterThan(0)
    expect(seen.maxDelayMs).toBeLessThan(100)
  })

  for (const way of ways) {
    it(`${way.name}: POST /_dockside/scenario with 10,001 steps at one instant, then POST /_dockside/clock/advance`, async () => {
      const fake = fresh()
      const steps = counting(fake, 'timeline')
      const url = await way.start(fake)
      const applied = await fetch(`${url}/_dockside/scenario`, { method: 'POST', body: JSON.stringify({ timeline: crowdedTimeline() }) })
      expect(applied.status).toBe(200)
      const res = await fetch(`${url}/_dockside/clock/advance`, { method: 'POST', body: JSON.stringify({ by: '2s' }) })
      expect(res.status).toBe(200)
      expect(steps()).toBe(10_001)
      expect((await fetch(`${url}/_ping`)).status).toBe(200)
    })
  }

  it('the loop limit still catches work that reschedules itself with no delay', async () => {
    const fake = fresh({ clock: { mode: 'virtual', loopLimit: 50 } })
    const again = () => void fake.clock.schedule(0, again)
    fake.clock.schedule(0, again)
    await expect(fake.clock.advance('1s')).rejects.toThrow(/More than 50 timers fired during advance\(\) at one instant/)
    await expect(fake.clock.runAll()).rejects.toThrow(/More than 50 timers fired during runAll\(\)/)
  })

  it('a bounded advance still stops at loopLimit x 100 timers, saying where the clock stopped', async () => {
    const fake = fresh({ clock: { mode: 'virtual', loopLimit: 5 } })
    const tick = () => void fake.clock.schedule(1, tick)
    fake.clock.schedule(1, tick)
    await expect(fake.clock.advance('1s')).rejects.toThrow(/fired more than 500 timers .*the clock stopped at 2026-01-01T00:00:00\.501Z\. Advance in smaller steps/)
  })

  it('dockside serve with a scenario file of 30,001 steps at one instant (real clock) keeps serving (it used to exit)', async () => {
    ensureBuilt()
    const file = join(dir, 'crowded.json')
    await writeFile(file, JSON.stringify({ timeline: crowdedTimeline('300ms', 30_001) }))
    const child = spawn(process.execPath, [join(root, 'bin/dockside.js'), 'serve', '--port', '0', '--quiet', '--scenario', file], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    children.push(child)
    let out = ''
    let err = ''
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString()
        const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out)
        if (m) resolve(m[1])
      })
      child.once('exit', (code) => reject(new Error(`dockside serve exited (${code}):\n${out}\n${err}`)))
    })
    // The 30,001 steps are due 300 ms after start, on the real clock; wait until they all ran (the clock has no timer
    // left). The journal keeps only its last 10,000 entries, so it cannot count them: it shows the newest and what it dropped.
    let pending = Infinity
    let slowestPing = 0
    while (pending > 0) {
      const t0 = performance.now()
      expect((await fetch(`${url}/_ping`)).status).toBe(200)
      slowestPing = Math.max(slowestPing, performance.now() - t0)
      pending = ((await (await fetch(`${url}/_dockside/clock`)).json()) as { pending: number }).pending
      expect(child.exitCode).toBe(null)
    }
    const journal = await fetch(`${url}/_dockside/journal?type=timeline`)
    const kept = ((await journal.json()) as unknown[]).length
    expect(kept).toBeGreaterThan(0)
    expect(kept + Number(journal.headers.get('x-dockside-journal-omitted'))).toBeGreaterThanOrEqual(30_001)
    expect(err).toBe('')
    // Across processes on a shared machine a ping's round trip is not only the server's loop: a loose bound.
    expect(slowestPing).toBeLessThan(1000)
  }, 60_000)
})

describe('a long advance yields: other clients are served, no event-loop pause over 100 ms', TIMING, () => {
  it('advance by 30 days over a timeline repeating every 30 s (86,400 timers)', async () => {
    const fake = fresh({ scenario: { timeline: [{ at: '0s', every: '30s', restart: true }] } })
    const steps = counting(fake, 'timeline')
    const { url } = await fake.listen({ port: 0 })
    const seen = await whileResponsive(url, () => fake.clock.advance('30d'))
    expect(fake.clock.elapsed()).toBe(30 * 86_400_000)
    expect(steps()).toBe(86_401)
    expect(seen.pings).toBeGreaterThan(5)
    expect(seen.maxDelayMs).toBeLessThan(100)
  }, 60_000)

  it('POST /_dockside/clock/advance by 30 days: GET /_ping is answered during it', async () => {
    const fake = fresh({ scenario: { timeline: [{ at: '0s', every: '30s', restart: true }] } })
    const { url } = await fake.listen({ port: 0 })
    const seen = await whileResponsive(url, async () => {
      const res = await fetch(`${url}/_dockside/clock/advance`, { method: 'POST', body: JSON.stringify({ by: '30d' }) })
      expect(res.status).toBe(200)
    })
    expect(seen.pings).toBeGreaterThan(5)
    expect(seen.maxDelayMs).toBeLessThan(100)
  }, 60_000)

  it('a 1 GB push on the server under the virtual clock, advanced in one call', async () => {
    const fake = fresh()
    fake.images.add('localhost:5000/big:1', { layers: [400_000_000, 300_000_000, 200_000_000, 100_000_000] })
    const { url } = await fake.listen({ port: 0 })
    const res = await fetch(`${url}/images/localhost:5000/big/push?tag=1`, { method: 'POST' })
    const text = res.text()
    const seen = await whileResponsive(url, () => fake.clock.advance('60s'))
    expect(await text).toContain('"aux":{"Tag":"1"')
    expect(fake.journal.ofType('push.tag')).toHaveLength(1)
    expect(seen.maxDelayMs).toBeLessThan(100)
  }, 60_000)
})

describe('odd requests get a JSON answer and the server keeps serving', () => {
  it.each([
    ['CONNECT / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 405, /Method CONNECT is not allowed: this fake is not a proxy/],
    ['CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n', 405, /Method CONNECT is not allowed/],
    ['PROPFIND / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 404, /^page not found$/],
    ['TRACE / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 404, /^page not found$/],
    ['GET /_ping HTTP/1.1\r\n\r\n', 400, /Missing Host header: HTTP\/1\.1 requires one/],
    ['POST /_dockside/clock/advance HTTP/1.1\r\nContent-Length: 11\r\n\r\n{"by":"1s"}', 400, /Missing Host header/],
    ['GET /events/ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n', 400, /Missing Host header/],
  ])('%j answers %d', async (request, status, message) => {
    const fake = fresh()
    const { port, url } = await fake.listen({ port: 0 })
    const answer = await raw(port, request)
    expect(statusOf(answer)).toBe(status)
    expect(answer).toMatch(/content-type: application\/json/i)
    expect(jsonBodyOf(answer).message).toMatch(message)
    expect(fake.clock.elapsed()).toBe(0)
    expect((await fetch(`${url}/_ping`)).status).toBe(200)
  })

  it('HTTP/1.0 predates Host: served without it', async () => {
    const fake = fresh()
    const { port } = await fake.listen({ port: 0 })
    const answer = await raw(port, 'GET /_ping HTTP/1.0\r\n\r\n')
    expect(statusOf(answer)).toBe(200)
    expect(answer.endsWith('OK')).toBe(true)
  })

  for (const way of ways) {
    it.each([
      ['/_dockside/faults', '['.repeat(100_000) + ']'.repeat(100_000)],
      ['/_dockside/faults', '{"on":"events","close":1000,"match":{"filters":' + '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_001) + '}'],
      ['/_dockside/scenario', '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)],
      ['/_dockside/scenario', '{"containers":[{"name":"x","image":"y","labels":' + '{"a":'.repeat(50_000) + '"1"' + '}'.repeat(50_001) + ']}'],
      ['/_dockside/rate-limit', '['.repeat(100_000) + ']'.repeat(100_000)],
      ['/_dockside/clock/advance', '{"by":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}'],
      ['/_dockside/containers', '['.repeat(100_000) + ']'.repeat(100_000)],
    ])(`${way.name}: a deep JSON body to %s is a 400`, async (path, body) => {
      const fake = fresh()
      const url = await way.start(fake)
      const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      expect(res.status).toBe(400)
      expect(typeof (await res.json()).message).toBe('string')
      expect((await fetch(`${url}/_ping`)).status).toBe(200)
      expect((await fetch(`${url}/_dockside/state`)).status).toBe(200)
    })
  }
})
