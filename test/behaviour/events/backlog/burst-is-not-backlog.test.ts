// Regression: a client reading as fast as it can was cut as "client too slow" when one synchronous burst of events
// passed maxBacklog: a GET /events stream counted the lines queued before the transport had a turn to take them, and
// a websocket counted the bytes held back to be written together at the end of the turn. Both now count only what the
// client has not taken: a burst a reading client takes is delivered whole; a client that stops reading is still cut
// (test/behaviour/events/backlog/slow-consumers.test.ts).
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

async function burstFake() {
  const fake = createDockside({ seed: 8, maxBacklog: '16KiB' })
  open.push(fake)
  const server = await fake.listen({ host: '127.0.0.1', port: 0 })
  const web = fake.containers.create({ name: 'web', image: 'nginx', labels: { note: 'x'.repeat(200) } })
  return { fake, server, burst: () => {
    for (let i = 0; i < 50; i++) {
      web.start()
      web.stop()
    }
  } }
}

it('GET /events: a 100-event burst (~50 KB) in one turn reaches a reading client whole, with maxBacklog 16 KiB', async () => {
  const { fake, server, burst } = await burstFake()
  const res = await fetch(`${server.url}/events?client=reader`)
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
  await expect.poll(() => fake.deliveries.clients()).toEqual(['reader'])
  burst()
  let text = ''
  while (text.split('\n').length <= 100) {
    const { value, done } = await reader.read()
    if (done) break
    text += value
  }
  expect(text.trim().split('\n')).toHaveLength(100)
  expect(fake.journal.ofType('stream.backlog')).toEqual([])
  expect(fake.deliveries.report('reader')).toMatchObject({ expected: 100, delivered: 100, missed: [] })
  await reader.cancel()
})

it('/events/ws: the same burst reaches a reading client whole, with maxBacklog 16 KiB', async () => {
  const { fake, server, burst } = await burstFake()
  const ws = new WebSocket(`${server.wsUrl}/events/ws?client=reader`)
  const messages: string[] = []
  ws.onmessage = (m) => messages.push(String(m.data))
  let closed: number | undefined
  ws.onclose = (e) => (closed = e.code)
  await new Promise((resolve) => (ws.onopen = resolve))
  burst()
  await expect.poll(() => messages.length + (closed === undefined ? 0 : 1000)).toBe(100)
  expect(fake.journal.ofType('ws.backlog')).toEqual([])
  expect(fake.deliveries.report('reader')).toMatchObject({ expected: 100, delivered: 100, missed: [] })
  ws.close()
})
