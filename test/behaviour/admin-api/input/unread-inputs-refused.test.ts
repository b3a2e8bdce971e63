// Regression: admin inputs the fake did not read were silently ignored, so a typo gave a confident wrong answer:
// `GET /_dockside/journal?typ=ws.open` answered the whole journal, `POST /_dockside/restart` with `{"code":4000}`
// restarted with 1001, a fault rule's `message: ""` answered `{"message":""}`, and a `message` on a close rule (whose
// action has no message) was dropped. Each is now a 400 naming what was not read and what is allowed. `HEAD` on
// an admin route answers as `GET` without the body (it was a 404).
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, InvalidInputError, type Dockside } from '../../../../src/index'
import { jsonCaller } from '../../../support/helpers'

const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

async function serve() {
  const fake = createDockside({ seed: 7 })
  open.push(fake)
  const server = await fake.listen({ host: '127.0.0.1', port: 0 })
  const admin = jsonCaller(server.url)
  const call = (method: string, path: string, body?: string) => admin(method, `/_dockside/${path}`, body)
  return { fake, server, call }
}

describe('query parameters a route does not read', () => {
  it('GET journal?typ=... is a 400 naming typ and the allowed type, after; ?type= still filters', async () => {
    const { fake, call } = await serve()
    fake.containers.create({ name: 'web', image: 'nginx' })
    expect(await call('GET', 'journal?typ=container.create')).toMatchObject({ status: 400, body: { message: 'Unknown query parameter "typ" for GET /_dockside/journal; allowed: type, after.' } })
    const typed = await call('GET', 'journal?type=container.create')
    expect(typed.status).toBe(200)
    expect((typed.body as { type: string }[]).map((e) => e.type)).toEqual(['container.create'])
  })

  it('a route that reads no query refuses one, saying it takes none; the allowed ones of other routes still work', async () => {
    const { fake, call } = await serve()
    expect(await call('GET', 'state?verbose=1')).toMatchObject({ status: 400, body: { message: 'Unknown query parameter "verbose" for GET /_dockside/state; it takes none.' } })
    expect(await call('POST', 'clock/advance?by=5s&step=1')).toMatchObject({ status: 400, body: { message: 'Unknown query parameter "step" for POST /_dockside/clock/advance; allowed: by.' } })
    expect(fake.clock.elapsed()).toBe(0)
    expect(await call('POST', 'clock/advance?by=5s')).toMatchObject({ status: 200 })
    expect(fake.clock.elapsed()).toBe(5000)
  })
})

describe('a body on a route that reads none', () => {
  it('POST restart with {"code":4000} is a 400 naming the field, and nothing restarts; no body or {} restarts', async () => {
    const { fake, server, call } = await serve()
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/events/ws`)
    await new Promise((resolve) => (ws.onopen = resolve))
    const closed = new Promise<number>((resolve) => (ws.onclose = (e) => resolve(e.code)))
    expect(await call('POST', 'restart', '{"code":4000}')).toMatchObject({ status: 400, body: { message: 'POST /_dockside/restart takes no request body: unknown field "code"; send none (or {}).' } })
    expect(await call('POST', 'restart', 'not json')).toMatchObject({ status: 400 })
    expect(fake.journal.ofType('maintenance.restart')).toEqual([])
    expect(ws.readyState).toBe(WebSocket.OPEN)
    expect(await call('POST', 'restart', '{}')).toMatchObject({ status: 200, body: { closed: 1 } })
    expect(await closed).toBe(1001)
    expect(await call('POST', 'restart')).toMatchObject({ status: 200, body: { closed: 0 } })
  })

  it('DELETE faults with a body naming one rule is refused, and the rules stay', async () => {
    const { fake, call } = await serve()
    fake.faults.add({ id: 'a', on: 'events', reply: 429 })
    fake.faults.add({ id: 'b', on: 'events', reply: 500 })
    expect(await call('DELETE', 'faults', '{"id":"a"}')).toMatchObject({ status: 400, body: { message: 'DELETE /_dockside/faults takes no request body: unknown field "id"; send none (or {}).' } })
    expect(fake.faults.list().map((f) => f.rule.id)).toEqual(['a', 'b'])
  })
})

describe('HEAD', () => {
  it('HEAD on admin GET routes answers 200 with the GET headers and no body', async () => {
    const { call } = await serve()
    for (const path of ['state', 'journal?type=request', 'clock', 'faults']) {
      const head = await call('HEAD', path)
      expect([path, head.status, head.body, head.headers.get('content-type')]).toEqual([path, 200, undefined, 'application/json'])
    }
    expect((await call('HEAD', 'journal?typ=x')).status).toBe(400)
  })
})

describe('messages', () => {
  it('a fault rule with message "" or a message on an action without one is refused, in the library and over HTTP', async () => {
    const { fake, call } = await serve()
    const empty = { on: 'events', reply: 500, message: '' } as const
    expect(() => fake.faults.add(empty)).toThrow(InvalidInputError)
    expect(() => fake.faults.add(empty)).toThrow(`message: must be a non-empty string: the answer's JSON message (leave it out for the status's own)`)
    expect(await call('POST', 'faults', JSON.stringify(empty))).toMatchObject({ status: 400, body: { message: expect.stringContaining('message: must be a non-empty string') } })
    const closing = { on: 'events', close: { code: 4000, reason: 'bye' }, message: 'why' }
    expect(await call('POST', 'faults', JSON.stringify(closing))).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining(`message: is the JSON message of a "reply" or "refuse" answer, and this rule's action is "close"; drop "message"`) },
    })
    const pushError = { on: 'push', error: 'blob upload unknown', message: 'x' }
    expect(await call('POST', 'faults', JSON.stringify(pushError))).toMatchObject({ status: 400, body: { message: expect.stringContaining('(its text is "error")') } })
    expect(fake.faults.list()).toEqual([])
    fake.faults.add({ on: 'events', reply: 500, message: 'down for a test' })
    expect(fake.faults.list()).toHaveLength(1)
  })

  it('a rate limit with message "" is refused naming its path', async () => {
    const { fake, call } = await serve()
    expect(await call('POST', 'rate-limit', JSON.stringify([{ route: 'events', limit: 1, window: '1s' }, { route: 'push', limit: 1, window: '1s', message: '' }]))).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining("[1].message: must be a non-empty string: the 429's JSON message") },
    })
    expect(fake.rateLimit.get()).toEqual([])
  })
})
