import { expect, test } from 'vitest'
import WebSocket from 'ws'
import { createDockside } from 'dockside'

test('a reconnecting client survives a maintenance restart', async () => {
  await using fake = createDockside({ seed: 42 }) // virtual clock: time moves when the test says
  fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 3 })
  const web = fake.containers.create({ name: 'web', image: 'nginx', labels: { app: 'web' } })
  const server = await fake.listen({ port: 0 }) // http://127.0.0.1:PORT and ws://127.0.0.1:PORT

  const connect = () => new WebSocket(`${server.wsUrl}/events/ws?filters={"label":["app=web"]}`)
  let ws = connect()
  await new Promise((r) => ws.once('open', r))
  const firstClose = new Promise<number>((r) => ws.once('close', (code) => r(code)))

  web.start()
  fake.restart() // maintenance restart: every events socket closes with 1001
  expect(await firstClose).toBe(1001)

  ws = connect() // the client reconnects...
  await new Promise((r) => ws.once('open', r))
  const next = new Promise<string>((r) => ws.once('message', (d) => r(d.toString())))
  await fake.clock.advance('2s')
  web.stop({ exitCode: 137 })
  expect(JSON.parse(await next)).toMatchObject({ status: 'stop', Actor: { Attributes: { exitCode: '137' } } })

  fake.faults.add({ on: 'events', reply: 429, retryAfter: 5 }) // ...and the next connect is refused
  const refused = connect()
  const status = await new Promise<number>((r) => refused.once('unexpected-response', (_req, res) => r(res.statusCode!)))
  expect(status).toBe(429)
  ws.close()
})
