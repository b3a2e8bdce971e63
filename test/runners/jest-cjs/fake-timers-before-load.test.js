// jest's `fakeTimers: { enableGlobally: true }` fakes the timers before a test file's first line, so dockside loads
// with faked globals (what `jest.useFakeTimers()` above the require does here). dockside takes its timers from
// node:timers and node:perf_hooks, not the globals: the real server closes and serves, the in-process websocket
// opens. nextTick and queueMicrotask stay real here, as docs/jest.md says to keep them.
jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] })
const { createDockside } = require('dockside')

test('timers faked before dockside loads: a real server answers, streams an event and closes', async () => {
  const fake = createDockside({ seed: 1 })
  const server = await fake.listen({ port: 0 })
  expect((await fetch(`${server.url}/_ping`)).status).toBe(200)
  const ws = new WebSocket(`${server.wsUrl}/events/ws`)
  await new Promise((resolve) => ws.addEventListener('open', resolve))
  const frame = new Promise((resolve) => ws.addEventListener('message', (m) => resolve(JSON.parse(m.data))))
  fake.containers.create({ name: 'web', image: 'nginx' }).start()
  expect(await frame).toMatchObject({ Action: 'start' })
  ws.close()
  await server.close()
  await fake.close()
})

test('timers faked before dockside loads: the in-process websocket opens and takes a frame', async () => {
  const fake = createDockside({ seed: 1 })
  const hooks = await fake.intercept()
  try {
    const ws = new WebSocket('wss://us-west-1.hyper.test/events/ws')
    await new Promise((resolve) => ws.addEventListener('open', resolve))
    const frame = new Promise((resolve) => ws.addEventListener('message', (m) => resolve(JSON.parse(m.data))))
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    expect(await frame).toMatchObject({ Action: 'start' })
    ws.close()
  } finally {
    hooks.restore()
    await fake.close()
  }
})
