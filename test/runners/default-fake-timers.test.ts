import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, expect, it, vi } from 'vitest'
import { createDockside, drainWithClock } from '../../src/index'
import { ensureBuilt, root } from '../support/cli'

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

/**
 * sinon's cases run in a process of their own (sinon/round-trips.mjs, against the built package): install() with its
 * defaults fakes this process's nextTick and queueMicrotask, and inside the vitest worker what vitest scheduled in that
 * window was lost now and then (the worker finished the file and never exited, hanging the whole run in CI).
 */
let sinon: { defaults: { seen: unknown; moved: number }; allButTicks: { seen: unknown; moved: number } } | undefined
async function sinonRoundTrips() {
  if (sinon) return sinon
  ensureBuilt()
  const out = await promisify(execFile)(process.execPath, [join(root, 'test/runners/sinon/round-trips.mjs')], { cwd: join(root, 'test/runners'), timeout: 30_000 })
  return (sinon = JSON.parse(out.stdout.trim()))
}

it("@sinonjs/fake-timers' install() with its defaults (nextTick and queueMicrotask faked too): the in-process websocket opens, takes a frame and closes", async () => {
  const { defaults } = await sinonRoundTrips()
  expect(defaults).toEqual({ seen: { action: 'start', close: [3000, 'done'] }, moved: 0 })
}, 60_000)

it('@sinonjs/fake-timers faking all but nextTick and queueMicrotask: fetch answers and a push streams to its end too', async () => {
  const { allButTicks } = await sinonRoundTrips()
  expect(allButTicks).toEqual({ seen: expected, moved: 0 })
}, 60_000)
