import FakeTimers from '@sinonjs/fake-timers'
import { afterEach, expect, it, vi } from 'vitest'
import { createDockside, drainWithClock } from '../../src/index'

// The fake holds on to the real scheduling functions it needs: with a user's fake timers installed in their default
// configuration (vitest's vi.useFakeTimers(); @sinonjs/fake-timers' install() with no options, which fakes every
// timer it knows, nextTick, queueMicrotask, hrtime and performance included), an in-process websocket opens, takes a
// frame and closes, fetch answers, and a push streams to its end, with no tick of the fake timers. One exception is
// Node's, not dockside's: sinon's faked nextTick and queueMicrotask stall Node's own fetch, to any server. The jest projects
// beside this file hold jest's default (jest-cjs/fake-timers.test.js, jest-esm/fake-timers.test.js).
afterEach(() => vi.useRealTimers())

async function inProcessRoundTrip() {
  const fake = createDockside({ seed: 7 })
  const hooks = await fake.intercept({ region: 'us-west-1' })
  try {
    return await roundTrip(fake)
  } finally {
    hooks.restore()
    await fake.close()
  }
}

async function roundTrip(fake: ReturnType<typeof createDockside>) {
  const ws = new WebSocket('wss://us-west-1.hyper.test/events/ws')
  await new Promise((resolve) => ws.addEventListener('open', resolve))
  const frame = new Promise<{ Action: string }>((resolve) => ws.addEventListener('message', (m) => resolve(JSON.parse(String(m.data)))))
  fake.containers.create({ name: 'web', image: 'nginx' }).start()
  const action = (await frame).Action
  ws.close(3000, 'done')
  const closed = await new Promise<CloseEvent>((resolve) => ws.addEventListener('close', resolve))
  const list = (await (await fetch('https://us-west-1.hyper.test/containers/json?all=1')).json()) as { Names: string[] }[]
  fake.images.add('localhost:5000/app', { tags: ['1'], layers: 2 })
  const res = await fetch('https://us-west-1.hyper.test/images/localhost:5000/app/push?tag=1', { method: 'POST' })
  const lastLine = (await drainWithClock(res, fake)).trimEnd().split('\n').at(-1)
  return { action, close: [closed.code, closed.reason], names: list.map((c) => c.Names[0]), lastLine }
}

const expected = { action: 'start', close: [3000, 'done'], names: ['/web'], lastLine: expect.stringContaining('"aux"') }

it("vi.useFakeTimers() with vitest's defaults stalls no in-process frame", async () => {
  vi.useFakeTimers()
  expect(await inProcessRoundTrip()).toEqual(expected)
}, 10_000)

/** Runs `work` with a sinon clock installed after the fake is hooked (as a beforeEach would), uninstalled in `finally`
 * before vitest itself needs its timers again; returns what it saw and how far the user's clock moved (never). */
async function underSinon<T>(config: Parameters<typeof FakeTimers.install>[0], work: (fake: ReturnType<typeof createDockside>) => Promise<T>) {
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

it("@sinonjs/fake-timers' install() with its defaults (nextTick and queueMicrotask faked too): the in-process websocket opens, takes a frame and closes", async () => {
  const { seen, moved } = await underSinon(undefined, async (fake) => {
    const ws = new WebSocket('wss://us-west-1.hyper.test/events/ws')
    await new Promise((resolve) => ws.addEventListener('open', resolve))
    const frame = new Promise<{ Action: string }>((resolve) => ws.addEventListener('message', (m) => resolve(JSON.parse(String(m.data)))))
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    const action = (await frame).Action
    ws.close(3000, 'done')
    const closed = await new Promise<CloseEvent>((resolve) => ws.addEventListener('close', resolve))
    return [action, closed.code, closed.reason]
  })
  expect([seen, moved]).toEqual([['start', 3000, 'done'], 0])
}, 10_000)

it('@sinonjs/fake-timers faking all but nextTick and queueMicrotask: fetch answers and a push streams to its end too', async () => {
  const { seen, moved } = await underSinon({ toNotFake: ['nextTick', 'queueMicrotask'] }, roundTrip)
  expect([seen, moved]).toEqual([expected, 0])
}, 10_000)
