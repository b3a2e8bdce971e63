// Regression: `docker events --since 1969-12-31T23:59:59Z` sends `since=-1.000000000` (the CLI's GetTimestamp of a
// date before 1970): the Engine's parseTimestamp takes a signed number of seconds and replays from there, the fake
// answered 400 ("from 0 to 253402300799"). Now it takes seconds from -9223372036 (1677, the first its int64
// nanoseconds hold). (`until` stays PROTOCOL.md's "stop at until": an `until` at or before the epoch replays nothing,
// where the Engine replays everything; see the closing note of 2026-11-24.)
// Found by the events hunt (was test/regressions/events-hunt-time-bounds.test.ts).
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createDockside, formatTimestamp, type Dockside, type DocksideServer } from '../../../../src/index'
import { hasCommand, skipUnless } from '../../../clients/support/clients'
import { dockerCli } from '../../../clients/support/docker-cli'
import { eventNames } from '../../../support/helpers'

const skipCli = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm), or a static client from download.docker.com')

/** The clock's start, 2026-01-01T00:00:00Z, in Unix seconds. */
const START = 1767225600
const ALL = ['start web', 'start db', 'stop web']

let fake: Dockside
let server: DocksideServer
beforeEach(async () => {
  fake = createDockside({ seed: 1 })
  const web = fake.containers.create({ name: 'web', image: 'nginx' })
  web.start()
  await fake.clock.advance('1s')
  fake.containers.create({ name: 'db', image: 'postgres' }).start()
  await fake.clock.advance('1s')
  web.stop()
  await fake.clock.advance('8s')
  server = await fake.listen({ port: 0 })
})
afterEach(() => fake.close())

const lines = eventNames

describe('since before the epoch, as the Engine reads it', () => {
  it.skipIf(skipCli)('bug: docker events --since 1969-12-31T23:59:59Z was a 400; now every event since then', async () => {
    using cli = dockerCli(server.url)
    const r = await cli.docker(['events', '--since', '1969-12-31T23:59:59Z', '--until', String(START + 5), '--format', '{{.Action}} {{.Actor.Attributes.name}}'])
    expect({ code: r.code, stderr: r.stderr, events: r.stdout.trim().split('\n') }).toEqual({ code: 0, stderr: '', events: ALL })
  })

  it('GET /events and /events/ws: a negative since, its fraction added as Go adds it', async () => {
    const stream = async (q: string) => {
      const res = await fetch(`${server.url}/v1.47/events?${q}`)
      const text = await res.text()
      return res.status === 200 ? lines(text) : { status: res.status, message: JSON.parse(text).message }
    }
    expect(await stream(`since=-1.5&until=${START + 5}`)).toEqual(ALL)
    expect(await stream(`since=${START + 1}&until=0.5`)).toEqual({ status: 400, message: `\`since\` time (${START + 1}) cannot be after \`until\` time (0.5)` })
    // Before 1677, past what the fake's times hold: the daemon reads any int64 of seconds, and so every event since then.
    expect(await stream(`since=-9223372037&until=${START + 5}`)).toEqual(ALL)
    const ws = await new Promise<{ events: string[]; code: number }>((resolve, reject) => {
      const socket = new WebSocket(`${server.wsUrl}/events/ws?since=-86400&until=${START + 5}`)
      const events: string[] = []
      socket.on('message', (m) => events.push(...lines(String(m))))
      socket.on('close', (code) => resolve({ events, code }))
      socket.on('error', reject)
    })
    expect(ws).toEqual({ events: ALL, code: 1000 })
  })

  it('GET /events: seconds of -1 are no bound at all, as the daemon\'s eventTime reads them (-2 is a time)', async () => {
    // The first line of an open stream after a new container starts: with since=-1 nothing is replayed (dockerd 20.10's
    // ParseTimestamps default); the fake replayed every event from 1969.
    let n = 0
    const firstLine = async (q: string) => {
      const res = await fetch(`${server.url}/v1.47/events?${q}`)
      const reader = res.body!.getReader()
      fake.containers.create({ name: `cache-${++n}`, image: 'redis' }).start()
      const line = new TextDecoder().decode((await reader.read()).value).split('\n')[0]
      await reader.cancel()
      return lines(line)[0]
    }
    expect(await firstLine('since=-1')).toBe('start cache-1')
    expect(await firstLine('since=-01.5')).toBe('start cache-2')
    expect(await firstLine('since=-2')).toBe('start web')
    // With an until, no since replays from the oldest event, as before.
    expect(lines(await (await fetch(`${server.url}/v1.47/events?since=-1&until=${START + 5}`)).text())).toEqual(ALL)
  })

  it('a time before 1970 is written as Docker writes it: whole seconds down, nanoseconds up', () => {
    expect(formatTimestamp(-500_000_000n)).toBe('-1.500000000')
    expect(formatTimestamp(-1_000_000_000n)).toBe('-1.000000000')
    expect(formatTimestamp(1_767_225_600_000_000_001n)).toBe('1767225600.000000001')
  })
})
