// An ESM project under jest (node --experimental-vm-modules): the in-process hooks, matchers and the real server.
import { expect, test, beforeEach, afterEach } from '@jest/globals'
import { createDockside, drainWithClock } from 'dockside'
import { matchers } from 'dockside/matchers'

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
  fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 2 })
  const res = await fetch('https://us-west-1.hyper.test/v1.47/images/localhost:5000/team/app/push?tag=1.0', { method: 'POST' })
  expect(await drainWithClock(res, fake)).toContain('"aux"')
  expect(fake).toHavePushed('localhost:5000/team/app:1.0')
})

test('the real server, beside the hooks', async () => {
  const server = await fake.listen({ port: 0 })
  expect(await (await fetch(`${server.url}/_ping`)).text()).toBe('OK')
  await server.close()
})
