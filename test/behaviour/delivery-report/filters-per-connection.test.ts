// Regression: the delivery report judged every connection of a client by the filters of its first one. A named client
// that reconnected with other filters was reported as missing events its new connection never asked for, or as given
// more than it was owed (delivered > expected). Each event is now judged by the filters of the connection(s) the
// client had when it happened.
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'
import { openEvents } from '../../support/helpers'

const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

const enc = (v: unknown) => encodeURIComponent(JSON.stringify(v))

it.each([
  ['no filter, then stop only', '', `&filters=${enc({ event: ['stop'] })}`, ['start'], ['stop']],
  ['stop only, then no filter', `&filters=${enc({ event: ['stop'] })}`, '', [], ['stop', 'start']],
])('%s: each connection is owed what its own filters ask for', async (_, first, second, before, after) => {
  const fake = createDockside({ seed: 3 })
  open.push(fake)
  const server = await fake.listen({ host: '127.0.0.1', port: 0 })
  const web = fake.containers.create({ name: 'web', image: 'nginx' })
  const a = await openEvents(`${server.wsUrl}/events/ws?client=y${first}`)
  web.start()
  await expect.poll(() => a.messages.length).toBe(before.length)
  fake.restart()
  expect((await a.closed).code).toBe(1001)
  const b = await openEvents(`${server.wsUrl}/events/ws?client=y${second}`)
  web.stop()
  web.start()
  await expect.poll(() => b.messages.length).toBe(after.length)
  expect(b.messages.map((m) => (JSON.parse(m) as { Action: string }).Action)).toEqual(after)
  const report = fake.deliveries.report('y')
  expect([report.expected, report.delivered, report.missed.length]).toEqual([before.length + after.length, before.length + after.length, 0])
  expect(fake.deliveries.summary('y')).toMatchObject({ missed: 0 })
  b.ws.close()
})
