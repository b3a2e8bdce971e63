import { getEventListeners } from 'node:events'
import { inspect } from 'node:util'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { attempt as attemptAs, openWatched, show, transcript, turn, untilFakeSawCloses, type Ctx } from '../../../support/ws-parity'

// Side by side, as test/ways-in/intercept/websocket-parity*.test.ts: the same client script with Node's own WebSocket (undici)
// against the real server on 127.0.0.1 and with the in-process class; the transcripts must be equal. Here:
// what the first two do not cover (handler and listener options, synthetic events, the client's own nextTick and
// microtasks against events, what the socket and its events show to util.inspect and JSON, send() of every kind of
// value, the fake's close fault after N messages, listeners kept after close). No sleeps: every wait is an event or
// a setImmediate turn.
// Found by the third WebSocket parity review (was test/intercept/websocket-parity-review-3.test.ts).

const attempt = (fn: () => unknown) => attemptAs(fn, true)

/** An event as a client reads it. */
function describeEvent(e: Event): string {
  const parts = [`${e.type} class=${e.constructor.name} trusted=${e.isTrusted} timeStamp=${typeof e.timeStamp}`]
  if (e instanceof MessageEvent) parts.push(`data=${typeof e.data}:${show(e.data)} origin=${show(e.origin)} lastEventId=${show(e.lastEventId)}`)
  if (e.type === 'close') {
    const c = e as CloseEvent
    parts.push(`code=${c.code} reason=${show(c.reason)} wasClean=${c.wasClean}`)
  }
  return parts.join(' ')
}

/** Records every event of `ws` with readyState and bufferedAmount at dispatch; resolves on close. */
function watch(ctx: Ctx, ws: WebSocket, name = 'ws') {
  return new Promise<void>((resolve) => {
    for (const type of ['open', 'message', 'error', 'close']) {
      ws.addEventListener(type, (e: Event) => {
        ctx.log.push(`${name} ${describeEvent(e)} state=${ws.readyState} buffered=${ws.bufferedAmount}`)
        if (type === 'close') resolve()
      })
    }
  })
}

const openSocket = (ctx: Ctx, path?: string, protocols?: string | string[]) => openWatched(ctx, watch, path, protocols)

const journal = untilFakeSawCloses

const FILTER_START = '/events/ws?filters={"event":["start"]}'

/** A normalised `util.inspect` (the port of the real server's URL is already replaced by `transcript`). */
const inspected = (v: unknown) => inspect(v, { depth: 1, breakLength: Infinity }).replace(/timeStamp: [\d.]+/, 'timeStamp: <n>')

const scenarios: Record<string, (ctx: Ctx) => Promise<void>> = {
  async 'attributes at each step: url, protocol, extensions, binaryType, readyState, bufferedAmount'(ctx) {
    const ws = new ctx.WS(ctx.base + '/events/ws', ['dockside.v1'])
    const probe = (label: string) =>
      ctx.log.push(`${label}: url=${ws.url} protocol=${show(ws.protocol)} extensions=${show(ws.extensions)} binaryType=${ws.binaryType} state=${ws.readyState} buffered=${ws.bufferedAmount}`)
    probe('constructed')
    const closed = watch(ctx, ws)
    await new Promise((resolve) => ws.addEventListener('open', resolve))
    probe('open')
    ws.close(4001, 'bye')
    probe('closing')
    await closed
    probe('closed')
  },
  async 'send() of every kind of value: bufferedAmount, exceptions, and the socket stays open'(ctx) {
    const { ws, closed } = await openSocket(ctx)
    const values: [string, () => unknown][] = [
      ['"text"', () => 'text'],
      ['""', () => ''],
      ['42', () => 42],
      ['null', () => null],
      ['{}', () => ({})],
      ['[1,2]', () => [1, 2]],
      ['Symbol', () => Symbol('s')],
      ['ArrayBuffer(5)', () => new ArrayBuffer(5)],
      ['SharedArrayBuffer(6)', () => new SharedArrayBuffer(6)],
      ['Uint8Array(7)', () => new Uint8Array(7)],
      ['Float64Array(2)', () => new Float64Array(2)],
      ['DataView(3)', () => new DataView(new ArrayBuffer(3))],
      ['DataView on a SharedArrayBuffer', () => new DataView(new SharedArrayBuffer(3))],
      ['ArrayBuffer of another realm', () => runInNewContext('new ArrayBuffer(9)')],
      ['Uint8Array of another realm', () => runInNewContext('new Uint8Array(11)')],
      ['Uint8Array on a SharedArrayBuffer', () => new Uint8Array(new SharedArrayBuffer(4))],
      ['a subarray', () => new Uint8Array(10).subarray(2, 5)],
      ['Buffer', () => Buffer.from('buf')],
      ['Blob(3)', () => new Blob(['abc'])],
      ['lone surrogate', () => '\ud800'],
      ['an object with toString', () => ({ toString: () => 'custom' })],
    ]
    for (const [label, value] of values) {
      ctx.log.push(`send(${label}) ${attempt(() => ws.send(value() as string))} state=${ws.readyState} buffered=${ws.bufferedAmount}`)
    }
    for (let i = 0; i < 100 && ws.bufferedAmount > 0; i++) await turn()
    ctx.log.push(`drained buffered=${ws.bufferedAmount}`)
    ws.close()
    await closed
  },
  async 'send() before open, in CLOSING and CLOSED: exceptions and bufferedAmount'(ctx) {
    const ws = new ctx.WS(ctx.base + '/events/ws')
    const closed = watch(ctx, ws)
    ctx.log.push(`send before open ${attempt(() => ws.send('early'))} buffered=${ws.bufferedAmount}`)
    ctx.log.push(`send() before open ${attempt(() => (ws.send as () => void)())}`)
    ctx.log.push(`send(Symbol) before open ${attempt(() => ws.send(Symbol('x') as unknown as string))}`)
    await new Promise((resolve) => ws.addEventListener('open', resolve))
    ws.close()
    ctx.log.push(`send in CLOSING ${attempt(() => ws.send('abc'))} buffered=${ws.bufferedAmount}`)
    ctx.log.push(`send Blob in CLOSING ${attempt(() => ws.send(new Blob(['abcd'])))} buffered=${ws.bufferedAmount}`)
    await closed
    ctx.log.push(`send in CLOSED ${attempt(() => ws.send('abcdef'))} buffered=${ws.bufferedAmount}`)
    ctx.log.push(`send(Symbol) in CLOSED ${attempt(() => ws.send(Symbol('x') as unknown as string))}`)
  },
  async 'bad URLs and protocols: class, name, code and message'(ctx) {
    const host = ctx.base.replace(/^ws:\/\//, '')
    const urls = [
      '',
      ' ',
      'ws://',
      'ws://[::1',
      `${ctx.base}/events/ws#`,
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/plain,x',
      `ws://user:pass@${host}/events/ws`,
      `WS://${host}/events/ws`,
      `  ${ctx.base}/events/ws  `,
      `${ctx.base}/events/ws?a=1#b`,
    ]
    for (const url of urls) {
      ctx.log.push(`new WebSocket(${show(url.replaceAll(host, '<host>'))}) ${attempt(() => {
        const ws = new ctx.WS(url)
        ws.addEventListener('error', () => {})
        const out = `url=${ws.url.replaceAll(host, '<host>')}`
        ws.close()
        return out
      })}`)
    }
    const protocols: unknown[] = ['', [''], ['a', ''], 'a,b', ['a,b'], 'é', ['a', 'A'], ['(x)'], [' a'], 42, [42, 42], null, [null], ['undefined', undefined], new Set(['s1', 's2']), 'x'.repeat(300)]
    for (const p of protocols) {
      ctx.log.push(`protocols ${show(p)} ${attempt(() => {
        const ws = new ctx.WS(`${ctx.base}/events/ws`, p as string[])
        ws.addEventListener('error', () => {})
        ws.close()
        return 'constructed'
      })}`)
    }
  },
  async 'close() arguments: bad codes and reasons, in each state'(ctx) {
    const { ws, closed } = await openSocket(ctx)
    const args: unknown[][] = [[999], [1001], [2999], [5000], [-1], [65536 + 1000], ['3000'], ['abc'], [null], [Infinity], [1000, 'x'.repeat(124)], [1000, 'é'.repeat(62)], [1000, 'é'.repeat(61) + 'x'], [3000, null], [3000, {}], [Symbol('c')], [3000, Symbol('r')]]
    for (const a of args) {
      ctx.log.push(`close(${a.map(show).join(', ')}) ${attempt(() => (ws.close as (...x: unknown[]) => void)(...a))} state=${ws.readyState}`)
      if (ws.readyState !== ws.OPEN) break
    }
    ws.close(3999, 'fine')
    ctx.log.push(`after close state=${ws.readyState} again ${attempt(() => ws.close(999))} ${attempt(() => ws.close(1000, 'x'.repeat(200)))}`)
    await closed
    ctx.log.push(`closed: close(999) ${attempt(() => ws.close(999))} close(4000) ${attempt(() => ws.close(4000))}`)
    await turn()
  },
  async 'addEventListener options: once, signal (aborted before and after), capture, duplicates, passive'(ctx) {
    const ws = new ctx.WS(ctx.base + '/events/ws')
    const closed = watch(ctx, ws)
    const ac = new AbortController()
    const aborted = AbortSignal.abort()
    const record = (label: string) => (e: Event) => ctx.log.push(`${label} ${e.type} state=${ws.readyState}`)
    const shared = record('shared')
    ws.addEventListener('open', record('once'), { once: true })
    ws.addEventListener('open', record('signal'), { signal: ac.signal })
    ws.addEventListener('open', record('pre-aborted'), { signal: aborted })
    ws.addEventListener('open', shared)
    ws.addEventListener('open', shared)
    ws.addEventListener('open', shared, { capture: true })
    ws.addEventListener('close', shared, true)
    ws.addEventListener('close', shared, { capture: true, once: true })
    ws.addEventListener('close', (e) => {
      e.preventDefault()
      ctx.log.push(`passive defaultPrevented=${e.defaultPrevented}`)
    }, { passive: true })
    ctx.log.push(`addEventListener(open) with a string ${attempt(() => ws.addEventListener('open', 'x' as unknown as EventListener))}`)
    ws.addEventListener('message', record('removed by abort'), { signal: ac.signal })
    await new Promise((resolve) => ws.addEventListener('open', resolve))
    ac.abort()
    ws.dispatchEvent(new Event('open'))
    ws.removeEventListener('open', shared, { capture: true })
    ws.dispatchEvent(new Event('open'))
    ws.close()
    await closed
  },
  async 'onX handlers: replacing, non-function values, this, return values, handleEvent objects, order against listeners'(ctx) {
    const { ws, closed } = await openSocket(ctx, FILTER_START)
    ws.addEventListener('message', () => ctx.log.push('listener 1'))
    ws.onmessage = () => ctx.log.push('onmessage first')
    ws.addEventListener('message', () => ctx.log.push('listener 2'))
    ws.onmessage = function (this: unknown, e) {
      ctx.log.push(`onmessage second this=${this === ws} arg=${e instanceof MessageEvent}`)
      return false
    }
    const handler = { handleEvent: () => ctx.log.push('handleEvent of an onclose object ran') }
    ;(ws as unknown as { onclose: unknown }).onclose = handler
    ctx.log.push(`onclose is the object ${ws.onclose === (handler as unknown)}`)
    for (const v of [undefined, 0, 'code', true, Symbol('h')]) {
      ctx.log.push(`onerror = ${show(v)} ${attempt(() => ((ws as unknown as { onerror: unknown }).onerror = v))} -> ${show(ws.onerror)}`)
    }
    const fn = () => ctx.log.push('fn as both listener and onopen')
    ws.addEventListener('open', fn)
    ws.onopen = fn
    ws.onopen = null
    ws.dispatchEvent(new Event('open'))
    const message = new Promise((resolve) => ws.addEventListener('message', resolve, { once: true }))
    ctx.fake.containers.create({ name: 'web', image: 'nginx' }).start()
    await message
    const proto = Object.getPrototypeOf(ws) as object
    ctx.log.push(`onmessage getter via another socket's prototype ${attempt(() => Object.getOwnPropertyDescriptor(proto, 'onmessage')!.get!.call(ws) !== null)}`)
    ws.close()
    await closed
  },
  async 'dispatchEvent of synthetic events: handlers run, readyState untouched, isTrusted false'(ctx) {
    const { ws, closed } = await openSocket(ctx)
    ws.onclose = (e) => ctx.log.push(`onclose ${describeEvent(e)}`)
    ws.onmessage = (e) => ctx.log.push(`onmessage ${describeEvent(e)}`)
    ws.onerror = (e) => ctx.log.push(`onerror ${e.constructor.name}`)
    ctx.log.push(`dispatch close ${attempt(() => ws.dispatchEvent(new CloseEvent('close', { code: 4321, reason: 'fake', wasClean: true })))} state=${ws.readyState}`)
    ctx.log.push(`dispatch message ${attempt(() => ws.dispatchEvent(new MessageEvent('message', { data: 'synthetic', origin: 'x' })))}`)
    ctx.log.push(`dispatch error ${attempt(() => ws.dispatchEvent(new Event('error')))}`)
    ctx.log.push(`dispatch cancelable ${attempt(() => ws.dispatchEvent(Object.assign(new Event('open', { cancelable: true }))))}`)
    ctx.log.push(`dispatch a non-event ${attempt(() => ws.dispatchEvent({ type: 'open' } as Event))}`)
    const e = new Event('open')
    ws.dispatchEvent(e)
    ctx.log.push(`redispatch ${attempt(() => ws.dispatchEvent(e))}`)
    ws.close()
    await closed
  },
  async "the client's own microtasks, nextTick, setImmediate and setTimeout(0) against open, messages and close"(ctx) {
    const ws = new ctx.WS(ctx.base + FILTER_START)
    const tag = (label: string) => {
      process.nextTick(() => ctx.log.push(`${label}: nextTick`))
      void Promise.resolve().then(() => ctx.log.push(`${label}: microtask`))
      queueMicrotask(() => ctx.log.push(`${label}: queueMicrotask`))
      setImmediate(() => ctx.log.push(`${label}: setImmediate`))
    }
    tag('constructor')
    const closed = new Promise<void>((resolve) => {
      for (const type of ['open', 'message', 'error', 'close']) {
        ws.addEventListener(type, (e) => {
          ctx.log.push(`${type}${type === 'message' ? ` ${JSON.parse(String((e as MessageEvent).data)).Actor.Attributes.name}` : ''}`)
          tag(`in ${type}`)
          if (type === 'close') resolve()
        })
      }
    })
    await new Promise((resolve) => ws.addEventListener('open', resolve))
    const done = new Promise<void>((resolve) => {
      let n = 0
      ws.addEventListener('message', () => ++n === 3 && resolve())
    })
    for (const name of ['a', 'b', 'c']) ctx.fake.containers.create({ name, image: 'nginx' }).start()
    await done
    await turn()
    ws.close(1000)
    await closed
    await turn()
    for (const what of ['refused', 'drop', 'server close']) {
      const other = new ctx.WS(ctx.base + (what === 'refused' ? '/events/ws?filters=%7B%22event%22%3A%5B%22nope%22%5D%7D' : '/events/ws'))
      await new Promise<void>((resolve) => {
        for (const type of ['open', 'error', 'close']) {
          other.addEventListener(type, () => {
            ctx.log.push(`${what}: ${type}`)
            tag(`${what}: in ${type}`)
            if (type === 'open') {
              if (what === 'drop') ctx.fake.dropSockets()
              else ctx.fake.closeSockets(4000, 'bye')
            }
            if (type === 'close') setImmediate(resolve)
          })
        }
      })
    }
  },
  async 'util.inspect, Object.keys, JSON.stringify and toString of the socket and of its events'(ctx) {
    const { ws, closed } = await openSocket(ctx, FILTER_START)
    const show3 = (label: string, v: object) => {
      ctx.log.push(`${label} keys=${Object.keys(v).join(',')} json=${attempt(() => JSON.stringify(v))} string=${String(v)}`)
      ctx.log.push(`${label} inspect=${inspected(v)}`)
    }
    show3('socket', ws)
    const message = new Promise<MessageEvent>((resolve) => ws.addEventListener('message', resolve, { once: true }))
    ctx.fake.containers.create({ name: 'web', image: 'nginx' }).start()
    const m = await message
    ctx.log.push(`message event keys=${Object.keys(m).join(',')} for-in=${Object.entries(Object.getOwnPropertyDescriptors(Object.getPrototypeOf(m))).filter(([, d]) => d.enumerable).map(([k]) => k).join(',')}`)
    ctx.log.push(`message event json=${JSON.stringify(m)} string=${String(m)}`)
    ctx.log.push(`message event inspect=${inspected(m).replace(/data: '.*?',/, "data: '…',")}`)
    const closing = new Promise<CloseEvent>((resolve) => ws.addEventListener('close', resolve as (e: Event) => void))
    ws.close(4000, 'bye')
    const c = await closing
    show3('close event', c)
    await closed
    const refused = new ctx.WS(ctx.base + '/events/ws?filters=%7B%22event%22%3A%5B%22nope%22%5D%7D')
    const err = new Promise<ErrorEvent>((resolve) => refused.addEventListener('error', resolve as (e: Event) => void))
    await new Promise((resolve) => refused.addEventListener('close', resolve))
    show3('error event', await err)
    ctx.log.push(`error.error inspect=${inspect((await err).error).split('\n')[0]}`)
  },
  async 'the events endpoint ignores binary messages of every kind and an empty one; closes 1009 on one too big'(ctx) {
    const { ws, closed } = await openSocket(ctx, FILTER_START)
    ws.send(new Uint8Array([1, 2, 3]))
    ws.send(new Blob([new Uint8Array(4)]))
    ws.send('')
    ws.send(new ArrayBuffer(0))
    const message = new Promise((resolve) => ws.addEventListener('message', resolve, { once: true }))
    ctx.fake.containers.create({ name: 'web', image: 'nginx' }).start()
    await message
    ws.send(new Uint8Array(2 ** 20))
    ctx.log.push(`after the big send state=${ws.readyState} buffered=${ws.bufferedAmount}`)
    await closed
    ctx.log.push(`journal ${ctx.fake.journal.ofType('ws.close').map((e) => `${e.by} ${e.code}`).join(',')}`)
  },
  async 'a close fault after 2 messages: the messages, then the close frame, with the client\'s send in between'(ctx) {
    ctx.fake.faults.add({ on: 'events', close: { code: 4000, reason: 'chaos: forced close' }, afterMessages: 2, times: 1 } as never)
    const { ws, closed } = await openSocket(ctx)
    let n = 0
    ws.addEventListener('message', () => {
      ctx.log.push(`message ${++n}: send ${attempt(() => ws.send('ack'))} state=${ws.readyState} buffered=${ws.bufferedAmount}`)
    })
    const c = ctx.fake.containers.create({ name: 'web', image: 'nginx' })
    c.start()
    c.stop()
    c.start()
    await closed
    const again = await openSocket(ctx)
    again.ws.close()
    await again.closed
  },
  async 'restart, closeSockets and dropSockets with several sockets open: the order of their events'(ctx) {
    for (const act of ['restart', 'closeSockets', 'dropSockets'] as const) {
      const a = await openSocket(ctx)
      const b = await openSocket(ctx, FILTER_START)
      ctx.log.push(`${act}`)
      if (act === 'restart') ctx.fake.restart()
      else if (act === 'closeSockets') ctx.fake.closeSockets(4100, 'é'.repeat(10))
      else ctx.fake.dropSockets()
      ctx.log.push(`right after: ${a.ws.readyState} ${b.ws.readyState}`)
      await Promise.all([a.closed, b.closed])
    }
  },
  async 'listeners kept after close: a synthetic event still reaches them; handlers can be cleared; close() is a no-op'(ctx) {
    const { ws, closed } = await openSocket(ctx)
    ws.onmessage = (e) => ctx.log.push(`onmessage after close: ${show(e.data)}`)
    ws.close()
    await closed
    ws.dispatchEvent(new MessageEvent('message', { data: 'late' }))
    ws.onmessage = null
    ws.dispatchEvent(new MessageEvent('message', { data: 'later' }))
    ctx.log.push(`close() when closed ${attempt(() => ws.close())} state=${ws.readyState}`)
    for (let i = 0; i < 5; i++) await turn()
    ctx.log.push('nothing more')
  },
  async 'close() or a server close from the first of three frames of one turn: which frames still arrive'(ctx) {
    for (const who of ['client', 'server', 'drop']) {
      const { ws, closed } = await openSocket(ctx)
      ws.addEventListener(
        'message',
        () => {
          if (who === 'client') ws.close(4000, 'enough')
          else if (who === 'server') ctx.fake.closeSockets(4001, 'enough')
          else ctx.fake.dropSockets()
          ctx.log.push(`${who} closed in the first message: state=${ws.readyState}`)
        },
        { once: true },
      )
      for (const name of ['a', 'b', 'c']) ctx.fake.containers.create({ name: `${who}-${name}`, image: 'nginx' }).start()
      await closed
    }
  },
  async 'send() and close() from the open listener, and close() from the error listener of a refused socket'(ctx) {
    const ws = new ctx.WS(ctx.base + '/events/ws')
    const closed = watch(ctx, ws)
    ws.onopen = () => {
      ws.send('hi')
      ctx.log.push(`in open after send buffered=${ws.bufferedAmount}`)
      ws.close(4002)
      ctx.log.push(`in open after close state=${ws.readyState} buffered=${ws.bufferedAmount}`)
    }
    await closed
    const refused = new ctx.WS(ctx.base + '/events/ws?filters=%7B%22event%22%3A%5B%22nope%22%5D%7D', ['p1'])
    const done = watch(ctx, refused, 'refused')
    refused.onerror = () => ctx.log.push(`close() in error ${attempt(() => refused.close(4003))} state=${refused.readyState} protocol=${show(refused.protocol)}`)
    await done
    ctx.log.push(`refused after close state=${refused.readyState} url=${refused.url} protocol=${show(refused.protocol)}`)
  },
  async 'restart, closeSockets and dropSockets while a socket is CONNECTING: it opens afterwards'(ctx) {
    for (const act of ['restart', 'closeSockets', 'dropSockets'] as const) {
      // The server sees the last socket's close some turns after its client does (and counts it until then).
      await journal(ctx)
      const ws = new ctx.WS(ctx.base + '/events/ws')
      const closed = watch(ctx, ws, act)
      if (act === 'restart') ctx.fake.restart()
      else if (act === 'closeSockets') ctx.log.push(`closed ${ctx.fake.closeSockets(4100)}`)
      else ctx.log.push(`dropped ${ctx.fake.dropSockets()}`)
      await new Promise((resolve) => ws.addEventListener('open', resolve))
      ws.close()
      await closed
    }
    await journal(ctx)
    for (const e of ctx.fake.journal.ofType('ws.close')) ctx.log.push(`journal ws.close by=${e.by} code=${e.code} reason=${show(e.reason)}`)
  },
  // Across sockets, Node's order of frames and closes arriving in one turn is the kernel's readiness order (with four
  // sockets: messages d, a, b, c; closes d, c, b, a), not the fake's send order: docs/in-process.md. Each socket's own
  // sequence is compared.
  async "two sockets opened in one turn and subscribed to the same events: each one's events"(ctx) {
    const a = new ctx.WS(ctx.base + '/events/ws')
    const b = new ctx.WS(ctx.base + '/events/ws')
    const logs: Ctx[] = [a, b].map(() => ({ ...ctx, log: [] }))
    const closed = [watch(logs[0], a, 'a'), watch(logs[1], b, 'b')]
    await Promise.all([a, b].map((ws) => new Promise((resolve) => ws.addEventListener('open', resolve))))
    const both = Promise.all([a, b].map((ws) => new Promise((resolve) => ws.addEventListener('message', resolve, { once: true }))))
    ctx.fake.containers.create({ name: 'web', image: 'nginx' }).start()
    await both
    b.close()
    a.close()
    await Promise.all(closed)
    ctx.log.push(...logs[0].log, ...logs[1].log)
  },
  async 'listeners the socket holds itself, per type, at each step (getEventListeners)'(ctx) {
    const counts = (ws: WebSocket) => ['open', 'message', 'error', 'close'].map((t) => `${t}:${getEventListeners(ws, t).length}`).join(' ')
    const ws = new ctx.WS(ctx.base + '/events/ws')
    ctx.log.push(`constructed ${counts(ws)}`)
    ws.onmessage = () => {}
    ws.onclose = () => {}
    ctx.log.push(`with two handlers ${counts(ws)}`)
    await new Promise((resolve) => ws.addEventListener('open', resolve, { once: true }))
    ctx.log.push(`open ${counts(ws)}`)
    const closed = new Promise((resolve) => ws.addEventListener('close', resolve, { once: true }))
    ws.close()
    await closed
    ctx.log.push(`closed ${counts(ws)}`)
    ws.onmessage = null
    ws.onclose = null
    ctx.log.push(`handlers cleared ${counts(ws)}`)
  },
  async 'URL objects and objects with toString as the URL'(ctx) {
    const inputs: [string, unknown][] = [
      ['URL', new URL(ctx.base + '/events/ws?x=1')],
      ['an object with toString', { toString: () => ctx.base + '/events/ws' }],
      ['URL with a hash', new URL(ctx.base + '/events/ws#h')],
    ]
    for (const [label, url] of inputs) {
      ctx.log.push(`${label}: ${attempt(() => {
        const ws = new ctx.WS(url as string)
        ws.addEventListener('error', () => {})
        ws.close()
        return ws.url
      })}`)
    }
  },
  async 'a client that reconnects from its close listener after a restart, closeSockets and a drop'(ctx) {
    for (const act of ['restart', 'closeSockets', 'dropSockets'] as const) {
      const { ws } = await openSocket(ctx)
      const reconnected = new Promise<void>((resolve) =>
        ws.addEventListener('close', () => {
          const again = new ctx.WS(ctx.base + '/events/ws')
          void watch(ctx, again, `${act} again`).then(resolve)
          again.addEventListener('open', () => again.close(), { once: true })
        }),
      )
      if (act === 'restart') ctx.fake.restart()
      else if (act === 'closeSockets') ctx.fake.closeSockets(4200, 'again')
      else ctx.fake.dropSockets()
      await reconnected
      await journal(ctx)
    }
    ctx.log.push(`journal requests ${ctx.fake.journal.ofType('request').map((r) => r.status).join(',')}`)
  },
  async 'binaryType on a CONNECTING and a CLOSED socket, and what it accepts'(ctx) {
    const ws = new ctx.WS(ctx.base + '/events/ws')
    const closed = watch(ctx, ws)
    for (const v of ['arraybuffer', 'BLOB', 'nodebuffer', 'fragments', '', null, 'blob']) {
      ctx.log.push(`binaryType = ${show(v)} ${attempt(() => ((ws as unknown as { binaryType: unknown }).binaryType = v))} -> ${ws.binaryType}`)
    }
    ws.binaryType = 'arraybuffer'
    ws.close()
    await closed
    ctx.log.push(`after close binaryType=${ws.binaryType}`)
  },
}

describe("the in-process WebSocket is Node's own, side by side with the real server: listener options, events, inspect, send()", () => {
  for (const [name, run] of Object.entries(scenarios)) {
    it(name, async () => {
      const node = await transcript(run, 'server')
      const inProcess = await transcript(run, 'in-process')
      expect(inProcess).toEqual(node)
    })
  }
})
