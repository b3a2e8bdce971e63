// Regressions in the delivery report for a client refused before it ever got in.
// 1. A client whose first attempt asks to resume (`since`) and is refused was owed nothing of that replay.
// The same client, the same too-old `since`, answered 4410 on the websocket and 410 on GET /events (decision 0005: the
// same condition), got two reports: the 4410 one owed the retained events from `since` on and said they were missed,
// the 410 one owed only what came after the refusal (a false all-clear), as did a 503 or a stall the client gave up on.
// Before the client ever got in, the replay its first `since` asked for is owed whatever answered it (docs/chaos.md,
// "What a client is owed").
// 2. A refused replay that asked for nothing after an `until` already past (`docker events --since S --until U`, which
//    exits on the 429) was owed every later event as well, an ongoing gap for good: a first connection that completes at
//    its `until` owes nothing after it, and neither does the same request refused.
// Found by the second events hunt (was test/regressions/events-hunt-2-refused-since.test.ts).
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import type { Dockside } from '../../../src/index'
import { fakeWithHistory } from '../../support/helpers'
import { hasCommand, skipUnless } from '../../clients/support/clients'
import { dockerCli } from '../../clients/support/docker-cli'

const skipCli = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm), or a static client from download.docker.com')

/** The fake's clock start, 2026-01-01T00:00:00Z, in Unix seconds. */
const START = 1767225600

const fakes: Dockside[] = []
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close()
})

/** A fake that keeps 3 events, after six (seq 1-6, one a second): `since=START` reaches before what it keeps. */
const withHistory = () => fakeWithHistory(fakes, 3)

const summary = (fake: Dockside, client: string) => {
  const r = fake.deliveries.report(client)
  return { expected: r.expected, delivered: r.delivered, missed: r.missed.map((m) => m.seq) }
}

/** Opens `url` with the ws package; resolves with the refusal's status, or the close code of an accepted socket. */
function attempt(url: string, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url)
    ws.on('unexpected-response', (_req, res) => {
      resolve(`refused ${res.statusCode}`)
      res.destroy()
    })
    ws.on('close', (code) => resolve(`closed ${code}`))
    ws.on('error', () => {})
    signal?.addEventListener('abort', () => {
      ws.terminate()
      resolve('gave up')
    })
  })
}

/** The client back live (no `since`), sent one new event, then closing: what its report says. */
async function backLive(fake: Dockside, wsUrl: string, web: { start(): void }) {
  const ws = new WebSocket(`${wsUrl}/events/ws?client=c`)
  await new Promise((resolve) => ws.on('open', resolve))
  const frame = new Promise((resolve) => ws.on('message', resolve))
  web.start()
  await frame
  ws.close()
  await new Promise((resolve) => ws.on('close', resolve))
  return summary(fake, 'c')
}

describe("a refused first attempt's since is owed, as an opened first connection's is", () => {
  it('bug: GET /events 410 then back live reported nothing missed; now the same report as the websocket 4410', async () => {
    const ws = await withHistory()
    expect(await attempt(`${ws.server.wsUrl}/events/ws?client=c&since=${START}`)).toBe('closed 4410')
    const viaWs = await backLive(ws.fake, ws.server.wsUrl, ws.web)

    const stream = await withHistory()
    const res = await fetch(`${stream.server.url}/events?client=c&since=${START}`)
    expect(res.status).toBe(410)
    await res.text()
    const viaStream = await backLive(stream.fake, stream.server.wsUrl, stream.web)

    // Kept after the new event: seq 5, 6 and 7; 5 and 6 were asked for (since START) and never sent.
    expect(viaWs).toEqual({ expected: 3, delivered: 1, missed: [5, 6] })
    expect(viaStream).toEqual(viaWs)
  })

  it('bug: a first attempt with since refused 503 (never back) was owed only later events; now its replay too', async () => {
    const { fake, server, web } = await withHistory()
    fake.faults.add({ on: 'events', reply: 503, times: 1 })
    expect(await attempt(`${server.wsUrl}/events/ws?client=c&since=${START + 4}`)).toBe('refused 503')
    web.start()
    // Asked: seq 5 (at +4 s) and 6 (at +5 s); and 7, after the refusal.
    expect(summary(fake, 'c')).toEqual({ expected: 3, delivered: 0, missed: [5, 6, 7] })
  })

  it('bug: a first attempt with since that a stall held until the client gave up owed nothing of its replay', async () => {
    const { fake, server } = await withHistory()
    fake.faults.add({ on: 'events', stall: true, times: 1 })
    const giveUp = new AbortController()
    const gaveUp = attempt(`${server.wsUrl}/events/ws?client=c&since=${START + 4}`, giveUp.signal)
    await expect.poll(() => fake.deliveries.report('c').timeline.map((l) => l.kind)).toEqual(['attempt'])
    giveUp.abort()
    expect(await gaveUp).toBe('gave up')
    await expect.poll(() => fake.deliveries.report('c').timeline.map((l) => l.kind)).toEqual(['attempt', 'abandoned'])
    expect(summary(fake, 'c')).toEqual({ expected: 2, delivered: 0, missed: [5, 6] })
  })

  it('a refused first attempt without since still owes only what came after it', async () => {
    const { fake, server, web } = await withHistory()
    fake.faults.add({ on: 'events', reply: 429, times: 1 })
    expect(await attempt(`${server.wsUrl}/events/ws?client=c`)).toBe('refused 429')
    web.start()
    expect(summary(fake, 'c')).toEqual({ expected: 1, delivered: 0, missed: [7] })
  })
})

describe('a refused first attempt whose until is past owes nothing after until', () => {
  it.skipIf(skipCli)('bug: docker events --since --until refused 429 was owed every later event; now only its replay', async () => {
    const { fake, server, web } = await withHistory()
    fake.faults.add({ on: 'events', reply: 429, times: 1 })
    using cli = dockerCli(server.url)
    // The CLI names no client: its key is its address and filters, the only client the fake has seen.
    const r = await cli.docker(['events', '--since', String(START + 4), '--until', String(START + 5)])
    expect({ code: r.code, stderr: r.stderr.trim() }).toEqual({ code: 1, stderr: 'Error response from daemon: too many requests' })
    web.start()
    await fake.clock.advance('1s')
    const [client] = fake.deliveries.clients()
    const report = fake.deliveries.report(client)
    // Asked: #5 (+4 s) and #6 (+5 s), never sent. #7 came after its until: not owed, and no gap is left open.
    expect({ ...summary(fake, client), gaps: report.gaps.length }).toEqual({ expected: 2, delivered: 0, missed: [5, 6], gaps: 0 })
  })

  it('the same through GET /events, and on the websocket an until alone (a replay of all the fake keeps up to it)', async () => {
    const { fake, server, web } = await withHistory()
    fake.faults.add({ on: 'events', reply: 503, times: 2 })
    const res = await fetch(`${server.url}/events?client=stream&since=${START + 4}&until=${START + 5}`)
    expect(res.status).toBe(503)
    await res.text()
    expect(await attempt(`${server.wsUrl}/events/ws?client=socket&until=${START + 5}`)).toBe('refused 503')
    web.start()
    expect(summary(fake, 'stream')).toEqual({ expected: 2, delivered: 0, missed: [5, 6] })
    expect(summary(fake, 'socket')).toEqual({ expected: 2, delivered: 0, missed: [5, 6] })
  })
})
