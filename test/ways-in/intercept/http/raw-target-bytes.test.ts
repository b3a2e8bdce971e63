// A hunt for answers the ways in give differently: `node:http` sends a request target as Latin-1 bytes and lets any
// of \u0021-\u00ff through (`path: '/containers/café/json'`, a name put in a path unencoded). The real server's parser
// refuses a target with a byte of 0x7f or more: a 400 whose JSON names HPE_INVALID_URL, and the fake never sees it.
// In process the same request failed with `socket hang up` (the interceptor under nock could not parse its bytes and
// let it go).
// Found by the in-process hunt (was test/regressions/inprocess-hunt-raw-target-bytes.test.ts).
import http from 'node:http'
import https from 'node:https'
import { expect, it } from 'vitest'
import { createDockside } from '../../../../src/index'
import { reach } from '../../../support/helpers'

interface Seen {
  status: number | undefined
  message: string | undefined
  headers: string[]
  body: string
}

/** `GET path` through node:http (the path as written, not parsed), and what the client reads. */
function get(base: string, path: string): Promise<Seen | string> {
  const url = new URL(base)
  const request = url.protocol === 'https:' ? https.request : http.request
  return new Promise((resolve) => {
    const req = request({ host: url.hostname, port: url.port || undefined, path, agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode, message: res.statusMessage, headers: res.rawHeaders.map((h, i) => (i % 2 ? h : h.toLowerCase())), body }))
    })
    req.on('error', (error) => resolve(`error: ${error.message}`))
    req.end()
  })
}

const PATHS = ['/containers/café/json', '/containers/json?filters={"name":["wéb"]}', '/_ping?x=\u007f', '/_ping']

it('node:http with a byte of 0x7f or more in its target gets the real server\'s 400 in process, and the fake never sees it', async () => {
  const answers: Record<string, (Seen | string)[]> = {}
  for (const way of ['server', 'in-process'] as const) {
    await using fake = createDockside({ seed: 3 })
    fake.containers.create({ name: 'web', image: 'nginx:1.27' })
    const { base, close } = await reach(fake, way)
    try {
      const got: (Seen | string)[] = []
      for (const path of PATHS) got.push(await get(base, path))
      answers[way] = got
      // Only the last request (/_ping) reached the fake.
      expect(fake.requests.list().map((r) => r.path)).toEqual(['/_ping'])
    } finally {
      await close()
    }
  }
  const refusal = answers.server[0] as Seen
  expect(refusal).toEqual({
    status: 400,
    message: 'Bad Request',
    headers: ['content-type', 'application/json', 'content-length', String(refusal.body.length), 'connection', 'close'],
    body: JSON.stringify({ message: 'Bad request: HPE_INVALID_URL: the request target has a byte HTTP does not allow there (a space, a control character or a byte of 0x7f or more): percent-encode it.' }),
  })
  // The refusals byte for byte (node:http writes them without a date); the /_ping after them as a check.
  expect(answers['in-process'].slice(0, 3)).toEqual(answers.server.slice(0, 3))
  expect((answers['in-process'][3] as Seen).body).toBe('OK')
})
