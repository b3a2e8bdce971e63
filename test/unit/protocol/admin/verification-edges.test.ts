// Edges of the admin API, the guard, overrides and request verification that the route-by-route tests leave open
// (found by mutation testing, docs/contributing/testing-internals.md): each case is behaviour a user can see, with the value the docs give.
import { describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'
import { patternFromJson } from '../../../../src/protocol/requests/overrides'
import { compilePattern, createRequestLog, type RawRequest } from '../../../../src/protocol/requests/log'
import type { ProtoResponse, SocketSink } from '../../../../src/protocol/types'
import type { Served } from '../../../../src/protocol/guard'
import { freshFakes, manualHostTimers, parseLiveChunk } from '../../../support/fresh-fakes'

const fresh = freshFakes()

const local: Served = { scheme: 'http', host: '127.0.0.1', port: 2375 }

async function call(fake: Dockside, method: string, url: string, init: { body?: string; headers?: Record<string, string>; served?: Served | null } = {}) {
  const res: ProtoResponse = await fake.protocol.handle({
    method,
    url,
    headers: { host: '127.0.0.1:2375', ...init.headers },
    signal: new AbortController().signal,
    body: async () => init.body ?? '',
    served: init.served === null ? undefined : (init.served ?? local),
  })
  let text = ''
  if (typeof res.body === 'string') text = res.body
  else if (res.body) for await (const chunk of res.body) text += chunk
  return { status: res.status, headers: res.headers, text, json: /^[[{]/.test(text) ? JSON.parse(text) : undefined }
}

const immediately = () => new Promise<'later'>((resolve) => setImmediate(() => resolve('later')))

describe('request patterns: JSON bodies, absent values, masking', () => {
  const raw = (fields: Partial<RawRequest>): RawRequest & { query: ReadonlyMap<string, string> } => ({ seq: 0, time: 0, method: 'GET', url: '/', path: '/', query: new Map(), headers: {}, body: undefined, client: undefined, status: 200, override: undefined, websocket: false, ...fields })

  it('an object pattern is not contained in an array, a string, or null; every field must be there', () => {
    const m = (body: unknown, text: string) => compilePattern({ body: body as Record<string, unknown> }).matches(raw({}), text)
    expect(m({ 0: 'a' }, '["a"]')).toBe(false)
    expect(m({ length: 3 }, '"abc"')).toBe(false)
    expect(m({}, 'null')).toBe(false)
    expect(m({}, '{}')).toBe(true)
    expect(m({ username: 'alice', admin: true }, '{"username":"alice"}')).toBe(false)
    expect(m({ username: 'alice', admin: true }, '{"username":"alice","admin":true}')).toBe(true)
  })

  it('a RegExp never matches a value that is not there (not even one matching "undefined")', () => {
    const req = raw({})
    expect(compilePattern({ query: { tag: /.*/ } }).matches(req, undefined)).toBe(false)
    expect(compilePattern({ headers: { 'x-a': /undef/ } }).matches(req, undefined)).toBe(false)
    expect(compilePattern({ client: /.*/ }).matches(req, undefined)).toBe(false)
    expect(compilePattern({ body: /undefined/ }).matches(req, undefined)).toBe(false)
    expect(compilePattern({ query: { tag: /.*/ } }).matches(raw({ query: new Map([['tag', '']]) }), undefined)).toBe(true)
  })

  it('a secret header that is not there is "(none)", not a masked value', () => {
    expect(compilePattern({ headers: { authorization: 'Bearer x' } }).mismatches(raw({}), undefined)).toEqual([{ field: 'headers.authorization', expected: '"(a secret)"', actual: '(none)' }])
  })

  it('Authorization and Proxy-Authorization keep a leading scheme only; other secret headers are all masked', () => {
    const log = createRequestLog()
    log.record(raw({ headers: { 'x-token-authorization': 'Bearer abc', 'authorization-token': 'Bearer abc', authorization: 'x.y z', 'proxy-authorization': 'Digest  a=b', 'x-other': undefined } }))
    const [r] = log.list()
    expect(r.headers).toStrictEqual({ 'x-token-authorization': '***', 'authorization-token': '***', authorization: '***', 'proxy-authorization': 'Digest ***' })
    expect(Object.keys(r)).toEqual(['seq', 'time', 'method', 'url', 'path', 'query', 'headers', 'status'])
  })
})

describe('overrides: checks and what the log shows', () => {
  it('a bad delay names the delay and the accepted forms', () => {
    expect(() => fresh().use('/_ping', { delay: 'soon' })).toThrow(
      'response.delay: Invalid override delay "soon": expected a number of milliseconds or a string like "250ms", "5s", "2m", "1h30m", "1d", from 0 to 3153600000000 ms (100 years).',
    )
  })

  it('a passthrough override is named in the request log', async () => {
    const fake = fresh()
    fake.use('GET /_ping', { passthrough: true }, { id: 'through' })
    expect((await call(fake, 'GET', '/_ping')).text).toBe('OK')
    expect(fake.requests.list().map((r) => [r.status, r.override])).toEqual([[200, 'through']])
  })

  it('query and headers of a JSON pattern must all be strings', async () => {
    const fake = fresh()
    const res = await call(fake, 'POST', '/_dockside/overrides', { body: JSON.stringify({ request: { query: { a: '1', b: 2 } }, response: {} }) })
    expect([res.status, res.json.message]).toEqual([400, 'request.query: must be an object of names to string values'])
  })

  it('patternFromJson: a status for verification must be an integer', () => {
    const regex = (s: string) => new RegExp(s)
    expect(() => patternFromJson({ status: '200' }, 'query', regex, 'query', true)).toThrow('query.status: must be an integer HTTP status')
    expect(() => patternFromJson({ status: 200.5 }, 'query', regex, 'query', true)).toThrow('query.status: must be an integer HTTP status')
    expect(patternFromJson({ status: 404 }, 'query', regex, 'query', true).text).toBe('* * status 404')
  })

  it('DELETE /_dockside/overrides/{id}/more is no route and removes nothing; a 404 names every override in place', async () => {
    const fake = fresh()
    fake.use('/a', { status: 503 }, { id: 'a' })
    fake.use('/b', { status: 503 }, { id: 'b' })
    expect((await call(fake, 'DELETE', '/_dockside/overrides/a/b')).status).toBe(404)
    expect(fake.overrides.size).toBe(2)
    expect((await call(fake, 'DELETE', '/_dockside/overrides/c')).json.message).toBe('No such override: c. In place: a, b.')
  })
})

describe('GET /_dockside/requests: body= and header.NAME=', () => {
  it('body= is JSON when it starts (after spaces) with { or [, else the exact text; header.NAME= narrows it down', async () => {
    const fake = fresh()
    fake.use('POST /x', async (req) => (await req.text(), { status: 204 }))
    await call(fake, 'POST', '/x', { body: 'a{', headers: { 'x-trace': 't1' } })
    await call(fake, 'POST', '/x', { body: '5' })
    await call(fake, 'POST', '/x', { body: '{"username":"alice"}' })
    const count = async (query: string) => (await call(fake, 'GET', `/_dockside/requests?${query}`)).json.count
    expect(await count(`body=${encodeURIComponent('"a{"')}`)).toBe(0)
    expect(await count('body=a%7B')).toBe(1)
    expect(await count('body=5')).toBe(1)
    expect(await count(`body=${encodeURIComponent(' {"username":"alice"}')}`)).toBe(1)
    expect(await count('header.x-trace=t1')).toBe(1)
    expect(await count('header.x-trace=t2')).toBe(0)
  })
})

describe('admin routes: bodies, paths and lists', () => {
  it('a blank body is no body (stop with the default exit code); a body of spaces is no body for a new fleet member', async () => {
    const fake = fresh({ fleet: { maxFakes: 1 } })
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    expect((await call(fake, 'POST', '/_dockside/containers/web/stop', { body: '  \n' })).json).toMatchObject({ state: 'exited', exitCode: 0 })
    const member = await call(fake, 'POST', '/_dockside/fakes', { body: '  ' })
    expect(member.status).toBe(201)
  })

  it('a fleet member listens where the caller reached the shared fake (another loopback address)', async () => {
    const fake = fresh({ fleet: { maxFakes: 1 } })
    const member = await call(fake, 'POST', '/_dockside/fakes', { headers: { host: '127.0.0.2:2375' }, served: { scheme: 'http', host: '127.0.0.2', port: 2375 } })
    expect(member.json.url).toBe(`http://127.0.0.2:${member.json.port}`)
  })

  it('trailing slashes are ignored; a JSON body that is not an object is one (refused) rule, not a batch', async () => {
    const fake = fresh()
    expect((await call(fake, 'GET', '/_dockside/containers//')).status).toBe(200)
    for (const body of ['5', '"rules"']) {
      const res = await call(fake, 'POST', '/_dockside/faults', { body })
      expect([res.status, res.json.message], body).toEqual([400, 'fault rule: must be an object'])
    }
  })

  it('journal after= takes any number of digits; a 404 for a fault rule names every known one', async () => {
    const fake = fresh()
    for (let i = 0; i < 11; i++) await call(fake, 'GET', '/_ping')
    expect((await call(fake, 'GET', '/_dockside/journal?type=request&after=10')).json.map((e: { seq: number }) => e.seq)).toEqual([11])
    fake.faults.add({ id: 'a', on: 'push', reply: 503 })
    fake.faults.add({ id: 'b', on: 'push', reply: 503 })
    expect((await call(fake, 'DELETE', '/_dockside/faults/c')).json.message).toBe('No such fault rule: c. Known: a, b.')
  })

  it('clock and scenario actions answer only their own paths', async () => {
    const fake = fresh({ clock: 'auto' })
    for (const url of ['/_dockside/x/pause', '/_dockside/x/resume', '/_dockside/x/speed', '/_dockside/x/continue', '/_dockside/clock/continue', '/_dockside/scenario/pause']) {
      expect((await call(fake, 'POST', url, { body: '{"speed":2}' })).status, url).toBe(404)
    }
    expect(fake.clock.paused).toBe(false)
    expect(fake.journal.entries.filter((e) => e.type.startsWith('clock.') || e.type === 'scenario.continue')).toEqual([])
  })

  it('speed: a blank body takes ?speed=; a JSON body that is not an object is refused by the schema', async () => {
    const fake = fresh({ clock: 'real' })
    expect((await call(fake, 'POST', '/_dockside/clock/speed?speed=3', { body: '  ' })).json.speed).toBe(3)
    const res = await call(fake, 'POST', '/_dockside/clock/speed', { body: '5' })
    expect([res.status, res.json.message]).toEqual([400, 'request body: must be an object'])
  })
})

describe('the guard: served addresses and the dashboard login', () => {
  it('a bracketed bound IPv6 address is the fake\'s own', async () => {
    expect((await call(fresh(), 'GET', '/_dockside/state', { headers: { host: '[fd00::5]:2375' }, served: { scheme: 'http', host: '[fd00::5]', port: 2375 } })).status).toBe(200)
  })

  it('with no served address, a foreign Host is refused (journaled as "host"), and a login cookie is named for port 0 with no Secure', async () => {
    const fake = fresh({ adminToken: 'tok' })
    const res = await call(fake, 'GET', '/_dockside/state', { headers: { host: 'evil.example' }, served: null })
    expect(res.status).toBe(403)
    expect(fake.journal.ofType('access.refused').map((e) => e.reason)).toEqual(['host'])
    const login = await call(fake, 'GET', '/_dockside/ui?token=tok', { served: null })
    expect(login.status).toBe(303)
    expect(login.headers['set-cookie']).toMatch(/^dockside_admin_0=[0-9a-f]{64}; Path=\/_dockside; HttpOnly; SameSite=Strict$/)
  })

  it('an allowed origin must be http or https', () => {
    expect(() => createDockside({ allowedOrigins: ['xhttp://a.example'] })).toThrow('Invalid allowedOrigins entry "xhttp://a.example": expected an origin (scheme, host and port, no path), e.g. "http://localhost:5173".')
  })

  it('the events websocket: a loopback Origin on the served port passes even without a Host header', async () => {
    const fake = fresh({ allowedOrigins: ['https://app.example'] })
    const result = await fake.protocol.upgrade({ method: 'GET', url: '/events/ws', headers: { origin: 'http://localhost:2375' }, signal: new AbortController().signal, body: async () => '', served: local })
    expect(result.kind).toBe('accept')
  })
})

describe('the live feed', () => {
  async function open(fake: Dockside, url = '/_dockside/live', signal = new AbortController().signal) {
    const res = await fake.protocol.handle({ method: 'GET', url, headers: { host: '127.0.0.1:2375' }, signal, body: async () => '', served: local })
    return (res.body as AsyncIterable<string>)[Symbol.asyncIterator]()
  }
  const parse = parseLiveChunk

  it('the first snapshot comes at once; its deliveries count each client\'s gaps and say when it is away', async () => {
    const fake = fresh()
    const upgrade = async (client: string) => {
      const result = await fake.protocol.upgrade({ method: 'GET', url: `/events/ws?client=${client}`, headers: {}, signal: new AbortController().signal, body: async () => '' })
      if (result.kind !== 'accept') throw new Error('refused')
      // As a transport does: a close the server sends ends the connection, which the protocol then hears of.
      const session = result.open({ send: () => {}, close: (code, reason) => session.clientClosed(code, reason), drop: () => session.clientClosed(1006, '') } satisfies SocketSink)
    }
    await upgrade('gone')
    // A maintenance restart closes it (1001); an event while it is away is owed to it.
    fake.restart()
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    await upgrade('here')
    const it = await open(fake)
    await it.next()
    const first = await Promise.race([it.next(), immediately()])
    if (first === 'later') throw new Error('the first snapshot did not come at once')
    const [state] = parse(first.value as string)
    expect(state.data.deliveries.map((d: { client: string; gaps: number; away: boolean }) => [d.client, d.gaps, d.away])).toEqual([
      ['gone', 1, true],
      ['here', 0, false],
    ])
    await it.return?.()
  })

  it('the backlog holds only events matching the filter', async () => {
    const fake = fresh()
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    web.start()
    web.stop({ exitCode: 1 })
    const it = await open(fake, `/_dockside/live?filters=${encodeURIComponent('{"event":["stop"]}')}`)
    await it.next()
    const [, events] = parse((await it.next()).value as string)
    expect(events.data.map((e: { Action: string }) => e.Action)).toEqual(['stop'])
    await it.return?.()
  })

  it('captions said while the feed is open are kept, the last 20', async () => {
    const fake = fresh({ scenario: { timeline: Array.from({ length: 21 }, (_, i) => ({ at: `${i + 1}s`, say: `caption ${i + 1}` })) } })
    const it = await open(fake)
    await it.next()
    await it.next()
    await fake.clock.advance('21s')
    const [state] = parse((await it.next()).value as string)
    expect(state.data.captions.map((c: { text: string }) => c.text)).toEqual(Array.from({ length: 20 }, (_, i) => `caption ${i + 2}`))
    await it.return?.()
  })

  it('say: "" is a caption of its own: the dashboard shows the last one, so an empty one clears it (scenarios.md)', async () => {
    const fake = fresh({ scenario: { timeline: [{ at: '1s', say: 'hello' }, { at: '2s', say: '' }] } })
    const it = await open(fake)
    await it.next()
    await it.next()
    await fake.clock.advance('2s')
    const [state] = parse((await it.next()).value as string)
    expect(state.data.captions.map((c: { text: string }) => c.text)).toEqual(['hello', ''])
    await it.return?.()
  })

  it('ends at once when the page goes away or the fake is reset (no wait for the next beat)', async () => {
    const timers = manualHostTimers()
    const fake = fresh({ clock: { mode: 'virtual', host: timers.host } })
    const gone = new AbortController()
    const a = await open(fake, '/_dockside/live', gone.signal)
    const b = await open(fake)
    await a.next()
    await a.next()
    await b.next()
    await b.next()
    // Both pass the 100 ms pace of their first snapshot (on the host's timers), then wait for a change or a second.
    const [aEnded, bEnded] = [a.next(), b.next()]
    expect(timers.elapse(100)).toBe(2)
    await timers.waiting(1000, 2)
    gone.abort()
    expect(await Promise.race([aEnded, immediately()])).toEqual({ done: true, value: undefined })
    await fake.reset()
    expect(await Promise.race([bEnded, immediately()])).toEqual({ done: true, value: undefined })
  })

  it('while nothing happens, a snapshot still comes once a second (the clock moves on its own), not sooner', async () => {
    const timers = manualHostTimers()
    const fake = fresh({ clock: { mode: 'virtual', host: timers.host } })
    const it = await open(fake)
    await it.next()
    await it.next()
    const next = it.next()
    expect(timers.elapse(100)).toBe(1)
    await timers.waiting(1000)
    // Nothing happened and the second has not passed: no snapshot yet.
    expect(await Promise.race([next, immediately()])).toBe('later')
    expect(timers.elapse(1000)).toBe(1)
    const beat = parse((await next).value as string)
    expect(beat.map((m) => m.event)).toEqual(['state'])
    await it.return?.()
  })
})
