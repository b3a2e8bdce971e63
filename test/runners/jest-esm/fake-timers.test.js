// jest's default fake timers (setTimeout, setImmediate, queueMicrotask, process.nextTick, Date, performance.now)
// in an ESM project: the in-process hooks keep going without a tick. docs/jest.md shows the CommonJS twin.
import { afterEach, expect, jest, test } from '@jest/globals'
import { createDockside, drainWithClock } from 'dockside'

afterEach(() => jest.useRealTimers())

test('under jest.useFakeTimers(), the in-process hooks: a websocket opens, takes a frame and closes; fetch answers; a push streams to its end', async () => {
  jest.useFakeTimers()
  const fake = createDockside({ seed: 1 })
  const hooks = await fake.intercept({ region: 'us-west-1' })
  try {
    const ws = new WebSocket('wss://us-west-1.hyper.test/events/ws')
    await new Promise((resolve) => ws.addEventListener('open', resolve))
    const frame = new Promise((resolve) => ws.addEventListener('message', (m) => resolve(JSON.parse(m.data))))
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    expect(await frame).toMatchObject({ Action: 'start' })
    ws.close(3000, 'done')
    const closed = await new Promise((resolve) => ws.addEventListener('close', resolve))
    expect([closed.code, closed.reason]).toEqual([3000, 'done'])
    const list = await fetch('https://us-west-1.hyper.test/containers/json?all=1')
    expect((await list.json()).map((c) => c.Names[0])).toEqual(['/web'])
    fake.images.add('localhost:5000/app', { tags: ['1'], layers: 2 })
    const res = await fetch('https://us-west-1.hyper.test/images/localhost:5000/app/push?tag=1', { method: 'POST' })
    expect(await drainWithClock(res, fake)).toContain('"aux"')
  } finally {
    hooks.restore()
    await fake.close()
  }
})
