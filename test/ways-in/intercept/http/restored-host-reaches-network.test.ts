import { createServer, get } from 'node:http'
import { get as getHttps } from 'node:https'
import type { AddressInfo } from 'node:net'
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

// Regression: nock keeps a host's entry after its interceptors are removed. With another install still active (so
// nock stays on), a node:http request to a host whose install was restored got nock's 501 "No match" instead of
// reaching the network (here, the user's own server on that address).
const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

const getText = (url: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    ;(url.startsWith('https:') ? getHttps : get)(url, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode!, body }))
    }).on('error', reject)
  })

it('a host whose install was restored reaches the network while another install stays active', async () => {
  const server = createServer((_req, res) => res.end('the real one'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  try {
    const first = createDockside({ seed: 1 })
    const second = createDockside({ seed: 2 })
    open.push(first, second)
    const hooked = await first.intercept({ baseUrl: base })
    await using other = await second.intercept({ region: 'eu-central-1' })
    expect((await getText(`${base}/_ping`)).body).toBe('OK')
    hooked.restore()
    expect(await getText(`${base}/_ping`)).toEqual({ status: 200, body: 'the real one' })
    // The install still active keeps answering.
    expect(await getText(`${other.baseUrl}/_ping`)).toEqual({ status: 200, body: 'OK' })
  } finally {
    server.closeAllConnections()
    server.close()
  }
})
