// node:test with node:assert: a fresh hooked fake per test, closed afterwards. Run with `node --test`.
import assert from 'node:assert/strict'
import { afterEach, beforeEach, test } from 'node:test'
import { createDockside, drainWithClock } from 'dockside'

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

test('a container start reaches the events websocket', async () => {
  const ws = new WebSocket('wss://us-west-1.hyper.test/events/ws')
  await new Promise((resolve) => ws.addEventListener('open', resolve))
  const frame = new Promise((resolve) => ws.addEventListener('message', (m) => resolve(JSON.parse(m.data))))
  fake.containers.create({ name: 'web', image: 'nginx' }).start()
  assert.equal((await frame).Action, 'start')
  ws.close()
})

test('a push streams to its end and is committed', async () => {
  fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 2 })
  const res = await fetch('https://us-west-1.hyper.test/v1.47/images/localhost:5000/team/app/push?tag=1.0', { method: 'POST' })
  const lines = (await drainWithClock(res, fake)).trim().split('\n').map((l) => JSON.parse(l))
  assert.equal(lines.at(-1).aux.Tag, '1.0')
  assert.deepEqual(fake.journal.ofType('push.tag').map((e) => `${e.repository}:${e.tag}`), ['localhost:5000/team/app:1.0'])
})
