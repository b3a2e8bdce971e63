// Regression: a push fault whose threshold the push never reached counted as fired and did nothing. With
// `{"on":"push","error":"x","afterBytes":99999}` and a 6 kB image the push ended cleanly and wrote its tag, yet the rule
// said `fired 1`, `assertAllFired()` passed and a `times: 1` rule was used up: the chaos rig said a fault was injected
// that never was. Now a push that ends without its fault striking (done short of `afterLayer`/`afterBytes`, refused for
// its credentials, refused before it began) takes the firing back: `fault.missed` in the journal, `fired` 0, the rule
// pending, and its use left for the next push. Driven over a real socket, as a client pushes.
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside, type FaultRule } from '../../../../src/index'
import { drainWithClock, registryAuth } from '../../../support/helpers'

const fakes: Dockside[] = []
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close()
})

async function started(rule: FaultRule) {
  const fake = createDockside({ seed: 3, pushBandwidth: 10_000 })
  fakes.push(fake)
  fake.registries.add('localhost:5000', { username: 'u', password: 'p' })
  fake.images.add('localhost:5000/small:1', { layers: [3000, 3000] })
  fake.images.add('localhost:5000/big:1', { layers: [200_000] })
  const handle = fake.faults.add(rule)
  const server = await fake.listen({ port: 0 })
  const push = async (name: string, auth: object = { username: 'u', password: 'p' }) => {
    const res = await fetch(`${server.url}/images/${name}/push`, { method: 'POST', headers: { 'X-Registry-Auth': registryAuth(auth) } })
    return res.status === 200 ? (await drainWithClock(res, () => fake.clock.advance('100ms'))).trim().split('\n').at(-1)! : `${res.status}`
  }
  return { fake, handle, push }
}

it.each<[string, FaultRule]>([
  ['afterBytes past the image', { on: 'push', error: 'x', afterBytes: 99_999, times: 1 }],
  ['afterLayer past the image', { on: 'push', error: 'x', afterLayer: 9, times: 1 }],
])('%s: the push goes through, the rule has not fired, and the next push that reaches it gets it', async (_, rule) => {
  const { fake, handle, push } = await started(rule)
  expect(await push('localhost:5000/small:1')).toMatch(/"aux":\{"Tag":"1"/)
  expect(fake.registries.get('localhost:5000').tags.map((t) => t.repository)).toEqual(['localhost:5000/small'])
  expect([handle.matched, handle.fired]).toEqual([1, 0])
  expect(fake.faults.pending().map((r) => r.id)).toEqual([handle.id])
  expect(() => fake.faults.assertAllFired()).toThrow(/never fired/)
  expect(fake.journal.ofType('fault.missed')).toMatchObject([{ rule: handle.id, fired: 0 }])
  // Its one use is still there: a push long enough to reach the threshold gets the error.
  const big = await push('localhost:5000/big:1')
  if (rule.afterBytes !== undefined) {
    expect(big).toBe('{"errorDetail":{"message":"x"},"error":"x"}')
    expect([handle.matched, handle.fired]).toEqual([2, 1])
    expect(() => fake.faults.assertAllFired()).not.toThrow()
  } else {
    // One layer never reaches afterLayer 9 either.
    expect([handle.matched, handle.fired]).toEqual([2, 0])
  }
})

it('a push refused for its credentials before the threshold: the fault did not strike', async () => {
  const { handle, push } = await started({ on: 'push', error: 'x', afterLayer: 1 })
  expect(await push('localhost:5000/small:1', { username: 'u', password: 'wrong' })).toBe('{"errorDetail":{"message":"unauthorized: authentication required"},"error":"unauthorized: authentication required"}')
  expect([handle.matched, handle.fired]).toEqual([1, 0])
  expect(await push('localhost:5000/small:1')).toBe('{"errorDetail":{"message":"x"},"error":"x"}')
  expect([handle.matched, handle.fired]).toEqual([2, 1])
})
