// Mutation testing (docs/contributing/testing-internals.md) of src/faults/rule.ts: a `message` is taken on a `refuse` rule (not only on
// `reply`) and answers the refused reconnect, a `retryAfter` of exactly 100 years is taken and one second more refused
// with its words, and a scenario applied from now at the clock's start keeps its fault windows as written.
// Found by mutation testing of src/faults/rule.ts (was test/regressions/mutation-fault-rule.test.ts).
import { describe, expect, it } from 'vitest'
import { createDockside } from '../../../../src/index'
import type { FaultRule } from '../../../../src/faults/rule'

const refusal = (add: () => unknown) => {
  try {
    add()
  } catch (error) {
    return (error as Error).message
  }
  return 'accepted'
}

describe('validateRule', () => {
  it('takes a message on a refuse rule, and the refused reconnect answers with it', async () => {
    await using fake = createDockside({ seed: 1 })
    fake.faults.add({ on: 'events', refuse: 1, message: 'busy, come back later' })
    const open = () => fake.protocol.handle({ method: 'GET', url: '/events?client=a', headers: {}, signal: new AbortController().signal, body: async () => '' })
    expect((await open()).status).toBe(200)
    const again = await open()
    expect([again.status, JSON.parse(again.body as string).message]).toEqual([503, 'busy, come back later'])
  })

  it('takes a retryAfter of up to 100 years, and refuses one longer saying so', async () => {
    await using fake = createDockside({ seed: 1 })
    const max = 100 * 365 * 24 * 3600
    expect(refusal(() => fake.faults.add({ on: 'events', reply: 503, retryAfter: max }))).toBe('accepted')
    expect(refusal(() => fake.faults.add({ on: 'events', reply: 503, retryAfter: max + 1 }))).toBe(
      `retryAfter: ${max + 1} is longer than the 100-year maximum; must be whole seconds from 0 to ${max} (100 years)`,
    )
  })
})

describe('a scenario applied from now at the clock\'s start', () => {
  it('keeps its fault windows as written (nothing to shift)', async () => {
    await using fake = createDockside({ seed: 1 })
    const rule: FaultRule = { id: 'window', on: 'events', drop: true, from: '10s', until: '20s' }
    await fake.apply({ faults: [rule] }, { from: 'now' })
    expect(fake.faults.list().map((h) => [h.rule.from, h.rule.until])).toEqual([['10s', '20s']])
  })
})
