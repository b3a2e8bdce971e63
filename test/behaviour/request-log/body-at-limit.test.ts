// Bug: `fake.requests` marked a body of exactly RECORDED_BODY_LIMIT (8,192) characters `bodyTruncated: true`, though it
// was kept whole (docs/api.md#request-verification: a body is cut at 8,192 characters, and only a cut one is marked).
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'
import { RECORDED_BODY_LIMIT } from '../../../src/protocol/requests/log'

let fake: Dockside | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

/** POST /auth with a JSON body of `length` characters, through the protocol (both ways in record the same way). */
async function postAuth(f: Dockside, length: number) {
  const head = '{"username":"alice","serveraddress":"localhost:5000","pad":"'
  const body = `${head}${'x'.repeat(length - head.length - 2)}"}`
  expect(body).toHaveLength(length)
  await f.protocol.handle({ method: 'POST', url: '/v1.47/auth', headers: { 'content-type': 'application/json' }, signal: new AbortController().signal, body: async () => body })
  return body
}

it('a body of exactly 8,192 characters is recorded whole and not marked bodyTruncated; one character more is cut and marked', async () => {
  expect(RECORDED_BODY_LIMIT).toBe(8192)
  fake = createDockside()
  const exact = await postAuth(fake, 8192)
  const longer = await postAuth(fake, 8193)
  const [whole, cut] = fake.requests.list('POST /auth')
  expect(whole.body).toBe(exact)
  expect(whole).not.toHaveProperty('bodyTruncated')
  // The last character, the closing brace, is cut.
  expect(cut.body).toBe(longer.slice(0, -1))
  expect(cut.body!.endsWith('x"')).toBe(true)
  expect(cut.bodyTruncated).toBe(true)
})
