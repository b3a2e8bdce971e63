import { afterEach } from 'vitest'
import { createDockside, type Dockside } from '../../src/index'

// The harness of the side-by-side WebSocket tests (test/ways-in/intercept/websocket-parity*.test.ts): a client script runs
// with Node's own WebSocket against the fake's real server on 127.0.0.1 and with the in-process class, and the two
// transcripts are compared.

/** Node's own WebSocket, before any hook replaces the global one. */
export const NodeWebSocket = globalThis.WebSocket

export type Line = string
export interface Ctx {
  WS: typeof WebSocket
  /** `ws://<host>` of this way in; `http` the same with `http:`. */
  base: string
  http: string
  fake: Dockside
  log: Line[]
}

const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

/** One value as a transcript shows it: strings quoted, objects by class. */
export function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v)
  if (typeof v === 'symbol') return v.toString()
  if (v === null || v === undefined || typeof v !== 'object') return String(v)
  if (Array.isArray(v)) return `[${v.map(show).join(',')}]`
  return `<${Object.prototype.toString.call(v)} ${(v as object).constructor?.name}>`
}

/** The transcript of `run` on one way in: the server with Node's WebSocket (or `WS`), or the in-process class. */
export async function transcript(run: (ctx: Ctx) => Promise<void>, way: 'server' | 'in-process', WS?: typeof WebSocket): Promise<Line[]> {
  const fake = createDockside({ seed: 13 })
  open.push(fake)
  const log: Line[] = []
  if (way === 'server') {
    await using server = await fake.listen({ port: 0 })
    const base = server.wsUrl.replace(/\/$/, '')
    await run({ WS: WS ?? NodeWebSocket, base, http: base.replace(/^ws/, 'http'), fake, log })
    return log.map((l) => l.replaceAll(base, '<base>').replaceAll(base.replace(/^ws/, 'http'), '<http>'))
  }
  await using hooks = await fake.intercept({ baseUrl: 'http://in-process.test' })
  const base = hooks.wsBaseUrl
  await run({ WS: (WS ?? hooks.WebSocket) as unknown as typeof WebSocket, base, http: hooks.baseUrl, fake, log })
  return log.map((l) => l.replaceAll(base, '<base>').replaceAll(hooks.baseUrl, '<http>'))
}

/** One turn of the event loop (a setImmediate). */
export const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Opens a socket whose events `watch` records (its promise resolves on close), and waits for its `open`, or its `close`
 * when refused.
 */
export async function openWatched(ctx: Ctx, watch: (ctx: Ctx, ws: WebSocket) => Promise<void>, path = '/events/ws', protocols?: string | string[]) {
  const ws = new ctx.WS(ctx.base + path, protocols)
  const closed = watch(ctx, ws)
  await new Promise<void>((resolve) => {
    ws.addEventListener('open', () => resolve())
    ws.addEventListener('close', () => resolve())
  })
  return { ws, closed }
}

/** Waits until the fake has seen every socket it opened closed (the server sees a close some turns after its client). */
export async function untilFakeSawCloses(ctx: Ctx) {
  for (let i = 0; i < 1000 && ctx.fake.journal.ofType('ws.close').length < ctx.fake.journal.ofType('ws.open').length; i++) await turn()
}

/**
 * An exception as a client sees it: class, name, code and message. `sameReceiver`: `#<Class>` receivers in messages
 * read `#<WebSocket>` (V8 names them by the class's source name, `#<_WebSocket>` in Node's bundle).
 */
export function thrown(e: unknown, sameReceiver = false): string {
  const err = e as Error & { code?: unknown }
  const message = sameReceiver ? String(err?.message).replace(/#<\w+>/g, '#<WebSocket>') : err?.message
  return `throws ${err?.constructor?.name}(${err?.name}, code ${String(err?.code)}: ${message})`
}

/** What `fn` returned, or what it threw ({@link thrown}). */
export function attempt(fn: () => unknown, sameReceiver = false): string {
  try {
    return `-> ${show(fn())}`
  } catch (e) {
    return thrown(e, sameReceiver)
  }
}

/** Records the events of `ws`: type, readyState at dispatch and, for close, code, reason and wasClean; resolves on close. */
export function watchStates(ctx: Ctx, ws: WebSocket, name = 'ws'): Promise<void> {
  return new Promise<void>((resolve) => {
    for (const type of ['open', 'message', 'error', 'close']) {
      ws.addEventListener(type, (e: Event) => {
        const c = e as CloseEvent
        ctx.log.push(`${name} ${type} state=${ws.readyState}${type === 'close' ? ` code=${c.code} reason=${show(c.reason)} wasClean=${c.wasClean}` : ''}`)
        if (type === 'close') resolve()
      })
    }
  })
}
