import { build } from 'esbuild'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { attempt, NodeWebSocket, openWatched, show, transcript, turn, untilFakeSawCloses, type Ctx, type Line, watchStates } from '../../../support/ws-parity'

// Side by side, as test/ways-in/intercept/websocket/parity.test.ts: the same client script runs with Node's own WebSocket
// (undici) against the real server on 127.0.0.1 and with the in-process class, and the transcripts must be equal.
// These scenarios: crossing closes, the order of frames and closes against the client's own
// tasks (in every phase of the event loop), cloning, receiver checks, `WebSocketInit.headers`, the constructor's
// conversion messages and the class's own names. No sleeps: every wait is an event or a setImmediate turn.

const watch = watchStates
const openSocket = (ctx: Ctx, path?: string) => openWatched(ctx, watch, path)

/** What the fake journaled, once it has seen every socket it opened closed (the server sees a close some turns later). */
async function journal(ctx: Ctx) {
  await untilFakeSawCloses(ctx)
  for (const e of ctx.fake.journal.ofType('ws.close')) ctx.log.push(`journal ws.close by=${e.by} code=${e.code} reason=${show(e.reason)}`)
  ctx.log.push(`journal requests ${ctx.fake.journal.ofType('request').map((r) => r.status).join(',')}`)
}

/**
 * The three phases of the event loop a client's code can run in: `poll` (in an I/O callback or its microtasks: here,
 * right after an `open` event), `check` (a setImmediate callback) and `timers` (a setTimeout callback, 0 ms).
 */
const PHASES: Record<string, (fn: () => void) => void> = {
  poll: (fn) => fn(),
  check: (fn) => setImmediate(fn),
  timers: (fn) => setTimeout(fn, 0),
}

/** Runs `act` in `phase`, then records `probe()` after it, after its microtasks and after each of `n` setImmediate turns. */
function perTurn(phase: string, act: () => void, probe: () => string, n = 7) {
  return new Promise<string>((resolve) =>
    PHASES[phase](() => {
      act()
      const seen = [probe()]
      void Promise.resolve().then(() => seen.push(`micro ${probe()}`))
      let i = 0
      const next = () => {
        seen.push(probe())
        if (++i < n) setImmediate(next)
        else resolve(seen.join(' '))
      }
      setImmediate(next)
    }),
  )
}

const BAD_FILTER = '/events/ws?filters=%7B%22event%22%3A%5B%22nope%22%5D%7D'

const scenarios: Record<string, (ctx: Ctx) => Promise<void>> = {
  // 1. Crossing closes. Node reports the close frame it received (the fake's, which crossed its own).
  async 'crossing closes: the fake closes (4002) and then the client (4003) in one turn: close reports the fake\'s frame'(ctx) {
    const { ws, closed } = await openSocket(ctx)
    ctx.fake.closeSockets(4002, 'server')
    ws.close(4003, 'client')
    ctx.log.push(`after both state=${ws.readyState}`)
    await closed
    await journal(ctx)
  },
  async 'crossing closes: the client closes (4003) and then the fake (4002) in one turn: close reports the fake\'s frame'(ctx) {
    const { ws, closed } = await openSocket(ctx)
    ws.close(4003, 'client')
    ctx.fake.closeSockets(4002, 'server')
    ctx.log.push(`after both state=${ws.readyState}`)
    await closed
    await journal(ctx)
  },
  async 'crossing closes: the client closes and the fake drops the connection in one turn (either order): error, then 1006'(ctx) {
    for (const clientFirst of [true, false]) {
      const { ws, closed } = await openSocket(ctx)
      if (clientFirst) ws.close(4003, 'client')
      ctx.fake.dropSockets()
      if (!clientFirst) ws.close(4003, 'client')
      await closed
    }
    await journal(ctx)
  },
  async 'crossing closes, in each phase: readyState after each setImmediate, and the close event'(ctx) {
    for (const phase of Object.keys(PHASES)) {
      for (const fakeFirst of [true, false]) {
        const { ws, closed } = await openSocket(ctx)
        const states = await perTurn(
          phase,
          () => {
            if (fakeFirst) ctx.fake.closeSockets(4002, 'server')
            ws.close(4003, 'client')
            if (!fakeFirst) ctx.fake.closeSockets(4002, 'server')
          },
          () => String(ws.readyState),
        )
        ctx.log.push(`${phase} ${fakeFirst ? 'fake first' : 'client first'}: ${states}`)
        await closed
      }
    }
  },

  // 2. Timing: each step lands where it lands over a socket to 127.0.0.1, against the client's own tasks.
  async "timing: close() in each phase: readyState after each setImmediate (CLOSING until the fake's echo and the connection's end)"(ctx) {
    for (const phase of Object.keys(PHASES)) {
      const { ws, closed } = await openSocket(ctx)
      ctx.log.push(`${phase}: ${await perTurn(phase, () => ws.close(), () => String(ws.readyState))}`)
      await closed
    }
    await journal(ctx)
  },
  async 'timing: a restart in each phase: readyState after each setImmediate (OPEN until the close frame arrives)'(ctx) {
    for (const phase of Object.keys(PHASES)) {
      const { ws, closed } = await openSocket(ctx)
      ctx.log.push(`${phase}: ${await perTurn(phase, () => ctx.fake.restart(), () => String(ws.readyState))}`)
      await closed
    }
  },
  async 'timing: a frame from the fake against a setImmediate queued in the same turn, in each phase'(ctx) {
    const { ws, closed } = await openSocket(ctx, '/events/ws?filters={"event":["start"]}')
    ws.addEventListener('message', (e) => ctx.log.push(`message ${JSON.parse(String(e.data)).Action}`))
    const c = ctx.fake.containers.create({ name: 'web', image: 'nginx' })
    for (const phase of Object.keys(PHASES)) {
      await new Promise<void>((resolve) =>
        PHASES[phase](() => {
          ctx.log.push(`${phase}: start`)
          c.start()
          setImmediate(() => ctx.log.push(`${phase}: setImmediate`))
          ws.addEventListener('message', () => setImmediate(resolve), { once: true })
        }),
      )
      await turn()
      c.stop()
    }
    ws.close()
    await closed
  },
  async 'timing: frames sent in two turns, with the client\'s setImmediate between them'(ctx) {
    const { ws, closed } = await openSocket(ctx)
    ws.addEventListener('message', (e) => ctx.log.push(`message ${JSON.parse(String(e.data)).Action}`))
    const c = ctx.fake.containers.create({ name: 'web', image: 'nginx' })
    c.start()
    setImmediate(() => {
      ctx.log.push('A')
      c.stop()
      setImmediate(() => ctx.log.push('B'))
    })
    await new Promise<void>((resolve) => {
      let n = 0
      ws.addEventListener('message', () => ++n === 2 && resolve())
    })
    await turn()
    await turn()
    ws.close()
    await closed
  },
  async 'timing: a frame the fake sends from a message listener, against a setImmediate queued there'(ctx) {
    const { ws, closed } = await openSocket(ctx)
    const c = ctx.fake.containers.create({ name: 'web', image: 'nginx' })
    let n = 0
    const done = new Promise<void>((resolve) =>
      ws.addEventListener('message', (e) => {
        ctx.log.push(`message ${JSON.parse(String(e.data)).Action}`)
        if (++n === 1) {
          setImmediate(() => ctx.log.push('setImmediate from the listener'))
          void Promise.resolve().then(() => {
            ctx.log.push('microtask: stop')
            c.stop()
          })
        } else resolve()
      }),
    )
    c.start()
    await done
    await turn()
    ws.close()
    await closed
  },
  async 'timing: open, a refused handshake, a drop, bufferedAmount and a too-big message, per setImmediate, in each phase'(ctx) {
    for (const phase of Object.keys(PHASES)) {
      for (const what of ['open', 'refused', 'drop', 'send', 'send Blob', 'too big']) {
        const { ws, closed } = await openSocket(ctx)
        let target = ws
        const events: string[] = []
        const states = await perTurn(
          phase,
          () => {
            if (what === 'open' || what === 'refused') {
              target = new ctx.WS(ctx.base + (what === 'open' ? '/events/ws' : BAD_FILTER))
              for (const type of ['open', 'error', 'close']) target.addEventListener(type, () => events.push(`${type}@${target.readyState}`))
            } else if (what === 'drop') ctx.fake.dropSockets()
            else if (what === 'send') ws.send('hello')
            else if (what === 'send Blob') {
              ws.send(new Blob(['blob']))
              ws.send('after')
            } else ws.send('x'.repeat(70_000))
          },
          () => `${target.readyState}/${target.bufferedAmount}${events.length ? `[${events.splice(0).join(',')}]` : ''}`,
        )
        ctx.log.push(`${phase} ${what}: ${states}`)
        if (target !== ws) {
          target.close()
          if (target.readyState !== target.CLOSED) await new Promise((resolve) => target.addEventListener('close', resolve))
        }
        ws.close()
        await closed
      }
    }
  },

  // 3. Cloning.
  async 'structuredClone and postMessage of the socket and of its events throw DataCloneError'(ctx) {
    const { ws, closed } = await openSocket(ctx, '/events/ws?filters={"event":["start"]}')
    const { port1, port2 } = new MessageChannel()
    const clone = (label: string, v: unknown) => {
      ctx.log.push(`structuredClone(${label}) ${attempt(() => structuredClone(v))}`)
      ctx.log.push(`postMessage(${label}) ${attempt(() => port1.postMessage(v))}`)
    }
    clone('ws', ws)
    const message = new Promise<Event>((resolve) => ws.addEventListener('message', resolve, { once: true }))
    ctx.fake.containers.create({ name: 'web', image: 'nginx' }).start()
    clone('message event', await message)
    const closing = new Promise<Event>((resolve) => ws.addEventListener('close', resolve))
    ws.close()
    clone('close event', await closing)
    await closed
    const refused = new ctx.WS(ctx.base + BAD_FILTER)
    clone('connecting ws', refused)
    clone('error event', await new Promise<Event>((resolve) => refused.addEventListener('error', resolve)))
    port1.close()
    port2.close()
  },

  // 4. Receiver checks.
  async "receiver checks: every attribute and method of the prototype on a foreign object: 'Illegal invocation', ERR_INVALID_THIS"(ctx) {
    const proto = ctx.WS.prototype
    const names = Object.getOwnPropertyNames(proto).filter((n) => n !== 'constructor' && n !== 'handshake' && !/^[A-Z]+$/.test(n))
    for (const receiver of [{}, Object.create(proto), null, undefined]) {
      for (const name of names.sort()) {
        const d = Object.getOwnPropertyDescriptor(proto, name)!
        if (d.get) ctx.log.push(`get ${name} on ${show(receiver)}: ${attempt(() => d.get!.call(receiver))}`)
        if (d.set) ctx.log.push(`set ${name} on ${show(receiver)}: ${attempt(() => d.set!.call(receiver, null))}`)
        if (typeof d.value === 'function') ctx.log.push(`${name}() on ${show(receiver)}: ${attempt(() => d.value.call(receiver, 1000))}`)
      }
    }
  },

  // 5. undici's WebSocketInit.headers.
  async "sub-protocols from WebSocketInit.headers: offered with the client's own Sec-WebSocket-Protocol, as undici combines them"(ctx) {
    const cases: [string, unknown][] = [
      ['headers only', { headers: { 'Sec-WebSocket-Protocol': 'hdr' } }],
      ['headers and protocols', { headers: { 'sec-websocket-protocol': 'hdr' }, protocols: ['a', 'b'] }],
      ['a list in the header', { headers: { 'Sec-WebSocket-Protocol': ' x, y ' } }],
      ['a Headers object', { headers: new Headers({ 'Sec-WebSocket-Protocol': 'from-headers' }) }],
      ['pairs', { headers: [['Sec-WebSocket-Protocol', 'p1'], ['sec-websocket-protocol', 'p2']] }],
      ['other headers', { headers: { 'x-trace': 'abc' }, protocols: 'solo' }],
      ['an invalid token in the header', { headers: { 'Sec-WebSocket-Protocol': 'a b' } }],
      ['the same protocol in both', { headers: { 'Sec-WebSocket-Protocol': 'a' }, protocols: ['a'] }],
      ['an empty header', { headers: { 'Sec-WebSocket-Protocol': '' } }],
      ['null headers', { headers: null, protocols: ['n'] }],
    ]
    for (const [label, init] of cases) {
      const before = ctx.fake.requests.list().length
      const ws = new ctx.WS(`${ctx.base}/events/ws`, init as string[])
      const events: string[] = []
      await new Promise<void>((resolve) => {
        for (const type of ['open', 'error', 'close']) {
          ws.addEventListener(type, (e) => {
            events.push(type === 'close' ? `close ${(e as CloseEvent).code}` : type)
            if (type !== 'error') resolve()
          })
        }
      })
      const request = ctx.fake.requests.list()[before]
      ctx.log.push(`${label}: ${events.join(',')} protocol=${show(ws.protocol)} sent=${show(request?.headers['sec-websocket-protocol'])} x-trace=${show(request?.headers['x-trace'])}`)
      if (ws.readyState === ws.OPEN) {
        ws.close()
        await new Promise((resolve) => ws.addEventListener('close', resolve))
      }
    }
    await journal(ctx)
  },

  // 6. The constructor's conversions and the class itself.
  async "constructor arguments: undici's conversion messages, in undici's order"(ctx) {
    const sym = Symbol('s')
    const order: string[] = []
    const spy = {
      get protocols() {
        order.push('protocols')
        return ['p']
      },
      get headers() {
        order.push('headers')
        return { a: 'b' }
      },
      get dispatcher() {
        order.push('dispatcher')
        return undefined
      },
    }
    const bad = 'http://[' // not a URL
    const cases: [string, unknown[]][] = [
      ['url symbol', [sym]],
      ['protocols symbol', ['<base>', sym]],
      ['protocols [symbol]', ['<base>', [sym]]],
      ['protocols ["a", symbol]', ['<base>', ['a', sym]]],
      ['{ protocols: symbol }', ['<base>', { protocols: sym }]],
      ['{ protocols: [symbol] }', ['<base>', { protocols: [sym] }]],
      ['{ headers: { k: symbol } }', ['<base>', { headers: { 'sec-websocket-protocol': sym } }]],
      ['{ headers: { [symbol]: v } }', ['<base>', { headers: { [sym]: 'v' } }]],
      ['{ headers: [[symbol, v]] }', ['<base>', { headers: [[sym, 'v']] }]],
      ['{ headers: [5] }', ['<base>', { headers: [5] }]],
      ['{ headers: 5 }', ['<base>', { headers: 5 }]],
      ['{ headers: "x" }', ['<base>', { headers: 'x' }]],
      ['{ headers: [["a"]] }', ['<base>', { headers: [['a']] }]],
      ['{ headers: { "a b": "x" } }', ['<base>', { headers: { 'a b': 'x' } }]],
      ['{ headers: { a: "é€" } }', ['<base>', { headers: { a: 'é€' } }]],
      ['bad url with { headers: [["a"]] }', [bad, { headers: [['a']] }]],
      ['bad url with { headers: [[symbol]] }', [bad, { headers: [[sym]] }]],
      ['{ protocols: symbol, headers: 5 }', ['<base>', { protocols: sym, headers: 5 }]],
      ['a function', ['<base>', Object.assign(() => {}, { protocols: 'fn' })]],
      ['{ protocols: {} }', ['<base>', { protocols: {} }]],
      ['a throwing iterator', ['<base>', { [Symbol.iterator]: () => ({ next: () => { throw new RangeError('iterating') } }) }]],
      ['an iterator with no next', ['<base>', { [Symbol.iterator]: () => ({}) }]],
    ]
    for (const [label, args] of cases) {
      const real = args.map((a) => (a === '<base>' ? `${ctx.base}/events/ws` : a))
      ctx.log.push(`${label}: ${attempt(() => {
        const ws = new (ctx.WS as unknown as new (...a: unknown[]) => WebSocket)(...real)
        ws.addEventListener('error', () => {})
        ws.close()
        return ws.readyState
      })}`)
    }
    const ws = new ctx.WS(`${ctx.base}/events/ws`, spy as unknown as string[])
    ctx.log.push(`dictionary read in the order ${order.join(', ')}`)
    await new Promise((resolve) => ws.addEventListener('open', resolve))
    ws.close()
    await new Promise((resolve) => ws.addEventListener('close', resolve))
  },
  async 'the class: its name in V8 messages and toString, called without new, own properties'(ctx) {
    const WS = ctx.WS as unknown as { (url: string): unknown; prototype: object; name: string; length: number }
    // Node's class is `WebSocket` in undici's source; its bundler names it `_WebSocket` (see the bundle check below),
    // as tsup does ours. Here the source is compiled unbundled, so the underscore is the one allowed difference.
    const unbundled = (s: string) => s.replace(/\b_WebSocket\b/g, 'WebSocket')
    ctx.log.push(`toString ${unbundled(Function.prototype.toString.call(WS).split('{')[0])}`)
    ctx.log.push(`call ${unbundled(attempt(() => WS(`${ctx.base}/events/ws`)))}`)
    const ws = new ctx.WS(`${ctx.base}/events/ws`)
    ctx.log.push(`url = 1 ${unbundled(attempt(() => ((ws as unknown as { url: number }).url = 1)))}`)
    ctx.log.push(`name ${WS.name} length ${WS.length} own ${Object.getOwnPropertyNames(WS).join(',')} prototype of the class is EventTarget ${Object.getPrototypeOf(WS) === EventTarget}`)
    const proto = WS.prototype as Record<string, unknown>
    for (const name of ['close', 'send']) {
      const fn = proto[name] as (...a: unknown[]) => unknown
      ctx.log.push(`${name}: name ${fn.name} length ${fn.length}`)
    }
    for (const name of ['onopen', 'readyState']) {
      const d = Object.getOwnPropertyDescriptor(proto, name)!
      ctx.log.push(`${name}: get ${d.get?.name} set ${d.set?.name} enumerable ${d.enumerable} configurable ${d.configurable}`)
    }
    await new Promise((resolve) => ws.addEventListener('open', resolve))
    ws.close()
    await new Promise((resolve) => ws.addEventListener('close', resolve))
  },
}

/**
 * Documented departures (docs/in-process.md): the in-process transcript must be `inProcess`, and Node's must still
 * differ from it (else the departure is gone: remove it here and in the doc).
 */
const DEPARTURES: Record<string, { why: string; run: (ctx: Ctx) => Promise<void>; inProcess: Line[] }> = {
  'the class has its own Symbol.hasInstance': {
    why: "a socket to a host that is not hooked is Node's own, and still instanceof the hooked global WebSocket",
    async run(ctx) {
      ctx.log.push(`own symbols ${Object.getOwnPropertySymbols(ctx.WS).map(String).join(',')}`)
    },
    inProcess: ['own symbols Symbol(Symbol.hasInstance)'],
  },
  "a message event's prototype is not MessageEvent.prototype itself": {
    why: "Node's MessageEvent constructor converts its init dictionary (~2 µs an event); a subclass-by-prototype costs a plain Event",
    async run(ctx) {
      const { ws, closed } = await openSocket(ctx, '/events/ws?filters={"event":["start"]}')
      const message = new Promise<MessageEvent>((resolve) => ws.addEventListener('message', resolve, { once: true }))
      ctx.fake.containers.create({ name: 'web', image: 'nginx' }).start()
      const e = await message
      ctx.log.push(`prototype is MessageEvent.prototype ${Object.getPrototypeOf(e) === MessageEvent.prototype} instanceof ${e instanceof MessageEvent} tag ${Object.prototype.toString.call(e)} constructor ${e.constructor === MessageEvent}`)
      ws.close()
      await closed
    },
    inProcess: ['ws open state=1', 'ws message state=1', 'prototype is MessageEvent.prototype false instanceof true tag [object MessageEvent] constructor true', 'ws close state=3 code=1005 reason="" wasClean=true'],
  },
}

describe("the in-process WebSocket is Node's own, side by side with the real server: crossing closes, frame order, names", () => {
  for (const [name, run] of Object.entries(scenarios)) {
    it(name, async () => {
      const node = await transcript(run, 'server')
      const inProcess = await transcript(run, 'in-process')
      expect(inProcess).toEqual(node)
    })
  }

  for (const [name, { why, run, inProcess: expected }] of Object.entries(DEPARTURES)) {
    it(`${name} [documented departure: ${why}]`, async () => {
      const node = await transcript(run, 'server')
      const inProcess = await transcript(run, 'in-process')
      expect(inProcess).toEqual(expected)
      expect(node, 'Node now does the same: remove this departure').not.toEqual(inProcess)
    })
  }

  it('the timing scenarios give the same transcripts run after run (the order is deterministic on both ways)', async () => {
    const name = 'timing: open, a refused handshake, a drop, bufferedAmount and a too-big message, per setImmediate, in each phase'
    const first = await transcript(scenarios[name], 'in-process')
    for (let i = 0; i < 3; i++) {
      expect(await transcript(scenarios[name], 'in-process')).toEqual(first)
      expect(await transcript(scenarios[name], 'server')).toEqual(first)
    }
  })

  it("bundled as the package is (esbuild, as tsup), the class is named `_WebSocket` as in Node's bundle", async () => {
    const entry = fileURLToPath(new URL('../../../../src/transports/intercept/websocket.ts', import.meta.url))
    const out = await build({ entryPoints: [entry], bundle: true, write: false, platform: 'node', format: 'esm', target: 'node22', packages: 'external', logLevel: 'silent' })
    const code = out.outputFiles[0].text
    expect(code).toMatch(/= class _WebSocket extends EventTarget \{/)
    expect(String(NodeWebSocket).split('{')[0]).toBe('class _WebSocket extends EventTarget ')
  })
})
