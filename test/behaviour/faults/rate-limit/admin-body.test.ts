import { expect, test } from 'vitest'
import { createDockside, parseScenario, ScenarioError } from 'dockside'

// Regression: POST /_dockside/rate-limit with an empty body or `null` wiped the limits in force and answered 200 `[]`
// (while `{}` got a 400), so a client that lost its body on the way turned rate limiting off. Both are now a 400 naming
// what is expected, and the limits stay; DELETE /_dockside/rate-limit still turns limiting off, as documented.
// Also: a window over the 100-year maximum (1e308, "36501d") was refused with the wrong reason, "must be a duration
// above 0"; it now says it is too long and gives the range.

const LIMIT = { route: 'events', limit: 5, window: '10s' }
const EXPECTED = 'send a rate limit like {"route":"events","limit":5,"window":"10s"} or a list of them; to turn rate limiting off, DELETE /_dockside/rate-limit'

test('POST /_dockside/rate-limit with an empty body or null is a 400 naming what is expected; the limits stay', async () => {
  await using fake = createDockside()
  const server = await fake.listen({ port: 0 })
  const post = (body?: string) => fetch(`${server.url}/_dockside/rate-limit`, { method: 'POST', body, headers: { 'content-type': 'application/json' } })
  expect((await post(JSON.stringify(LIMIT))).status).toBe(200)
  const cases: [string | undefined, string][] = [
    [undefined, `request body: missing; ${EXPECTED}`],
    ['', `request body: missing; ${EXPECTED}`],
    ['  \n', `request body: missing; ${EXPECTED}`],
    ['null', `request body: null is not a rate limit; ${EXPECTED}`],
  ]
  for (const [body, message] of cases) {
    const res = await post(body)
    expect(res.status, JSON.stringify(body)).toBe(400)
    expect(await res.json(), JSON.stringify(body)).toEqual({ message })
    expect(await (await fetch(`${server.url}/_dockside/rate-limit`)).json()).toEqual([LIMIT])
  }
  // The documented ways to turn limiting off still do.
  expect(await (await post('[]')).json()).toEqual([])
  expect((await post(JSON.stringify(LIMIT))).status).toBe(200)
  const del = await fetch(`${server.url}/_dockside/rate-limit`, { method: 'DELETE' })
  expect(await del.json()).toEqual([])
  expect(fake.rateLimit.get()).toEqual([])
})

test('a window over 100 years is refused as too long, with the range, on every way in', async () => {
  const expected = (shown: string) => `${shown} is longer than the 100-year maximum; must be a duration above 0, at most 3153600000000 ms (100 years, "36500d"), like "10s"`
  await using fake = createDockside()
  const server = await fake.listen({ port: 0 })
  for (const [window, shown] of [[1e308, '1e+308'], ['36501d', '"36501d"']] as const) {
    const res = await fetch(`${server.url}/_dockside/rate-limit`, { method: 'POST', body: JSON.stringify({ route: 'events', limit: 5, window }) })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ message: `window: ${expected(shown)}` })
    const list = await fetch(`${server.url}/_dockside/rate-limit`, { method: 'POST', body: JSON.stringify([LIMIT, { limit: 1, window }]) })
    expect((await list.json()).message).toBe(`rate limit[1].window: ${expected(shown)}`)
    expect(() => fake.rateLimit.set({ limit: 1, window })).toThrow(`window: ${expected(shown)}`)
  }
  expect(fake.rateLimit.get()).toEqual([])
  // Exactly the maximum is a window.
  fake.rateLimit.set({ limit: 1, window: '36500d' })
  expect(fake.rateLimit.get()).toEqual([{ limit: 1, window: '36500d' }])
  await expect(parseScenario('rateLimit: { limit: 1, window: 36501d }\n', 'rl.yaml')).rejects.toThrow(new ScenarioError('rl.yaml', 'rateLimit.window', expected('"36501d"')))
  // A window of 0 keeps its reason.
  expect(() => fake.rateLimit.set({ limit: 1, window: 0 })).toThrow(/^window: must be a duration above 0, like "10s"$/)
})
