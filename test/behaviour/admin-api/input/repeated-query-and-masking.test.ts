// Regression (admin API hunt): answers that looked right but were not.
// - A query parameter given twice was read once, the first value winning silently:
//   `GET /_dockside/journal?type=ws.open&type=event` answered only the ws.open entries, so a test asserting "no event
//   entries" passed; `POST /_dockside/scenario?from=now&from=start` applied from now. Each is now a 400 naming it.
// - `POST /_dockside/clock/advance?by=1s` with `{"by":"5s"}` moved 5 s: the body won silently (a stop's exitCode in
//   both places was already a 400).
// - `GET /_dockside/requests` masked `?auth=`, a percent-encoded `?%74oken=` and `?api_key=` in `query` but showed
//   them in clear in `url` (docs/security.md: query parameters like `token=` are `***`).
// Found by the admin API hunt (was test/regressions/admin-hunt-query-and-masking.test.ts).
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createDockside, type Dockside } from '../../../../src/index'
import { jsonCaller } from '../../../support/helpers'

const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

async function serve() {
  const fake = createDockside({ seed: 7 })
  open.push(fake)
  const server = await fake.listen({ host: '127.0.0.1', port: 0 })
  const call = jsonCaller(server.url)
  return { fake, server, call }
}

describe('a query parameter given twice', () => {
  it('GET journal?type=A&type=B is a 400 naming type, not the entries of A alone', async () => {
    const { fake, call } = await serve()
    fake.containers.create({ name: 'web', image: 'nginx' })
    expect(await call('GET', '/_dockside/journal?type=ws.open&type=container.create')).toMatchObject({
      status: 400,
      body: { message: 'Query parameter "type" is given more than once in GET /_dockside/journal; give it once (each admin route reads one value of each).' },
    })
    expect(await call('GET', '/_dockside/journal?type=container.create&after=0')).toMatchObject({ status: 200, body: [{ type: 'container.create' }] })
  })

  it('POST scenario?from=now&from=start applies nothing; a percent-encoded repeat counts too', async () => {
    const { fake, call } = await serve()
    const res = await call('POST', '/_dockside/scenario?from=now&%66rom=start', JSON.stringify({ containers: [{ name: 'job', image: 'busybox' }] }))
    expect(res).toMatchObject({ status: 400, body: { message: expect.stringContaining('Query parameter "from" is given more than once') } })
    expect(fake.containers.list()).toEqual([])
  })

  it('GET requests?status=200&status=500 is a 400, not the 200s alone', async () => {
    const { call } = await serve()
    await call('GET', '/containers/json')
    expect(await call('GET', '/_dockside/requests?status=200&status=500')).toMatchObject({ status: 400, body: { message: expect.stringContaining('"status" is given more than once') } })
  })
})

describe('clock advance with by in both the body and the query', () => {
  it('is a 400 naming by, and the clock does not move; either one alone advances', async () => {
    const { fake, call } = await serve()
    expect(await call('POST', '/_dockside/clock/advance?by=1s', '{"by":"5s"}')).toMatchObject({ status: 400, body: { message: expect.stringMatching(/^by: is given in both the body and the query/) } })
    expect(fake.clock.elapsed()).toBe(0)
    expect(await call('POST', '/_dockside/clock/advance?by=1s')).toMatchObject({ status: 200, body: { elapsedMs: 1000 } })
    expect(await call('POST', '/_dockside/clock/advance', '{"by":"5s"}')).toMatchObject({ status: 200, body: { elapsedMs: 6000 } })
  })
})

describe('secret query parameters in the request log', () => {
  it('url masks what query masks: auth, a percent-encoded token, api_key; on HTTP requests and websocket upgrades', async () => {
    const { server, call } = await serve()
    await call('GET', '/containers/json?auth=SEKRET1&%74oken=SEKRET2&api_key=SEKRET3&all=1')
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/events/ws?client=w&auth=SEKRET4&x-api-key=SEKRET5`)
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    const log = await call('GET', '/_dockside/requests')
    expect(JSON.stringify(log.body)).not.toMatch(/SEKRET/)
    const [http, upgrade] = (log.body as { requests: { url: string; query: Record<string, string> }[] }).requests
    expect(http).toMatchObject({ url: '/containers/json?auth=***&%74oken=***&api_key=***&all=1', query: { auth: '***', token: '***', api_key: '***', all: '1' } })
    expect(upgrade).toMatchObject({ url: '/events/ws?client=w&auth=***&x-api-key=***', query: { client: 'w', auth: '***', 'x-api-key': '***' } })
    ws.close()
  })
})
