// Regression (issue 8, point 3): a client dropped a push connection and at once asked the admin API to advance the
// clock; the server saw the advance before the disconnect (the request's signal was aborted only on the response's
// 'close', a loop turn or more after the socket's EOF/RST), ran the push to completion and committed the tag:
// 2 of 40 tries at idle load, 39 of 60 under load. The cancellation must win over any clock movement ordered after
// the disconnect, on the server and in process.
import net from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

const REPS = 200
// 200 repetitions take 3-5 s on an idle 2-core machine and 20-40 s when it is shared: a bound for a hang, not a timing.
const TIMEOUT = 90_000
const IMAGE = 'localhost:5000/team/app'
const fakes: Dockside[] = []
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close()
})

/** A fake with a 10 MB image: 5 pacing ticks (0.5 s of clock time) at the default 20 MB/s. */
function fresh() {
  const fake = createDockside({ seed: 1 })
  fakes.push(fake)
  fake.images.add(`${IMAGE}:1.0`, { layers: [6_000_000, 4_000_000] })
  // Counted as they happen: the journal keeps only its last 10,000 entries, and the load below fills it.
  const counts = { pushTag: 0, cancelled: 0 }
  fake.on('journal', (e) => {
    if (e.type === 'push.tag') counts.pushTag++
    if (e.type === 'push.cancelled') counts.cancelled++
  })
  seen.set(fake, counts)
  return fake
}
const seen = new WeakMap<Dockside, { pushTag: number; cancelled: number }>()

/** Counts the journal's push outcomes and the registry's tags, as a user would check them. */
function outcome(fake: Dockside) {
  return {
    tags: fake.registries.list().flatMap((r) => r.tags).length,
    ...seen.get(fake)!,
  }
}

async function firstChunk(res: Response) {
  const reader = res.body!.getReader()
  const { value } = await reader.read()
  expect(new TextDecoder().decode(value)).toContain('The push refers to repository')
  return reader
}

/** Sends a push on a raw socket and resolves once its first chunk arrived (the push is then pacing on the clock). */
function rawPush(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    socket.once('error', reject)
    socket.write(`POST /images/${IMAGE}/push?tag=1.0 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 0\r\n\r\n`)
    let seen = ''
    socket.on('data', function onData(d: Buffer) {
      seen += d.toString()
      if (seen.includes('The push refers to repository')) {
        socket.off('data', onData)
        resolve(socket)
      }
    })
  })
}

const advance = (url: string, by = '1m') =>
  fetch(`${url}/_dockside/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ by }) })

describe('a push whose client has left is cancelled, whatever comes next', () => {
  it(`server: abort the fetch, then at once POST /_dockside/clock/advance: 0 commits in ${REPS}`, async () => {
    const fake = fresh()
    const { url } = await fake.listen({ port: 0 })
    for (let i = 0; i < REPS; i++) {
      const ac = new AbortController()
      const res = await fetch(`${url}/images/${IMAGE}/push?tag=1.0`, { method: 'POST', signal: ac.signal })
      const reader = await firstChunk(res)
      ac.abort()
      // Cancelling a body whose request was aborted rejects with the AbortError; the outcome is checked below.
      reader.cancel().catch(() => {})
      expect((await advance(url)).status).toBe(200)
    }
    const state = (await (await fetch(`${url}/_dockside/state`)).json()) as { registries: { tags: unknown[] }[] }
    expect(state.registries.flatMap((r) => r.tags)).toEqual([])
    expect(outcome(fake)).toEqual({ tags: 0, pushTag: 0, cancelled: REPS })
  }, TIMEOUT)

  it(`server: destroy the socket (RST), then at once advance, under load from concurrent requests: 0 commits in ${REPS}`, async () => {
    const fake = fresh()
    const { url, port } = await fake.listen({ port: 0 })
    // Load: 32 clients polling the fake in a loop while the repetitions run, so the disconnect and the advance
    // share poll phases with plenty of other I/O.
    let loading = true
    const load = Array.from({ length: 32 }, async () => {
      while (loading) await (await fetch(`${url}/_dockside/state`)).arrayBuffer()
    })
    try {
      for (let i = 0; i < REPS; i++) {
        const socket = await rawPush(port)
        // resetAndDestroy sends an RST, as a client killed mid-stream does; every other repetition ends with a FIN.
        if (i % 2) socket.resetAndDestroy()
        else socket.destroy()
        expect((await advance(url)).status).toBe(200)
      }
    } finally {
      loading = false
      await Promise.all(load)
    }
    expect(outcome(fake)).toEqual({ tags: 0, pushTag: 0, cancelled: REPS })
  }, TIMEOUT)

  it(`in process: abort the fetch, then at once await fake.clock.advance(): 0 commits in ${REPS}`, async () => {
    const fake = fresh()
    const hooks = await fake.intercept()
    for (let i = 0; i < REPS; i++) {
      const ac = new AbortController()
      const res = await fetch(`${hooks.baseUrl}/images/${IMAGE}/push?tag=1.0`, { method: 'POST', signal: ac.signal })
      await firstChunk(res)
      ac.abort()
      await fake.clock.advance('1m')
    }
    expect(outcome(fake)).toEqual({ tags: 0, pushTag: 0, cancelled: REPS })
  }, TIMEOUT)

  it('control: the same push, not dropped, commits its tag on the same advance', async () => {
    const fake = fresh()
    const hooks = await fake.intercept()
    const res = await fetch(`${hooks.baseUrl}/images/${IMAGE}/push?tag=1.0`, { method: 'POST' })
    const reader = await firstChunk(res)
    await fake.clock.advance('1m')
    let text = ''
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      text += new TextDecoder().decode(value)
    }
    expect(text).toContain('"aux":{"Tag":"1.0"')
    expect(outcome(fake)).toEqual({ tags: 1, pushTag: 1, cancelled: 0 })
  })
})
