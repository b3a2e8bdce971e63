// A close the fake sends (a maintenance restart's 1001) reaches a client on a real port before the virtual clock
// moves on: the client's close event is seen at the clock time the fake closed it, not one advance step later, so a
// backoff measured from it (the delivery report's backoffMs) is the client's own. Found by a new user's trial: a
// 100 ms backoff after a restart read 110 ms with 10 ms steps, 1.1 s with 1 s steps.
import { expect, test } from 'vitest'
import WebSocket from 'ws'
import { createDockside } from 'dockside'

test('a restart close is seen by the client before advance() moves the clock', async () => {
  await using fake = createDockside({ seed: 1 })
  const server = await fake.listen({ port: 0 })
  const sockets = [0, 1, 2].map(() => new WebSocket(`${server.wsUrl}/events/ws`))
  await Promise.all(sockets.map((ws) => new Promise((r) => ws.once('open', r))))
  const closedAt: (number | undefined)[] = [undefined, undefined, undefined]
  sockets.forEach((ws, i) => ws.once('close', () => (closedAt[i] = fake.clock.elapsed())))
  fake.restart()
  await fake.clock.advance('1s')
  expect(closedAt).toEqual([0, 0, 0])
})

test('a client that reconnects 100 ms after the restart has a backoff of 100 ms in its report, whatever the step', async () => {
  for (const step of ['10ms', '1s'] as const) {
    await using fake = createDockside({ seed: 1 })
    const server = await fake.listen({ port: 0 })
    const url = `${server.wsUrl}/events/ws?client=sdk`
    const first = new WebSocket(url)
    await new Promise((r) => first.once('open', r))
    // The client's own backoff, on the fake's clock: 100 ms after its close event, it connects again.
    const reconnected = new Promise<WebSocket>((resolve) =>
      first.once('close', () =>
        void fake.clock.sleep(100).then(() => {
          const ws = new WebSocket(url)
          ws.once('open', () => resolve(ws))
        }),
      ),
    )
    fake.restart()
    const again = await fake.clock.advanceUntil(reconnected, { step })
    expect(fake.deliveries.report('sdk').backoffMs, step).toEqual([100])
    again.close()
  }
})

test('in process too: a restart close reaches the in-process WebSocket before the clock moves', async () => {
  for (const step of ['10ms', '1s'] as const) {
    await using fake = createDockside({ seed: 1 })
    await using hooks = await fake.intercept()
    const url = `${hooks.wsBaseUrl}/events/ws?client=sdk`
    const first = new hooks.WebSocket(url)
    await new Promise((r) => first.addEventListener('open', r, { once: true }))
    let closedAt: number | undefined
    const reconnected = new Promise<InstanceType<typeof hooks.WebSocket>>((resolve) =>
      first.addEventListener(
        'close',
        () => {
          closedAt = fake.clock.elapsed()
          void fake.clock.sleep(100).then(() => {
            const ws = new hooks.WebSocket(url)
            ws.addEventListener('open', () => resolve(ws), { once: true })
          })
        },
        { once: true },
      ),
    )
    fake.restart()
    const again = await fake.clock.advanceUntil(reconnected, { step })
    expect([closedAt, fake.deliveries.report('sdk').backoffMs], step).toEqual([0, [100]])
    again.close()
  }
})
