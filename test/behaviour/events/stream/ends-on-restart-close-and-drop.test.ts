// Regression: a maintenance restart (`fake.restart()`, `POST /_dockside/restart`), `POST /_dockside/sockets/close` and
// `POST /_dockside/sockets/drop` closed the events websockets but left Docker's `GET /events` streams (`docker events`,
// dockerode's getEvents) running: the restart answered {"closed":0} while a `curl -N /events` streamed on. The spec
// says the server closes the connection on a restart for maintenance. Now a restart or a close ends the stream cleanly
// (as a daemon restart ends the HTTP response), after the lines already queued; a drop cuts it with no clean end (a
// reset, as a crashed server's); every count includes the streams. Checked with fetch and node:http clients, against a
// real port and in process (the MSW way: test/ways-in/msw/events-stream-ends.test.ts).
import * as http from 'node:http'
import * as https from 'node:https'
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'
import { probeWithGlobalWs } from '../../../support/global-ws-probe'
import { readToEnd, streamWays as ways, type StreamOutcome as Outcome } from '../../../support/stream-ways'

/** `GET url` with fetch, read to its end in the background; resolves once the headers are in. */
async function fetchStream(url: string) {
  const res = await fetch(url)
  expect(res.status).toBe(200)
  return { outcome: readToEnd(res) }
}

/** `GET url` with node:http (or https, in process), as dockerode reads it; resolves once the headers are in. */
function nodeStream(url: string) {
  return new Promise<{ outcome: Promise<Outcome> }>((resolve, reject) => {
    const req = (url.startsWith('https:') ? https : http).get(url, (res) => {
      expect(res.statusCode).toBe(200)
      let text = ''
      const outcome = new Promise<Outcome>((done) => {
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.on('error', (error) => done({ how: 'error', text, error }))
        // `complete` is set only when the terminating chunk arrived: a reset closes without it.
        res.on('close', () => done(res.complete ? { how: 'end', text } : { how: 'error', text, error: new Error('closed before the end of the body') }))
      })
      resolve({ outcome })
    })
    req.on('error', reject)
  })
}

const post = (base: string, path: string, body?: unknown) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }).then(async (r) => {
    expect(r.status).toBe(200)
    return r.json()
  })

const lastConnection = (fake: Dockside, client: string) => {
  const c = fake.deliveries.report(client).connections.at(-1)!
  return { via: c.via, closedBy: c.closedBy, code: c.code, reason: c.reason }
}

const RESTART = 'server restarting for maintenance; reconnect to continue'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

describe.each(ways)('GET /events streams end on a restart, a close or a drop of every socket ($name)', (way) => {
  async function started() {
    const fake = createDockside({ seed: 1 })
    closers.push(() => fake.close())
    const h = await way.start(fake)
    closers.push(() => h.close())
    return { fake, ...h }
  }

  it('bug: POST /_dockside/restart counted only websockets ({"closed":0} with a stream open); now it ends fetch and node:http streams cleanly and counts them', async () => {
    const { fake, base, wsBase } = await started()
    const ws = await probeWithGlobalWs(`${wsBase}/events/ws?client=socket`)
    const viaFetch = await fetchStream(`${base}/events?client=fetch`)
    const viaNode = await nodeStream(`${base}/events?client=node`)
    const c = fake.containers.create({ name: 'web', image: 'nginx' })
    c.start()
    expect(await post(base, '/_dockside/restart')).toEqual({ closed: 3 })
    expect(await ws.closed).toEqual({ code: 1001, reason: RESTART })
    for (const s of [viaFetch, viaNode]) {
      const { how, text, error } = await s.outcome
      expect(error).toBeUndefined()
      expect(how).toBe('end')
      expect(text.trim().split('\n').map((l) => JSON.parse(l).status)).toEqual(['start'])
    }
    for (const client of ['fetch', 'node']) expect(lastConnection(fake, client)).toEqual({ via: 'stream', closedBy: 'server', code: 1001, reason: RESTART })
    expect(fake.protocol.hub.streams.size).toBe(0)
    expect(fake.journal.ofType('maintenance.restart').map((e) => e.closed)).toEqual([3])
    expect(await post(base, '/_dockside/restart')).toEqual({ closed: 0 })
  })

  it('bug: fake.restart() left the stream open; now the lines queued in the same turn go out first, then the clean end', async () => {
    const { fake, base } = await started()
    const s = await fetchStream(`${base}/events?client=fetch`)
    const c = fake.containers.create({ name: 'web', image: 'nginx' })
    // The start and stop are queued for the stream, not yet written, when the restart comes.
    c.start()
    c.stop()
    expect(fake.restart()).toBe(1)
    // Nothing after the restart reaches it.
    c.start()
    const { how, text } = await s.outcome
    expect(how).toBe('end')
    expect(text.trim().split('\n').map((l) => JSON.parse(l).status)).toEqual(['start', 'stop'])
    const report = fake.deliveries.report('fetch')
    expect(report.connections.map((x) => [x.sent, x.closedBy, x.code])).toEqual([[2, 'server', 1001]])
    // The server closed: the start after it is owed to the client (it should reconnect), and missed until then.
    expect(report.missed).toEqual([expect.objectContaining({ seq: 3, action: 'start' })])
  })

  it('bug: POST /_dockside/sockets/close left the stream open; now it ends cleanly with the code and reason in the report', async () => {
    const { fake, base, wsBase } = await started()
    const ws = await probeWithGlobalWs(`${wsBase}/events/ws?client=socket`)
    const viaFetch = await fetchStream(`${base}/events?client=fetch`)
    const viaNode = await nodeStream(`${base}/events?client=node`)
    expect(await post(base, '/_dockside/sockets/close', { code: 1011, reason: 'internal error' })).toEqual({ closed: 3 })
    expect(await ws.closed).toEqual({ code: 1011, reason: 'internal error' })
    for (const s of [viaFetch, viaNode]) expect(await s.outcome).toEqual({ how: 'end', text: '' })
    for (const client of ['fetch', 'node']) expect(lastConnection(fake, client)).toEqual({ via: 'stream', closedBy: 'server', code: 1011, reason: 'internal error' })
  })

  it('bug: POST /_dockside/sockets/drop left the stream open; now it is cut with no clean end: fetch and node:http see an error', async () => {
    const { fake, base, wsBase } = await started()
    const ws = await probeWithGlobalWs(`${wsBase}/events/ws?client=socket`)
    const viaFetch = await fetchStream(`${base}/events?client=fetch`)
    const viaNode = await nodeStream(`${base}/events?client=node`)
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    expect(await post(base, '/_dockside/sockets/drop')).toEqual({ dropped: 3 })
    expect((await ws.closed).code).toBe(1006)
    for (const s of [viaFetch, viaNode]) {
      const { how, text, error } = await s.outcome
      expect(how).toBe('error')
      expect(error).toBeInstanceOf(Error)
      // What was written before the drop arrived; no terminating chunk did.
      expect(text.trim().split('\n').map((l) => JSON.parse(l).status)).toEqual(['start'])
    }
    for (const client of ['fetch', 'node']) expect(lastConnection(fake, client)).toMatchObject({ via: 'stream', closedBy: 'drop', code: 1006 })
    expect(fake.protocol.hub.streams.size).toBe(0)
    expect(fake.dropSockets()).toBe(0)
  })

  it('a stalled stream (headers, then nothing) and a stream past its until are counted only while open', async () => {
    const { fake, base } = await started()
    fake.faults.add({ on: 'events', stall: true })
    const stalled = await fetchStream(`${base}/events?client=stalled`)
    const bounded = await fetchStream(`${base}/events?client=bounded&until=1767225601`)
    await fake.clock.advance('1s')
    expect(await bounded.outcome).toEqual({ how: 'end', text: '' })
    // The bounded one ended at its until and left the hub: only the stalled one is closed.
    expect(fake.closeSockets(4000, 'chaos')).toBe(1)
    expect(await stalled.outcome).toEqual({ how: 'end', text: '' })
    expect(lastConnection(fake, 'stalled')).toEqual({ via: 'stream', closedBy: 'server', code: 4000, reason: 'chaos' })
    expect(lastConnection(fake, 'bounded')).toEqual({ via: 'stream', closedBy: 'server', code: 1000, reason: 'stream ended' })
  })
})
