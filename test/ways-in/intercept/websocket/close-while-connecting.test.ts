import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'
import { InProcessWebSocket } from '../../../../src/transports/intercept/index'

// Regression: close() on an in-process WebSocket still CONNECTING fired `error` and `close` twice when the
// fake's answer (accept or refusal) arrived before the close's own 4 ms failure: the second run reset the
// state to CONNECTING and failed the socket again.
const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

/** Opens, closes at once, and collects every event until the close event has had time to repeat. */
async function closeWhileConnecting(path: string) {
  const fake = createDockside()
  open.push(fake)
  const hooks = await fake.intercept()
  const events: string[] = []
  const ws = new hooks.WebSocket(`${hooks.wsBaseUrl}${path}`)
  for (const type of ['open', 'error', 'close']) ws.addEventListener(type, (e) => events.push(type === 'close' ? `close ${(e as CloseEvent).code}` : type))
  const closed = new Promise<void>((resolve) => ws.addEventListener('close', () => resolve()))
  // Let the fake decide the handshake first: its answer comes back on a microtask, the close fails in a later task.
  await Promise.resolve()
  ws.close()
  expect(ws.readyState).toBe(InProcessWebSocket.CLOSING)
  await closed
  // A repeated failure would come a task after the first (every in-process step is a setImmediate task): let a few pass.
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve))
  return { events, ws }
}

it('an accepted handshake closed while CONNECTING fires error then close 1006 once, and never open', async () => {
  const { events, ws } = await closeWhileConnecting('/events/ws')
  expect(events).toEqual(['error', 'close 1006'])
  expect(ws.readyState).toBe(InProcessWebSocket.CLOSED)
})

it('a refused handshake closed while CONNECTING fires error then close 1006 once', async () => {
  const { events } = await closeWhileConnecting('/events/ws?filters=%7B%22event%22%3A%5B%22nope%22%5D%7D')
  expect(events).toEqual(['error', 'close 1006'])
})
