// Request patterns and the request log (src/protocol/requests/log.ts), as docs/api.md#request-verification and
// #per-test-overrides describe them: what a pattern matches field by field, the text a failed matcher shows, what is
// masked, how the log is bounded and numbered, and how near misses rank. Expected values are written out from the docs.
import { describe, expect, it } from 'vitest'
import {
  compilePattern,
  createRequestLog,
  describeNearMisses,
  describeRequest,
  maskBody,
  pathSource,
  RECORDED_BODY_LIMIT,
  REQUEST_LOG_LIMIT,
  type Candidate,
  type RawRequest,
  type RequestPattern,
} from '../../../../src/protocol/requests/log'

/** A request as the router records it. */
function raw(fields: Partial<Omit<RawRequest, 'query'>> & { query?: Record<string, string> } = {}): RawRequest & Candidate {
  const { query = {}, ...rest } = fields
  return {
    seq: 0,
    time: 1_700_000_000_000,
    method: 'GET',
    url: '/_ping',
    path: '/_ping',
    headers: {},
    body: undefined,
    client: undefined,
    status: 200,
    override: undefined,
    websocket: false,
    ...rest,
    query: new Map(Object.entries(query)),
  }
}

const candidate = (fields: Partial<Omit<Candidate, 'query'>> & { query?: Record<string, string> } = {}): Candidate => raw(fields)

const matches = (pattern: RequestPattern | string, req: Candidate, body?: string) => compilePattern(pattern).matches(req, body)

describe('a request pattern', () => {
  it('"METHOD /path" and "/path" strings are short for method and path; anything else is refused with an example', () => {
    expect(matches('GET /_ping', candidate({ method: 'GET', path: '/_ping' }))).toBe(true)
    expect(matches('GET /_ping', candidate({ method: 'HEAD', path: '/_ping' }))).toBe(false)
    expect(matches('/_ping', candidate({ method: 'HEAD', path: '/_ping' }))).toBe(true)
    expect(matches('  post   /auth  ', candidate({ method: 'POST', path: '/auth' }))).toBe(true)
    expect(matches('* /auth', candidate({ method: 'DELETE', path: '/auth' }))).toBe(true)
    expect(compilePattern('GET /_ping').text).toBe('GET /_ping')
    expect(compilePattern('/_ping').text).toBe('* /_ping')
    for (const bad of ['ping', 'GET', 'GET /a b', 'G3T /a', '']) {
      expect(() => compilePattern(bad), bad).toThrow(`Invalid request pattern ${JSON.stringify(bad)}: expected "METHOD /path" or "/path", e.g. "POST /images/*/push".`)
    }
  })

  it('a pattern that is not an object, or has an unknown field, is refused naming the allowed fields', () => {
    for (const bad of [null, [], 5]) {
      expect(() => compilePattern(bad as never)).toThrow('A request pattern must be an object like { method: "GET", path: "/_ping" } or a string "GET /_ping".')
    }
    expect(() => compilePattern({ methd: 'GET' } as never)).toThrow('Unknown request pattern field "methd"; allowed: method, path, query, headers, body, client, status.')
    // Every documented field is accepted.
    expect(() => compilePattern({ method: 'GET', path: '/a', query: {}, headers: {}, body: 'x', client: 'c', status: 200 })).not.toThrow()
  })

  it('method ignores case; "*" or none is any method', () => {
    expect(matches({ method: 'post' }, candidate({ method: 'POST' }))).toBe(true)
    expect(matches({ method: 'POST' }, candidate({ method: 'post' }))).toBe(true)
    expect(matches({ method: 'POST' }, candidate({ method: 'PUT' }))).toBe(false)
    expect(matches({ method: '*' }, candidate({ method: 'PATCH' }))).toBe(true)
    expect(matches({}, candidate({ method: 'PATCH' }))).toBe(true)
    expect(compilePattern({ method: 'post' }).text).toBe('POST *')
    expect(compilePattern({ method: '*' }).text).toBe('* *')
  })

  it('path: exact, ":name" one segment, "*" anything, or a RegExp; other characters are literal', () => {
    expect(matches({ path: '/containers/json' }, candidate({ path: '/containers/json' }))).toBe(true)
    expect(matches({ path: '/containers/json' }, candidate({ path: '/containers/json/' }))).toBe(false)
    expect(matches({ path: '/containers/:id/json' }, candidate({ path: '/containers/web/json' }))).toBe(true)
    expect(matches({ path: '/containers/:id/json' }, candidate({ path: '/containers/a/b/json' }))).toBe(false)
    expect(matches({ path: '/containers/:id/json' }, candidate({ path: '/containers//json' }))).toBe(false)
    expect(matches({ path: '/images/*/push' }, candidate({ path: '/images/localhost:5000/team/app/push' }))).toBe(true)
    expect(matches({ path: '/images/*/push' }, candidate({ path: '/images/app/push/x' }))).toBe(false)
    expect(matches({ path: '/images/*/push' }, candidate({ path: 'x/images/app/push' }))).toBe(false)
    // Regex characters of a path pattern are literal: "." is a dot, "+" a plus.
    expect(matches({ path: '/v1.47/:x' }, candidate({ path: '/v1x47/a' }))).toBe(false)
    expect(matches({ path: '/v1.47/:x' }, candidate({ path: '/v1.47/a' }))).toBe(true)
    expect(matches({ path: '/a+b/*' }, candidate({ path: '/aab/c' }))).toBe(false)
    expect(matches({ path: '/a+b/*' }, candidate({ path: '/a+b/c' }))).toBe(true)
    // A ":" not followed by a name is literal.
    expect(matches({ path: '/x/:id:' }, candidate({ path: '/x/abc:' }))).toBe(true)
    expect(matches({ path: '/x/:id:' }, candidate({ path: '/x/abcd' }))).toBe(false)
    expect(matches({ path: /\/push$/ }, candidate({ path: '/images/app/push' }))).toBe(true)
    expect(matches({ path: /\/push$/ }, candidate({ path: '/images/app/push/no' }))).toBe(false)
  })

  it('pathSource: the regex source of a path pattern', () => {
    expect(pathSource('/images/*/push')).toBe('^/images/.*/push$')
    expect(pathSource('/containers/:id/json')).toBe('^/containers/[^/]+/json$')
    expect(pathSource('/v1.47/_ping')).toBe('^/v1\\.47/_ping$')
    expect(pathSource('/x/:id:')).toBe('^/x/[^/]+:$')
  })

  it('a path pattern with "*" or ":name" goes through the given regex compiler; a plain path does not', () => {
    const sources: string[] = []
    const regex = (s: string) => (sources.push(s), new RegExp(s))
    compilePattern({ path: '/_ping' }, regex)
    expect(sources).toEqual([])
    compilePattern({ path: '/images/*/push' }, regex)
    compilePattern({ path: '/containers/:id' }, regex)
    expect(sources).toEqual(['^/images/.*/push$', '^/containers/[^/]+$'])
    expect(compilePattern({ path: '/_ping' }).plainPath).toBe('/_ping')
    expect(compilePattern({ path: '/images/*/push' }).plainPath).toBeUndefined()
    expect(compilePattern({ path: '/containers/:id' }).plainPath).toBeUndefined()
    expect(compilePattern({ path: /x/ }).plainPath).toBeUndefined()
    expect(compilePattern({}).plainPath).toBeUndefined()
  })

  it('query values must be there, exact or by RegExp; other parameters may be there too; names keep their case', () => {
    const p = { query: { tag: '1.0', all: /^(1|true)$/ } }
    expect(matches(p, candidate({ query: { tag: '1.0', all: 'true', extra: 'x' } }))).toBe(true)
    expect(matches(p, candidate({ query: { tag: '1.0' } }))).toBe(false)
    expect(matches(p, candidate({ query: { tag: '1.00', all: '1' } }))).toBe(false)
    expect(matches(p, candidate({ query: { tag: '1.0', all: '0' } }))).toBe(false)
    expect(matches({ query: { Tag: '1' } }, candidate({ query: { tag: '1' } }))).toBe(false)
    expect(compilePattern(p).text).toBe('* * query tag="1.0" all=/^(1|true)$/')
  })

  it('header names match in any case; values are the real ones; a secret header\'s expected value is never shown', () => {
    const p = compilePattern({ headers: { 'X-Dockside-Client': 'ci', Authorization: 'Bearer t0ken' } })
    const req = candidate({ headers: { 'x-dockside-client': 'ci', authorization: 'Bearer t0ken' } })
    expect(p.matches(req, undefined)).toBe(true)
    expect(p.matches(candidate({ headers: { 'x-dockside-client': 'ci', authorization: 'Bearer other' } }), undefined)).toBe(false)
    expect(p.matches(candidate({ headers: { 'x-dockside-client': 'ci' } }), undefined)).toBe(false)
    expect(p.text).toBe('* * headers x-dockside-client: "ci", authorization: (a secret)')
    expect(compilePattern({ headers: { 'x-a': /b/ } }).text).toBe('* * headers x-a: /b/')
  })

  it('body: exact text, a RegExp, or JSON the body must contain (as toMatchObject); a body not read matches nothing', () => {
    expect(matches({ body: 'abc' }, candidate(), 'abc')).toBe(true)
    expect(matches({ body: 'abc' }, candidate(), 'abcd')).toBe(false)
    expect(matches({ body: /b+c/ }, candidate(), 'abbc')).toBe(true)
    expect(matches({ body: /^x/ }, candidate(), 'abbc')).toBe(false)
    expect(matches({ body: { username: 'alice' } }, candidate(), '{"username":"alice","password":"pw"}')).toBe(true)
    expect(matches({ body: { username: 'alice' } }, candidate(), '{"username":"bob"}')).toBe(false)
    expect(matches({ body: { username: 'alice' } }, candidate(), '{"user":"alice"}')).toBe(false)
    expect(matches({ body: { username: 'alice' } }, candidate(), 'not json')).toBe(false)
    expect(matches({ body: { username: 'alice' } }, candidate(), '["alice"]')).toBe(false)
    expect(matches({ body: { username: 'alice' } }, candidate(), 'null')).toBe(false)
    expect(matches({ body: { username: 'alice' } }, candidate(), undefined)).toBe(false)
    expect(matches({ body: 'abc' }, candidate(), undefined)).toBe(false)
    // Nested objects are contained, arrays are equal element by element (same length).
    expect(matches({ body: { a: { b: 1 } } }, candidate(), '{"a":{"b":1,"c":2}}')).toBe(true)
    expect(matches({ body: { a: { b: 1 } } }, candidate(), '{"a":{"b":2}}')).toBe(false)
    expect(matches({ body: { a: { b: 1 } } }, candidate(), '{"a":[1]}')).toBe(false)
    expect(matches({ body: { a: { b: 1 } } }, candidate(), '{"a":null}')).toBe(false)
    expect(matches({ body: { tags: ['1', { x: 1 }] } }, candidate(), '{"tags":["1",{"x":1,"y":2}]}')).toBe(true)
    expect(matches({ body: { tags: ['1'] } }, candidate(), '{"tags":["1","2"]}')).toBe(false)
    expect(matches({ body: { tags: ['1', '2'] } }, candidate(), '{"tags":["1","3"]}')).toBe(false)
    expect(matches({ body: { tags: ['1'] } }, candidate(), '{"tags":{"0":"1","length":1}}')).toBe(false)
    expect(matches({ body: ['a'] }, candidate(), '["a"]')).toBe(true)
    expect(matches({ body: { n: null } }, candidate(), '{"n":null}')).toBe(true)
    expect(matches({ body: { n: null } }, candidate(), '{"n":0}')).toBe(false)
    expect(matches({ body: { n: null } }, candidate(), '{}')).toBe(false)
    // An inherited name is not a field of the body.
    expect(matches({ body: { toString: {} } }, candidate(), '{}')).toBe(false)
    const p = compilePattern({ body: { username: 'alice' } })
    expect(p.needsBody).toBe(true)
    expect(p.text).toBe('* * body {"username":"alice"}')
    expect(compilePattern({ path: '/a' }).needsBody).toBe(false)
    // skipBody: as if the body matched (an override's body is not read yet).
    expect(p.matches(candidate(), undefined, true)).toBe(true)
    expect(compilePattern({ path: '/a', body: 'x' }).matches(candidate({ path: '/b' }), undefined, true)).toBe(false)
  })

  it('client and status', () => {
    expect(matches({ client: 'ci' }, candidate({ client: 'ci' }))).toBe(true)
    expect(matches({ client: 'ci' }, candidate({ client: 'cd' }))).toBe(false)
    expect(matches({ client: 'ci' }, candidate({ client: undefined }))).toBe(false)
    expect(matches({ client: /^worker-\d$/ }, candidate({ client: 'worker-3' }))).toBe(true)
    expect(matches({ client: /^worker-\d$/ }, candidate({ client: 'worker-x' }))).toBe(false)
    expect(matches({ status: 503 }, candidate({ status: 503 }))).toBe(true)
    expect(matches({ status: 503 }, candidate({ status: 200 }))).toBe(false)
    expect(compilePattern({ client: 'ci', status: 503 }).text).toBe('* * client "ci" status 503')
  })

  it('the text a failed matcher shows, every field in order', () => {
    expect(compilePattern({ method: 'get', path: '/containers/jsn', query: { all: '1' } }).text).toBe('GET /containers/jsn query all="1"')
    expect(compilePattern({ method: 'POST', path: /\/push$/, query: { tag: '1.0' }, headers: { 'x-a': 'b' }, body: /pw/, client: 'ci', status: 200 }).text).toBe(
      'POST /\\/push$/ query tag="1.0" headers x-a: "b" body /pw/ client "ci" status 200',
    )
    expect(compilePattern({}).text).toBe('* *')
  })
})

describe('mismatches: what differed, field by field', () => {
  it('names each field that differs with its expected and actual values; secret values are never shown', () => {
    const p = compilePattern({
      method: 'POST',
      path: '/auth',
      query: { tag: '1.0', all: '1' },
      headers: { authorization: 'Bearer right', 'x-a': 'b', 'x-token': 'abc' },
      client: 'ci',
      status: 200,
      body: { username: 'alice' },
    })
    const req = candidate({
      method: 'get',
      path: '/auths',
      query: { tag: '2.0' },
      headers: { authorization: 'Bearer wrong-secret', 'x-a': 'c', 'x-token': 'leaked' },
      client: 'cd',
      status: 401,
    })
    expect(p.mismatches(req, '{"username":"bob","password":"pw"}')).toEqual([
      { field: 'method', expected: '"POST"', actual: '"get"' },
      { field: 'path', expected: '"/auth"', actual: '"/auths"' },
      { field: 'query.tag', expected: '"1.0"', actual: '"2.0"' },
      { field: 'query.all', expected: '"1"', actual: '(none)' },
      { field: 'headers.authorization', expected: '"(a secret)"', actual: '"Bearer ***"' },
      { field: 'headers.x-a', expected: '"b"', actual: '"c"' },
      { field: 'headers.x-token', expected: '"(a secret)"', actual: '"***"' },
      { field: 'client', expected: '"ci"', actual: '"cd"' },
      { field: 'status', expected: '200', actual: '"401"' },
      { field: 'body', expected: '{"username":"alice"}', actual: '"{\\"username\\":\\"bob\\",\\"password\\":\\"***\\"}"' },
    ])
    expect(p.mismatches(candidate({ method: 'POST', path: '/auth', query: { tag: '1.0', all: '1' }, headers: { authorization: 'Bearer right', 'x-a': 'b', 'x-token': 'abc' }, client: 'ci', status: 200 }), '{"username":"alice"}')).toEqual([])
  })

  it('absent values are "(none)"; a long body is cut at 200 characters', () => {
    const p = compilePattern({ headers: { 'x-a': 'b' }, client: 'ci', status: 200, body: 'exact' })
    expect(p.mismatches({ method: 'GET', path: '/', query: new Map(), headers: {}, client: undefined }, undefined)).toEqual([
      { field: 'headers.x-a', expected: '"b"', actual: '(none)' },
      { field: 'client', expected: '"ci"', actual: '(none)' },
      { field: 'status', expected: '200', actual: '(none)' },
      { field: 'body', expected: '"exact"', actual: '(none)' },
    ])
    const long = 'y'.repeat(201)
    expect(p.mismatches(candidate({ headers: { 'x-a': 'b' }, client: 'ci' }), long)).toEqual([{ field: 'body', expected: '"exact"', actual: JSON.stringify(`${'y'.repeat(200)}...`) }])
    expect(p.mismatches(candidate({ headers: { 'x-a': 'b' }, client: 'ci' }), 'y'.repeat(200))).toEqual([{ field: 'body', expected: '"exact"', actual: JSON.stringify('y'.repeat(200)) }])
    // A RegExp is shown as written; a method in any case matches.
    expect(compilePattern({ method: 'get', path: /^\/a/ }).mismatches(candidate({ method: 'Get', path: '/b' }), undefined)).toEqual([{ field: 'path', expected: '/^\\/a/', actual: '"/b"' }])
  })
})

describe('masking (docs/security.md#secrets)', () => {
  it('maskBody: secret JSON fields at any depth, in arrays too; other values and structure kept', () => {
    expect(maskBody('{"username":"alice","password":"pw","serveraddress":"localhost:5000"}')).toBe('{"username":"alice","password":"***","serveraddress":"localhost:5000"}')
    expect(maskBody(' {"auth":"YWxpY2U6cHc=","identitytoken":"t","nested":{"Secret":"s","apiToken":"x","credentials":"c","signature":"sig","n":1,"nul":null}}')).toBe(
      '{"auth":"***","identitytoken":"***","nested":{"Secret":"***","apiToken":"***","credentials":"***","signature":"***","n":1,"nul":null}}',
    )
    expect(maskBody('[{"password":"a"},{"name":"b"},3]')).toBe('[{"password":"***"},{"name":"b"},3]')
    // Only a field named exactly "auth" is masked by that name; an object under a secret name is walked, not replaced.
    expect(maskBody('{"author":"x","authority":{"token":"t","user":"u"}}')).toBe('{"author":"x","authority":{"token":"***","user":"u"}}')
    expect(maskBody('{"token":{"value":"v"},"secret":null}')).toBe('{"token":{"value":"v"},"secret":null}')
    expect(maskBody('{"password":12345,"token":true}')).toBe('{"password":"***","token":"***"}')
  })

  it('maskBody: a cut or broken JSON body still has its secret-looking string fields masked', () => {
    expect(maskBody('{"username":"alice","password":"s3cr\\"et","x":1')).toBe('{"username":"alice","password":"***","x":1')
    expect(maskBody('{"Auth": "abc", "user": "u", "apiToken" : "tt"')).toBe('{"Auth": "***", "user": "u", "apiToken" : "***"')
    // Cut inside the secret value: nothing of it is left.
    expect(maskBody('[{"identitytoken":"abcdef')).toBe('[{"identitytoken":"***"')
  })

  it('maskBody: a form body has its secret fields masked; other text is kept', () => {
    expect(maskBody('user=alice&password=pw&x=1')).toBe('user=alice&password=***&x=1')
    expect(maskBody('api_token=t&Client_Secret=s&credential=c')).toBe('api_token=***&Client_Secret=***&credential=***')
    expect(maskBody('hello world')).toBe('hello world')
    expect(maskBody('x=token')).toBe('x=token')
  })

  it('a recorded request shows headers, query and URL masked; the scheme of Authorization is kept', () => {
    const log = createRequestLog()
    log.record(
      raw({
        url: '/v1.47/images/app/push?tag=1.0&token=abc&x_signature=s&my_password=p&credential=c&secret=z&keep=1',
        path: '/images/app/push',
        query: { tag: '1.0', token: 'abc', password: 'p', auth: 'a', author: 'ok' },
        headers: {
          authorization: 'Bearer abc.def',
          'proxy-authorization': 'Basic dXNlcjpwdw==',
          'x-registry-auth': 'eyJwYXNzd29yZCI6InB3In0=',
          'x-registry-config': 'e30=',
          cookie: 'a=b',
          'set-cookie': 'c=d',
          'x-api-key': 'k',
          'x-apikey': 'k',
          'x-auth-token': 't',
          'x-client-secret': 's',
          'x-password': 'p',
          'content-type': 'application/json',
          'x-missing': undefined,
        },
      }),
    )
    log.record(raw({ headers: { authorization: 'opaque-token-no-scheme', 'x-token': 'Bearer abc' } }))
    const [a, b] = log.list()
    expect(a.url).toBe('/v1.47/images/app/push?tag=1.0&token=***&x_signature=***&my_password=***&credential=***&secret=***&keep=1')
    expect(a.query).toEqual({ tag: '1.0', token: '***', password: '***', auth: '***', author: 'ok' })
    expect(a.headers).toEqual({
      authorization: 'Bearer ***',
      'proxy-authorization': 'Basic ***',
      'x-registry-auth': '***',
      'x-registry-config': '***',
      cookie: '***',
      'set-cookie': '***',
      'x-api-key': '***',
      'x-apikey': '***',
      'x-auth-token': '***',
      'x-client-secret': '***',
      'x-password': '***',
      'content-type': 'application/json',
    })
    expect(b.headers).toEqual({ authorization: '***', 'x-token': '***' })
  })
})

describe('the request log', () => {
  it('numbers requests from 1, keeps the last REQUEST_LOG_LIMIT (1,000), counts the dropped ones; clear() keeps the numbering', () => {
    expect(REQUEST_LOG_LIMIT).toBe(1000)
    const log = createRequestLog()
    for (let i = 0; i < 1002; i++) log.record(raw({ path: `/r/${i}`, seq: 77 }))
    expect(log.omitted).toBe(2)
    expect(log.count()).toBe(1000)
    const all = log.list()
    expect([all[0].seq, all[0].path, all.at(-1)!.seq, all.at(-1)!.path]).toEqual([3, '/r/2', 1002, '/r/1001'])
    log.clear()
    expect(log.count()).toBe(0)
    expect(log.list()).toEqual([])
    log.record(raw())
    expect(log.list()[0].seq).toBe(1003)
  })

  it('a smaller limit', () => {
    const log = createRequestLog(2)
    for (const path of ['/a', '/b', '/c']) log.record(raw({ path }))
    expect(log.list().map((r) => r.path)).toEqual(['/b', '/c'])
    expect(log.omitted).toBe(1)
  })

  it('list and count take a pattern (object, string or compiled); list shows every field a user reads', () => {
    const log = createRequestLog()
    log.record(raw({ method: 'POST', path: '/auth', url: '/auth', body: '{"username":"alice"}', client: 'ci', status: 200, override: 'override-1', time: 5 }))
    log.record(raw({ method: 'GET', path: '/events/ws', url: '/events/ws?client=dash', query: { client: 'dash' }, client: 'dash', status: 101, websocket: true }))
    log.record(raw({ method: 'GET', path: '/_ping', url: '/_ping' }))
    expect(log.count('POST /auth')).toBe(1)
    expect(log.count({ method: 'GET' })).toBe(2)
    expect(log.count(compilePattern({ body: { username: 'alice' } }))).toBe(1)
    expect(log.count()).toBe(3)
    expect(log.list({ status: 101 }).map((r) => r.path)).toEqual(['/events/ws'])
    const [auth, ws, ping] = log.list()
    expect(auth).toEqual({ seq: 1, time: 5, method: 'POST', url: '/auth', path: '/auth', query: {}, headers: {}, body: '{"username":"alice"}', client: 'ci', status: 200, override: 'override-1' })
    expect(ws).toEqual({ seq: 2, time: 1_700_000_000_000, method: 'GET', url: '/events/ws?client=dash', path: '/events/ws', query: { client: 'dash' }, headers: {}, client: 'dash', status: 101, websocket: true })
    expect(ping).toEqual({ seq: 3, time: 1_700_000_000_000, method: 'GET', url: '/_ping', path: '/_ping', query: {}, headers: {}, status: 200 })
    expect(() => log.list('nope')).toThrow(/Invalid request pattern "nope"/)
  })

  it(`a body is cut at RECORDED_BODY_LIMIT (8,192) characters into a string of its own, marked bodyTruncated`, () => {
    expect(RECORDED_BODY_LIMIT).toBe(8192)
    const log = createRequestLog()
    log.record(raw({ body: 'a'.repeat(8192) + 'b'.repeat(100) }))
    log.record(raw({ body: 'c'.repeat(8191) }))
    log.record(raw({ body: '' }))
    const [cut, kept, empty] = log.list()
    expect(cut.body).toBe('a'.repeat(8192))
    expect(cut.bodyTruncated).toBe(true)
    expect(kept.body).toBe('c'.repeat(8191))
    expect(kept).not.toHaveProperty('bodyTruncated')
    expect(empty.body).toBe('')
    expect(empty).not.toHaveProperty('bodyTruncated')
    // The pattern sees the kept (cut) body.
    expect(log.count({ body: /^a+$/ })).toBe(1)
  })
})

describe('near misses', () => {
  function logOf(...reqs: Parameters<typeof raw>[0][]) {
    const log = createRequestLog()
    for (const r of reqs) log.record(raw(r))
    return log
  }

  it('a path typo ranks first; each other differing field counts 1, a value that is there but differs 1/2', () => {
    const log = logOf(
      { method: 'GET', path: '/containers/json', url: '/containers/json?all=1', query: { all: '1' }, client: 'ci' },
      { method: 'POST', path: '/auth', url: '/auth' },
      { method: 'GET', path: '/_ping', url: '/_ping' },
    )
    const misses = log.nearMisses({ method: 'GET', path: '/containers/jsn', query: { all: '1' } })
    // "/containers/jsn" is one deletion from "/containers/json" (1/16), 12 edits from "/_ping" (12/15) and 13 from
    // "/auth" (13/15); a missing query parameter and another method count 1 each; rounded to 3 decimals.
    expect(misses.map((m) => [m.request.path, m.distance])).toEqual([
      ['/containers/json', 0.063],
      ['/_ping', 1.8],
      ['/auth', 2.867],
    ])
    expect(misses[0].mismatches).toEqual([{ field: 'path', expected: '"/containers/jsn"', actual: '"/containers/json"' }])
    expect(describeNearMisses(misses)).toBe(
      [
        '  1. GET /containers/json?all=1 -> 200 (client "ci", #1)',
        '       path: expected "/containers/jsn", got "/containers/json"',
        '  2. GET /_ping -> 200 (#3)',
        '       path: expected "/containers/jsn", got "/_ping"',
        '       query.all: expected "1", got (none)',
        '  3. POST /auth -> 200 (#2)',
        '       method: expected "GET", got "POST"',
        '       path: expected "/containers/jsn", got "/auth"',
        '       query.all: expected "1", got (none)',
      ].join('\n'),
    )
  })

  it('a value that is there but differs counts half; a missing one counts 1; a non-plain path counts 1', () => {
    const log = logOf(
      { path: '/a', query: { tag: '2' }, client: 'x', headers: { 'x-h': 'no' } },
      { path: '/a' },
      { path: '/b', query: { tag: '1' }, client: 'ci', headers: { 'x-h': 'yes' } },
    )
    const misses = log.nearMisses({ path: '/a/*', query: { tag: '1' }, client: 'ci', headers: { 'x-h': 'yes' } }, 10)
    expect(misses.map((m) => [m.request.seq, m.distance])).toEqual([
      [3, 1],
      [1, 2.5],
      [2, 4],
    ])
  })

  it('matching requests are left out; ties go newest first; the limit is 3 by default', () => {
    const log = logOf({ path: '/a' }, { path: '/x' }, { path: '/y' }, { path: '/z' }, { path: '/w' })
    const misses = log.nearMisses('/a')
    expect(misses.map((m) => [m.request.path, m.distance])).toEqual([
      ['/w', 0.5],
      ['/z', 0.5],
      ['/y', 0.5],
    ])
    expect(log.nearMisses('/a', 1).map((m) => m.request.path)).toEqual(['/w'])
    expect(log.nearMisses('/a', 10)).toHaveLength(4)
    expect(log.nearMisses('/a', 0)).toEqual([])
  })

  it('edit distance: by the longer of the two, over the first 200 characters', () => {
    const log = logOf({ path: '/abcd' }, { path: '' }, { path: '/' + 'p'.repeat(300) }, { path: '/' + 'p'.repeat(199) + 'q'.repeat(100) })
    const misses = log.nearMisses({ path: '/abc' }, 10)
    // "/abc" to "/abcd": 1 edit of 5; to "": 4 of 4; to "/" and 199 "p"s (all either path keeps of its first 200): 199 of 200.
    expect(misses.map((m) => [m.request.seq, m.distance])).toEqual([
      [1, 0.2],
      [4, 0.995],
      [3, 0.995],
      [2, 1],
    ])
    // Past 200 characters two paths are the same: distance 0 (yet not a match).
    const long = logOf({ path: '/' + 'p'.repeat(250) })
    expect(long.nearMisses({ path: '/' + 'p'.repeat(199) + 'z' }, 1)[0].distance).toBe(0)
  })

  it('describeRequest and an empty report', () => {
    expect(describeRequest({ seq: 4, time: 0, method: 'POST', url: '/images/app/push?tag=1.0', path: '/images/app/push', query: {}, headers: {}, status: 200, client: 'ci' })).toBe(
      'POST /images/app/push?tag=1.0 -> 200 (client "ci", #4)',
    )
    expect(describeRequest({ seq: 2, time: 0, method: 'GET', url: '/_ping', path: '/_ping', query: {}, headers: {}, status: 503, override: 'maint' })).toBe('GET /_ping -> 503 (override maint, #2)')
    expect(describeRequest({ seq: 2, time: 0, method: 'GET', url: '/_ping', path: '/_ping', query: {}, headers: {}, status: 503, client: '' })).toBe('GET /_ping -> 503 (client "", #2)')
    expect(describeNearMisses([])).toBe('  (no requests at all)')
  })
})
