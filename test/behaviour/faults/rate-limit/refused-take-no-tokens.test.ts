// Rate limits set over the admin API, driven over real HTTP (docs/faults.md: "Refused requests do not consume tokens",
// "a retry at Retry-After succeeds"). Found by the admin hunt: with two rules, a request the second refused used the
// first one's tokens, so the retry the 429 promised met the first rule's 429.
// Found by the admin API hunt (was test/unit/admin-hunt-rate-limit.test.ts).
import { expect, it } from 'vitest'
import { createDockside } from '../../../../src/index'
import { jsonCaller } from '../../../support/helpers'

it('a request one rule refuses takes no token from the others: a retry at its Retry-After passes', async () => {
  await using fake = createDockside({ clock: { mode: 'virtual' } })
  await using server = await fake.listen({ port: 0 })
  const call = jsonCaller(server.url)
  const set = await call('POST', '/_dockside/rate-limit', JSON.stringify([{ limit: 3, window: '60s' }, { route: 'events', limit: 1, window: '10s' }]))
  expect(set.status).toBe(200)
  const events = async () => {
    const res = await fetch(`${server.url}/events?client=a&until=0`)
    await res.text()
    return { status: res.status, retryAfter: res.headers.get('retry-after') }
  }
  expect(await events()).toEqual({ status: 200, retryAfter: null })
  // Refused by the second rule (1 per 10s): the first rule (3 per 60s) keeps its two tokens.
  expect(await events()).toEqual({ status: 429, retryAfter: '10' })
  expect(await events()).toEqual({ status: 429, retryAfter: '10' })
  await fake.clock.advance('10s')
  expect(await events()).toEqual({ status: 200, retryAfter: null })
  // Rule 0: 3 tokens, two used by the two requests that passed, half a token refilled since (3 per 60s).
  expect(fake.rateLimit.buckets()).toEqual([
    { rule: 0, route: 'events', client: 'a', tokens: 1, burst: 3 },
    { rule: 1, route: 'events', client: 'a', tokens: 0, burst: 1 },
  ])
  // The journal tells the refused requests by the rule that refused them, and says nothing of the rule that let them by.
  expect(fake.journal.ofType('ratelimit').map((e) => `${e.rule}:${e.allowed}`)).toEqual(['0:true', '1:true', '1:false', '1:false', '0:true', '1:true'])
})

it('refused by several rules, Retry-After is the longest wait: a client that obeys it passes', async () => {
  await using fake = createDockside({ clock: { mode: 'virtual' } })
  await using server = await fake.listen({ port: 0 })
  const call = jsonCaller(server.url)
  // Both run out after one request: the first refills in 5 s, the second in 30 s.
  expect((await call('POST', '/_dockside/rate-limit', JSON.stringify([{ limit: 1, window: '5s' }, { route: 'events', limit: 1, window: '30s' }]))).status).toBe(200)
  const events = async () => {
    const res = await fetch(`${server.url}/events?client=a&until=0`)
    await res.text()
    return { status: res.status, retryAfter: res.headers.get('retry-after') }
  }
  expect(await events()).toEqual({ status: 200, retryAfter: null })
  // Before: the first rule's 5 s, after which the second refused again with 25 s.
  expect(await events()).toEqual({ status: 429, retryAfter: '30' })
  await fake.clock.advance('30s')
  expect(await events()).toEqual({ status: 200, retryAfter: null })
  expect(fake.journal.ofType('ratelimit').filter((e) => !e.allowed).map((e) => e.rule)).toEqual([1])
})
