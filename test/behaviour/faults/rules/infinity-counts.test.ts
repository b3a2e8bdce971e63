// Regression: counts of Infinity passed the schema's "integer" (JSON `1e400` through the admin API, YAML `.inf` in a
// scenario): `{"after": 1e400}` made a rule that never fires, `afterLayer` one that never strikes, a rate limit of
// Infinity no limit at all, and the plan showed each as `null`. `times: Infinity` (documented: "always") came out of
// `toJSON()` as `times: null`, which does not pass back to `add()` as the same rule. Now the others are a 400 naming
// the field, and `toJSON()` writes `"always"`.
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

let fake: Dockside | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

it.each([
  ['/_dockside/faults', '{"on":"events","reply":429,"after":1e400}', /^after: must be a finite whole number, not Infinity/],
  ['/_dockside/faults', '{"on":"push","error":"x","afterLayer":1e400}', /^afterLayer: must be a finite whole number, not Infinity/],
  ['/_dockside/faults', '{"on":"events","close":{"code":1000,"reason":"r"},"afterMessages":1e400}', /^afterMessages: must be a finite whole number/],
  ['/_dockside/rate-limit', '{"route":"events","limit":1e400,"window":"1s"}', /^limit: must be a finite whole number, not Infinity/],
])('POST %s %s is a 400 naming the field, and nothing is added', async (path, body, message) => {
  fake = createDockside()
  const server = await fake.listen({ port: 0 })
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  expect(res.status).toBe(400)
  expect(((await res.json()) as { message: string }).message).toMatch(message)
  expect(fake.faults.list()).toEqual([])
  expect(fake.rateLimit.get()).toEqual([])
})

it('times: Infinity comes out of toJSON as "always" and passes back to add() as the same rule', async () => {
  fake = createDockside()
  fake.faults.add({ id: 'storm', on: 'events', reply: 429, times: Infinity })
  const json = fake.faults.toJSON()
  expect(json).toEqual([{ id: 'storm', on: 'events', reply: 429, times: 'always' }])
  const again = createDockside()
  try {
    expect(again.faults.addAll(JSON.parse(JSON.stringify(json)))[0].limit).toBe(Infinity)
  } finally {
    await again.close()
  }
})
