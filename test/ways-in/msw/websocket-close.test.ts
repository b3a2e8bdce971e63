// Through MSW (msw/node), the page's WebSocket is MSW's stand-in, not Node's: its close() took any code ('4000' and
// 4000.5 reached the fake and the close event as such, 1001 threw an InvariantError instead of a DOMException), sent
// reasons over 123 bytes, and closed with 1000 when given no code, where Node's socket against the real server sends
// an empty close frame that both ends report as 1005. A send() while the fake still decides the handshake (connect
// latency) threw a DOMException named `Error` and closed the socket; Node's throws InvalidStateError and opens. It kept
// any binaryType, and a frame's MessageEvent had the socket's whole URL as its origin. Each case runs on the real
// server first; test/browser/websocket-close.test.ts holds the page's socket to Chromium's the same way.
// Found by the MSW hunt (was test/regressions/msw-hunt-websocket-close.test.ts).
import { setupServer } from 'msw/node'
import { expect, it } from 'vitest'
import { createDockside, type Dockside, type JournalEntryType } from '../../../src/index'
import { docksideHandlers } from '../../../src/transports/msw/index'

type Seen = { thrown?: string[]; close: [number, string, boolean]; journal: unknown[] }

/** Resolves once the fake has journaled an entry of `type` (at once if it has one). */
function journaled(fake: Dockside, type: JournalEntryType): Promise<void> {
  return new Promise((resolve) => {
    if (fake.journal.ofType(type).length) return resolve()
    const off = fake.on('journal', (e: { type: string }) => e.type === type && (off(), resolve()))
  })
}

const thrown = (e: Error) => [e.constructor.name, e.name]

/** Opens a socket, calls close(...args) on it (a throwing call is followed by a plain close()), reports what each end saw. */
async function closeWith(fake: Dockside, url: string, args: unknown[]): Promise<Seen> {
  const ws = new WebSocket(`${url}/events/ws`)
  await new Promise((resolve) => ws.addEventListener('open', resolve))
  const closed = new Promise<Seen['close']>((resolve) => ws.addEventListener('close', (e) => resolve([e.code, e.reason, e.wasClean])))
  let error: string[] | undefined
  try {
    ;(ws.close as (...a: unknown[]) => void)(...args)
  } catch (e) {
    error = thrown(e as Error)
    ws.close()
  }
  const close = await closed
  await journaled(fake, 'ws.close')
  const journal = fake.journal.ofType('ws.close').map((e) => { const { code, reason, by } = e as unknown as Record<string, unknown>; return [code, reason, by] })
  return { ...(error ? { thrown: error } : {}), close, journal }
}

/** A send() while the fake holds the handshake back (connect latency): what it throws, and whether the socket opens. */
async function sendWhileConnecting(fake: Dockside, url: string) {
  fake.faults.add({ on: 'events', latency: { connect: '1s' } })
  const ws = new WebSocket(`${url}/events/ws`)
  const events: string[] = []
  for (const type of ['open', 'error', 'close']) ws.addEventListener(type, () => events.push(type))
  await journaled(fake, 'fault')
  let error: string[] | undefined
  try {
    ws.send('hello')
  } catch (e) {
    error = thrown(e as Error)
  }
  const closed = new Promise((resolve) => ws.addEventListener('close', resolve))
  const opened = new Promise((resolve) => ws.addEventListener('open', resolve))
  await fake.clock.advance('1s')
  // Opened (then closed by the client), or closed without opening.
  if ((await Promise.race([opened.then(() => 'open'), closed])) === 'open') ws.close(1000)
  await closed
  return { thrown: error, events }
}

const CLOSES: unknown[][] = [[], [1000], [undefined, 'bye'], [4000, 'done'], ['4000'], [4000.5], [3000.7], [3001.5], [1001], [0], [null], [4000, 'x'.repeat(124)], [4000, 'é'.repeat(62)]]

it("MSW's WebSocket closes and sends as Node's does against the real server: codes, reasons, 1005, send before open", async () => {
  const cases = async (url: (fake: Dockside) => Promise<[string, () => Promise<void>]>) => {
    const out: [unknown, unknown][] = []
    for (const args of CLOSES) {
      await using fake = createDockside()
      const [base, done] = await url(fake)
      out.push([args, await closeWith(fake, base, args)])
      await done()
    }
    await using fake = createDockside()
    const [base, done] = await url(fake)
    out.push(['send while connecting', await sendWhileConnecting(fake, base)])
    await done()
    return out
  }
  // The real server first, with Node's own WebSocket (MSW patches it once listening).
  const real = await cases(async (fake) => {
    const s = await fake.listen({ port: 0 })
    return [s.wsUrl, () => s.close()]
  })
  const server = setupServer()
  server.listen({ onUnhandledFrame: 'error' })
  try {
    const msw = await cases(async (fake) => {
      server.resetHandlers(...docksideHandlers(fake))
      return ['wss://us-west-1.hyper.test', async () => server.resetHandlers()]
    })
    expect(msw).toEqual(real)
  } finally {
    server.close()
  }
  // What the real server answered, spelled out.
  expect(Object.fromEntries(real.map(([args, seen]) => [JSON.stringify(args), seen]))).toMatchObject({
    '[]': { close: [1005, '', true], journal: [[1005, '', 'client']] },
    '[null,"bye"]': { close: [1000, 'bye', true] },
    '["4000"]': { close: [4000, '', true] },
    '[4000.5]': { close: [4000, '', true] },
    '[1001]': { thrown: ['DOMException', 'InvalidAccessError'], close: [1005, '', true] },
    '[null]': { thrown: ['DOMException', 'InvalidAccessError'] },
    [JSON.stringify([4000, 'x'.repeat(124)])]: { thrown: ['DOMException', 'SyntaxError'] },
    [JSON.stringify([4000, 'é'.repeat(62)])]: { thrown: ['DOMException', 'SyntaxError'] },
    '"send while connecting"': { thrown: ['DOMException', 'InvalidStateError'], events: ['open', 'close'] },
  })
})

it("an unknown binaryType sets 'blob' on MSW's WebSocket as on Node's (it was kept, and read back as set)", async () => {
  const binaryTypes = async (url: string) => {
    const ws = new WebSocket(`${url}/events/ws`)
    await new Promise((resolve) => ws.addEventListener('open', resolve))
    const seen: string[] = [ws.binaryType]
    for (const value of ['foo', 'arraybuffer', 'Blob', 'blob']) {
      ;(ws as { binaryType: string }).binaryType = value
      seen.push(ws.binaryType)
    }
    ws.close(1000)
    await new Promise((resolve) => ws.addEventListener('close', resolve))
    return seen
  }
  await using a = createDockside()
  const s = await a.listen({ port: 0 })
  const real = await binaryTypes(s.wsUrl)
  await s.close()
  await using b = createDockside()
  const server = setupServer(...docksideHandlers(b))
  server.listen({ onUnhandledFrame: 'error' })
  try {
    expect(await binaryTypes('wss://us-west-1.hyper.test')).toEqual(real)
  } finally {
    server.close()
  }
  expect(real).toEqual(['blob', 'blob', 'arraybuffer', 'blob', 'blob'])
})

it("a frame's MessageEvent names the socket's origin on MSW's WebSocket as on Node's (it was the socket's whole URL)", async () => {
  const origins = async (fake: Dockside, url: string) => {
    const ws = new WebSocket(`${url}/events/ws?filters=%7B%7D`)
    await new Promise((resolve) => ws.addEventListener('open', resolve))
    const message = new Promise<MessageEvent>((resolve) => ws.addEventListener('message', resolve))
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    const { origin } = await message
    ws.close(1000)
    await new Promise((resolve) => ws.addEventListener('close', resolve))
    return [origin, new URL(url).origin]
  }
  await using a = createDockside()
  const s = await a.listen({ port: 0 })
  const [real, realOrigin] = await origins(a, s.wsUrl)
  await s.close()
  expect(real).toBe(realOrigin)
  await using b = createDockside()
  const server = setupServer(...docksideHandlers(b))
  server.listen({ onUnhandledFrame: 'error' })
  try {
    expect(await origins(b, 'wss://us-west-1.hyper.test')).toEqual(['wss://us-west-1.hyper.test', 'wss://us-west-1.hyper.test'])
  } finally {
    server.close()
  }
})
