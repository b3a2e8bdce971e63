// A CommonJS project under jest's default configuration (no --experimental-vm-modules): the in-process hooks,
// the matchers from dockside/matchers, and the clock-driven reader. docs/jest.md shows this file.
const { createDockside, drainWithClock } = require('dockside')
const { matchers } = require('dockside/matchers')

expect.extend(matchers)

let fake
let hooks
beforeEach(async () => {
  fake = createDockside({ seed: 1 })
  hooks = await fake.intercept({ region: 'us-west-1' })
})
afterEach(async () => {
  hooks.restore()
  await fake.close()
})

test('events arrive on the in-process websocket', async () => {
  const ws = new WebSocket('wss://us-west-1.hyper.test/events/ws?client=app')
  await new Promise((resolve) => ws.addEventListener('open', resolve))
  const frame = new Promise((resolve) => ws.addEventListener('message', (m) => resolve(JSON.parse(m.data))))
  fake.containers.create({ name: 'web', image: 'nginx' }).start()
  expect(await frame).toMatchObject({ Type: 'container', Action: 'start' })
  ws.close()
  expect(fake).toHaveDeliveredAllEventsTo('app')
})

test('a push streams its progress, paced by the fake clock', async () => {
  fake.registries.add('localhost:5000', { username: 'alice', password: 's3cret' })
  fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 2 })
  const auth = Buffer.from(JSON.stringify({ username: 'alice', password: 's3cret' })).toString('base64')
  const res = await fetch('https://us-west-1.hyper.test/v1.47/images/localhost:5000/team/app/push?tag=1.0', { method: 'POST', headers: { 'X-Registry-Auth': auth } })
  const text = await drainWithClock(res, fake)
  expect(text).toContain('"aux"')
  expect(fake).toHavePushed('localhost:5000/team/app:1.0', { user: 'alice' })
})

test('a failing matcher says what the fake saw', () => {
  expect(() => expect(fake).toHavePushed('localhost:5000/team/app:2.0')).toThrow(/pushed: nothing/)
  expect(() => expect(fake).toHaveReconnected(1)).toThrow(/saw 0/)
})
