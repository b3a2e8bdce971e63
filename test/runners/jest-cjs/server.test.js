// The real server (node:http + ws) from a CommonJS jest test.
const { createDockside } = require('dockside')

test('the real server answers HTTP and streams events over a websocket', async () => {
  const fake = createDockside({ seed: 1 })
  const server = await fake.listen({ port: 0 })
  try {
    expect(await (await fetch(`${server.url}/_ping`)).text()).toBe('OK')
    const ws = new WebSocket(`${server.wsUrl}/events/ws`)
    await new Promise((resolve, reject) => {
      ws.addEventListener('open', resolve)
      ws.addEventListener('error', reject)
    })
    const frame = new Promise((resolve) => ws.addEventListener('message', (m) => resolve(JSON.parse(m.data))))
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    expect(await frame).toMatchObject({ Action: 'start' })
    ws.close()
  } finally {
    await server.close()
    await fake.close()
  }
})
