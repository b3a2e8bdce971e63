// A hunt for answers the ways in give differently: a request whose Connection header lists `close` beside other
// options (`keep-alive, close`, `close, TE`) is one the server answers `connection: close` and closes, as node:http
// reads the header's tokens. In process only a header of exactly `close` counted: fetch read `connection: keep-alive`
// and `keep-alive: timeout=5`, and node:http failed with `socket hang up`.
// Found by the in-process hunt (was test/regressions/inprocess-hunt-connection-close-token.test.ts).
import http from 'node:http'
import https from 'node:https'
import { expect, it } from 'vitest'
import { createDockside } from '../../../../src/index'
import { reach } from '../../../support/helpers'

/** The connection headers a client reads (or how it failed), for one Connection header sent. */
async function connectionOf(base: string, connection: string): Promise<{ fetch: (string | null)[]; http: string[] | string }> {
  const res = await fetch(`${base}/_ping`, { headers: { connection } })
  await res.arrayBuffer()
  const url = new URL(base)
  const get = url.protocol === 'https:' ? https.get : http.get
  const viaHttp = await new Promise<string[] | string>((resolve) => {
    get({ host: url.hostname, port: url.port || undefined, path: '/_ping', headers: { connection } }, (m) => {
      m.resume()
      m.on('end', () => resolve(m.rawHeaders.map((h, i) => (i % 2 ? h : h.toLowerCase())).filter((_, i, all) => /^(connection|keep-alive)$/.test(all[i - (i % 2)]))))
    }).on('error', (error) => resolve(`error: ${error.message}`))
  })
  return { fetch: [res.headers.get('connection'), res.headers.get('keep-alive')], http: viaHttp }
}

const SENT = ['keep-alive, close', 'close, TE', 'Upgrade, CLOSE', 'keep-alive']

it('a Connection header that lists close is answered connection: close in process too, as by the server', async () => {
  const answers: Record<string, unknown[]> = {}
  for (const way of ['server', 'in-process'] as const) {
    await using fake = createDockside({ seed: 3 })
    const { base, close } = await reach(fake, way)
    try {
      const got: unknown[] = []
      for (const connection of SENT) got.push(await connectionOf(base, connection))
      answers[way] = got
    } finally {
      await close()
    }
  }
  expect(answers.server[0]).toEqual({ fetch: ['close', null], http: ['connection', 'close'] })
  expect(answers.server[3]).toEqual({ fetch: ['keep-alive', 'timeout=5'], http: ['connection', 'keep-alive', 'keep-alive', 'timeout=5'] })
  expect(answers['in-process']).toEqual(answers.server)
})
