import fc from 'fast-check'
import { expect, test } from 'vitest'
import { createDockside, type Dockside } from 'dockside'

const send = (fake: Dockside, method: string, url: string, body = '') =>
  fake.protocol.handle({ method, url, headers: { host: '127.0.0.1' }, signal: new AbortController().signal, body: async () => body })

/** Right-looking override bodies with wrong types, unknown fields and any JSON in between. */
const anything = fc.jsonValue({ maxDepth: 3 })
const pattern = fc.record(
  { method: fc.oneof(fc.constantFrom('GET', 'post', '*'), anything), path: fc.oneof(fc.constantFrom('/_ping', '/images/*/push', '/containers/:id/json', 'nope', ''), anything), pathPattern: fc.oneof(fc.constantFrom('^/_ping$', '(a+)+$', '(?<=x)', '\\1'), anything), query: fc.oneof(fc.dictionary(fc.string(), fc.string()), anything), headers: anything, body: anything, client: anything, extra: anything },
  { requiredKeys: [] },
)
const reply = fc.record({ status: fc.oneof(fc.integer({ min: -1, max: 700 }), anything), headers: fc.oneof(fc.dictionary(fc.string(), fc.string()), anything), body: anything, delay: fc.oneof(fc.constantFrom('5s', '-1s', 1e308, 0), anything), passthrough: fc.oneof(fc.boolean(), anything), extra: anything }, { requiredKeys: [] })
const overrideBody = fc.oneof(fc.record({ id: fc.oneof(fc.string(), anything), request: fc.oneof(pattern, anything), response: fc.oneof(reply, anything), times: fc.oneof(fc.integer({ min: -2, max: 3 }), anything) }, { requiredKeys: [] }), anything)

test('POST /_dockside/overrides and GET /_dockside/requests answer any input with a 2xx or a 4xx naming what was wrong; the fake still serves', async () => {
  await using fake = createDockside({ seed: 8 })
  await fc.assert(
    fc.asyncProperty(overrideBody, fc.array(fc.tuple(fc.constantFrom('method', 'path', 'pathPattern', 'query.tag', 'header.x', 'client', 'status', 'body', 'limit', 'nearMisses', 'bogus'), fc.string()), { maxLength: 4 }), async (body, params) => {
        const added = await send(fake, 'POST', '/_dockside/overrides', JSON.stringify(body))
        expect([201, 400, 409]).toContain(added.status)
        if (added.status !== 201) expect(JSON.parse(added.body as string).message).toMatch(/\S/)
        // Whatever was added, a request still gets a JSON-or-scripted answer, never a crash.
        const ping = await send(fake, 'GET', '/_ping')
        expect(ping.status).toBeLessThan(600)
        expect(String(ping.body)).not.toMatch(/internal error/)
        const query = params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')
        const listed = await send(fake, 'GET', `/_dockside/requests?${query}`)
        expect([200, 400]).toContain(listed.status)
        const answer = JSON.parse(listed.body as string)
        if (listed.status === 400) expect(answer.message).toMatch(/\S/)
        else expect(typeof answer.count).toBe('number')
        expect((await send(fake, 'DELETE', '/_dockside/overrides')).status).toBe(200)
      }),
    { seed: 8, numRuns: 300 },
  )
  expect((await send(fake, 'GET', '/_ping')).body).toBe('OK')
})
