// Run by test/runners/default-fake-timers.test.ts in a process of its own: @sinonjs/fake-timers' install() fakes the
// process's global nextTick, queueMicrotask and timers, and inside a vitest worker whatever vitest itself scheduled
// in that window was lost (the worker finished its file and never exited, hanging the run). Prints one JSON line.
import FakeTimers from '@sinonjs/fake-timers'
import { createDockside, drainWithClock } from '../../../dist/index.js'

/** Runs `work` with a sinon clock installed after the fake is hooked (as a beforeEach would), uninstalled in `finally`. */
async function underSinon(config, work) {
  const fake = createDockside({ seed: 7 })
  const hooks = await fake.intercept({ region: 'us-west-1' })
  const clock = FakeTimers.install(config)
  try {
    const seen = await work(fake)
    return { seen, moved: clock.now }
  } finally {
    clock.uninstall()
    hooks.restore()
    await fake.close()
  }
}

async function websocketRoundTrip(fake) {
  const ws = new WebSocket('wss://us-west-1.hyper.test/events/ws')
  await new Promise((resolve) => ws.addEventListener('open', resolve))
  const frame = new Promise((resolve) => ws.addEventListener('message', (m) => resolve(JSON.parse(String(m.data)))))
  fake.containers.create({ name: 'web', image: 'nginx' }).start()
  const action = (await frame).Action
  ws.close(3000, 'done')
  const closed = await new Promise((resolve) => ws.addEventListener('close', resolve))
  return { action, close: [closed.code, closed.reason] }
}

async function fullRoundTrip(fake) {
  const { action, close } = await websocketRoundTrip(fake)
  const list = await (await fetch('https://us-west-1.hyper.test/containers/json?all=1')).json()
  fake.images.add('localhost:5000/app', { tags: ['1'], layers: 2 })
  const res = await fetch('https://us-west-1.hyper.test/images/localhost:5000/app/push?tag=1', { method: 'POST' })
  const lastLine = (await drainWithClock(res, fake)).trimEnd().split('\n').at(-1)
  return { action, close, names: list.map((c) => c.Names[0]), lastLine }
}

const defaults = await underSinon(undefined, websocketRoundTrip)
const allButTicks = await underSinon({ toNotFake: ['nextTick', 'queueMicrotask'] }, fullRoundTrip)
console.log(JSON.stringify({ defaults, allButTicks }))
