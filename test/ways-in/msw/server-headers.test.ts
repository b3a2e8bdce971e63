// A hunt for answers the ways in give differently: through the MSW handlers (msw/node), every answer lacked the
// headers node:http adds on the real server (`connection: keep-alive` or `close`, `keep-alive: timeout=5`) and a string
// body of no stated length (the dashboard's page) came unframed where the server sends it chunked. `fetch` and
// `node:http` under msw/node now read the server's headers, in its order. And a string answer without a content type
// (an override's redirect, whose body is empty) gained `content-type: text/plain;charset=UTF-8` from MSW's Response.
// Found by the in-process hunt (was test/regressions/inprocess-hunt-msw-headers.test.ts).
import https from 'node:https'
import http from 'node:http'
import { setupServer } from 'msw/node'
import { expect, it } from 'vitest'
import { createDockside } from '../../../src/index'
import { docksideHandlers } from '../../../src/transports/msw/index'

const GMT = /^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/

/** What each client reads: status and every header but the date's value (its presence kept), in order. */
interface Seen {
  fetch: [number, [string, string][]][]
  http: [number, string[]][]
}

const FETCHES: [string, RequestInit][] = [
  ['/_ping', {}],
  ['/_ping', { method: 'HEAD' }],
  ['/_ping', { headers: { connection: 'close' } }],
  ['/nope', {}],
  ['/containers/web/start', { method: 'POST' }],
  ['/_dockside/ui', {}],
  ['/events?since=0&until=1767225600', {}],
  ['/volumes', { redirect: 'manual' }],
]
const REQUESTS: [string, string][] = [
  ['GET', '/_ping'],
  ['HEAD', '/_ping'],
  ['POST', '/containers/web/start'],
  ['GET', '/_dockside/ui'],
  ['GET', '/volumes'],
]

const undated = (pairs: [string, string][]) => pairs.map(([k, v]): [string, string] => [k, k === 'date' && GMT.test(v) ? 'GMT' : v])

function viaHttp(base: string, method: string, path: string): Promise<[number, string[]]> {
  const get = base.startsWith('https:') ? https.request : http.request
  return new Promise((resolve, reject) => {
    const req = get(`${base}${path}`, { method }, (res) => {
      const raw = res.rawHeaders.map((x, i) => (i % 2 === 0 ? x.toLowerCase() : res.rawHeaders[i - 1].toLowerCase() === 'date' && GMT.test(x) ? 'GMT' : x))
      res.resume()
      res.on('end', () => resolve([res.statusCode!, raw]))
    })
    req.on('error', reject)
    req.end()
  })
}

async function seen(base: string): Promise<Seen> {
  const out: Seen = { fetch: [], http: [] }
  for (const [path, init] of FETCHES) {
    const res = await fetch(`${base}${path}`, init)
    await res.arrayBuffer()
    const headers: [string, string][] = []
    res.headers.forEach((value, name) => headers.push([name, value]))
    out.fetch.push([res.status, undated(headers)])
  }
  for (const [method, path] of REQUESTS) out.http.push(await viaHttp(base, method, path))
  return out
}

function seeded() {
  const fake = createDockside({ seed: 3 })
  fake.containers.create({ name: 'web', image: 'nginx:1.27' }).start()
  fake.use('GET /volumes', { status: 302, headers: { location: '/_ping' } })
  return fake
}

it('fetch and node:http under msw/node read the headers the real server sends', async () => {
  let server: Seen
  {
    await using fake = seeded()
    await using s = await fake.listen({ port: 0 })
    server = await seen(s.url)
  }
  await using fake = seeded()
  const msw = setupServer(...docksideHandlers(fake))
  msw.listen({ onUnhandledFrame: 'error' })
  try {
    const viaMsw = await seen('https://us-west-1.hyper.test')
    expect(viaMsw).toEqual(server)
  } finally {
    msw.close()
  }
  // What the server sends, spelled out: keep-alive unless asked to close (undici closes after a HEAD), chunked framing
  // for the dashboard's page.
  expect(server.fetch[0][1]).toContainEqual(['keep-alive', 'timeout=5'])
  expect(server.fetch[1][1]).toContainEqual(['connection', 'close'])
  expect(server.fetch[2][1]).toContainEqual(['connection', 'close'])
  expect(server.fetch[5][1]).toContainEqual(['transfer-encoding', 'chunked'])
  expect(server.http[3][1].slice(-6)).toEqual(['connection', 'keep-alive', 'keep-alive', 'timeout=5', 'transfer-encoding', 'chunked'])
  expect(server.fetch[7][1].map(([name]) => name)).toEqual(['connection', 'content-length', 'date', 'keep-alive', 'location'])
})
