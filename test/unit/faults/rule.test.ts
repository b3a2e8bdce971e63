// The fault rules as tables (docs/faults.md): every validation boundary, every action's defaults, every
// match field and every schedule field, each row with the exact value the docs promise. The rules are
// the library's, so they are checked through fake.faults (schema + src/faults/rule.ts) and, for what
// the schema cannot say, through validateRule alone (the core without a schema check).
import { describe, expect, it } from 'vitest'
import { createDockside, type FaultContext, type FaultMatch, type FaultRule } from '../../../src/index'
import { actionOf, describeAction, describeSchedule, matches, phaseOf, validateRule } from '../../../src/faults/rule'

const ACTIONS: Record<string, Partial<FaultRule>> = {
  reply: { reply: 500 },
  refuse: { refuse: 1 },
  error: { error: 'boom' },
  close: { close: { code: 4000 } },
  drop: { drop: true },
  reset: { reset: true },
  truncate: { truncate: true },
  stall: { stall: true },
  dribble: { dribble: { line: '1s' } },
  latency: { latency: { connect: '1s' } },
}
const ON_EVENTS = 'reply, refuse, close, drop, stall, latency'
const ON_PUSH = 'reply, error, reset, truncate, stall, unreachable, dribble, latency'
const EXACTLY_ONE =
  'fault rule: must have exactly one action: "reply", "refuse", "error", "close", "drop", "reset", "truncate", "stall", "unreachable", "dribble" or "latency" ("refuse" may carry "reply" as its status)'

/** The message fake.faults.add throws for a rule, or 'ok' when it takes it. */
function verdict(rule: unknown): string {
  const fake = createDockside()
  try {
    fake.faults.add(rule as FaultRule)
    return fake.faults.list().length === 1 ? 'ok' : 'taken but not listed'
  } catch (error) {
    return (error as Error).message
  } finally {
    void fake.close()
  }
}

describe('validation: every boundary, with the message the library, scenarios and the admin API share', () => {
  const rows: [string, unknown, string][] = [
    // times: 1 or more, or 'always'
    ['times 0', { on: 'events', drop: true, times: 0 }, 'times: must be >= 1'],
    ['times -1', { on: 'events', drop: true, times: -1 }, 'times: must be >= 1'],
    ['times 1.5', { on: 'events', drop: true, times: 1.5 }, 'times: must be an integer'],
    ['times 1', { on: 'events', drop: true, times: 1 }, 'ok'],
    ['times always', { on: 'events', drop: true, times: 'always' }, 'ok'],
    // refuse: N >= 1 reconnects, events only, never with times (refuse is the count), may carry reply
    ['refuse 0', { on: 'events', refuse: 0 }, 'refuse: must be >= 1'],
    ['refuse 1', { on: 'events', refuse: 1 }, 'ok'],
    ['refuse with times', { on: 'events', refuse: 2, times: 3 }, 'times: "refuse" already says how many times the rule fires; drop "times"'],
    ['refuse with times always', { on: 'events', refuse: 2, times: 'always' }, 'times: "refuse" already says how many times the rule fires; drop "times"'],
    ['refuse with reply 429', { on: 'events', refuse: 2, reply: 429 }, 'ok'],
    ['refuse on push', { on: 'push', refuse: 1 }, `refuse: does not apply to "push"; actions on "push": ${ON_PUSH}`],
    // every >= 1, after >= 0, probability in [0, 1]
    ['every 0', { on: 'events', drop: true, every: 0 }, 'every: must be >= 1'],
    ['every 1', { on: 'events', drop: true, every: 1 }, 'ok'],
    ['after -1', { on: 'events', drop: true, after: -1 }, 'after: must be >= 0'],
    ['after 0', { on: 'events', drop: true, after: 0 }, 'ok'],
    ['probability -0.1', { on: 'events', drop: true, probability: -0.1 }, 'probability: must be >= 0'],
    ['probability 0', { on: 'events', drop: true, probability: 0 }, 'ok'],
    ['probability 1', { on: 'events', drop: true, probability: 1 }, 'ok'],
    ['probability 1.01', { on: 'events', drop: true, probability: 1.01 }, 'probability: must be <= 1'],
    // where a stream action strikes
    ['afterMessages -1', { on: 'events', drop: true, afterMessages: -1 }, 'afterMessages: must be >= 0'],
    ['afterMessages 0', { on: 'events', drop: true, afterMessages: 0 }, 'ok'],
    ['afterLayer -1', { on: 'push', error: 'x', afterLayer: -1 }, 'afterLayer: must be >= 0'],
    ['afterBytes -1', { on: 'push', reset: true, afterBytes: -1 }, 'afterBytes: must be >= 0'],
    ['afterBytes 0', { on: 'push', reset: true, afterBytes: 0 }, 'ok'],
    ['afterTime not a duration', { on: 'events', drop: true, afterTime: 'soon' }, 'afterTime: must be a duration: milliseconds or a string like "250ms", "5s", "2m", "1h30m", from 0 to 3153600000000 ms (100 years)'],
    // replies
    ['reply 418', { on: 'events', reply: 418 }, 'reply: must be one of 400, 404, 429, 500, 503'],
    ['retryAfter -1', { on: 'events', reply: 429, retryAfter: -1 }, 'retryAfter: must be >= 0'],
    ['retryAfter 0', { on: 'events', reply: 429, retryAfter: 0 }, 'ok'],
    // per-site fields
    ['latency.perEvent on push', { on: 'push', latency: { perEvent: '1s' } }, 'latency.perEvent: applies to "events" only; use "dribble" to slow push lines'],
    ['latency.connect on push', { on: 'push', latency: { connect: '1s', jitter: '10ms' } }, 'ok'],
    ['latency.perEvent on events', { on: 'events', latency: { perEvent: '1s' } }, 'ok'],
    // exactly one action
    ['no action', { on: 'events' }, EXACTLY_ONE],
    ['two actions', { on: 'events', drop: true, close: { code: 4000 } }, EXACTLY_ONE],
    ['drop false', { on: 'events', drop: false }, 'drop: must be true'],
    ['unknown site', { on: 'nowhere', drop: true }, 'on: must be one of "events", "push"'],
    ['match.reconnect not a boolean', { on: 'events', drop: true, match: { reconnect: 'yes' } }, 'match.reconnect: must be a boolean'],
    // close codes a server may send (RFC 6455 §7.4) and the 123-byte reason
    ...([999, 1004, 1005, 1006, 1015, 2999, 5000] as const).map(
      (code): [string, unknown, string] => [`close ${code}`, { on: 'events', close: { code } }, `close.code: must be a close code a server may send: 1000-1003, 1007-1014 or 3000-4999 (got ${code})`],
    ),
    ...([1000, 1003, 1007, 1014, 3000, 4999] as const).map((code): [string, unknown, string] => [`close ${code}`, { on: 'events', close: { code } }, 'ok']),
    ['close reason of 123 bytes', { on: 'events', close: { code: 4000, reason: 'é'.repeat(61) + 'x' } }, 'ok'],
    ['close reason of 124 bytes', { on: 'events', close: { code: 4000, reason: 'é'.repeat(62) } }, 'close.reason: must be a string of at most 123 bytes'],
  ]
  it.each(rows)('%s', (_name, rule, expected) => {
    expect(verdict(rule)).toBe(expected)
  })

  // Every action on every site: applies, or the refusal names the actions the site has.
  const sites = { events: ON_EVENTS, push: ON_PUSH }
  for (const [site, allowed] of Object.entries(sites)) {
    for (const [name, action] of Object.entries(ACTIONS)) {
      const ok = allowed.split(', ').includes(name)
      it(`${name} on ${site}: ${ok ? 'applies' : 'refused'}`, () => {
        expect(verdict({ on: site, ...action })).toBe(ok ? 'ok' : `${name}: does not apply to "${site}"; actions on "${site}": ${allowed}`)
      })
    }
  }

  it('in a batch, each refusal is named by its index under the subject "fault rule"', async () => {
    await using fake = createDockside()
    const ok = { on: 'events', drop: true } as const
    const at1 = (rule: unknown) => {
      try {
        fake.faults.addAll([ok, rule as FaultRule])
        return 'ok'
      } catch (error) {
        return (error as Error).message
      }
    }
    expect(at1({ on: 'push', close: { code: 4000 } })).toBe(`fault rule[1].close: does not apply to "push"; actions on "push": ${ON_PUSH}`)
    expect(at1({ on: 'push', latency: { perEvent: '1s' } })).toBe('fault rule[1].latency.perEvent: applies to "events" only; use "dribble" to slow push lines')
    expect(at1({ on: 'events', refuse: 1, times: 2 })).toBe('fault rule[1].times: "refuse" already says how many times the rule fires; drop "times"')
    expect(at1({ on: 'events', close: { code: 1005 } })).toBe('fault rule[1].close.code: must be a close code a server may send: 1000-1003, 1007-1014 or 3000-4999 (got 1005)')
    expect(fake.faults.list()).toEqual([])
  })

  it('validateRule alone (the core, no schema check) refuses what only it knows, with the same paths', () => {
    const problem = (rule: unknown) => {
      try {
        validateRule(rule as FaultRule)
        return 'ok'
      } catch (error) {
        return (error as Error).message
      }
    }
    expect(problem(null)).toBe('fault rule: must be a fault rule like {"on":"events","reply":429}')
    expect(problem({ on: 'nowhere', drop: true })).toBe('fault rule: must be a fault rule like {"on":"events","reply":429}')
    expect(problem({ on: 'events' })).toBe('fault rule: must be a fault rule like {"on":"events","reply":429}')
    expect(problem({ on: 'push', close: { code: 4000 } })).toBe(`close: does not apply to "push"; actions on "push": ${ON_PUSH}`)
    expect(problem({ on: 'events', refuse: 1, times: 1 })).toBe('times: "refuse" already says how many times the rule fires; drop "times"')
    expect(problem({ on: 'push', latency: { perEvent: 5 } })).toBe('latency.perEvent: applies to "events" only; use "dribble" to slow push lines')
    expect(problem({ on: 'events', latency: { perEvent: 5 } })).toBe('ok')
    expect(problem({ on: 'events', close: { code: 1005 } })).toBe('close.code: must be a close code a server may send: 1000-1003, 1007-1014 or 3000-4999 (got 1005)')
    expect(problem({ on: 'events', close: { code: '4000' } })).toBe('close.code: must be an integer close code: 1000-1003, 1007-1014 or 3000-4999')
    expect(problem({ on: 'events', close: { code: 4000.5 } })).toBe('close.code: must be an integer close code: 1000-1003, 1007-1014 or 3000-4999')
    expect(problem({ on: 'events', close: { code: 4000, reason: 7 } })).toBe('close.reason: must be a string of at most 123 bytes')
    expect(problem({ on: 'events', close: { code: 4000, reason: 'ok' } })).toBe('ok')
    // `refuse` wins the action name even when `reply` (its status) comes first.
    expect(problem({ on: 'push', reply: 429, refuse: 1 })).toBe(`refuse: does not apply to "push"; actions on "push": ${ON_PUSH}`)
  })
})

describe("every action's defaults (docs/faults.md)", () => {
  const reply = (status: number, message: string, retryAfter?: number) => ({ kind: 'reply', status, message, retryAfter })
  const rows: [string, FaultRule, unknown][] = [
    ['reply 400', { on: 'events', reply: 400 }, reply(400, 'bad request (injected fault)')],
    ['reply 404', { on: 'push', reply: 404 }, reply(404, 'not found (injected fault)')],
    ['reply 429: Retry-After 1', { on: 'events', reply: 429 }, reply(429, 'too many requests', 1)],
    ['reply 500', { on: 'push', reply: 500 }, reply(500, 'internal server error (injected fault)')],
    ['reply 503: Retry-After 1', { on: 'events', reply: 503 }, reply(503, 'service unavailable', 1)],
    ['reply 429 retryAfter 0 kept', { on: 'events', reply: 429, retryAfter: 0 }, reply(429, 'too many requests', 0)],
    ['reply 503 retryAfter 9, message', { on: 'push', reply: 503, retryAfter: 9, message: 'later' }, reply(503, 'later', 9)],
    ['reply 500 with retryAfter', { on: 'push', reply: 500, retryAfter: 4 }, reply(500, 'internal server error (injected fault)', 4)],
    ['refuse: 503, Retry-After 1', { on: 'events', refuse: 2 }, reply(503, 'service unavailable: reconnect refused (injected fault)', 1)],
    ['refuse with reply 429', { on: 'events', refuse: 2, reply: 429, retryAfter: 3 }, reply(429, 'too many requests: reconnect refused (injected fault)', 3)],
    ['refuse with reply 500: no Retry-After', { on: 'events', refuse: 1, reply: 500 }, reply(500, 'internal server error: reconnect refused (injected fault)')],
    ['refuse with a message', { on: 'events', refuse: 1, message: 'go away' }, reply(503, 'go away', 1)],
    ['error: after layer 0', { on: 'push', error: 'blob upload unknown' }, { kind: 'error', message: 'blob upload unknown', afterLayer: 0, afterBytes: undefined }],
    ['error after layer 2', { on: 'push', error: 'x', afterLayer: 2 }, { kind: 'error', message: 'x', afterLayer: 2, afterBytes: undefined }],
    ['reset after bytes', { on: 'push', reset: true, afterBytes: 1000 }, { kind: 'reset', afterLayer: 0, afterBytes: 1000 }],
    ['truncate', { on: 'push', truncate: true }, { kind: 'truncate', afterLayer: 0, afterBytes: undefined }],
    ['stall', { on: 'events', stall: true }, { kind: 'stall', afterLayer: 0, afterBytes: undefined }],
    ['dribble', { on: 'push', dribble: { line: '250ms' } }, { kind: 'dribble', lineMs: 250, jitterMs: 0 }],
    ['dribble with jitter', { on: 'push', dribble: { line: '1s', jitter: '50ms' } }, { kind: 'dribble', lineMs: 1000, jitterMs: 50 }],
    ['latency: all 0', { on: 'events', latency: {} }, { kind: 'latency', connectMs: 0, perEventMs: 0, jitterMs: 0 }],
    ['latency', { on: 'events', latency: { connect: '2s', perEvent: '1s', jitter: '500ms' } }, { kind: 'latency', connectMs: 2000, perEventMs: 1000, jitterMs: 500 }],
    ['drop: right after the upgrade', { on: 'events', drop: true }, { kind: 'drop', afterMessages: 0, afterTimeMs: undefined }],
    ['drop after 3 messages, 5 s', { on: 'events', drop: true, afterMessages: 3, afterTime: '5s' }, { kind: 'drop', afterMessages: 3, afterTimeMs: 5000 }],
    ['close: reason names the rule', { id: 'cut', on: 'events', close: { code: 4000 } }, { kind: 'close', code: 4000, reason: 'closed by fault cut', afterMessages: 0, afterTimeMs: undefined }],
    ['close with reason, afterTime', { on: 'events', close: { code: 1012, reason: 'bye' }, afterMessages: 2, afterTime: '1m' }, { kind: 'close', code: 1012, reason: 'bye', afterMessages: 2, afterTimeMs: 60_000 }],
  ]
  it.each(rows)('%s', (_name, rule, expected) => {
    expect(actionOf(rule)).toStrictEqual(expected)
  })

  it('the defaults reach the decision a way in applies, with the generated id in the close reason', async () => {
    await using fake = createDockside()
    fake.faults.add({ on: 'events', close: { code: 4000 } })
    fake.faults.add({ on: 'events', drop: true })
    const [close] = fake.faults.decideAll('events', {})
    expect(close.action).toStrictEqual({ kind: 'close', code: 4000, reason: 'closed by fault rule-1', afterMessages: 0, afterTimeMs: undefined })
    expect(fake.faults.decideAll('events', {}).map((d) => d.action)).toStrictEqual([{ kind: 'drop', afterMessages: 0, afterTimeMs: undefined }])
  })

  it('phases: a reply ends the decision, latency and stream actions each fire once per request', () => {
    expect([{ on: 'events', reply: 429 }, { on: 'events', refuse: 1 }, { on: 'events', latency: {} }, { on: 'events', drop: true }, { on: 'push', stall: true }].map((r) => phaseOf(actionOf(r as FaultRule)))).toEqual([
      'reply',
      'reply',
      'latency',
      'stream',
      'stream',
    ])
  })
})

describe('every match field', () => {
  const rows: [string, FaultMatch | undefined, FaultContext, boolean][] = [
    ['no match: everything', undefined, {}, true],
    ['empty match: everything', {}, { route: '/events' }, true],
    ['route exact', { route: '/events' }, { route: '/events' }, true],
    ['route exact, other path', { route: '/events' }, { route: '/events/ws' }, false],
    ['route exact, no route known', { route: '/events' }, {}, false],
    ['route prefix', { route: '/images/*' }, { route: '/images/app/push' }, true],
    ['route prefix, other path', { route: '/images/*' }, { route: '/events' }, false],
    ['route prefix is not a bare prefix of the star', { route: '/events*' }, { route: '/event' }, false],
    ['image exact', { image: 'localhost:5000/app:1' }, { image: 'localhost:5000/app:1' }, true],
    ['image without its tag', { image: 'localhost:5000/app' }, { image: 'localhost:5000/app:1' }, true],
    ['image: the port is not a tag', { image: 'localhost' }, { image: 'localhost:5000/app' }, false],
    ['image other', { image: 'localhost:5000/app' }, { image: 'localhost:5000/other:1' }, false],
    ['image without a longer tag', { image: 'app' }, { image: 'app:1.0.2' }, true],
    ['image: only the tag is stripped', { image: 'app:1' }, { image: 'app:1.0' }, false],
    ['image, none known', { image: 'app' }, {}, false],
    ['client', { client: 'a' }, { client: 'a' }, true],
    ['client other', { client: 'a' }, { client: 'b' }, false],
    ['client, none known', { client: 'a' }, {}, false],
    ['client on a push: the pushed image does not get in the way', { client: 'ci' }, { route: '/images/app/push', image: 'app:1', client: 'ci' }, true],
    ['container named by the filter', { container: 'web' }, { filters: { container: ['db', 'web'] } }, true],
    ['container not named', { container: 'web' }, { filters: { container: ['db'] } }, false],
    ['container: a push never matches', { container: 'web' }, { image: 'app:1' }, false],
    ['filters: every value present', { filters: { event: ['stop'], label: ['a=1'] } }, { filters: { event: ['start', 'stop'], label: ['a=1'] } }, true],
    ['filters: one value missing', { filters: { event: ['stop', 'start'] } }, { filters: { event: ['stop'] } }, false],
    ['filters: the client has no filters', { filters: { event: ['stop'] } }, {}, false],
    ['filters: an empty list asks nothing', { filters: { event: [] } }, {}, true],
    ['reconnect true, a reconnect', { reconnect: true }, { reconnect: true }, true],
    ['reconnect true, a first connect', { reconnect: true }, { reconnect: false }, false],
    ['reconnect true, unknown counts as first', { reconnect: true }, {}, false],
    ['reconnect false, a first connect', { reconnect: false }, {}, true],
    ['reconnect false, a reconnect', { reconnect: false }, { reconnect: true }, false],
    ['all fields must match', { client: 'a', reconnect: true }, { client: 'a', reconnect: false }, false],
  ]
  it.each(rows)('%s', (_name, m, c, expected) => {
    expect(matches(m, c)).toBe(expected)
  })

  it('refuse matches reconnects only: the first connect passes, the next N reconnects are refused', async () => {
    await using fake = createDockside()
    const rule = fake.faults.add({ on: 'events', refuse: 2 })
    expect(rule.rule.match).toEqual({ reconnect: true })
    expect(fake.faults.decide('events', { client: 'c', reconnect: false })).toBeUndefined()
    expect(fake.faults.decide('events', { client: 'c', reconnect: true })?.action.kind).toBe('reply')
    expect(fake.faults.decide('events', { client: 'c', reconnect: true })?.action.kind).toBe('reply')
    expect(fake.faults.decide('events', { client: 'c', reconnect: true })).toBeUndefined()
    // A rule's own match is kept; refuse adds only the reconnect.
    expect(fake.faults.add({ on: 'events', refuse: 1, match: { client: 'x' } }).rule.match).toEqual({ reconnect: true, client: 'x' })
  })
})

describe('every schedule field', () => {
  /** Which of n matching requests a rule fires on. */
  async function firesOn(rule: FaultRule, n: number, site: 'events' | 'push' = 'events') {
    await using fake = createDockside()
    fake.faults.add(rule)
    const hits: number[] = []
    for (let i = 1; i <= n; i++) if (fake.faults.decide(site, {})) hits.push(i)
    return hits
  }
  const rows: [string, FaultRule, number[]][] = [
    ['times: once by default', { on: 'events', drop: true }, [1]],
    ['latency: always by default', { on: 'events', latency: { connect: 1 } }, [1, 2, 3, 4, 5, 6]],
    ['times 2', { on: 'events', drop: true, times: 2 }, [1, 2]],
    ['times always', { on: 'events', drop: true, times: 'always' }, [1, 2, 3, 4, 5, 6]],
    ['latency times 1', { on: 'events', latency: { connect: 1 }, times: 1 }, [1]],
    ['after 2', { on: 'events', drop: true, after: 2 }, [3]],
    ['every 3', { on: 'events', drop: true, every: 3, times: 'always' }, [1, 4]],
    ['after 1, every 2, times 2 (docs)', { on: 'events', drop: true, after: 1, every: 2, times: 2 }, [2, 4]],
    ['probability 0 never fires', { on: 'events', drop: true, probability: 0, times: 'always' }, []],
    ['probability 1 always fires', { on: 'events', drop: true, probability: 1, times: 'always' }, [1, 2, 3, 4, 5, 6]],
    ['refuse 2', { on: 'push', reply: 500, times: 2 }, [1, 2]],
  ]
  it.each(rows)('%s', async (_name, rule, expected) => {
    expect(await firesOn(rule, 6, rule.on)).toEqual(expected)
  })

  it('probability draws from the seed: each draw journaled, the same hits for the same seed', async () => {
    const run = async () => {
      await using fake = createDockside({ seed: 3 })
      fake.faults.add({ id: 'p', on: 'events', drop: true, probability: 0.5, times: 'always' })
      const hits = [1, 2, 3, 4, 5, 6, 7, 8].filter(() => fake.faults.decide('events', {}) !== undefined)
      const draws = fake.journal.ofType('fault.draw')
      expect(draws).toHaveLength(8)
      expect(draws.map((d) => d.fires)).toEqual(draws.map((d) => (d.draw as number) < 0.5))
      expect(draws[0]).toMatchObject({ rule: 'p', site: 'events', match: 1, probability: 0.5 })
      return hits
    }
    const hits = await run()
    expect(hits.length).toBeGreaterThan(0)
    expect(hits.length).toBeLessThan(8)
    expect(await run()).toEqual(hits)
  })

  it('from / until: only within [from, until) of clock time', async () => {
    await using fake = createDockside()
    fake.faults.add({ on: 'events', drop: true, times: 'always', from: '10s', until: '20s' })
    const at = async (ms: number) => {
      await fake.clock.advance(ms - fake.clock.elapsed())
      return fake.faults.decide('events', {}) !== undefined
    }
    expect([await at(0), await at(9999), await at(10_000), await at(19_999), await at(20_000)]).toEqual([false, false, true, true, false])
  })

  it('skips are journaled with why; a rule that fired its times stops matching', async () => {
    await using fake = createDockside()
    fake.faults.add({ id: 's', on: 'events', drop: true, after: 1, every: 2, times: 2 })
    for (let i = 0; i < 6; i++) fake.faults.decide('events', {})
    expect(fake.journal.ofType('fault.skip').map((e) => [e.match, e.why])).toEqual([
      [1, 'match 1 of the first 1 let through'],
      [3, 'not an every-2th match'],
    ])
    expect(fake.journal.ofType('fault').map((e) => [e.rule, e.match, e.fired, e.action])).toEqual([
      ['s', 2, 1, 'drop'],
      ['s', 4, 2, 'drop'],
    ])
    expect(fake.faults.list()[0]).toMatchObject({ matched: 4, fired: 2 })
  })

  it('handle.times(n) and persist() change how often it fires; times(0) and fractions are refused', async () => {
    await using fake = createDockside()
    const h = fake.faults.add({ on: 'events', drop: true }).times(2)
    expect([1, 2, 3].map(() => fake.faults.decide('events', {}) !== undefined)).toEqual([true, true, false])
    h.persist()
    expect([1, 2, 3].map(() => fake.faults.decide('events', {}) !== undefined)).toEqual([true, true, true])
    expect(() => h.times(0)).toThrow('times: must be a whole number of times >= 1, or Infinity; use remove() to stop a rule')
    expect(() => h.times(1.5)).toThrow('times: must be a whole number of times >= 1, or Infinity; use remove() to stop a rule')
    expect(h.times(Infinity)).toBe(h)
  })

  it('the table says each rule in one line: action and schedule', async () => {
    const rules: [FaultRule, string, string][] = [
      [{ on: 'events', reply: 429, retryAfter: 5, from: '30s', until: '50s', times: 'always' }, 'reply 429 retry-after 5s', 'always, [30s, 50s)'],
      [{ on: 'events', reply: 500 }, 'reply 500', 'once'],
      [{ on: 'events', refuse: 2 }, 'refuse 2 reconnect(s) with 503', 'times 2, match {"reconnect":true}'],
      [{ on: 'events', refuse: 1, reply: 429 }, 'refuse 1 reconnect(s) with 429', 'once, match {"reconnect":true}'],
      [{ on: 'events', close: { code: 4000 }, afterMessages: 3, afterTime: '5s' }, 'close 4000 after 3 msg after 5s', 'once'],
      [{ on: 'events', close: { code: 4000 } }, 'close 4000', 'once'],
      [{ on: 'events', drop: true, afterMessages: 2, after: 1, every: 2, times: 3 }, 'drop after 2 msg', 'times 3, after 1, every 2th'],
      [{ on: 'events', drop: true, afterTime: 100, every: 1, probability: 0.5, until: '1m' }, 'drop after 100', 'once, p=0.5, [0, 1m)'],
      [{ on: 'events', latency: { perEvent: '1s' } }, 'latency {"perEvent":"1s"}', 'always'],
      [{ on: 'push', dribble: { line: '1s' }, from: 5 }, 'dribble {"line":"1s"}', 'once, [5, ∞)'],
      [{ on: 'push', error: 'boom', afterLayer: 1 }, 'error after layer 1 "boom"', 'once'],
      [{ on: 'push', error: 'boom' }, 'error "boom"', 'once'],
      [{ on: 'push', reset: true, afterBytes: 10, afterLayer: 2 }, 'reset after 10 B', 'once'],
      [{ on: 'push', stall: true, match: { image: 'app' } }, 'stall', 'once, match {"image":"app"}'],
    ]
    for (const [rule, action, schedule] of rules) {
      expect(describeAction(rule)).toBe(action)
      await using fake = createDockside()
      const h = fake.faults.add(rule)
      expect(describeSchedule(h.rule, rule.refuse ?? (rule.times === 'always' || rule.latency ? Infinity : (rule.times ?? 1)))).toBe(schedule)
    }
  })
})
