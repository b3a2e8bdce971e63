import { expect, test } from 'vitest'
import { createDockside, RECORDED_BODY_LIMIT, REQUEST_LOG_LIMIT, type Dockside } from 'dockside'
import { requestMatchers } from 'dockside/vitest'

/** A request straight through the protocol: what every way in calls. */
function send(fake: Dockside, method: string, url: string, body = '', headers: Record<string, string> = {}) {
  return fake.protocol.handle({ method, url, headers, signal: new AbortController().signal, body: async () => body })
}

test('a failed toHaveReceivedRequest names the closest near misses and what differed, closest first', async () => {
  await using fake = createDockside()
  await send(fake, 'GET', '/containers/json?all=1', '', { 'x-dockside-client': 'ci' })
  await send(fake, 'POST', '/containers/web/start')
  await send(fake, 'GET', '/_ping')
  let message = ''
  try {
    expect(fake).toHaveReceivedRequest({ method: 'GET', path: '/containers/jsn', query: { all: '1' } })
  } catch (error) {
    message = (error as Error).message
  }
  expect(message).toBe(
    [
      'expected the fake to have received a request matching GET /containers/jsn query all="1"; 0 of 3 received matched.',
      'Closest requests that did not match:',
      '  1. GET /containers/json?all=1 -> 200 (client "ci", #1)',
      '       path: expected "/containers/jsn", got "/containers/json"',
      '  2. GET /_ping -> 200 (#3)',
      '       path: expected "/containers/jsn", got "/_ping"',
      '       query.all: expected "1", got (none)',
      '  3. POST /containers/web/start -> 404 (#2)',
      '       method: expected "GET", got "POST"',
      '       path: expected "/containers/jsn", got "/containers/web/start"',
      '       query.all: expected "1", got (none)',
    ].join('\n'),
  )
})

test('toHaveReceivedRequestTimes counts; .not lists what matched; the matcher object works with any expect.extend', async () => {
  await using fake = createDockside()
  for (let i = 0; i < 3; i++) await send(fake, 'GET', '/_ping')
  expect(fake).toHaveReceivedRequestTimes('GET /_ping', 3)
  expect(() => expect(fake).toHaveReceivedRequestTimes('GET /_ping', 2)).toThrow(/received 2 request\(s\) matching GET \/_ping; 3 of 3 received matched/)
  expect(() => expect(fake).not.toHaveReceivedRequest('/_ping')).toThrow(/not to have received a request matching \* \/_ping, but it received 3:\n {2}GET \/_ping -> 200 \(#1\)/)
  // Plain functions: what jest's expect.extend (or cjs's dockside/matchers) receives.
  expect(requestMatchers.toHaveReceivedRequest(fake, { method: 'HEAD' }).pass).toBe(false)
  expect(() => requestMatchers.toHaveReceivedRequest({} as Dockside, '/_ping')).toThrow(/needs a fake from createDockside/)
})

test('secrets stay masked in every view and message, but patterns match their real values', async () => {
  await using fake = createDockside()
  const auth = Buffer.from(JSON.stringify({ username: 'alice', password: 'hunter2' })).toString('base64')
  await send(fake, 'POST', '/images/app/push?tag=1', '', { 'x-registry-auth': auth, authorization: 'Bearer tok-123' })
  await send(fake, 'POST', '/auth', JSON.stringify({ username: 'alice', password: 'hunter2', identitytoken: 'idt' }), { 'content-type': 'application/json' })
  await send(fake, 'GET', '/containers/json?token=abc&all=1')
  expect(fake.requests.count({ headers: { authorization: 'Bearer tok-123' } })).toBe(1)
  expect(fake.requests.count({ body: { password: 'hunter2' } })).toBe(1)
  const views = JSON.stringify(fake.requests.list())
  for (const secret of ['hunter2', 'tok-123', auth, 'idt"', 'abc']) expect(views).not.toContain(secret)
  expect(fake.requests.list('/images/*')[0].headers).toMatchObject({ authorization: 'Bearer ***', 'x-registry-auth': '***' })
  expect(fake.requests.list('/containers/json')[0].url).toBe('/containers/json?token=***&all=1')
  let message = ''
  try {
    expect(fake).toHaveReceivedRequest({ headers: { authorization: 'Bearer wrong' } })
  } catch (error) {
    message = (error as Error).message
  }
  expect(message).toContain('matching * * headers authorization: (a secret); 0 of 3 received matched.\nClosest requests that did not match:\n  1. POST /images/app/push?tag=1 -> 404 (#1)\n       headers.authorization: expected "(a secret)", got "Bearer ***"')
  expect(message).not.toContain('tok-123')
  expect(message).not.toContain('wrong')
})

test('bounded: the last REQUEST_LOG_LIMIT requests are kept, older ones counted; a body is kept up to RECORDED_BODY_LIMIT characters', async () => {
  await using fake = createDockside({ maxBodySize: '4MiB' })
  const big = JSON.stringify({ name: 'x', image: 'a'.repeat(2_000_000) })
  await send(fake, 'POST', '/auth', big)
  const [kept] = fake.requests.list('/auth')
  expect(kept.body).toHaveLength(RECORDED_BODY_LIMIT)
  expect(kept.bodyTruncated).toBe(true)
  for (let i = 0; i < REQUEST_LOG_LIMIT + 250; i++) await send(fake, 'GET', `/_ping?i=${i}`)
  expect(fake.requests.count()).toBe(REQUEST_LOG_LIMIT)
  expect(fake.requests.omitted).toBe(251)
  expect(fake.requests.list()[0].query.i).toBe('250')
  await fake.reset()
  expect(fake.requests.count()).toBe(0)
})

test('bad patterns and replies are refused at once with what is allowed', () => {
  const fake = createDockside()
  expect(() => fake.use({ methd: 'GET' } as never, { status: 500 })).toThrow('Unknown request pattern field "methd"; allowed: method, path, query, headers, body, client, status.')
  expect(() => fake.use('GET', { status: 500 })).toThrow(/Invalid request pattern "GET": expected "METHOD \/path" or "\/path"/)
  expect(() => fake.use('/_ping', { status: 101 })).toThrow(/response.status: must be an integer from 200 to 599/)
  expect(() => fake.use('/_ping', { staus: 500 } as never)).toThrow('response.staus: unknown field; allowed: status, headers, body, delay, passthrough')
  expect(() => fake.use('/_ping', { passthrough: true, status: 500 })).toThrow(/passthrough lets the fake answer/)
  expect(() => fake.use('/_ping', { delay: '-1s' })).toThrow(/response.delay: Invalid override delay/)
  expect(() => fake.use('/_ping', {}, { times: 0 })).toThrow('times: must be an integer of 1 or more, not 0')
  fake.use('/_ping', {}, { id: 'x' })
  expect(() => fake.use('/_ping', {}, { id: 'x' })).toThrow(/An override with id "x" is in place/)
})

test('a handler that returns a bad reply answers 400 naming it, and the override is not used up', async () => {
  await using fake = createDockside()
  const handle = fake.use('/_ping', () => ({ status: 'teapot' }) as never)
  const res = await send(fake, 'GET', '/_ping')
  expect(res.status).toBe(400)
  expect(JSON.parse(res.body as string).message).toMatch(/^the handler of override override-1 returned.status: must be an integer from 200 to 599/)
  expect(handle.used).toBe(0)
})
