// What the fake does not serve, as the Engine answers it (docs/docker-compat.md, "Not served"): a Docker Engine
// route the fake does not implement is 501 naming the route; the same path with another method, or a path that
// is no Docker route at all, is Docker's own 404 `page not found`. Driven in process with the unhandled-request
// policy letting the fake's own answer through (the server way answers the same:
// test/behaviour/docker-api/routes-doc.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

const SERVED = 'ping, version, info, login (POST /auth), events, image list/inspect/tag/push, container list/inspect/start/stop, the events websocket GET /events/ws and the admin API /_dockside/*'

let fake: Dockside
let restore: () => void
beforeAll(async () => {
  fake = createDockside({ seed: 7 })
  fake.containers.create({ name: 'web', image: 'nginx' })
  const hooks = await fake.intercept({ region: 'us-west-1', onUnhandled: () => {} })
  restore = () => hooks.restore()
})
afterAll(async () => {
  restore()
  await fake.close()
})

async function answer(method: string, path: string) {
  const res = await fetch(`https://us-west-1.hyper.test${path}`, { method })
  expect(res.headers.get('content-type')).toBe('application/json')
  const hint = res.headers.get('x-dockside-hint')
  return { status: res.status, message: ((await res.json()) as { message: string }).message, ...(hint === null ? {} : { hint }) }
}

describe('Docker routes the fake does not serve', () => {
  it.each([
    ['POST', '/v1.47/containers/create', 'POST /containers/create'],
    ['POST', '/networks/n1/connect', 'POST /networks/{id}/connect'],
    ['GET', '/images/search?term=x', 'GET /images/search'],
    ['DELETE', '/images/localhost:5000/team/app:1.0', 'DELETE /images/{name}'],
    ['GET', '/containers/web/logs', 'GET /containers/{id}/logs'],
  ])('%s %s is 501 naming %s', async (method, path, route) => {
    expect(await answer(method, path)).toEqual({ status: 501, message: `${route} is not served by this fake (dockside serves ${SERVED}; see docs/docker-compat.md).` })
  })

  it.each([
    // A served or unserved path with another method.
    ['POST', '/_ping'],
    ['POST', '/v1.47/version'],
    ['POST', '/info'],
    ['GET', '/auth'],
    ['POST', '/containers/json'],
    ['POST', '/containers/web/json'],
    ['GET', '/containers/web/start'],
    ['GET', '/containers/web/stop'],
    ['GET', '/containers/create'],
    ['GET', '/networks/n1/connect'],
    ['POST', '/images/json'],
    ['POST', '/images/nginx/json'],
    ['GET', '/images/nginx/tag'],
    // No Docker route at all.
    ['GET', '/no/such/route'],
  ])('%s %s is 404 page not found', async (method, path) => {
    const bare = path.replace(/^\/v1\.47/, '')
    // The daemon's own body, byte for byte; dockside's help in X-Dockside-Hint, where a person looks and a client does not.
    expect(await answer(method, path)).toEqual({ status: 404, message: 'page not found', hint: `${method} ${bare} is not a Docker Engine API route this fake knows (dockside serves ${SERVED}; see docs/docker-compat.md).` })
    expect(fake.containers.get('web').state).toBe('created')
  })
})

describe('HEAD /_ping', () => {
  it('has the headers of GET /_ping but Content-Length 0, as the daemon sets it, and no body', async () => {
    const head = await fake.protocol.handle({ method: 'HEAD', url: '/_ping', headers: {}, signal: new AbortController().signal, body: async () => '' })
    const get = await fake.protocol.handle({ method: 'GET', url: '/_ping', headers: {}, signal: new AbortController().signal, body: async () => '' })
    expect([head.status, head.body, get.body]).toEqual([200, undefined, 'OK'])
    expect(get.headers['content-length']).toBe('2')
    expect(head.headers).toEqual({ ...get.headers, 'content-length': '0' })
  })
})
