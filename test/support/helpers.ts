import { createDockside, type Dockside } from '../../src/index'

/** Reads a push (or events) response body as JSON lines. */
export async function readLines(res: Response): Promise<Record<string, unknown>[]> {
  const text = await res.text()
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)
}

/** Base64 of a JSON AuthConfig, as Docker clients send X-Registry-Auth. */
export const registryAuth = (value: unknown, url = false) => Buffer.from(JSON.stringify(value)).toString(url ? 'base64url' : 'base64')

export const enc = (filters: object) => encodeURIComponent(JSON.stringify(filters))

/**
 * Consumes a streaming body while advancing the virtual clock, so a push paced by the clock completes.
 * Returns the raw text.
 */
export async function drainWithClock(res: Response, advance: () => Promise<void>): Promise<string> {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let done = false
  const read = (async () => {
    for (;;) {
      const r = await reader.read()
      if (r.done) break
      text += decoder.decode(r.value, { stream: true })
    }
    done = true
  })()
  while (!done) {
    await advance()
    await new Promise((r) => setImmediate(r))
  }
  await read
  return text
}

/** Opens an events websocket with the global WebSocket: the socket, the messages it gets, and its close event. */
export async function openEvents(url: string): Promise<{ ws: WebSocket; messages: string[]; closed: Promise<CloseEvent> }> {
  const ws = new WebSocket(url)
  const messages: string[] = []
  ws.onmessage = (m) => messages.push(String(m.data))
  const closed = new Promise<CloseEvent>((resolve) => (ws.onclose = resolve))
  await new Promise((resolve, reject) => {
    ws.onopen = resolve
    ws.onerror = reject
  })
  return { ws, messages, closed }
}

/** Each event line of an events stream or frame as `Action name` (`start web`), in order. */
export const eventNames = (text: string): string[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const e = JSON.parse(l) as { Action: string; Actor: { Attributes: { name: string } } }
      return `${e.Action} ${e.Actor.Attributes.name}`
    })

/** Where a client reaches `fake`: its real server on 127.0.0.1, or `fake.intercept()`'s hooked base URL; and the close. */
export async function reach(fake: Dockside, way: 'server' | 'in-process'): Promise<{ base: string; close(): Promise<void> }> {
  if (way === 'server') {
    const server = await fake.listen({ port: 0 })
    return { base: server.url, close: () => server.close() }
  }
  const hooks = await fake.intercept()
  return { base: hooks.baseUrl, close: async () => hooks.restore() }
}

/** Requests to `base` with an optional JSON body: the status, the body parsed as JSON (undefined when empty), the headers. */
export const jsonCaller =
  (base: string) =>
  async (method: string, path: string, body?: string): Promise<{ status: number; body: unknown; headers: Headers }> => {
    const res = await fetch(`${base}${path}`, { method, ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }) })
    const text = await res.text()
    return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown), headers: res.headers }
  }

/**
 * A fake on the real server (127.0.0.1) that keeps `retainEvents` events, after six (seq 1-6, one a clock second
 * apart: `web` started and stopped three times); pushed to `fakes` for the file's own cleanup.
 */
export async function fakeWithHistory(fakes: Dockside[], retainEvents: number) {
  const fake = createDockside({ seed: 1, retainEvents })
  fakes.push(fake)
  const web = fake.containers.create({ name: 'web', image: 'nginx' })
  for (let i = 0; i < 3; i++) {
    web.start()
    await fake.clock.advance('1s')
    web.stop()
    await fake.clock.advance('1s')
  }
  const server = await fake.listen({ port: 0 })
  return { fake, web, server }
}
