// Fault rules with contradictory fields, sent to the admin API over real HTTP (docs/faults.md: `refuse: N` refuses the
// next N reconnects, first connects pass). Found by the admin hunt: `match.reconnect: false` beside `refuse` was
// accepted and won, so the rule refused first connects and let every reconnect by.
// Found by the admin API hunt (was test/unit/admin-hunt-faults.test.ts).
import { expect, it } from 'vitest'
import { createDockside } from '../../../../src/index'
import { jsonCaller } from '../../../support/helpers'

it('"refuse" with match.reconnect false is refused, naming the field and the rule that refuses first connects', async () => {
  await using fake = createDockside({ clock: { mode: 'virtual' } })
  await using server = await fake.listen({ port: 0 })
  const call = jsonCaller(server.url)
  const message =
    'match.reconnect: false contradicts "refuse", which refuses reconnects only (first connects pass); drop "match.reconnect", ' +
    'or refuse first connects with {"on":"events","reply":503,"times":2,"match":{"reconnect":false}}'
  expect(await call('POST', '/_dockside/faults', JSON.stringify({ on: 'events', refuse: 2, match: { reconnect: false } }))).toMatchObject({ status: 400, body: { message } })
  // A scenario names where the rule is.
  const applied = await call('POST', '/_dockside/scenario', JSON.stringify({ faults: [{ on: 'events', refuse: 2, match: { reconnect: false } }] }))
  expect(applied).toMatchObject({ status: 400, body: { message: `(scenario): at faults[0].match.reconnect: ${message.replace(/^match\.reconnect: /, '')}` } })
  expect(fake.faults.list()).toEqual([])
  // What the message suggests is taken; so is `refuse` with `match.reconnect: true` (what it means anyway).
  expect(await call('POST', '/_dockside/faults', JSON.stringify({ on: 'events', reply: 503, times: 2, match: { reconnect: false } }))).toMatchObject({ status: 201 })
  expect(await call('POST', '/_dockside/faults', JSON.stringify({ on: 'events', refuse: 2, match: { reconnect: true } }))).toMatchObject({ status: 201 })
})
