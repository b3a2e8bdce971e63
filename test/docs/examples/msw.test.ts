import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import { createDockside } from 'dockside'
import { docksideHandlers } from 'dockside/msw'

// The team's own handlers, and one fake for the container service: both in one MSW server.
const fake = createDockside({ seed: 1 })
const server = setupServer(
  http.get('https://api.example.test/me', () => HttpResponse.json({ name: 'alice' })),
  ...docksideHandlers(fake, { region: 'us-west-1' }),
)
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterEach(() => fake.reset())
afterAll(async () => {
  server.close()
  await fake.close()
})

test('the dashboard sees a container start and a push finish', async () => {
  expect(await (await fetch('https://api.example.test/me')).json()).toEqual({ name: 'alice' })

  // The events websocket: MSW intercepts the global WebSocket, the fake answers.
  const ws = new WebSocket('wss://us-west-1.hyper.test/events/ws?filters={"event":["start"]}')
  await new Promise((resolve) => ws.addEventListener('open', resolve))
  const frame = new Promise<string>((resolve) => ws.addEventListener('message', (m) => resolve(String(m.data))))
  fake.containers.create({ name: 'web', image: 'nginx:1.27' }).start()
  expect(JSON.parse(await frame)).toMatchObject({ Action: 'start', from: 'nginx:1.27' })
  ws.close()

  // A push streams its progress; each step of the fake's clock releases the next lines.
  fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 2 })
  const res = await fetch('https://us-west-1.hyper.test/v1.47/images/localhost:5000/team/app/push?tag=1.0', { method: 'POST' })
  const reader = res.body!.getReader()
  let text = ''
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    text += new TextDecoder().decode(r.value)
    await fake.clock.advance('1s')
  }
  expect(text).toContain('"aux":{"Tag":"1.0"')

  // A refused handshake fails as in a browser (error, then close 1006); the status is on `handshake`.
  fake.faults.add({ on: 'events', reply: 429, retryAfter: 1 })
  const refused = new WebSocket('wss://us-west-1.hyper.test/events/ws') as WebSocket & { handshake?: { status: number } }
  const closed = await new Promise<CloseEvent>((resolve) => refused.addEventListener('close', resolve))
  expect([closed.code, refused.handshake?.status]).toEqual([1006, 429])
})
