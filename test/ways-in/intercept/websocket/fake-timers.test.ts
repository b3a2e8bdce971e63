import FakeTimers from '@sinonjs/fake-timers'
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

// The in-process WebSocket runs on the host's setImmediate captured at import: @sinonjs/fake-timers (what jest's
// modern fake timers are) faking setTimeout, setImmediate, setInterval and Date, never stalls an open, a frame or
// a close. Before, mock-socket's setTimeout(…, 4) of the global timers held each open and close until a tick.
const open: Dockside[] = []
let clock: ReturnType<typeof FakeTimers.install> | undefined
afterEach(async () => {
  clock?.uninstall()
  clock = undefined
  for (const f of open.splice(0)) await f.close()
})

it('opens, takes a frame and closes under @sinonjs/fake-timers without a tick', async () => {
  const fake = createDockside({ seed: 5 })
  open.push(fake)
  await using hooks = await fake.intercept()
  clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'Date'] })
  const ws = new WebSocket(`${hooks.wsBaseUrl}/events/ws`)
  const seen: string[] = []
  ws.onmessage = (e) => seen.push(JSON.parse(String(e.data)).Action)
  await new Promise((resolve) => (ws.onopen = resolve))
  const message = new Promise((resolve) => ws.addEventListener('message', resolve, { once: true }))
  fake.containers.create({ name: 'web', image: 'nginx' }).start()
  await message
  ws.close(3000, 'done')
  const closed = await new Promise<CloseEvent>((resolve) => (ws.onclose = resolve))
  expect([seen, closed.code, closed.reason, clock.now]).toEqual([['start'], 3000, 'done', 0])
})
