// The delivery matchers (dockside/matchers, dockside/vitest) on a client the fake never saw: a failed assertion that
// lists the clients it knows, whichever way it is asked, never a NotFoundError from inside the matcher; and a failure's
// reproduction line without fault rules says so, rather than an empty table.
import WebSocket from 'ws'
import { describe, expect, it } from 'vitest'
import { createDockside } from '../../../src/index'
import { deliveryMatchers } from '../../../src/matchers/delivery'

expect.extend(deliveryMatchers as never)
type Delivery = { toHaveDeliveredAllEventsTo(client: string): void; toHaveDeliveredEachEventOnceTo(client: string): void; toHaveMissedEvents(client: string, seqs: number[]): void }
const on = (value: unknown) => expect(value) as unknown as Delivery & { not: Delivery }

describe('delivery matchers', () => {
  it('a client the fake never saw fails the assertion, .not included, naming the known clients', async () => {
    await using fake = createDockside({ seed: 2 })
    const server = await fake.listen({ port: 0 })
    const ws = new WebSocket(`${server.wsUrl}/events/ws?client=dashboard`)
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    const unknown = /events client "ghost", but the fake never saw it \(or forgot it\)\. Known clients: "dashboard"\./
    expect(() => on(fake).toHaveDeliveredAllEventsTo('ghost')).toThrow(unknown)
    expect(() => on(fake).not.toHaveDeliveredAllEventsTo('ghost')).toThrow(unknown)
    expect(() => on(fake).toHaveDeliveredEachEventOnceTo('ghost')).toThrow(unknown)
    expect(() => on(fake).toHaveMissedEvents('ghost', [])).toThrow(unknown)
    // The known client is judged as before.
    on(fake).toHaveDeliveredAllEventsTo('dashboard')
    ws.close()
  })

  it('a failure with no fault rules says so instead of an empty fault table', async () => {
    await using fake = createDockside({ seed: 3 })
    const server = await fake.listen({ port: 0 })
    const ws = new WebSocket(`${server.wsUrl}/events/ws?client=c1`)
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    // Events the client is owed but never gets: the fake closed it (an error close) and it never came back.
    const closed = new Promise((resolve) => ws.once('close', resolve))
    fake.closeSockets(1011, 'gone')
    await closed
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    expect(fake.deliveries.report('c1').missed).toHaveLength(1)
    let message = ''
    try {
      on(fake).toHaveDeliveredEachEventOnceTo('c1')
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toContain('Repeat this run with seed 3 (no fault rules).')
    expect(message).not.toContain('rules as JSON: []')
  })
})
