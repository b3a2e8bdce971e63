import { describe, expect, it } from 'vitest'
import { createDockside } from '../../src/index'

/** Asks the plan `n` times at `site`; returns which asks fired (1-based). */
function firing(fake: ReturnType<typeof createDockside>, n: number, context = {}) {
  const out: number[] = []
  for (let i = 1; i <= n; i++) if (fake.faults.decide('events', context)) out.push(i)
  return out
}

describe('fault schedules', () => {
  it('once by default, times(n), always', () => {
    const fake = createDockside()
    fake.faults.add({ on: 'events', reply: 500 })
    expect(firing(fake, 3)).toEqual([1])
    fake.faults.clear()
    fake.faults.add({ on: 'events', reply: 500 }).times(2)
    expect(firing(fake, 4)).toEqual([1, 2])
    fake.faults.clear()
    fake.faults.add({ on: 'events', reply: 500, times: 'always' })
    expect(firing(fake, 3)).toEqual([1, 2, 3])
  })

  it('after the first n, every nth, and both combined', () => {
    const fake = createDockside()
    fake.faults.add({ on: 'events', reply: 500, after: 2, times: 'always' })
    expect(firing(fake, 5)).toEqual([3, 4, 5])
    fake.faults.clear()
    fake.faults.add({ on: 'events', reply: 500, every: 3, times: 'always' })
    expect(firing(fake, 7)).toEqual([1, 4, 7])
    fake.faults.clear()
    fake.faults.add({ on: 'events', reply: 500, after: 1, every: 2, times: 2 })
    expect(firing(fake, 9)).toEqual([2, 4])
  })

  it('a clock window from/until', async () => {
    const fake = createDockside()
    fake.faults.add({ on: 'events', reply: 429, from: '10s', until: '20s', times: 'always' })
    expect(firing(fake, 1)).toEqual([])
    await fake.clock.advance('10s')
    expect(firing(fake, 1)).toEqual([1])
    await fake.clock.advance('9999ms')
    expect(firing(fake, 1)).toEqual([1])
    await fake.clock.advance('1ms')
    expect(firing(fake, 1)).toEqual([])
  })

  it('a seeded probability: the same seed draws the same, every draw journaled', () => {
    const run = (seed: number) => {
      const fake = createDockside({ seed })
      fake.faults.add({ on: 'events', reply: 500, probability: 0.5, times: 'always' })
      return { fired: firing(fake, 40), draws: fake.journal.ofType('fault.draw').length }
    }
    const a = run(3)
    expect(a).toEqual(run(3))
    expect(a.draws).toBe(40)
    expect(a.fired.length).toBeGreaterThan(5)
    expect(a.fired.length).toBeLessThan(35)
    expect(run(4).fired).not.toEqual(a.fired)
  })

  it('matches by route, client, filters, container and reconnect', () => {
    const fake = createDockside()
    fake.faults.add({ on: 'events', reply: 500, times: 'always', match: { route: '/events/ws', client: 'a', filters: { event: ['stop'] }, container: 'web', reconnect: true } })
    const hit = { route: '/events/ws', client: 'a', filters: { event: ['stop', 'start'], container: ['web'] }, reconnect: true }
    expect(firing(fake, 1, hit)).toEqual([1])
    for (const miss of [{ route: '/events' }, { client: 'b' }, { filters: { event: ['start'], container: ['web'] } }, { filters: { event: ['stop'] } }, { reconnect: false }]) {
      expect(firing(fake, 1, { ...hit, ...miss })).toEqual([])
    }
    fake.faults.clear()
    fake.faults.add({ on: 'push', reply: 500, times: 'always', match: { route: '/images/*', image: 'localhost:5000/app' } })
    expect(fake.faults.decide('push', { route: '/images/localhost:5000/app/push', image: 'localhost:5000/app:1' })).toBeDefined()
    expect(fake.faults.decide('push', { route: '/images/other/push', image: 'other' })).toBeUndefined()
  })

  it('refuses bad rules with a message naming the field and what is allowed', () => {
    const fake = createDockside()
    // @ts-expect-error push takes no drop: a compile error as well as the FieldError here (rules from JSON or YAML)
    expect(() => fake.faults.add({ on: 'push', drop: true })).toThrow(/^drop: does not apply to "push"; actions on "push": reply, error, reset/)
    expect(() => fake.faults.add({ on: 'events', reply: 429, close: { code: 1000 } })).toThrow(/exactly one action/)
    expect(() => fake.faults.add({ on: 'events', latency: { connect: 'soon' } })).toThrow(/latency\.connect/)
    expect(() => fake.faults.add({ on: 'events', reply: 500, match: { who: 'x' } as never })).toThrow(/^match: unknown field "who"; allowed: route, image, container, client, filters, reconnect$/)
    expect(() => fake.rateLimit.set({ limit: 0, window: '1s' })).toThrow(/^limit: must be >= 1$/)
  })

  it('pending() and assertAllFired() print a readable table with the seed', () => {
    const fake = createDockside({ seed: 99 })
    fake.faults.add({ id: 'storm', on: 'events', reply: 429, from: '30s', until: '50s', times: 'always' })
    fake.faults.add({ id: 'used', on: 'events', close: { code: 4000 } })
    fake.faults.decide('events')
    expect(fake.faults.pending().map((r) => r.id)).toEqual(['storm'])
    expect(() => fake.faults.assertAllFired()).toThrow(/seed 99[\s\S]*rule\s+site\s+action\s+schedule\s+matched\s+fired[\s\S]*storm\s+on events\s+reply 429\s+always, \[30s, 50s\)\s+0\s+0/)
  })
})
