// Regression: overrides were installed before everything that could refuse them was checked. A `response.body` nested
// 5000 deep answered `400 Maximum call stack size exceeded`, yet the override WAS installed: GET /info and
// GET /_dockside/overrides then answered that 400 until a DELETE. Header names and values node:http cannot send
// (`{"bad header":"v"}`, a value with a line feed) were accepted (201), then every request the override answered was a
// 500, and on /events/ws a handshake answer no client could parse. Now a reply is checked whole before it is
// installed (bodies nested at most 100 deep, header names HTTP tokens, values without CR/LF/NUL or characters node:http
// refuses, no transfer-encoding, at most 8 KiB of headers), refused with a 400 naming the field (an InvalidInputError
// from fake.use()), and a refused override is never installed.
import { afterEach, describe, expect, it, test } from 'vitest'
import WebSocket from 'ws'
import { createDockside, InvalidInputError, type Dockside, type DocksideServer } from 'dockside'

const DEEP = 'is nested more than 100 levels deep; a body may nest at most 100 levels of objects and lists'
const TOKEN = `is not a header name: names are HTTP tokens (letters, digits and !#$%&'*+-.^_\`|~, no spaces or colons)`
const VALUE = 'values are text without CR, LF, NUL or other control characters, and no character past U+00FF'

/** How deep each value made by {@link nested} is, for {@link toJson}. */
const depths = new WeakMap<object, number>()
/** `{"a":{"a":...1}}`, `levels` objects deep. */
function nested(levels: number): object {
  let v: unknown = 1
  for (let i = 0; i < levels; i++) v = { a: v }
  depths.set(v as object, levels)
  return v as object
}
/** JSON text of a request body, with the deep values written out as text (JSON.stringify runs out of stack on them). */
const toJson = (value: unknown) =>
  JSON.stringify(value, (_k, v: unknown) => (v !== null && typeof v === 'object' && depths.has(v) ? `@@deep:${depths.get(v)}@@` : v)).replace(/"@@deep:(\d+)@@"/g, (_m, n: string) =>
    '{"a":'.repeat(Number(n)) + '1' + '}'.repeat(Number(n)),
  )

/** Each reply the override must refuse, and the message naming its field. */
const BAD_REPLIES: [what: string, response: Record<string, unknown>, message: string][] = [
  ['a body nested 5000 deep', { status: 200, body: nested(5000) }, `response.body: ${DEEP}`],
  ['a body nested 101 deep', { status: 200, body: nested(101) }, `response.body: ${DEEP}`],
  ['a header name with a space', { status: 200, headers: { 'bad header': 'v' } }, `response.headers: "bad header" ${TOKEN}`],
  ['a header name with a colon', { status: 200, headers: { 'x-a:': 'v' } }, `response.headers: "x-a:" ${TOKEN}`],
  ['a header value with a line feed', { status: 200, headers: { 'x-a': 'a\nb' } }, `response.headers.x-a: has a character a header value cannot carry (U+000A at index 1); ${VALUE}`],
  ['a header value with a carriage return', { status: 200, headers: { 'x-a': 'a\r' } }, `response.headers.x-a: has a character a header value cannot carry (U+000D at index 1); ${VALUE}`],
  ['a header value with a NUL', { status: 200, headers: { 'x-a': '\u0000' } }, `response.headers.x-a: has a character a header value cannot carry (U+0000 at index 0); ${VALUE}`],
  ['a header value past Latin-1', { status: 200, headers: { 'x-price': '5 €' } }, `response.headers.x-price: has a character a header value cannot carry (U+20AC at index 2); ${VALUE}`],
  ['a transfer-encoding header', { status: 200, headers: { 'Transfer-Encoding': 'chunked' }, body: 'hi' }, 'response.headers.Transfer-Encoding: is set by the fake (it sends the body with a content-length); leave it out'],
  ['9 KiB of headers', { status: 200, headers: { 'x-big': 'x'.repeat(9 * 1024) } }, 'response.headers: 9221 bytes of header names and values; at most 8192 in all (clients such as Node\'s refuse an answer whose headers pass 16 KiB)'],
]

describe('admin API', () => {
  let fake: Dockside
  let server: DocksideServer
  afterEach(async () => {
    await fake.close()
  })
  const start = async () => {
    fake = createDockside({ scenario: { containers: [{ name: 'web', image: 'nginx', running: true }] } })
    server = await fake.listen({ host: '127.0.0.1', port: 0 })
  }
  const add = (override: unknown) => fetch(`${server.url}/_dockside/overrides`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: toJson(override) })

  it.each(BAD_REPLIES)('POST /_dockside/overrides with %s: a 400 naming the field; nothing installed; the routes answer as before', async (_what, response, message) => {
    await start()
    for (const path of ['/info', '/events/ws']) {
      const res = await add({ id: 'bad', request: { path }, response })
      expect(res.status).toBe(400)
      expect(res.headers.get('content-type')).toBe('application/json')
      expect(await res.json()).toEqual({ message })
      const listed = await fetch(`${server.url}/_dockside/overrides`)
      expect([listed.status, await listed.json()]).toEqual([200, []])
    }
    const info = await fetch(`${server.url}/info`)
    expect([info.status, ((await info.json()) as { ContainersRunning: number }).ContainersRunning]).toEqual([200, 1])
    // The events websocket still opens (a bad header made its handshake answer unparseable).
    const ws = new WebSocket(`${server.wsUrl}/events/ws`)
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve())
      ws.once('error', reject)
    })
    ws.terminate()
  })

  it('a request.body nested 5000 deep is a 400 naming request.body (it was a bare "Maximum call stack size exceeded")', async () => {
    await start()
    const res = await add({ request: { path: '/auth', body: nested(5000) }, response: { status: 201 } })
    expect([res.status, await res.json()]).toEqual([400, { message: `request.body: ${DEEP}` }])
    expect(fake.overrides.size).toBe(0)
    const search = await fetch(`${server.url}/_dockside/requests?body=${encodeURIComponent(toJson(nested(500)))}`)
    expect([search.status, await search.json()]).toEqual([400, { message: `query.body: ${DEEP}` }])
  })

  it('what node:http sends is still taken: 100 levels, a tab and every visible character in values, a content-length (recomputed)', async () => {
    await start()
    const visible = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('')
    const res = await add({ id: 'ok', request: { path: '/info' }, response: { status: 200, headers: { "x-Note_1.2!#$%&'*+^`|~": `a\tb ${visible}`, 'Content-Length': '5000' }, body: nested(100) } })
    expect(res.status).toBe(201)
    const hit = await fetch(`${server.url}/info`)
    expect(hit.status).toBe(200)
    expect(hit.headers.get("x-note_1.2!#$%&'*+^`|~")).toBe(`a\tb ${visible}`)
    expect(await hit.json()).toEqual(nested(100))
    expect((await (await fetch(`${server.url}/_dockside/overrides`)).json()) as unknown[]).toHaveLength(1)
  })
})

describe('library: fake.use()', () => {
  const refusal = (fn: () => unknown) => {
    try {
      fn()
    } catch (error) {
      return error
    }
    return undefined
  }

  test.each(BAD_REPLIES)('a reply with %s throws an InvalidInputError naming the field; nothing is installed', async (_what, response, message) => {
    await using fake = createDockside()
    const error = refusal(() => fake.use('GET /info', response))
    expect(error).toBeInstanceOf(InvalidInputError)
    expect((error as InvalidInputError).code).toBe('DOCKSIDE_INVALID_INPUT')
    expect((error as Error).message).toBe(message)
    expect(fake.overrides.size).toBe(0)
  })

  test('bodies that are no JSON: one that refers to itself, a BigInt, a function; and a request body nested too deep', async () => {
    await using fake = createDockside()
    const loop: Record<string, unknown> = { a: 1 }
    loop.self = loop
    expect(() => fake.use('/info', { body: loop })).toThrow('response.body: refers to itself (a circular structure cannot be JSON); give a plain JSON value')
    expect(() => fake.use('/info', { body: { n: 1n } })).toThrow(/^response\.body: cannot be sent as JSON \(.*BigInt.*\); give a string or a JSON value$/)
    expect(() => fake.use('/info', { body: () => 1 })).toThrow('response.body: must be a string or a JSON value, not function')
    expect(() => fake.use({ path: '/auth', body: nested(5000) as Record<string, unknown> }, { status: 201 })).toThrow(`request.body: ${DEEP}`)
    expect(fake.overrides.size).toBe(0)
  })

  test('a handler that returns a header node:http cannot send gets a 400 naming it, not a 500', async () => {
    await using fake = createDockside()
    const server = await fake.listen({ host: '127.0.0.1', port: 0 })
    fake.use('GET /_ping', () => ({ status: 200, headers: { 'x-a': 'a\nb' } }), { id: 'h' })
    const res = await fetch(`${server.url}/_ping`)
    expect([res.status, await res.json()]).toEqual([400, { message: `the handler of override h returned.headers.x-a: has a character a header value cannot carry (U+000A at index 1); ${VALUE}` }])
  })
})
