import { expect, onTestFinished, vi } from 'vitest'
import { followGlobalTimers } from 'dockside'
import { createDocksideTest } from 'dockside/vitest'

// The client under test: follows container events and reconnects after a close, waiting longer after a refusal.
function watchEvents(url: string, onEvent: (e: { Action: string; id: string }) => void) {
  let stopped = false
  let socket: WebSocket | undefined
  const connect = (attempt: number) => {
    socket = new WebSocket(url)
    socket.onopen = () => (attempt = 0)
    socket.onmessage = (m) => onEvent(JSON.parse(String(m.data)))
    socket.onclose = () => {
      if (!stopped) setTimeout(() => connect(attempt + 1), 100 * 2 ** attempt)
    }
  }
  connect(0)
  return () => {
    stopped = true
    socket?.close()
  }
}

// One clock for the client's backoff timers and the fake: vi's fake timers move both, no real time passes.
const test = createDocksideTest({ dockside: { clock: followGlobalTimers() } })

test('the client reconnects after a maintenance restart and a 429, and misses no start event', async ({ dockside }) => {
  vi.useFakeTimers()
  onTestFinished(() => void vi.useRealTimers())
  const statuses = () => dockside.journal.ofType('request').map((r) => r.status)
  dockside.faults.add({ on: 'events', reply: 429, retryAfter: 1 })
  const seen: string[] = []
  const stop = watchEvents('wss://us-west-1.hyper.test:443/events/ws?filters={"event":["start"]}', (e) => seen.push(e.Action))

  // The first attempt is refused (429); the client backs off 100 ms and gets in on the second, at 100 ms exactly.
  await vi.advanceTimersByTimeAsync(99)
  expect(statuses()).toEqual([429])
  expect(dockside.journal.ofType('ws.open')).toHaveLength(0)
  await vi.advanceTimersByTimeAsync(1)
  expect(statuses()).toEqual([429, 101])
  // The socket opens a task after its 101 (a timer's task scheduled during a tick runs 1 ms later on vi's clock):
  // only then does it get events.
  await vi.advanceTimersByTimeAsync(1)
  expect(dockside.journal.ofType('ws.open')).toHaveLength(1)
  dockside.containers.create({ name: 'web', image: 'nginx:1.27' }).start()
  await vi.advanceTimersByTimeAsync(0)
  expect(seen).toEqual(['start'])

  // A maintenance restart closes the socket with 1001. As from a real server, the close frame comes first (the socket
  // is CLOSING) and the close event a task later, 1 ms on vi's clock: the client comes back 100 ms after that.
  dockside.restart()
  await vi.advanceTimersByTimeAsync(100)
  expect(statuses()).toEqual([429, 101])
  await vi.advanceTimersByTimeAsync(1)
  expect(statuses()).toEqual([429, 101, 101])
  await vi.advanceTimersByTimeAsync(1)
  expect(dockside.journal.ofType('ws.open')).toHaveLength(2)
  dockside.containers.create({ name: 'api', image: 'api:1' }).start()
  await vi.advanceTimersByTimeAsync(0)
  expect(seen).toEqual(['start', 'start'])

  expect(dockside).toHaveReconnected(1)
  expect(statuses()).toEqual([429, 101, 101])
  stop()
})
