// Mutation testing (docs/contributing/testing-internals.md) of src/protocol/requests/overrides.ts: the checks a reply and a request pattern go through
// before an override is installed. These pin what the surviving mutants showed unpinned: JSON `null` inside a body
// and one object shared by two fields (not a circular structure) are taken and sent; headers of exactly 8 KiB are
// taken and one byte more refused; a pattern that is null or undefined is refused with the pattern's own words.
// Found by mutation testing of src/protocol/requests/overrides.ts (was test/regressions/mutation-overrides.test.ts).
import { describe, expect, it } from 'vitest'
import { createDockside, InvalidInputError } from '../../../src/index'
import type { ProtoRequest } from '../../../src/protocol/types'

const request = (method: string, url: string, body = ''): ProtoRequest => ({ method, url, headers: {}, signal: new AbortController().signal, body: async () => body })

const refusal = (use: () => unknown) => {
  try {
    use()
  } catch (error) {
    return error
  }
  return undefined
}

describe('an override\'s reply body', () => {
  it('may hold JSON null and an object that two fields share, and is sent as that JSON', async () => {
    await using fake = createDockside({ seed: 1 })
    const shared = { region: 'us-west-1' }
    const body = { a: null, b: shared, c: shared, list: [null, shared, [shared]] }
    fake.use('GET /info', { status: 200, body })
    const res = await fake.protocol.handle(request('GET', '/info'))
    expect(res.status).toBe(200)
    expect(JSON.parse(res.body as string)).toEqual({ a: null, b: shared, c: shared, list: [null, shared, [shared]] })
  })
})

describe('an override\'s request pattern', () => {
  it('may match a body that holds null and a shared object', async () => {
    await using fake = createDockside({ seed: 1 })
    const shared = { user: 'a' }
    fake.use({ method: 'POST', path: '/auth', body: { token: null, first: shared, second: shared } }, { status: 418, body: { message: 'matched' } })
    const res = await fake.protocol.handle(request('POST', '/auth', JSON.stringify({ token: null, first: { user: 'a' }, second: { user: 'a' }, other: 1 })))
    expect([res.status, JSON.parse(res.body as string)]).toEqual([418, { message: 'matched' }])
  })

  it.each([null, undefined])('%s is refused as no pattern, with the words of any other non-pattern', async (pattern) => {
    await using fake = createDockside({ seed: 1 })
    const error = refusal(() => fake.use(pattern as never, { status: 503 }))
    expect(error).toBeInstanceOf(InvalidInputError)
    expect((error as Error).message).toBe('A request pattern must be an object like { method: "GET", path: "/_ping" } or a string "GET /_ping".')
    expect(fake.overrides.list()).toEqual([])
  })
})

describe('an override\'s reply headers', () => {
  it('may total 8 KiB of names and values; one byte more is refused', async () => {
    await using fake = createDockside({ seed: 1 })
    const exact = { 'x-a': 'v'.repeat(8192 - 3) }
    fake.use('GET /info', { status: 200, headers: exact, body: 'ok' })
    const res = await fake.protocol.handle(request('GET', '/info'))
    expect([res.status, res.headers['x-a']?.length]).toEqual([200, 8189])
    const error = refusal(() => fake.use('GET /version', { status: 200, headers: { 'x-a': 'v'.repeat(8192 - 2) } }))
    expect(error).toBeInstanceOf(InvalidInputError)
    expect((error as Error).message).toMatch(/^response\.headers: 8193 bytes of header names and values; at most 8192 in all /)
    expect(fake.overrides.list()).toHaveLength(1)
  })
})
