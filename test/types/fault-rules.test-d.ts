// Type tests, checked by `tsc --noEmit -p tsconfig.json` (the first step of `npm test`), never run: a fault rule is a
// union by site, so what the runtime refuses for a site (validateRule's FieldError) does not compile either. Each
// `@ts-expect-error` fails the type check the day its line compiles (issue 30, §3).
import type { Dockside, EventsFaultRule, FaultRule, PushFaultRule, Scenario } from 'dockside'

export function faultRuleTypes(fake: Dockside) {
  // What users write today compiles.
  fake.faults.add({ on: 'events', reply: 429, retryAfter: 5 })
  fake.faults.add({ on: 'events', refuse: 2, reply: 503, match: { client: 'sdk', filters: { event: ['stop'] }, reconnect: true } })
  fake.faults.add({ on: 'events', close: { code: 4000, reason: 'bye' }, afterMessages: 3 })
  fake.faults.add({ on: 'events', drop: true, afterTime: '5s', times: 'always', probability: 0.5 })
  fake.faults.add({ on: 'events', latency: { connect: '1s', perEvent: 10, jitter: '5ms' } })
  fake.faults.add({ on: 'push', error: 'blob upload unknown', afterLayer: 1, match: { image: 'nginx', route: '/images/*' } })
  fake.faults.add({ on: 'push', reset: true, afterBytes: 1000 })
  fake.faults.add({ on: 'push', dribble: { line: '200ms' }, latency: { connect: '1s' } })
  fake.faults.add({ on: 'push', unreachable: true, from: '1m', until: '2m' })
  fake.faults.add({ on: 'push', stall: true })
  fake.faults.addAll([{ on: 'events', reply: 500 }, { on: 'push', truncate: true }])
  // A site chosen at run time: every combination must be a rule.
  for (const on of ['events', 'push'] as const) fake.faults.add({ on, reply: 500, message: 'down' })
  const scenario: Scenario = { faults: [{ on: 'events', stall: true }, { on: 'push', reply: 503 }] }
  void scenario

  // An action the site does not take.
  // @ts-expect-error events take no `error` (push only)
  fake.faults.add({ on: 'events', error: 'x' })
  // @ts-expect-error push takes no `close`
  fake.faults.add({ on: 'push', close: { code: 1000 } })
  // @ts-expect-error push takes no `drop`
  fake.faults.add({ on: 'push', drop: true })
  // @ts-expect-error events take no `unreachable`
  fake.faults.add({ on: 'events', unreachable: true })
  // @ts-expect-error events take no `dribble`
  fake.faults.add({ on: 'events', dribble: { line: '1s' } })
  // @ts-expect-error push takes no `refuse` (reconnects are an events thing)
  fake.faults.add({ on: 'push', refuse: 1 })
  // A match field the site's requests never carry.
  // @ts-expect-error a push has no filters
  fake.faults.add({ on: 'push', reply: 500, match: { filters: { event: ['start'] } } })
  // @ts-expect-error an events client has no image
  fake.faults.add({ on: 'events', reply: 500, match: { image: 'nginx' } })
  // A modifier the site does not read.
  // @ts-expect-error afterLayer is read on push only
  fake.faults.add({ on: 'events', close: { code: 1000 }, afterLayer: 1 })
  // @ts-expect-error afterMessages is read on events only
  fake.faults.add({ on: 'push', error: 'x', afterMessages: 1 })
  // @ts-expect-error latency.perEvent is for events (use dribble to slow push lines)
  fake.faults.add({ on: 'push', latency: { perEvent: 10 } })
  // Not a fresh literal: still refused.
  const wrong = { on: 'events', error: 'x' } as const
  // @ts-expect-error the variable's `error` is checked too
  fake.faults.add(wrong)
  // @ts-expect-error a site that does not exist
  fake.faults.add({ on: 'registry', reply: 500 })

  // The union narrows by site; each member is exported for users' helpers.
  const rule: FaultRule = fake.faults.list()[0]!.rule
  if (rule.on === 'push') {
    const push: PushFaultRule = rule
    void push.afterLayer
  } else {
    const events: EventsFaultRule = rule
    void events.match?.filters
  }
}
