// The admin API's routes (src/protocol/admin/routes.ts, overrides.ts, fleet.ts, live.ts), each with the
// answer docs/admin-api.md gives, through the protocol both ways in share (`fake.protocol.handle`, Host 127.0.0.1 as a
// test's client sends). The conformance suite (test/conformance/admin.case.ts) drives the main flows on every way in;
// this pins every route's fields, defaults and refusals.
import { describe, expect, it } from 'vitest'
import type { Dockside } from '../../../../src/index'
import type { ProtoResponse, SocketSink } from '../../../../src/protocol/types'
import { freshFakes } from '../../../support/fresh-fakes'

const fresh = freshFakes()

interface Answer {
  status: number
  headers: Record<string, string>
  text: string
  json: any
}

async function read(res: ProtoResponse): Promise<Answer> {
  let text = ''
  if (typeof res.body === 'string') text = res.body
  else if (res.body) for await (const chunk of res.body) text += chunk
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.status, headers: res.headers, text, json }
}

async function api(fake: Dockside, method: string, url: string, body?: unknown): Promise<Answer> {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body)
  return read(await fake.protocol.handle({ method, url, headers: { host: '127.0.0.1:2375' }, signal: new AbortController().signal, body: async () => text, served: { scheme: 'http', host: '127.0.0.1', port: 2375 } }))
}

/** An events websocket opened through the protocol, as a transport opens one. */
async function socket(fake: Dockside, url = '/events/ws') {
  const result = await fake.protocol.upgrade({ method: 'GET', url, headers: { host: '127.0.0.1:2375' }, signal: new AbortController().signal, body: async () => '' })
  if (result.kind !== 'accept') throw new Error(`upgrade refused: ${result.response.status}`)
  const seen = { frames: [] as string[], closed: undefined as { code: number; reason: string } | undefined, dropped: false }
  const sink: SocketSink = {
    send: (t) => void seen.frames.push(t),
    close: (code, reason) => void (seen.closed = { code, reason }),
    drop: () => void (seen.dropped = true),
  }
  result.open(sink)
  return seen
}

describe('containers', () => {
  it('POST creates (s4, stopped, exit code 0 by default; start or running starts it); GET lists; 201 with the container', async () => {
    const fake = fresh()
    const created = await api(fake, 'POST', '/_dockside/containers', { name: 'cache', image: 'redis:7', labels: { app: 'cache' }, start: true })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({ name: 'cache', image: 'redis:7', labels: { app: 'cache' }, instanceType: 's4', state: 'running', exitCode: 0 })
    expect(Object.keys(created.json)).toEqual(['id', 'name', 'image', 'labels', 'instanceType', 'state', 'exitCode'])
    expect((await api(fake, 'POST', '/_dockside/containers', { name: 'web', image: 'nginx', running: true })).json.state).toBe('running')
    expect((await api(fake, 'POST', '/_dockside/containers', { name: 'idle', image: 'nginx', start: false })).json.state).toBe('created')
    expect((await api(fake, 'POST', '/_dockside/containers', { name: 'idle2', image: 'nginx' })).json.state).toBe('created')
    const list = await api(fake, 'GET', '/_dockside/containers')
    expect(list.json.map((c: { name: string; state: string }) => [c.name, c.state])).toEqual([
      ['cache', 'running'],
      ['web', 'running'],
      ['idle', 'created'],
      ['idle2', 'created'],
    ])
  })

  it('start, stop (exit code from the body, else ?exitCode=, else 0) and delete by name; an unknown one is a 404', async () => {
    const fake = fresh()
    await api(fake, 'POST', '/_dockside/containers', { name: 'worker', image: 'busybox' })
    expect((await api(fake, 'POST', '/_dockside/containers/worker/start')).json).toMatchObject({ name: 'worker', state: 'running', exitCode: 0 })
    expect((await api(fake, 'POST', '/_dockside/containers/worker/stop', { exitCode: 137 })).json).toMatchObject({ name: 'worker', state: 'exited', exitCode: 137 })
    await api(fake, 'POST', '/_dockside/containers/worker/start')
    expect((await api(fake, 'POST', '/_dockside/containers/worker/stop?exitCode=3')).json.exitCode).toBe(3)
    await api(fake, 'POST', '/_dockside/containers/worker/start')
    expect((await api(fake, 'POST', '/_dockside/containers/worker/stop')).json.exitCode).toBe(0)
    const bad = await api(fake, 'POST', '/_dockside/containers/worker/stop', { exitCode: 256 })
    expect(bad.status).toBe(400)
    expect(bad.json.message).toBe('exitCode: must be <= 255')
    expect((await api(fake, 'DELETE', '/_dockside/containers/worker')).json).toEqual({ removed: 'worker' })
    expect((await api(fake, 'POST', '/_dockside/containers/worker/start')).status).toBe(404)
    expect((await api(fake, 'DELETE', '/_dockside/containers/worker')).status).toBe(404)
    // A trailing slash and percent-encoded names are the same route.
    await api(fake, 'POST', '/_dockside/containers', { name: 'a.b', image: 'busybox' })
    expect((await api(fake, 'POST', '/_dockside/containers/a%2Eb/start/')).json.state).toBe('running')
  })
})

describe('images, registries', () => {
  it('POST /images answers id, size and layer count; GET lists tags with layers', async () => {
    const fake = fresh()
    const added = await api(fake, 'POST', '/_dockside/images', { name: 'localhost:5000/team/tool', tags: ['0.1'], layers: [1000000, 2500000] })
    expect(added.status).toBe(201)
    expect(added.json).toMatchObject({ size: 3500000, layers: 2 })
    expect(added.json.id).toMatch(/^sha256:[0-9a-f]{64}$/)
    const images = (await api(fake, 'GET', '/_dockside/images')).json
    expect(images).toEqual([{ repository: 'localhost:5000/team/tool', tag: '0.1', id: added.json.id, size: 3500000, layers: [{ digest: expect.stringMatching(/^sha256:/), size: 1000000 }, { digest: expect.stringMatching(/^sha256:/), size: 2500000 }] }])
    const state = (await api(fake, 'GET', '/_dockside/state')).json
    expect(state.images).toEqual([{ repository: 'localhost:5000/team/tool', tag: '0.1', id: added.json.id, size: 3500000, layers: 2 }])
  })

  it('POST /registries answers the registry; GET lists them; a host added twice is a 409', async () => {
    const fake = fresh()
    const added = await api(fake, 'POST', '/_dockside/registries', { host: 'localhost:5001', token: 'tok-123' })
    expect(added.status).toBe(201)
    expect(added.json).toEqual({ host: 'localhost:5001', auth: 'token', tags: [], blobs: [] })
    expect((await api(fake, 'GET', '/_dockside/registries')).json).toEqual([{ host: 'localhost:5001', auth: 'token', tags: [], blobs: [] }])
    expect((await api(fake, 'POST', '/_dockside/registries', { host: 'localhost:5001' })).status).toBe(409)
  })
})

describe('faults and rate limits', () => {
  it('POST one rule or a batch; GET with matched and fired; pending with the seed; DELETE one or all', async () => {
    const fake = fresh()
    expect(await api(fake, 'POST', '/_dockside/faults', { id: 'storm', on: 'events', reply: 429, retryAfter: 5, times: 2 })).toMatchObject({ status: 201, json: { added: ['storm'] } })
    expect((await api(fake, 'POST', '/_dockside/faults', { rules: [{ on: 'push', reply: 503 }] })).json).toEqual({ added: ['rule-1'] })
    expect((await api(fake, 'GET', '/_dockside/faults')).json).toEqual([
      { id: 'storm', on: 'events', reply: 429, retryAfter: 5, times: 2, fired: 0, matched: 0 },
      { id: 'rule-1', on: 'push', reply: 503, fired: 0, matched: 0 },
    ])
    const pending = (await api(fake, 'GET', '/_dockside/faults/pending')).json
    expect(pending.seed).toBe(42)
    expect(pending.pending.map((f: { id: string; fired: number }) => [f.id, f.fired])).toEqual([
      ['storm', 0],
      ['rule-1', 0],
    ])
    expect(typeof pending.table).toBe('string')
    expect(pending.table).toContain('storm')
    const other = await api(fake, 'GET', '/_dockside/faults/other')
    expect(other.status).toBe(404)
    expect(other.json.message).toBe('No admin route for GET /_dockside/faults/other. Use GET /_dockside/faults or GET /_dockside/faults/pending.')
    expect((await api(fake, 'DELETE', '/_dockside/faults/storm')).json).toEqual({ removed: 'storm' })
    const gone = await api(fake, 'DELETE', '/_dockside/faults/storm')
    expect([gone.status, gone.json.message]).toEqual([404, 'No such fault rule: storm. Known: rule-1.'])
    expect((await api(fake, 'DELETE', '/_dockside/faults')).json).toEqual({ removed: 'all' })
    expect((await api(fake, 'DELETE', '/_dockside/faults/x')).json.message).toBe('No such fault rule: x. Known: (none).')
    expect(fake.faults.list()).toEqual([])
  })

  it('a batch refused by the plan names rules[i]; a body that is not JSON says what to send', async () => {
    const fake = fresh()
    const res = await api(fake, 'POST', '/_dockside/faults', { rules: [{ on: 'events', reply: 429, id: 'a' }, { on: 'events', reply: 429, id: 'a' }] })
    expect([res.status, res.json.message]).toEqual([400, 'rules[1].id: a fault rule with id "a" already exists'])
    const notJson = await api(fake, 'POST', '/_dockside/faults', '{"on":')
    expect([notJson.status, notJson.json.message]).toEqual([400, 'The request body is not valid JSON (6 bytes, not shown: it may hold a secret). Send a fault rule like {"on":"events","reply":429}, or {"rules":[...]}.'])
    const empty = await api(fake, 'POST', '/_dockside/faults', '  ')
    expect(empty.status).toBe(400)
    // A null body is one rule (refused by its schema), not a batch.
    expect((await api(fake, 'POST', '/_dockside/faults', 'null')).status).toBe(400)
    const noJson = await api(fake, 'POST', '/_dockside/containers', '{')
    expect(noJson.json.message).toBe('The request body is not valid JSON (1 bytes, not shown: it may hold a secret).')
  })

  it('rate limit: POST answers the rules, GET reads them, DELETE answers []; no body is a 400 with an example', async () => {
    const fake = fresh()
    expect(await api(fake, 'POST', '/_dockside/rate-limit', { route: 'events', limit: 5, window: '10s' })).toMatchObject({ status: 200, json: [{ route: 'events', limit: 5, window: '10s' }] })
    expect((await api(fake, 'GET', '/_dockside/rate-limit')).json).toEqual([{ route: 'events', limit: 5, window: '10s' }])
    expect((await api(fake, 'DELETE', '/_dockside/rate-limit')).json).toEqual([])
    expect((await api(fake, 'GET', '/_dockside/rate-limit')).json).toEqual([])
    const bad = await api(fake, 'POST', '/_dockside/rate-limit', '{x')
    expect(bad.json.message).toBe('The request body is not valid JSON (2 bytes, not shown: it may hold a secret). Send {"route":"events","limit":5,"window":"10s"} or a list of them.')
  })
})

describe('events sockets, deliveries, restart', () => {
  it('sockets/close defaults to 1011 "closed by the admin API"; a bad code or reason is a 400 naming it', async () => {
    const fake = fresh()
    const a = await socket(fake, '/events/ws?client=dashboard')
    expect((await api(fake, 'POST', '/_dockside/sockets/close')).json).toEqual({ closed: 1 })
    expect(a.closed).toEqual({ code: 1011, reason: 'closed by the admin API' })
    const b = await socket(fake)
    expect((await api(fake, 'POST', '/_dockside/sockets/close', { code: 4000, reason: 'bye' })).json).toEqual({ closed: 1 })
    expect(b.closed).toEqual({ code: 4000, reason: 'bye' })
    const bad = await api(fake, 'POST', '/_dockside/sockets/close', { code: 1005 })
    expect([bad.status, bad.json.message]).toEqual([400, 'code: must be a close code a server may send: 1000-1003, 1007-1014 or 3000-4999 (got 1005)'])
    const long = await api(fake, 'POST', '/_dockside/sockets/close', { reason: 'x'.repeat(124) })
    expect([long.status, long.json.message]).toEqual([400, 'reason: must be a string of at most 123 bytes'])
    expect((await api(fake, 'POST', '/_dockside/sockets/close')).json).toEqual({ closed: 0 })
  })

  it('sockets/drop ends every socket with no close frame; restart closes them with 1001', async () => {
    const fake = fresh()
    const a = await socket(fake)
    expect((await api(fake, 'POST', '/_dockside/sockets/drop')).json).toEqual({ dropped: 1 })
    expect(a.dropped).toBe(true)
    expect((await api(fake, 'POST', '/_dockside/sockets/drop')).json).toEqual({ dropped: 0 })
    const b = await socket(fake)
    expect((await api(fake, 'POST', '/_dockside/restart')).json).toEqual({ closed: 1 })
    expect(b.closed?.code).toBe(1001)
  })

  it('deliveries: every client, and one client\'s report', async () => {
    const fake = fresh()
    await socket(fake, '/events/ws?client=dashboard')
    const all = (await api(fake, 'GET', '/_dockside/deliveries')).json
    expect(all.map((c: { client: string }) => c.client)).toEqual(['dashboard'])
    expect((await api(fake, 'GET', '/_dockside/deliveries/dashboard')).json).toMatchObject({ client: 'dashboard', missed: [], duplicates: [] })
  })

  it('state: clock, seed, containers, registries, faults and sockets', async () => {
    const fake = fresh()
    await fake.clock.advance('1s')
    fake.containers.create({ name: 'web', image: 'nginx' })
    fake.faults.add({ id: 'f', on: 'push', reply: 503 })
    await socket(fake, '/events/ws?client=c1')
    const state = (await api(fake, 'GET', '/_dockside/state')).json
    expect(state.clock).toEqual({ mode: 'virtual', now: '2026-01-01T00:00:01.000Z', elapsedMs: 1000, pending: fake.clock.pending })
    expect(state.seed).toBe(42)
    expect(state.containers.map((c: { name: string }) => c.name)).toEqual(['web'])
    expect(state.registries).toEqual([])
    expect(state.faults).toEqual([{ id: 'f', on: 'push', reply: 503, fired: 0, matched: 0 }])
    expect(state.sockets).toMatchObject([{ client: 'c1', sent: 0 }])
  })
})

describe('clock, journal, reset, scenario', () => {
  it('GET clock; advance by body or ?by=; a bad or missing "by" is a 400 and the clock does not move', async () => {
    const fake = fresh()
    expect((await api(fake, 'GET', '/_dockside/clock')).json).toEqual({ mode: 'virtual', now: '2026-01-01T00:00:00.000Z', nowMs: Date.parse('2026-01-01T00:00:00.000Z'), elapsedMs: 0, pending: 0, paused: false, speed: 1 })
    expect((await api(fake, 'POST', '/_dockside/clock/advance', { by: '30s' })).json).toEqual({ now: '2026-01-01T00:00:30.000Z', elapsedMs: 30000 })
    expect((await api(fake, 'POST', '/_dockside/clock/advance?by=250')).json).toEqual({ now: '2026-01-01T00:00:30.250Z', elapsedMs: 30250 })
    const huge = await api(fake, 'POST', '/_dockside/clock/advance', { by: 1e308 })
    expect([huge.status, huge.json.message]).toEqual([400, 'by: Invalid clock advance 1e+308: longer than the 100-year maximum; expected from 0 to 3153600000000 ms (100 years).'])
    const none = await api(fake, 'POST', '/_dockside/clock/advance')
    expect([none.status, none.json.message]).toEqual([400, '"by" is required: a duration like "5s" or milliseconds.'])
    expect(fake.clock.elapsed()).toBe(30250)
  })

  it('a real clock cannot be advanced', async () => {
    const fake = fresh({ clock: 'real' })
    const res = await api(fake, 'POST', '/_dockside/clock/advance', { by: '1s' })
    expect([res.status, res.json.message]).toEqual([400, 'The clock runs in "real" mode and cannot be advanced; start with --clock virtual or auto.'])
  })

  it('journal: by type and after a sequence number, with the omitted count; a bad "after" is a 400', async () => {
    const fake = fresh()
    await api(fake, 'GET', '/_ping')
    await api(fake, 'GET', '/version')
    const all = await api(fake, 'GET', '/_dockside/journal?type=request')
    expect(all.headers['x-dockside-journal-omitted']).toBe('0')
    expect(all.json.map((e: { path: string }) => e.path)).toEqual(['/_ping', '/version'])
    const after = await api(fake, 'GET', `/_dockside/journal?type=request&after=${all.json[0].seq}`)
    expect(after.json.map((e: { path: string }) => e.path)).toEqual(['/version'])
    const everything = (await api(fake, 'GET', '/_dockside/journal')).json
    // Reads of the journal are not journaled themselves.
    expect(everything.map((e: { seq: number; path: string }) => [e.seq, e.path])).toEqual([
      [1, '/_ping'],
      [2, '/version'],
    ])
    expect((await api(fake, 'GET', '/_dockside/journal?after=0')).json[0].seq).toBe(1)
    for (const bad of ['abc', '-1', '1.5', '']) {
      const res = await api(fake, 'GET', `/_dockside/journal?after=${bad}`)
      expect([res.status, res.json.message], bad).toEqual([400, `Invalid "after" ${JSON.stringify(bad)}: expected a journal sequence number, an integer >= 0.`])
    }
  })

  it('reset answers {"reset":true} and empties the state', async () => {
    const fake = fresh()
    fake.containers.create({ name: 'web', image: 'nginx' })
    expect((await api(fake, 'POST', '/_dockside/reset')).json).toEqual({ reset: true })
    expect(fake.containers.list()).toEqual([])
  })

  it('scenario: applied from the start or from now; another "from" is a 400', async () => {
    const fake = fresh()
    await fake.clock.advance('5s')
    const res = await api(fake, 'POST', '/_dockside/scenario?from=now', { containers: [{ name: 'job', image: 'busybox' }] })
    expect(res.json).toEqual({ applied: true, from: 'now', clock: { elapsedMs: 5000 } })
    expect((await api(fake, 'POST', '/_dockside/scenario', {})).json).toEqual({ applied: true, from: 'start', clock: { elapsedMs: 5000 } })
    expect((await api(fake, 'POST', '/_dockside/scenario')).json.applied).toBe(true)
    const bad = await api(fake, 'POST', '/_dockside/scenario?from=later', {})
    expect([bad.status, bad.json.message]).toEqual([400, 'Invalid "from" "later": timeline "at" counts from "start" (the clock\'s start, as in scenario files; the default) or "now".'])
    const notJson = await api(fake, 'POST', '/_dockside/scenario', '{')
    expect(notJson.json.message).toBe('The request body is not valid JSON (1 bytes, not shown: it may hold a secret). Send a scenario (docs/scenarios.md) as JSON.')
  })
})

describe('routes that do not exist', () => {
  it('an unknown route is a 404 listing the admin routes; a bad percent-encoding is a 400', async () => {
    const fake = fresh()
    const res = await api(fake, 'GET', '/_dockside/nope')
    expect(res.status).toBe(404)
    expect(res.json.message).toMatch(/^No admin route for GET \/_dockside\/nope\. Admin routes: GET \/_dockside\/state; GET\|POST \/_dockside\/containers; /)
    expect(res.json.message).toContain('GET|POST|DELETE /_dockside/overrides, DELETE /_dockside/overrides/{id}; ')
    expect(res.json.message).toContain('GET|POST /_dockside/fakes, GET|DELETE /_dockside/fakes/{id}; ')
    expect(res.json.message).toMatch(/; GET \/_dockside\/ui \(the dashboard\)\.$/)
    expect((await api(fake, 'PUT', '/_dockside/containers')).status).toBe(404)
    expect((await api(fake, 'GET', '/_dockside/clock/advance')).status).toBe(404)
    expect((await api(fake, 'POST', '/_dockside/sockets')).status).toBe(404)
    const bad = await api(fake, 'POST', '/_dockside/containers/%E0%A4%A/start')
    expect([bad.status, bad.json.message]).toEqual([400, 'Invalid percent-encoding in "%E0%A4%A": encode names with encodeURIComponent.'])
  })
})

describe('overrides and requests routes', () => {
  it('GET, DELETE one (404 naming those in place), DELETE all with the count', async () => {
    const fake = fresh()
    fake.use('/a', { status: 503 }, { id: 'a' })
    fake.use('/b', { status: 503 }, { id: 'b' })
    expect((await api(fake, 'GET', '/_dockside/overrides')).json.map((o: { id: string }) => o.id)).toEqual(['a', 'b'])
    expect((await api(fake, 'DELETE', '/_dockside/overrides/a')).json).toEqual({ removed: 'a' })
    const gone = await api(fake, 'DELETE', '/_dockside/overrides/a')
    expect([gone.status, gone.json.message]).toEqual([404, 'No such override: a. In place: b.'])
    expect((await api(fake, 'DELETE', '/_dockside/overrides')).json).toEqual({ removed: 1 })
    expect((await api(fake, 'DELETE', '/_dockside/overrides/z')).json.message).toBe('No such override: z. In place: (none).')
    expect((await api(fake, 'DELETE', '/_dockside/overrides')).json).toEqual({ removed: 0 })
    const other = await api(fake, 'PUT', '/_dockside/overrides')
    expect([other.status, other.json.message]).toEqual([
      404,
      'No admin route for PUT /_dockside/overrides. Routes here: GET|POST|DELETE /_dockside/overrides, DELETE /_dockside/overrides/{id}; GET|DELETE /_dockside/requests[?method=&path=&pathPattern=&query.NAME=&header.NAME=&client=&status=&body=].',
    ])
    expect((await api(fake, 'GET', '/_dockside/overrides/a/b')).status).toBe(404)
    expect((await api(fake, 'GET', '/_dockside/requests/x')).status).toBe(404)
  })

  it('POST overrides: an empty body and a body that is not JSON are 400s saying what to send', async () => {
    const fake = fresh()
    const empty = await api(fake, 'POST', '/_dockside/overrides', ' ')
    expect([empty.status, empty.json.message]).toEqual([400, 'Send an override as JSON: {"request":{"method":"GET","path":"/_ping"},"response":{"status":503}}.'])
    const bad = await api(fake, 'POST', '/_dockside/overrides', '{"request"')
    expect([bad.status, bad.json.message]).toEqual([400, 'The request body is not valid JSON (10 bytes, not shown: it may hold a secret). Send {"request":{...},"response":{...}}.'])
  })

  it('GET requests: every query parameter narrows it down; limit and nearMisses; no pattern, no near misses', async () => {
    const fake = fresh()
    // A handler that reads the body: the log keeps it, and body= can match it.
    fake.use('POST /auth', async (req) => (await req.text(), { status: 401 }))
    await api(fake, 'GET', '/_ping?client=ci')
    await api(fake, 'POST', '/auth', { username: 'alice', password: 'pw' })
    await api(fake, 'GET', '/containers/json?all=1')
    await api(fake, 'GET', '/version')
    const all = (await api(fake, 'GET', '/_dockside/requests')).json
    expect(Object.keys(all)).toEqual(['count', 'omitted', 'requests'])
    expect([all.count, all.omitted, all.requests.map((r: { path: string }) => r.path)]).toEqual([4, 0, ['/_ping', '/auth', '/containers/json', '/version']])
    const paths = async (query: string) => (await api(fake, 'GET', `/_dockside/requests?${query}`)).json.requests.map((r: { path: string }) => r.path)
    expect(await paths('method=POST')).toEqual(['/auth'])
    expect(await paths('path=/containers/*')).toEqual(['/containers/json'])
    expect(await paths('pathPattern=^/(_ping|version)$')).toEqual(['/_ping', '/version'])
    expect(await paths('query.all=1')).toEqual(['/containers/json'])
    expect(await paths('header.host=127.0.0.1:2375&method=GET&limit=2')).toEqual(['/containers/json', '/version'])
    expect(await paths('client=ci')).toEqual(['/_ping'])
    expect(await paths('status=401')).toEqual(['/auth'])
    expect(await paths('body={"username":"alice"}')).toEqual(['/auth'])
    expect(await paths('body=%7B%22username%22%3A%22bob%22%7D')).toEqual([])
    expect(await paths('body=not-json')).toEqual([])
    expect(await paths('body={broken')).toEqual([])
    expect(await paths('limit=0')).toEqual([])
    expect(await paths('limit=1000')).toHaveLength(4)
    const limited = (await api(fake, 'GET', '/_dockside/requests?limit=1')).json
    expect([limited.count, limited.requests.map((r: { path: string }) => r.path)]).toEqual([4, ['/version']])
    const miss = (await api(fake, 'GET', '/_dockside/requests?path=/containers/jsn&nearMisses=1')).json
    expect(miss.count).toBe(0)
    expect(miss.nearMisses).toHaveLength(1)
    expect(miss.nearMisses[0].mismatches).toEqual([{ field: 'path', expected: '"/containers/jsn"', actual: '"/containers/json"' }])
    expect((await api(fake, 'GET', '/_dockside/requests?path=/nothing')).json.nearMisses).toHaveLength(3)
    expect((await api(fake, 'GET', '/_dockside/requests?path=/nothing&nearMisses=50')).json.nearMisses).toHaveLength(4)
    // Names that only start like a query.NAME or header.NAME are unknown parameters.
    for (const [query, message] of [
      ['stauts=200', 'Unknown query parameter "stauts"; allowed: method, path, pathPattern, client, status, body, limit, nearMisses, query.NAME, header.NAME.'],
      ['query.=1', 'Unknown query parameter "query."; allowed: method, path, pathPattern, client, status, body, limit, nearMisses, query.NAME, header.NAME.'],
      ['header.=1', 'Unknown query parameter "header."; allowed: method, path, pathPattern, client, status, body, limit, nearMisses, query.NAME, header.NAME.'],
      ['status=20', 'status: must be a 3-digit HTTP status, not "20"'],
      ['status=2000', 'status: must be a 3-digit HTTP status, not "2000"'],
      ['limit=1001', 'limit: must be an integer from 0 to 1000, not "1001"'],
      ['limit=-1', 'limit: must be an integer from 0 to 1000, not "-1"'],
      ['limit=1x', 'limit: must be an integer from 0 to 1000, not "1x"'],
      ['nearMisses=51', 'nearMisses: must be an integer from 0 to 50, not "51"'],
      ['path=nope', 'query.path: must start with "/"'],
    ]) {
      const res = await api(fake, 'GET', `/_dockside/requests?${query}`)
      expect([res.status, res.json.message], query).toEqual([400, message])
    }
    expect((await api(fake, 'DELETE', '/_dockside/requests')).json).toEqual({ removed: 4 })
    expect((await api(fake, 'GET', '/_dockside/requests')).json).toEqual({ count: 0, omitted: 0, requests: [] })
  })
})

describe('fleet routes on a fake that serves none', () => {
  it('every /_dockside/fakes route is a 404 saying how to get a fleet', async () => {
    const fake = fresh()
    for (const [method, url] of [
      ['POST', '/_dockside/fakes'],
      ['GET', '/_dockside/fakes/fake-1'],
    ]) {
      const res = await api(fake, method, url)
      expect([res.status, res.json.message]).toEqual([
        404,
        'This fake serves no fleet: `dockside serve` does (POST /_dockside/fakes on it; --max-fakes N, 0 turns it off), and so does createDockside({ fleet: { maxFakes: 8 } }). A fake of a fleet cannot create fakes itself.',
      ])
    }
  })
})
