// Regression: `GET /events` with `until` and no `since` replayed nothing. After `docker start db; docker stop web`,
// `docker events --until <a time after them>` printed nothing and exited 0, and `curl /v1.47/events?until=...` gave no
// line, while `since=0` brought the events back. Docker's daemon (daemon/events/events.go, loadBufferedEvents) returns
// nothing only when since and until are both absent; with `until` alone it replays its buffer up to `until` (from the
// oldest buffered event), then the route ends at `until`. The fake now does the same on GET /events and on the events
// websocket (one rule, in follow()): every retained event up to `until`, never a 410 (nothing older was asked for), and
// the delivery report owes the client what was replayed. Without `since` and `until` nothing is replayed, as before.
// Checked with the docker CLI, dockerode, fetch and the `ws` package against a real port on 127.0.0.1.
import Docker from 'dockerode'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createDockside, type Dockside, type DocksideServer } from '../../../../src/index'
import { hasCommand, skipUnless } from '../../../clients/support/clients'
import { dockerCli } from '../../../clients/support/docker-cli'
import { eventNames } from '../../../support/helpers'

/** The fake's clock start, 2026-01-01T00:00:00Z, in Unix seconds. */
const START = Date.UTC(2026, 0, 1) / 1000

const skipCli = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm), or a static client from download.docker.com')

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

/**
 * A fake on a virtual clock with three events a second apart (web start at START, db start at START + 1, web stop at
 * START + 2), the clock then at START + 10, served on 127.0.0.1.
 */
async function started(options: Parameters<typeof createDockside>[0] = {}): Promise<{ fake: Dockside; server: DocksideServer }> {
  const fake = createDockside({ seed: 1, ...options })
  closers.push(() => fake.close())
  const web = fake.containers.create({ name: 'web', image: 'nginx' })
  const db = fake.containers.create({ name: 'db', image: 'postgres' })
  web.start()
  await fake.clock.advance('1s')
  db.start()
  await fake.clock.advance('1s')
  web.stop()
  await fake.clock.advance('8s')
  const server = await fake.listen({ port: 0 })
  closers.push(() => server.close())
  return { fake, server }
}

const lines = eventNames

const ALL = ['start web', 'start db', 'stop web']

describe('GET /events with until and no since replays the retained events up to until', () => {
  it.skipIf(skipCli)('bug: docker events --until printed nothing; now it prints what --since 0 prints and exits 0', async () => {
    const { server } = await started()
    using cli = dockerCli(server.url)
    const format = ['--format', '{{.Action}} {{.Actor.Attributes.name}}']
    const withSince = await cli.docker(['events', '--since', '0', '--until', String(START + 5), ...format])
    expect(withSince.stdout.trim().split('\n')).toEqual(ALL)
    const untilOnly = await cli.docker(['events', '--until', String(START + 5), ...format])
    expect(untilOnly.stderr).toBe('')
    expect(untilOnly.code).toBe(0)
    expect(untilOnly.stdout.trim().split('\n')).toEqual(ALL)
    // `until` is inclusive, as Docker's: the db start at START + 1 is in, the web stop at START + 2 is not.
    const bounded = await cli.docker(['events', '--until', String(START + 1), ...format])
    expect(bounded.stdout.trim().split('\n')).toEqual(['start web', 'start db'])
  })

  it('bug: curl /v1.47/events?until=... gave 0 lines; now the replay, filtered, and the report owes exactly it (fetch)', async () => {
    const { fake, server } = await started()
    const res = await fetch(`${server.url}/v1.47/events?client=until-only&until=${START + 5}`)
    expect(res.status).toBe(200)
    expect(lines(await res.text())).toEqual(ALL)
    const filtered = await fetch(`${server.url}/v1.47/events?client=web-only&until=${START + 5}&filters=${encodeURIComponent('{"container":["web"]}')}`)
    expect(lines(await filtered.text())).toEqual(['start web', 'stop web'])
    // Delivered never exceeds expected: what the replay sent was owed (before, expected counted only events after the open).
    for (const [client, n] of [['until-only', 3], ['web-only', 2]] as const) {
      expect(fake.deliveries.report(client), client).toMatchObject({ expected: n, delivered: n, missed: [], duplicates: [] })
      expect(fake.deliveries.report(client).connections).toMatchObject([{ via: 'stream', sent: n, closedBy: 'server', code: 1000 }])
    }
  })

  it('bug: dockerode getEvents({ until }) streamed nothing; now the replay, then the end', async () => {
    const { server } = await started()
    const docker = new Docker({ host: '127.0.0.1', port: server.port, protocol: 'http' })
    const stream = (await docker.getEvents({ until: START + 5 })) as NodeJS.ReadableStream
    let text = ''
    for await (const chunk of stream) text += chunk.toString()
    expect(lines(text)).toEqual(ALL)
  })

  it('an until still ahead: the replay at once, then live events up to until, then the end when the clock passes it', async () => {
    const { fake, server } = await started()
    const res = await fetch(`${server.url}/events?client=ahead&until=${START + 20}`)
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    let text = ''
    // A live event; the replay (the clock has not moved) comes before it.
    fake.containers.get('db').stop()
    while (!lines(text).includes('stop db')) text += decoder.decode((await reader.read()).value, { stream: true })
    expect(lines(text)).toEqual([...ALL, 'stop db'])
    await fake.clock.advance('10s')
    fake.containers.get('web').start() // after until: not sent
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value, { stream: true })
    expect(lines(text)).toEqual([...ALL, 'stop db'])
    expect(fake.deliveries.report('ahead').connections).toMatchObject([{ sent: 4, closedBy: 'server', code: 1000, reason: 'stream ended' }])
  })

  it('retention: with until alone, what is retained is replayed (200, no 410); a since older than retention is still a 410', async () => {
    const { fake, server } = await started({ retainEvents: 2 })
    const res = await fetch(`${server.url}/events?client=kept&until=${START + 5}`)
    expect(res.status).toBe(200)
    expect(lines(await res.text())).toEqual(['start db', 'stop web'])
    expect(fake.deliveries.report('kept')).toMatchObject({ expected: 2, delivered: 2, missed: [] })
    const gone = await fetch(`${server.url}/events?since=0&until=${START + 5}`)
    expect(gone.status).toBe(410)
    expect(((await gone.json()) as { message: string }).message).toBe(`since 0.000000000 is older than retention; resume with since=${START}.000000001 or later`)
  })

  it('neither since nor until: nothing is replayed, the first event is a live one (unchanged)', async () => {
    const { fake, server } = await started()
    const res = await fetch(`${server.url}/events?client=live`)
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    let text = ''
    // The headers came with the empty first chunk; a replay would come with or right after it, before the live event.
    fake.containers.get('db').stop()
    while (lines(text).length < 1) text += decoder.decode((await reader.read()).value, { stream: true })
    expect(lines(text)).toEqual(['stop db'])
    await reader.cancel()
  })
})

describe('the events websocket follows the same rule (/events/ws?until=...)', () => {
  /** Opens `path` with the `ws` package and resolves with its frames once the server closes it. */
  function frames(server: DocksideServer, path: string) {
    return new Promise<{ messages: string[]; code: number; reason: string }>((resolve, reject) => {
      const ws = new WebSocket(`${server.wsUrl}${path}`)
      const messages: string[] = []
      ws.on('message', (data) => messages.push(String(data)))
      ws.on('close', (code, reason) => resolve({ messages, code, reason: reason.toString() }))
      ws.on('error', reject)
    })
  }

  it('bug: an until in the past closed 1000 with no frame; now the replay up to until (inclusive), then 1000', async () => {
    const { fake, server } = await started()
    const all = await frames(server, `/events/ws?client=ws-until&until=${START + 5}`)
    expect({ ...all, messages: lines(all.messages.join('\n')) }).toEqual({ messages: ALL, code: 1000, reason: 'until reached; stream complete' })
    expect(fake.deliveries.report('ws-until')).toMatchObject({ expected: 3, delivered: 3, missed: [], duplicates: [] })
    const bounded = await frames(server, `/events/ws?until=${START + 1}`)
    expect(lines(bounded.messages.join('\n'))).toEqual(['start web', 'start db'])
    // Without since and until, nothing is replayed: the first frame is a live event.
    const ws = new WebSocket(`${server.wsUrl}/events/ws`)
    await new Promise((resolve, reject) => ws.on('open', resolve).on('error', reject))
    const first = new Promise<string>((resolve) => ws.once('message', (data) => resolve(String(data))))
    fake.containers.get('db').stop()
    expect(lines(await first)).toEqual(['stop db'])
    ws.close(1000)
  })
})
