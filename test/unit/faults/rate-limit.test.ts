// The rate limiter as a table (docs/faults.md, "Rate limits"): validation, buckets per client or per route,
// burst, the route a rule counts, and Retry-After rounded up from the exact wait so a retry at it passes.
import { describe, expect, it } from 'vitest'
import { createDockside, type RateLimitConfig } from '../../../src/index'
import { validateRateLimit } from '../../../src/faults/rate-limit'

/** Sets `config`, then makes `requests` at the given clock times (ms); returns each verdict as text. */
async function run(config: RateLimitConfig, requests: [at: number, route: 'events' | 'push', client: string][]) {
  await using fake = createDockside()
  fake.rateLimit.set(config)
  const out: string[] = []
  for (const [at, route, client] of requests) {
    await fake.clock.advance(at - fake.clock.elapsed())
    const v = fake.rateLimit.check(route, client)
    out.push(v.allowed ? 'ok' : `429 ${v.retryAfter}s (${v.retryAfterMs} ms): ${v.message}`)
  }
  return out
}

describe('validation', () => {
  const rows: [string, unknown, string][] = [
    ['window 0', { limit: 1, window: 0 }, 'window: must be a duration above 0, like "10s"'],
    ['window "0s" in a list', [{ limit: 1, window: '1s' }, { limit: 1, window: '0s' }], '[1].window: must be a duration above 0, like "10s"'],
    ['limit 0', { limit: 0, window: '1s' }, 'limit: must be >= 1'],
    ['burst 0', { limit: 1, window: '1s', burst: 0 }, 'burst: must be >= 1'],
    ['route other', { route: 'pull', limit: 1, window: '1s' }, 'route: must be one of "events", "push", "*"'],
  ]
  it.each(rows)('%s', async (_name, config, message) => {
    await using fake = createDockside()
    expect(() => fake.rateLimit.set(config as RateLimitConfig)).toThrow(message)
    expect(fake.rateLimit.get()).toEqual([])
  })

  it('a limit the schema refuses is named under the subject "rate limit"', async () => {
    await using fake = createDockside()
    expect(() => fake.rateLimit.set({ limit: 1 } as never)).toThrow(/^rate limit: missing required field "window"$/)
  })

  it('undefined and null turn limiting off; get() returns copies; a list keeps its order', async () => {
    await using fake = createDockside()
    const config = [
      { route: 'events' as const, limit: 1, window: '1s' },
      { route: 'push' as const, limit: 2, window: '1m' },
    ]
    fake.rateLimit.set(config)
    const got = fake.rateLimit.get()
    expect(got).toEqual(config)
    got[0].limit = 99
    expect(fake.rateLimit.get()[0].limit).toBe(1)
    fake.rateLimit.set(null as never)
    expect(fake.rateLimit.get()).toEqual([])
    fake.rateLimit.set(config)
    fake.rateLimit.set(undefined)
    expect(fake.rateLimit.get()).toEqual([])
    expect(fake.journal.ofType('ratelimit.set').map((e) => (e.rules as unknown[]).length)).toEqual([2, 0, 2, 0])
  })
})

describe('buckets', () => {
  it('per client (the default): each client has its own bucket; the message says so', async () => {
    expect(
      await run({ route: 'events', limit: 1, window: '2s' }, [
        [0, 'events', 'a'],
        [0, 'events', 'b'],
        [0, 'events', 'a'],
        [1999, 'events', 'a'],
        [2000, 'events', 'a'],
      ]),
    ).toEqual([
      'ok',
      'ok',
      '429 2s (2000 ms): too many requests: 1 per 2s per client on events; retry in 2s',
      '429 1s (1 ms): too many requests: 1 per 2s per client on events; retry in 1s',
      'ok',
    ])
  })

  it('per route: one bucket for everyone, and no "per client" in the message', async () => {
    expect(
      await run({ route: 'push', limit: 1, window: '10s', per: 'route' }, [
        [0, 'push', 'a'],
        [0, 'push', 'b'],
      ]),
    ).toEqual(['ok', '429 10s (10000 ms): too many requests: 1 per 10s on push; retry in 10s'])
  })

  it('the burst lets requests come at once, then one per window / limit', async () => {
    expect(
      await run({ limit: 4, window: '4s', burst: 2 }, [
        [0, 'events', 'a'],
        [0, 'events', 'a'],
        [0, 'events', 'a'],
        [1000, 'events', 'a'],
        [1000, 'events', 'a'],
      ]),
    ).toEqual(['ok', 'ok', '429 1s (1000 ms): too many requests: 4 per 4s per client on events; retry in 1s', 'ok', '429 1s (1000 ms): too many requests: 4 per 4s per client on events; retry in 1s'])
  })

  it('burst defaults to the limit: limit requests at once, then none until the window refills', async () => {
    expect(
      await run({ limit: 2, window: '10s' }, [
        [0, 'push', 'a'],
        [0, 'push', 'a'],
        [0, 'push', 'a'],
        [5000, 'push', 'a'],
      ]),
    ).toEqual(['ok', 'ok', '429 5s (5000 ms): too many requests: 2 per 10s per client on push; retry in 5s', 'ok'])
  })

  it('a route counts only its own requests; "*" (the default) counts both, in separate buckets', async () => {
    expect(
      await run([{ route: 'events', limit: 1, window: '1s' }], [
        [0, 'push', 'a'],
        [0, 'push', 'a'],
        [0, 'events', 'a'],
        [0, 'events', 'a'],
      ]),
    ).toEqual(['ok', 'ok', 'ok', '429 1s (1000 ms): too many requests: 1 per 1s per client on events; retry in 1s'])
    expect(
      await run({ limit: 1, window: '1s' }, [
        [0, 'push', 'a'],
        [0, 'events', 'a'],
        [0, 'push', 'a'],
      ]),
    ).toEqual(['ok', 'ok', '429 1s (1000 ms): too many requests: 1 per 1s per client on push; retry in 1s'])
  })

  it('Retry-After rounds the exact wait up to whole seconds: exactly 2 s is 2, 1.5 s is 2', async () => {
    expect(
      await run({ limit: 1, window: '3s' }, [
        [0, 'events', 'a'],
        [1000, 'events', 'a'],
        [1500, 'events', 'a'],
        [1500, 'events', 'b'],
        [1500, 'events', 'b'],
      ]),
    ).toEqual([
      'ok',
      '429 2s (2000 ms): too many requests: 1 per 3s per client on events; retry in 2s',
      '429 2s (1500 ms): too many requests: 1 per 3s per client on events; retry in 2s',
      'ok',
      '429 3s (3000 ms): too many requests: 1 per 3s per client on events; retry in 3s',
    ])
  })

  it('a refusal does not use up a token; every verdict is journaled; a custom message is kept', async () => {
    await using fake = createDockside()
    fake.rateLimit.set({ route: 'events', limit: 1, window: '1s', message: 'slow down' })
    expect(fake.rateLimit.check('events', 'a')).toEqual({ allowed: true })
    expect(fake.rateLimit.check('events', 'a')).toEqual({ allowed: false, rule: 0, retryAfterMs: 1000, retryAfter: 1, message: 'slow down' })
    expect(fake.rateLimit.check('events', 'a')).toMatchObject({ allowed: false, retryAfterMs: 1000 })
    await fake.clock.advance(1000)
    expect(fake.rateLimit.check('events', 'a')).toEqual({ allowed: true })
    expect(fake.journal.ofType('ratelimit').map((e) => [e.route, e.client, e.rule, e.allowed, e.retryAfterMs])).toEqual([
      ['events', 'a', 0, true, undefined],
      ['events', 'a', 0, false, 1000],
      ['events', 'a', 0, false, 1000],
      ['events', 'a', 0, true, undefined],
    ])
  })

  it('the second of two rules refuses with its own index; set() empties every bucket', async () => {
    await using fake = createDockside()
    const rules: RateLimitConfig = [
      { route: 'events', limit: 5, window: '1s' },
      { route: 'events', limit: 1, window: '1s' },
    ]
    fake.rateLimit.set(rules)
    expect(fake.rateLimit.check('events', 'a')).toEqual({ allowed: true })
    expect(fake.rateLimit.check('events', 'a')).toMatchObject({ allowed: false, rule: 1 })
    fake.rateLimit.set(rules)
    expect(fake.rateLimit.check('events', 'a')).toEqual({ allowed: true })
  })
})

describe('validation without the schema (the core alone: createService with no check)', () => {
  it('a limit that is not an object is named by its place; a window is checked in code', () => {
    expect(() => validateRateLimit(7)).toThrow(/^rate limit: must be a rate limit like \{"route":"events","limit":5,"window":"10s"\}$/)
    expect(() => validateRateLimit([{ limit: 1, window: '1s' }, null])).toThrow(/^rate limit\[1\]: must be a rate limit like /)
    expect(() => validateRateLimit([{ limit: 1, window: '1s' }, { limit: 1, window: 0 }])).toThrow(/^rate limit\[1\]\.window: must be a duration above 0, like "10s"$/)
    expect(validateRateLimit(null)).toEqual([])
    const rule = { limit: 1, window: '1s' }
    const [copy] = validateRateLimit(rule)
    expect(copy).toEqual(rule)
    expect(copy).not.toBe(rule)
  })
})

describe('buckets() (the dashboard): whole tokens a client may use now', () => {
  /** How many requests in a row pass now (each refused one uses nothing). */
  const passNow = (fake: { rateLimit: { check(r: 'events' | 'push', c: string): { allowed: boolean } } }, route: 'events' | 'push', client: string) => {
    let n = 0
    while (fake.rateLimit.check(route, client).allowed) n++
    return n
  }

  it('a bucket per rule, route and client: tokens fall per request, refill at limit / window, and match what passes', async () => {
    await using fake = createDockside()
    fake.rateLimit.set([{ limit: 3, window: '3s' }, { route: 'push', limit: 2, window: '10s', per: 'route', burst: 1 }])
    expect(fake.rateLimit.buckets()).toEqual([])
    fake.rateLimit.check('events', 'a|b')
    fake.rateLimit.check('push', 'c')
    expect(fake.rateLimit.buckets()).toEqual([
      { rule: 0, route: 'events', client: 'a|b', tokens: 2, burst: 3 },
      { rule: 0, route: 'push', client: 'c', tokens: 2, burst: 3 },
      { rule: 1, route: 'push', client: '*', tokens: 0, burst: 1 },
    ])
    expect(passNow(fake, 'events', 'a|b')).toBe(2)
    expect(fake.rateLimit.buckets()[0].tokens).toBe(0)
    await fake.clock.advance(1500)
    expect(fake.rateLimit.buckets().map((b) => b.tokens)).toEqual([1, 3, 0])
    expect(passNow(fake, 'events', 'a|b')).toBe(1)
    await fake.clock.advance(2499)
    // 1 ms short of a full bucket here; rule 1's shared bucket refills one request per 5 s.
    expect(fake.rateLimit.buckets().map((b) => b.tokens)).toEqual([2, 3, 0])
    await fake.clock.advance(1)
    expect(fake.rateLimit.buckets().map((b) => b.tokens)).toEqual([3, 3, 0])
    await fake.clock.advance(999)
    expect(fake.rateLimit.buckets().map((b) => b.tokens)).toEqual([3, 3, 0])
    await fake.clock.advance(1)
    expect(fake.rateLimit.buckets().map((b) => b.tokens)).toEqual([3, 3, 1])
    await fake.clock.advance(60_000)
    expect(fake.rateLimit.buckets().map((b) => b.tokens)).toEqual([3, 3, 1])
  })
})
