import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { attempt, openWatched, show, transcript, turn, untilFakeSawCloses, type Ctx, watchStates } from '../../../support/ws-parity'

// Side by side, as test/ways-in/intercept/websocket-parity*.test.ts: the same client script with Node's own WebSocket (undici)
// against the real server on 127.0.0.1 and with the in-process class; the transcripts must be equal. Here:
// the last hop of the handshake (where the server has subscribed the socket but the client has not seen the 101), the
// loop phase a `close` event lands in (a reconnect from `onclose`), a too-big frame crossing the client's own close(),
// handler setters given objects, and the event objects' own constructors and arrays. Then what already agreed and had
// no side-by-side test: handshake faults, every close-fault code, the maximum age, reset, stall, latency, odd paths.
// No sleeps: every wait is an event or a setImmediate turn.
// Found by the fourth WebSocket parity hunt (was test/intercept/websocket-parity-hunt-4.test.ts).

const watch = watchStates
const openSocket = (ctx: Ctx, path?: string) => openWatched(ctx, watch, path)

/** What the fake journaled about its sockets, once it has seen every one closed. */
async function journal(ctx: Ctx) {
  await untilFakeSawCloses(ctx)
  for (const e of ctx.fake.journal.ofType('ws.close')) ctx.log.push(`journal ws.close by=${e.by} code=${e.code}`)
  ctx.log.push(`journal ws.open x${ctx.fake.journal.ofType('ws.open').length}`)
}

/** A phase of the event loop for a client's code, as in websocket-parity-2.test.ts. */
const PHASES: Record<string, (fn: () => void) => void> = {
  poll: (fn) => fn(),
  check: (fn) => setImmediate(fn),
  timers: (fn) => setTimeout(fn, 0),
}

const BAD_FILTER = '/events/ws?filters=%7B%22event%22%3A%5B%22nope%22%5D%7D'
const TOO_BIG = 70_000

/** Own properties of `o` with their descriptors, functions by name and length. */
function descriptors(o: object): string[] {
  const fn = (f: unknown) => (typeof f === 'function' ? `fn(${(f as () => void).name},${(f as () => void).length})` : show(f))
  return Reflect.ownKeys(o).map((k) => {
    const d = Object.getOwnPropertyDescriptor(o, k)!
    const value = 'value' in d ? (k === 'prototype' ? 'proto' : fn(d.value)) : '-'
    return `${String(k)}: e=${d.enumerable} c=${d.configurable} w=${d.writable} v=${value} get=${fn(d.get)} set=${fn(d.set)}`
  })
}

const differences: Record<string, (ctx: Ctx) => Promise<void>> = {
  // The server reads the upgrade request and subscribes the socket a poll phase before the client reads the 101: an
  // event emitted in that last hop reaches the client, after `open`.
  async 'an event the fake emits while the handshake is under way, after 0 to 4 setImmediate turns'(ctx) {
    for (const wait of ['sync', 'microtask', 'nextTick', 'i1', 'i2', 'i3', 'i4']) {
      const ws = new ctx.WS(ctx.base + '/events/ws')
      const closed = watch(ctx, ws, wait)
      if (wait === 'microtask') await Promise.resolve()
      else if (wait === 'nextTick') await new Promise((resolve) => process.nextTick(resolve))
      else for (let i = 0; i < Number(wait.slice(1)); i++) await turn()
      ctx.log.push(`${wait}: start at state ${ws.readyState}`)
      ctx.fake.containers.create({ name: `c-${wait}`, image: 'nginx' }).start()
      if (ws.readyState !== ws.OPEN) await new Promise((resolve) => ws.addEventListener('open', resolve))
      for (let i = 0; i < 4; i++) await turn()
      ws.close()
      await closed
    }
  },
  async 'the fake acts in each hop of the handshake (a frame, its close frame, a drop): what the client sees, per setImmediate'(ctx) {
    for (const phase of ['check', 'timers']) {
      for (const act of ['start', 'restart', 'closeSockets', 'dropSockets']) {
        for (let k = 1; k <= 3; k++) {
          await untilFakeSawCloses(ctx)
          await new Promise<void>((done) =>
            PHASES[phase](() => {
              const ws = new ctx.WS(ctx.base + '/events/ws')
              const seen: string[] = []
              for (const type of ['open', 'message', 'error', 'close']) {
                ws.addEventListener(type, (e) => {
                  seen.push(`${type}${type === 'close' ? `(${(e as CloseEvent).code},${(e as CloseEvent).wasClean})` : ''}`)
                  if (type !== 'open') return
                  queueMicrotask(() => seen.push('microtask'))
                  process.nextTick(() => seen.push('nextTick'))
                  setImmediate(() => seen.push('setImmediate'))
                })
              }
              let i = 0
              const next = () => {
                seen.push(String(ws.readyState))
                if (i === k) {
                  seen.push(act)
                  if (act === 'start') ctx.fake.containers.create({ image: 'nginx' }).start()
                  else if (act === 'restart') ctx.fake.restart()
                  else if (act === 'closeSockets') ctx.fake.closeSockets(4001, 'early')
                  else ctx.fake.dropSockets()
                }
                if (++i < 10) return void setImmediate(next)
                const finish = () => {
                  ctx.log.push(`${phase} ${act} at ${k}: ${seen.join(' ')}`)
                  done()
                }
                if (ws.readyState === ws.CLOSED) return finish()
                ws.addEventListener('close', finish)
                ws.close()
              }
              next()
            }),
          )
        }
      }
    }
    await journal(ctx)
  },
  // Node's socket 'close' (and with it the WebSocket's `close` event) runs in the loop's close phase, after the check
  // phase: a socket opened from `onclose` opens a setImmediate turn earlier than from a poll phase.
  async 'a socket opened from the close listener, after every kind of close: its readyState per setImmediate'(ctx) {
    for (const how of ['client', 'server', 'restart', 'drop', 'crossed', 'too big', 'refused']) {
      const ws = new ctx.WS(ctx.base + (how === 'refused' ? BAD_FILTER : '/events/ws'))
      const line = new Promise<string>((resolve) =>
        ws.addEventListener('close', () => {
          const again = new ctx.WS(ctx.base + '/events/ws')
          const seen: string[] = []
          again.addEventListener('open', () => seen.push('open'))
          setImmediate(() => seen.push('setImmediate'))
          process.nextTick(() => seen.push('nextTick'))
          let i = 0
          const next = () => {
            seen.push(String(again.readyState))
            if (++i < 5) return void setImmediate(next)
            again.addEventListener('close', () => resolve(seen.join(' ')))
            again.close()
          }
          setImmediate(next)
        }),
      )
      if (how !== 'refused') await new Promise((resolve) => ws.addEventListener('open', resolve))
      if (how === 'client') ws.close()
      else if (how === 'server') ctx.fake.closeSockets(4000, 'bye')
      else if (how === 'restart') ctx.fake.restart()
      else if (how === 'drop') ctx.fake.dropSockets()
      else if (how === 'crossed') {
        ctx.fake.closeSockets(4000, 'bye')
        ws.close(4001)
      } else if (how === 'too big') ws.send('x'.repeat(TOO_BIG))
      ctx.log.push(`${how}: ${await line}`)
      await untilFakeSawCloses(ctx)
    }
  },
  // Node writes a frame at once and a close frame after it: the fake reads the frame first and refuses it (1009),
  // whatever the client's close() says. A Blob is written once it is read, after a close frame sent meanwhile.
  async "a message over the limit, then close() in the same turn or the next: the fake's 1009 or the client's code, per setImmediate"(ctx) {
    for (const phase of Object.keys(PHASES)) {
      for (const what of ['string, close', 'string, close in a microtask', 'string, close next turn', 'Blob, close', 'Blob, close next turn', 'small Blob and string, close', 'small Blob and string']) {
        const { ws, closed } = await openSocket(ctx)
        const seen: string[] = []
        await new Promise<void>((resolve) =>
          PHASES[phase](() => {
            if (what.startsWith('small Blob')) {
              ws.send(new Blob(['a']))
              ws.send('x'.repeat(TOO_BIG))
            } else ws.send(what.startsWith('Blob') ? new Blob(['x'.repeat(TOO_BIG)]) : 'x'.repeat(TOO_BIG))
            if (what.endsWith(', close')) ws.close(4000, 'bye')
            if (what.endsWith('microtask')) void Promise.resolve().then(() => ws.close(4000, 'bye'))
            let i = 0
            const next = () => {
              seen.push(`${ws.readyState}/${ws.bufferedAmount}`)
              if (i === 1 && what.endsWith('next turn') && ws.readyState === ws.OPEN) ws.close(4000, 'bye')
              if (++i < 8) setImmediate(next)
              else resolve()
            }
            next()
          }),
        )
        await closed
        ctx.log.push(`${phase} ${what}: ${seen.join(' ')}`)
      }
    }
    await journal(ctx)
  },
  // undici's setters remove the old value itself: a non-callable object's do-nothing listener stays on the socket, and a
  // listener the client added that is also the handler goes with it.
  async 'onopen set to objects, replaced and cleared: the listeners the socket holds, and which run'(ctx) {
    const ws = new ctx.WS(ctx.base + '/events/ws')
    const count = () => getEventListeners(ws, 'open').length
    const set = (v: unknown) => ((ws as unknown as { onopen: unknown }).onopen = v)
    const handler = { handleEvent: () => ctx.log.push('handleEvent of the object ran') }
    set({})
    ctx.log.push(`onopen = {}: ${count()}`)
    set({})
    ctx.log.push(`onopen = another {}: ${count()}`)
    set(null)
    ctx.log.push(`onopen = null: ${count()}`)
    ws.addEventListener('open', handler)
    set(handler)
    ctx.log.push(`addEventListener(handler), onopen = handler: ${count()}`)
    set(null)
    ctx.log.push(`onopen = null: ${count()}`)
    const fn = () => ctx.log.push('fn ran')
    ws.addEventListener('open', fn)
    ws.onopen = fn
    ws.onopen = () => ctx.log.push('second handler ran')
    ctx.log.push(`addEventListener(fn), onopen = fn, onopen = another: ${count()}`)
    await new Promise((resolve) => ws.addEventListener('open', resolve))
    ws.close()
    await new Promise((resolve) => ws.addEventListener('close', resolve))
  },
  async 'message events: each its own frozen ports array; initMessageEvent() needs its argument'(ctx) {
    const { ws, closed } = await openSocket(ctx)
    const events: MessageEvent[] = []
    const two = new Promise<void>((resolve) => ws.addEventListener('message', (e) => events.push(e) === 2 && resolve()))
    const c = ctx.fake.containers.create({ name: 'web', image: 'nginx' })
    c.start()
    c.stop()
    await two
    const [a, b] = events
    ctx.log.push(`a.ports === b.ports ${a.ports === b.ports}, frozen ${Object.isFrozen(a.ports)}, the same on each read ${a.ports === a.ports}`)
    ctx.log.push(`initMessageEvent() ${attempt(() => (a.initMessageEvent as () => unknown)())}`)
    ctx.log.push(`initMessageEvent('x') ${attempt(() => (a.initMessageEvent as unknown as (type: string) => Event)('x').type)}`)
    ws.close()
    await closed
  },
  // Node has no global ErrorEvent; a client reaches undici's as the error event's constructor.
  async "the error event's constructor: its length, arguments, conversions and the order it reads its init in"(ctx) {
    const ws = new ctx.WS(ctx.base + BAD_FILTER)
    const closing = new Promise((resolve) => ws.addEventListener('close', resolve))
    const error = await new Promise<Event>((resolve) => ws.addEventListener('error', resolve))
    const EE = error.constructor as new (...a: unknown[]) => ErrorEvent
    ctx.log.push(`${EE.name}`, ...descriptors(EE), ...descriptors(EE.prototype))
    ctx.log.push(`new ErrorEvent() ${attempt(() => new EE().type)}`)
    ctx.log.push(`new ErrorEvent('x', init) ${attempt(() => {
      const e = new EE('x', { message: 5, lineno: -1, colno: 2.7, filename: null, bubbles: true, error: 1 })
      return [e.message, e.lineno, e.colno, e.filename, e.bubbles, e.error]
    })}`)
    ctx.log.push(`new ErrorEvent('x', { filename: lone surrogate, colno: 2 ** 32 + 5, lineno: NaN }) ${attempt(() => {
      const e = new EE('x', { filename: '\ud800', colno: 2 ** 32 + 5, lineno: NaN })
      return [e.filename, e.colno, e.lineno]
    })}`)
    ctx.log.push(`new ErrorEvent('x', { message: symbol }) ${attempt(() => new EE('x', { message: Symbol('m') }).type)}`)
    ctx.log.push(`new ErrorEvent('x', 5) ${attempt(() => new EE('x', 5).type)}`)
    const order: string[] = []
    new EE('x', new Proxy({}, { get: (_t, k) => void order.push(String(k)) }))
    ctx.log.push(`init read in the order ${order.join(',')}`)
    await closing
  },
}

/** What already agreed, and had no side-by-side test. */
const agreements: Record<string, (ctx: Ctx) => Promise<void>> = {
  async 'handshake faults: 429 and 500 replies are error then close 1006'(ctx) {
    for (const reply of [429, 500]) {
      ctx.fake.faults.add({ on: 'events', reply } as never)
      const { closed } = await openSocket(ctx)
      await closed
    }
    ctx.log.push(`journal requests ${ctx.fake.journal.ofType('request').map((r) => r.status).join(',')}`)
  },
  async 'close faults with every allowed code, after the first message'(ctx) {
    for (const code of [1000, 1001, 1002, 1003, 1007, 1008, 1011, 1012, 1013, 1014, 3000, 4999]) {
      ctx.fake.faults.add({ on: 'events', close: { code, reason: `r${code}` }, afterMessages: 0, times: 1 } as never)
      const { closed } = await openSocket(ctx)
      ctx.fake.containers.create({ name: `c${code}`, image: 'nginx' }).start()
      await closed
    }
    await journal(ctx)
  },
  async 'the maximum age (1000), reset (1012), a stalled handshake ended by a restart (503), connect latency and a timed close'(ctx) {
    const aged = await openSocket(ctx)
    ctx.fake.clock.advance('24h')
    await aged.closed
    const reset = await openSocket(ctx)
    await ctx.fake.reset()
    await reset.closed
    ctx.fake.faults.add({ on: 'events', stall: true } as never)
    const stalled = new ctx.WS(ctx.base + '/events/ws')
    const stalledClosed = watch(ctx, stalled, 'stalled')
    for (let i = 0; i < 5; i++) await turn()
    ctx.log.push(`stalled state=${stalled.readyState}`)
    ctx.fake.restart()
    await stalledClosed
    ctx.fake.faults.add({ on: 'events', latency: { connect: '1s' } } as never)
    const slow = new ctx.WS(ctx.base + '/events/ws')
    const slowClosed = watch(ctx, slow, 'slow')
    for (let i = 0; i < 5; i++) await turn()
    ctx.log.push(`slow state=${slow.readyState}`)
    ctx.fake.clock.advance('1s')
    await new Promise((resolve) => slow.addEventListener('open', resolve))
    slow.close()
    await slowClosed
    ctx.fake.faults.clear()
    ctx.fake.faults.add({ on: 'events', close: { code: 4000, reason: 'late' }, afterTime: '2s' } as never)
    const timed = await openSocket(ctx)
    ctx.fake.clock.advance('2s')
    await timed.closed
    await journal(ctx)
  },
  async 'paths around /events/ws: a trailing slash, a version prefix, an empty query, a doubled slash, case'(ctx) {
    for (const path of ['/events/ws/', '/v1.24/events/ws', '/events/ws?', '/events/ws?filters=', '//events/ws', '/events/WS', '/events/ws;x', '/events/ws?filters=%7B%7D&x=1']) {
      const { ws, closed } = await openSocket(ctx, path)
      ctx.log.push(`${path}: ${ws.readyState}`)
      if (ws.readyState === ws.OPEN) ws.close()
      await closed
    }
    await untilFakeSawCloses(ctx)
    ctx.log.push(`journal requests ${ctx.fake.journal.ofType('request').map((r) => r.status).join(',')}`)
  },
  async "the socket class's and prototype's property descriptors"(ctx) {
    ctx.log.push(...descriptors(ctx.WS).filter((l) => !l.startsWith('Symbol(Symbol.hasInstance)')))
    ctx.log.push(...descriptors(ctx.WS.prototype).filter((l) => !l.startsWith('handshake')))
  },
}

describe("the in-process WebSocket is Node's own, side by side with the real server: the handshake's last hop and faults", () => {
  for (const [name, run] of Object.entries({ ...differences, ...agreements })) {
    it(name, async () => {
      const node = await transcript(run, 'server')
      const inProcess = await transcript(run, 'in-process')
      expect(inProcess).toEqual(node)
    })
  }
})
