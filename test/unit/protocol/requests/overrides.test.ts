// Per-test overrides (src/protocol/requests/overrides.ts) through the protocol both ways in share (`fake.protocol.handle`), the
// public `fake.use()` / `fake.overrides`, and the admin API's JSON form: every reply field, every check and its
// message, how the newest match wins, and what the journal and handlers see (docs/api.md#per-test-overrides,
// docs/admin-api.md#overrides). Expected values are written out from the docs.
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'
import { createOverrides } from '../../../../src/protocol/requests/overrides'
import type { ProtoResponse } from '../../../../src/protocol/types'

const fakes: Dockside[] = []
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close()
})

function fresh() {
  const fake = createDockside({ seed: 7 })
  fakes.push(fake)
  return fake
}

interface Answer {
  status: number
  headers: Record<string, string>
  text: string
  json: () => { message?: string } & Record<string, unknown>
}

async function read(res: ProtoResponse): Promise<Answer> {
  let text = ''
  if (typeof res.body === 'string') text = res.body
  else if (res.body) for await (const chunk of res.body) text += chunk
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) }
}

/** One request through the protocol, as a way in passes it (Host 127.0.0.1, as a test's client sends). */
async function call(fake: Dockside, method: string, url: string, init: { headers?: Record<string, string>; body?: string; signal?: AbortSignal } = {}): Promise<Answer> {
  const body = init.body ?? ''
  return read(await fake.protocol.handle({ method, url, headers: { host: '127.0.0.1:2375', ...init.headers }, signal: init.signal ?? new AbortController().signal, body: async () => body }))
}

const post = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

describe('a scripted reply', () => {
  it('status defaults to 200; header names become lower-case; content-length counts UTF-8 bytes', async () => {
    const fake = fresh()
    fake.use('GET /_ping', { headers: { 'X-Custom': 'yes', 'Content-Type': 'text/csv' }, body: 'é,1' })
    const res = await call(fake, 'GET', '/_ping')
    expect(res.status).toBe(200)
    expect(res.headers).toEqual({ 'x-custom': 'yes', 'content-type': 'text/csv', 'content-length': '4', date: expect.stringMatching(/ GMT$/) })
    expect(res.text).toBe('é,1')
  })

  it('a string body is text/plain; anything else is JSON; no body is empty with no content-type', async () => {
    const fake = fresh()
    fake.use('GET /a', { body: 'plain' })
    fake.use('GET /b', { status: 201, body: [1, 'two'] })
    fake.use('GET /c', { status: 204 })
    fake.use('GET /d', { body: 0 })
    expect(await call(fake, 'GET', '/a')).toMatchObject({ status: 200, headers: { 'content-type': 'text/plain; charset=utf-8', 'content-length': '5' }, text: 'plain' })
    expect(await call(fake, 'GET', '/b')).toMatchObject({ status: 201, headers: { 'content-type': 'application/json', 'content-length': '9' }, text: '[1,"two"]' })
    const empty = await call(fake, 'GET', '/c')
    expect([empty.status, empty.headers, empty.text]).toEqual([204, { 'content-length': '0', date: expect.stringMatching(/ GMT$/) }, ''])
    expect(await call(fake, 'GET', '/d')).toMatchObject({ headers: { 'content-type': 'application/json', 'content-length': '1' }, text: '0' })
  })

  it('200 and 599 are the bounds of status', async () => {
    const fake = fresh()
    fake.use('GET /lo', { status: 200, body: 'lo' })
    fake.use('GET /hi', { status: 599, body: 'hi' })
    expect((await call(fake, 'GET', '/lo')).status).toBe(200)
    expect((await call(fake, 'GET', '/hi')).status).toBe(599)
  })
})

describe('bad replies and options throw at once, naming the field and what is allowed', () => {
  const status = (v: unknown) => `response.status: must be an integer from 200 to 599 (a websocket's 101 is the fake's own: use passthrough), not ${JSON.stringify(v)}`
  const cases: [unknown, string][] = [
    [null, 'response: must be a reply object like { status: 503, body: { message: "..." } }, or a handler function'],
    [[], 'response: must be a reply object like { status: 503, body: { message: "..." } }, or a handler function'],
    ['503', 'response: must be a reply object like { status: 503, body: { message: "..." } }, or a handler function'],
    [{ stauts: 503 }, 'response.stauts: unknown field; allowed: status, headers, body, delay, passthrough'],
    [{ status: 199 }, status(199)],
    [{ status: 600 }, status(600)],
    [{ status: 101 }, status(101)],
    [{ status: 200.5 }, status(200.5)],
    [{ status: '503' }, status('503')],
    [{ headers: null }, 'response.headers: must be an object of header names to string values'],
    [{ headers: 'x: y' }, 'response.headers: must be an object of header names to string values'],
    [{ headers: { 'retry-after': 7 } }, 'response.headers: must be an object of header names to string values'],
    [{ passthrough: 'yes' }, 'response.passthrough: must be true or false'],
    [{ passthrough: true, status: 503 }, 'response: passthrough lets the fake answer: give it no status, headers or body (a delay is fine)'],
    [{ passthrough: true, body: 'x' }, 'response: passthrough lets the fake answer: give it no status, headers or body (a delay is fine)'],
    [{ passthrough: true, headers: {} }, 'response: passthrough lets the fake answer: give it no status, headers or body (a delay is fine)'],
  ]
  it.each(cases)('%j', (reply, message) => {
    const fake = fresh()
    expect(() => fake.use('/_ping', reply as never)).toThrow(message)
    expect(fake.overrides.size).toBe(0)
  })

  it('a bad delay names response.delay and what a duration is', () => {
    const fake = fresh()
    expect(() => fake.use('/_ping', { delay: 'soon' })).toThrow(/^response\.delay: .*soon/)
    expect(() => fake.use('/_ping', { delay: -1 })).toThrow(/^response\.delay: /)
    // Accepted: a delay with passthrough, passthrough false with a status, headers of strings.
    fake.use('/_ping', { delay: '2s', passthrough: true })
    fake.use('/_ping', { passthrough: false, status: 503, headers: { 'retry-after': '7' } })
    expect(fake.overrides.size).toBe(2)
  })

  it('options: an object with times (an integer of 1 or more) and id (a non-empty string, not in use)', () => {
    const fake = fresh()
    const reply = { status: 503 }
    expect(() => fake.use('/_ping', reply, null as never)).toThrow('Override options must be an object like { times: 1 }.')
    expect(() => fake.use('/_ping', reply, 3 as never)).toThrow('Override options must be an object like { times: 1 }.')
    expect(() => fake.use('/_ping', reply, { tims: 1 } as never)).toThrow('tims: unknown option; allowed: times, id')
    for (const times of [0, -1, 1.5, Number.NaN]) expect(() => fake.use('/_ping', reply, { times }), String(times)).toThrow(`times: must be an integer of 1 or more, not ${JSON.stringify(times)}`)
    expect(() => fake.use('/_ping', reply, { id: '' })).toThrow('id: must be a non-empty string')
    expect(() => fake.use('/_ping', reply, { id: 5 as never })).toThrow('id: must be a non-empty string')
    expect(fake.overrides.size).toBe(0)
    const one = fake.use('/_ping', reply, { times: 1, id: 'maint' })
    expect(() => fake.use('/_ping', reply, { id: 'maint' })).toThrow('An override with id "maint" is in place; remove it first or pick another id.')
    expect(fake.use('/_ping', reply, { times: Infinity }).id).toBe('override-1')
    expect(fake.use('/_ping', reply).id).toBe('override-2')
    expect(fake.overrides.list().map((o) => [o.id, o.times])).toEqual([
      ['maint', 1],
      ['override-1', null],
      ['override-2', null],
    ])
    expect(one.remove()).toBe(true)
    expect(one.remove()).toBe(false)
    expect(fake.overrides.size).toBe(2)
    fake.overrides.clear()
    expect(fake.overrides.size).toBe(0)
    expect(fake.overrides.list()).toEqual([])
  })
})

describe('which override answers', () => {
  it('the newest live match; a spent one falls through to the older, then to the fake', async () => {
    const fake = fresh()
    const older = fake.use('GET /_ping', { status: 500, body: 'older' }, { times: 2 })
    const newer = fake.use('GET /_ping', { status: 503, body: 'newer' }, { times: 1 })
    fake.use('GET /other', { status: 418 })
    expect((await call(fake, 'GET', '/_ping')).text).toBe('newer')
    expect((await call(fake, 'GET', '/_ping')).text).toBe('older')
    expect((await call(fake, 'GET', '/_ping')).text).toBe('older')
    expect(await call(fake, 'GET', '/_ping')).toMatchObject({ status: 200, text: 'OK' })
    expect([newer.used, older.used]).toEqual([1, 2])
    // Spent overrides stay listed, with their use count.
    expect(fake.overrides.list().map((o) => [o.id, o.used, o.times])).toEqual([
      ['override-1', 2, 2],
      ['override-2', 1, 1],
      ['override-3', 0, null],
    ])
    expect(fake.requests.list('/_ping').map((r) => [r.status, r.override])).toEqual([
      [503, 'override-2'],
      [500, 'override-1'],
      [500, 'override-1'],
      [200, undefined],
    ])
  })

  it('each answer is journaled as "override" with its id, the request, the status (or passthrough) and the delay', async () => {
    const fake = fresh()
    fake.use('GET /_ping', { body: 'x' }, { id: 'a' })
    fake.use('GET /version', { passthrough: true }, { id: 'b' })
    fake.use('GET /info', { status: 503, delay: 1500 }, { id: 'c' })
    await call(fake, 'GET', '/v1.47/_ping')
    await call(fake, 'GET', '/version')
    const info = call(fake, 'GET', '/info')
    await fake.clock.advance(1500)
    expect((await info).status).toBe(503)
    expect(fake.journal.ofType('override').map(({ id, method, path, status, delayMs }) => ({ id, method, path, status, delayMs }))).toEqual([
      { id: 'a', method: 'GET', path: '/_ping', status: 200, delayMs: 0 },
      { id: 'b', method: 'GET', path: '/version', status: 'passthrough', delayMs: 0 },
      { id: 'c', method: 'GET', path: '/info', status: 503, delayMs: 1500 },
    ])
  })

  it('a delay holds the answer on the fake clock, to the millisecond', async () => {
    const fake = fresh()
    fake.use('GET /_ping', { delay: '2s', body: 'late' })
    let answered: Answer | undefined
    const pending = call(fake, 'GET', '/_ping').then((a) => (answered = a))
    await fake.clock.advance(1999)
    expect(answered).toBeUndefined()
    await fake.clock.advance(1)
    await pending
    expect(answered?.text).toBe('late')
  })

  it('a client that goes away during a delay stops waiting: no timer is left behind', async () => {
    const fake = fresh()
    fake.use('GET /_ping', { delay: '1h', body: 'never' })
    const gone = new AbortController()
    const pending = call(fake, 'GET', '/_ping', { signal: gone.signal })
    await Promise.resolve()
    expect(fake.clock.pending).toBe(1)
    gone.abort()
    await pending
    expect(fake.clock.pending).toBe(0)
  })

  it('a body pattern reads the body; a request whose body cannot be read does not match', async () => {
    const fake = fresh()
    fake.use({ method: 'POST', path: '/auth', body: { username: 'alice' } }, { status: 401, body: { message: 'alice is locked out' } })
    expect((await call(fake, 'POST', '/auth', post({ username: 'alice', password: 'pw' }))).json()).toEqual({ message: 'alice is locked out' })
    expect((await call(fake, 'POST', '/auth', post({ username: 'bob', password: 'pw' }))).status).not.toBe(401)
    // A body over maxBodySize cannot be read: the override does not match, and the fake answers 413.
    const small = createDockside({ maxBodySize: 64 })
    fakes.push(small)
    small.use({ path: '/auth', body: /alice/ }, { status: 401 })
    const big = await read(
      await small.protocol.handle({
        method: 'POST',
        url: '/auth',
        headers: {},
        signal: new AbortController().signal,
        body: async (max) => {
          const text = JSON.stringify({ username: 'alice', pad: 'x'.repeat(100) })
          if (max !== undefined && text.length > max) throw Object.assign(new Error('too large'), { name: 'BodyTooLargeError' })
          return text
        },
      }),
    )
    expect(big.status).not.toBe(401)
  })
})

describe('a handler', () => {
  it('sees the method, URL, path, query, headers and client, and reads the body as text and JSON', async () => {
    const fake = fresh()
    const seen: unknown[] = []
    fake.use('POST /containers/create', async (req) => {
      seen.push({ method: req.method, url: req.url, path: req.path, query: req.query, header: req.headers['x-trace'], client: req.client, text: await req.text(), json: await req.json() })
      return { status: 201, body: { Id: 'abc' } }
    })
    const res = await call(fake, 'POST', '/v1.47/containers/create?name=web&client=ci', { headers: { 'x-trace': 't1', 'content-type': 'application/json' }, body: '{"Image":"nginx"}' })
    expect([res.status, res.json()]).toEqual([201, { Id: 'abc' }])
    expect(seen).toEqual([{ method: 'POST', url: '/v1.47/containers/create?name=web&client=ci', path: '/containers/create', query: { name: 'web', client: 'ci' }, header: 't1', client: 'ci', text: '{"Image":"nginx"}', json: { Image: 'nginx' } }])
    // The handler read the body: the request log keeps it.
    expect(fake.requests.list('POST /containers/create')[0].body).toBe('{"Image":"nginx"}')
  })

  it('req.json() of a body that is not JSON is a 400 saying so (without the body)', async () => {
    const fake = fresh()
    fake.use('POST /x', async (req) => ({ body: await req.json() }))
    const res = await call(fake, 'POST', '/x', { body: 'not json' })
    expect(res.status).toBe(400)
    expect(res.json().message).toBe('The request body is not JSON (8 characters).')
  })

  it('returning nothing passes to the next override, then the fake, and does not use it up', async () => {
    const fake = fresh()
    const older = fake.use('GET /_ping', { status: 503, body: 'older' })
    const picky = fake.use('GET /_ping', (req) => (req.query.v === '1' ? { body: 'picked' } : undefined), { times: 1 })
    expect((await call(fake, 'GET', '/_ping')).text).toBe('older')
    expect(picky.used).toBe(0)
    expect((await call(fake, 'GET', '/_ping?v=1')).text).toBe('picked')
    expect(picky.used).toBe(1)
    expect((await call(fake, 'GET', '/_ping?v=1')).text).toBe('older')
    expect(older.used).toBe(2)
    expect(fake.overrides.list().map((o) => o.response)).toEqual([{ status: 503, body: 'older' }, 'handler'])
  })

  it('a handler is called once per request however many overrides look at it', async () => {
    const fake = fresh()
    const requests: object[] = []
    fake.use('GET /_ping', (req) => void requests.push(req))
    fake.use('GET /_ping', (req) => void requests.push(req))
    await call(fake, 'GET', '/_ping')
    expect(requests).toHaveLength(2)
    expect(requests[0]).toBe(requests[1])
  })

  it('a bad reply from a handler is a 400 naming the override and the field; the override is not used', async () => {
    const fake = fresh()
    const bad = fake.use('GET /_ping', () => ({ status: 42 }), { id: 'broken' })
    const res = await call(fake, 'GET', '/_ping')
    expect(res.status).toBe(400)
    expect(res.json().message).toBe("the handler of override broken returned.status: must be an integer from 200 to 599 (a websocket's 101 is the fake's own: use passthrough), not 42")
    expect(bad.used).toBe(0)
    fake.use('GET /x', () => 'OK' as never, { id: 'text' })
    expect((await call(fake, 'GET', '/x')).json().message).toBe('the handler of override text returned: must be a reply object like { status: 503, body: { message: "..." } }, or a handler function')
  })

  it('an override removed (a reset) while its handler runs: the fake answers as it is now', async () => {
    const fake = fresh()
    let release!: () => void
    const handle = fake.use('GET /_ping', () => new Promise((resolve) => (release = () => resolve({ status: 503 }))))
    const pending = call(fake, 'GET', '/_ping')
    await Promise.resolve()
    await Promise.resolve()
    handle.remove()
    release()
    const res = await pending
    expect([res.status, res.text]).toEqual([200, 'OK'])
    expect(handle.used).toBe(0)
    expect(fake.journal.ofType('override')).toEqual([])
  })
})

describe('covers: what the in-process hooks pass on to the fake', () => {
  it('a live override whose method, path, query, headers or client match covers a request; its body is not looked at', () => {
    const store = createOverrides()
    expect(store.covers('GET', '/containers/web/logs', {})).toBe(false)
    store.use({ method: 'GET', path: '/containers/:id/logs', body: 'anything' }, { body: 'logs' }, { times: 1, id: 'logs' })
    store.use({ path: '/x', query: { client: 'ci' } }, { body: 'x' })
    store.use({ path: '/y', client: 'ci' }, { body: 'y' })
    expect(store.covers('GET', '/v1.47/containers/web/logs?stdout=1', {})).toBe(true)
    expect(store.covers('POST', '/containers/web/logs', {})).toBe(false)
    expect(store.covers('GET', '/containers/web/top', {})).toBe(false)
    expect(store.covers('GET', '/x?client=ci', {})).toBe(true)
    expect(store.covers('GET', '/x', {})).toBe(false)
    // The client comes from X-Dockside-Client first, else ?client=.
    expect(store.covers('GET', '/y', { 'x-dockside-client': 'ci' })).toBe(true)
    expect(store.covers('GET', '/y?client=ci', {})).toBe(true)
    expect(store.covers('GET', '/y?client=ci', { 'x-dockside-client': 'other' })).toBe(false)
    expect(store.covers('GET', '/y', {})).toBe(false)
  })

  it('a spent override covers nothing', async () => {
    const fake = fresh()
    const store = fake.protocol.overrides
    fake.use('GET /containers/:id/logs', { body: 'logs' }, { times: 1 })
    expect(store.covers('GET', '/containers/web/logs', {})).toBe(true)
    expect((await call(fake, 'GET', '/containers/web/logs')).text).toBe('logs')
    expect(store.covers('GET', '/containers/web/logs', {})).toBe(false)
  })
})

describe('overrides from JSON (POST /_dockside/overrides)', () => {
  const addJson = async (fake: Dockside, body: unknown) => call(fake, 'POST', '/_dockside/overrides', { body: JSON.stringify(body) })

  it('every field of the body and of its request is checked, with a 400 naming the field', async () => {
    const fake = fresh()
    const cases: [unknown, string][] = [
      [[], 'request body: must be an object like {"request":{"method":"GET","path":"/_ping"},"response":{"status":503}}'],
      [null, 'request body: must be an object like {"request":{"method":"GET","path":"/_ping"},"response":{"status":503}}'],
      ['x', 'request body: must be an object like {"request":{"method":"GET","path":"/_ping"},"response":{"status":503}}'],
      [{ reqest: {}, response: {} }, 'reqest: unknown field; allowed: id, request, response, times'],
      [{ request: {} }, 'response: is required: a reply like {"status":503,"body":{"message":"..."}} or {"passthrough":true,"delay":"2s"}'],
      [{ request: [], response: {} }, 'request: must be an object like {"method":"GET","path":"/_ping"}'],
      [{ request: null, response: {} }, 'request: must be an object like {"method":"GET","path":"/_ping"}'],
      [{ request: 'GET /_ping', response: {} }, 'request: must be an object like {"method":"GET","path":"/_ping"}'],
      [{ request: { status: 200 }, response: {} }, 'request.status: unknown field; allowed: method, path, pathPattern, query, headers, body, client'],
      [{ request: { method: 1 }, response: {} }, 'request.method: must be a string'],
      [{ request: { path: 1 }, response: {} }, 'request.path: must be a string'],
      [{ request: { pathPattern: 1 }, response: {} }, 'request.pathPattern: must be a string'],
      [{ request: { client: 1 }, response: {} }, 'request.client: must be a string'],
      [{ request: { path: '/a', pathPattern: '^/a$' }, response: {} }, 'request: give "path" or "pathPattern", not both'],
      [{ request: { path: '_ping' }, response: {} }, 'request.path: must start with "/"'],
      [{ request: { query: { tag: 1 } }, response: {} }, 'request.query: must be an object of names to string values'],
      [{ request: { query: null }, response: {} }, 'request.query: must be an object of names to string values'],
      [{ request: { query: ['a'] }, response: {} }, 'request.query: must be an object of names to string values'],
      [{ request: { query: 'tag=1' }, response: {} }, 'request.query: must be an object of names to string values'],
      [{ request: { headers: { a: true } }, response: {} }, 'request.headers: must be an object of names to string values'],
      [{ request: { body: null }, response: {} }, 'request.body: must be the exact text, or a JSON object/array the body must contain'],
      [{ request: { body: 5 }, response: {} }, 'request.body: must be the exact text, or a JSON object/array the body must contain'],
      [{ request: { body: true }, response: {} }, 'request.body: must be the exact text, or a JSON object/array the body must contain'],
      [{ request: {}, response: {}, times: 0 }, 'times: must be an integer of 1 or more'],
      [{ request: {}, response: {}, times: 1.5 }, 'times: must be an integer of 1 or more'],
      [{ request: {}, response: {}, times: '2' }, 'times: must be an integer of 1 or more'],
      [{ request: {}, response: {}, id: '' }, 'id: must be a non-empty string'],
      [{ request: {}, response: {}, id: 7 }, 'id: must be a non-empty string'],
      [{ request: {}, response: { status: 700 } }, "response.status: must be an integer from 200 to 599 (a websocket's 101 is the fake's own: use passthrough), not 700"],
    ]
    for (const [body, message] of cases) {
      const res = await addJson(fake, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.json().message, JSON.stringify(body)).toBe(message)
    }
    expect(fake.overrides.size).toBe(0)
  })

  it('a pathPattern that is not RE2 (a backreference) is refused naming it; one that is matches in linear time', async () => {
    const fake = fresh()
    const bad = await addJson(fake, { request: { pathPattern: '(a+)+\\1' }, response: {} })
    expect(bad.status).toBe(400)
    expect(bad.json().message).toMatch(/^request\.pathPattern: not a valid RE2 regular expression: /)
    const ok = await addJson(fake, { request: { method: 'GET', pathPattern: '^/containers/[^/]+/json$' }, response: { status: 503 }, times: 1, id: 'maint' })
    expect(ok.status).toBe(201)
    expect(ok.json()).toEqual({ id: 'maint', request: 'GET /^/containers/[^/]+/json$/', response: { status: 503 }, times: 1, used: 0 })
    expect((await call(fake, 'GET', '/containers/web/json')).status).toBe(503)
  })

  it('a JSON pattern with every field: path with * and :name (RE2 too), query, headers, body, client', async () => {
    const fake = fresh()
    const res = await addJson(fake, {
      request: { method: 'post', path: '/images/*/push', query: { tag: '1.0' }, headers: { 'X-Trace': 't' }, body: { all: true }, client: 'ci' },
      response: { status: 503, body: { message: 'registry down' } },
    })
    expect(res.status).toBe(201)
    expect(res.json().request).toBe('POST /images/*/push query tag="1.0" headers x-trace: "t" body {"all":true} client "ci"')
    const push = (headers: Record<string, string>, body: string) => call(fake, 'POST', '/images/localhost:5000/app/push?tag=1.0', { headers, body })
    expect((await push({ 'x-trace': 't', 'x-dockside-client': 'ci' }, '{"all":true,"x":1}')).status).toBe(503)
    expect((await push({ 'x-trace': 't', 'x-dockside-client': 'ci' }, '{"all":false}')).status).not.toBe(503)
    expect((await push({ 'x-dockside-client': 'ci' }, '{"all":true}')).status).not.toBe(503)
    const other = await addJson(fake, { request: { path: '/containers/:id/logs' }, response: { body: 'logs' } })
    expect(other.json().request).toBe('* /containers/:id/logs')
    expect((await call(fake, 'GET', '/containers/web/logs')).text).toBe('logs')
    expect((await call(fake, 'GET', '/containers/web/x/logs')).text).not.toBe('logs')
    // No request at all: every request.
    expect((await addJson(fake, { response: { status: 418 } })).json().request).toBe('* *')
    expect((await call(fake, 'GET', '/version')).status).toBe(418)
  })

  it('a passthrough with a delay; the answer lists the override as GET /_dockside/overrides does', async () => {
    const fake = fresh()
    const res = await addJson(fake, { id: 'slow', request: { path: '/version' }, response: { passthrough: true, delay: '2s' } })
    expect(res.json()).toEqual({ id: 'slow', request: '* /version', response: { passthrough: true, delay: '2s' }, times: null, used: 0 })
    expect((await call(fake, 'GET', '/_dockside/overrides')).json()).toEqual([{ id: 'slow', request: '* /version', response: { passthrough: true, delay: '2s' }, times: null, used: 0 }])
    const pending = call(fake, 'GET', '/version')
    await fake.clock.advance('2s')
    expect((await pending).json().ApiVersion).toBeDefined()
  })
})
