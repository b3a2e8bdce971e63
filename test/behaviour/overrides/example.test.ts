import { expect } from 'vitest'
import { test } from 'dockside/vitest'

const api = 'https://us-west-1.hyper.test'

// Each test gets its own hooked fake: an override lives until the test ends.
test('a registry outage for one push, then the real thing', async ({ dockside: fake }) => {
  fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 1 })
  fake.use({ method: 'POST', path: '/images/*/push' }, { status: 503, body: { message: 'registry down' } }, { times: 1 })

  const first = await fetch(`${api}/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST' })
  expect(first.status).toBe(503)
  const second = fetch(`${api}/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST' })
  await fake.clock.advance('5s')
  expect((await second).status).toBe(200)

  expect(fake).toHaveReceivedRequestTimes({ method: 'POST', path: '/images/*/push', query: { tag: '1.0' } }, 2)
  expect(fake).toHavePushed('localhost:5000/team/app:1.0')
})

test('a handler looks at the request; a delay runs on the fake clock', async ({ dockside: fake }) => {
  fake.use('GET /containers/json', (req) => (req.query.all === '1' ? { status: 500, body: { message: 'boom' } } : undefined))
  fake.use('GET /_ping', { delay: '10s', passthrough: true })

  expect((await fetch(`${api}/containers/json?all=1`)).status).toBe(500)
  expect((await fetch(`${api}/containers/json`)).status).toBe(200) // passed to the fake

  const ping = fetch(`${api}/_ping`)
  await fake.clock.advance('10s')
  expect(await (await ping).text()).toBe('OK')
})

test('the override of the test before is gone', async ({ dockside: fake }) => {
  expect(fake.overrides.list()).toEqual([])
  expect((await fetch(`${api}/containers/json?all=1`)).status).toBe(200)
  expect(fake).toHaveReceivedRequest({ path: '/containers/json', query: { all: '1' }, status: 200 })
  expect(fake).not.toHaveReceivedRequest('POST /auth')
})
