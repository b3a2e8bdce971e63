// Regression: the delivery report did not know about `until`. A client that asked for `since=S&until=S` got the one
// event at S, as it asked, yet the report said it was owed the later events too (expected 3, delivered 1, missed 2)
// and that the server's close at `until` left a gap. A connection with `until` owes nothing after it, and the close
// once the clock reaches it is the end the client asked for: nothing it did not ask for is reported missed.
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'

/** The fake's clock start, 2026-01-01T00:00:00Z, in Unix seconds. */
const START = Date.UTC(2026, 0, 1) / 1000

const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

const summary = (fake: Dockside, client: string) => {
  const r = fake.deliveries.report(client)
  return { expected: r.expected, delivered: r.delivered, missed: r.missed.length, gaps: r.gaps.length }
}

it('GET /events?since=S&until=S owes the event at S only, not the later ones nor those after it ends', async () => {
  const fake = createDockside({ seed: 1 })
  open.push(fake)
  const web = fake.containers.create({ name: 'web', image: 'nginx' })
  web.start()
  await fake.clock.advance('1s')
  web.stop()
  await fake.clock.advance('1s')
  await using server = await fake.listen({ port: 0 })
  const res = await fetch(`${server.url}/events?client=window&since=${START}&until=${START}`)
  const lines = (await res.text()).split('\n').filter(Boolean)
  expect(lines.map((l) => (JSON.parse(l) as { status: string }).status)).toEqual(['start'])
  web.start()
  expect(summary(fake, 'window')).toEqual({ expected: 1, delivered: 1, missed: 0, gaps: 0 })
})

it('the websocket with a future until: what came before it is owed, the close at until is no gap, later events are not owed', async () => {
  const fake = createDockside({ seed: 1 })
  open.push(fake)
  await using server = await fake.listen({ port: 0 })
  const ws = new WebSocket(`${server.wsUrl}/events/ws?client=window&until=${START + 5}`)
  const frames: string[] = []
  ws.onmessage = (m) => frames.push(String(m.data))
  await new Promise((resolve) => (ws.onopen = resolve))
  const closed = new Promise<string>((resolve) => (ws.onclose = (e) => resolve(`${e.code} ${e.reason}`)))
  const web = fake.containers.create({ name: 'web', image: 'nginx' })
  web.start()
  await fake.clock.advance('5s')
  expect(await closed).toBe('1000 until reached; stream complete')
  web.stop()
  await fake.clock.advance('1s')
  expect(frames.map((f) => (JSON.parse(f) as { status: string }).status)).toEqual(['start'])
  expect(summary(fake, 'window')).toEqual({ expected: 1, delivered: 1, missed: 0, gaps: 0 })
  // An `until` without `since` replays all the log keeps: the connection shows its replay starting at 0.
  expect(fake.deliveries.report('window').connections.map((c) => c.since)).toEqual(['0'])
  // The same client coming back without until is owed what happens from then on, as after its own close.
  const again = new WebSocket(`${server.wsUrl}/events/ws?client=window`)
  await new Promise((resolve) => (again.onopen = resolve))
  const got = new Promise<string>((resolve) => (again.onmessage = (m) => resolve(String(m.data))))
  web.start()
  expect((JSON.parse(await got) as { status: string }).status).toBe('start')
  expect(summary(fake, 'window')).toEqual({ expected: 2, delivered: 2, missed: 0, gaps: 0 })
  again.close()
})

it('a server close before until (a restart) still leaves the client owed what follows, as a gap', async () => {
  const fake = createDockside({ seed: 1 })
  open.push(fake)
  await using server = await fake.listen({ port: 0 })
  const ws = new WebSocket(`${server.wsUrl}/events/ws?client=cut&until=${START + 60}`)
  await new Promise((resolve) => (ws.onopen = resolve))
  const closed = new Promise<number>((resolve) => (ws.onclose = (e) => resolve(e.code)))
  fake.restart()
  expect(await closed).toBe(1001)
  fake.containers.create({ name: 'web', image: 'nginx' }).start()
  expect(summary(fake, 'cut')).toEqual({ expected: 1, delivered: 0, missed: 1, gaps: 1 })
})
