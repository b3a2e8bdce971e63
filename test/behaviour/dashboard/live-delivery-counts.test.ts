// The live feed with thousands of events clients: counting their deliveries walks the retained events once per client
// (1,000 clients and 5,000 events: ~0.2 s here), and a state went out every 100 ms while events happened, so an open
// dashboard kept the fake busy counting. The feed now reuses a count until ten times what it cost has passed, and says
// when the counts are of: the page shows that time, and the counts catch up.
import type { Page } from 'playwright-core'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'
import { ensureUiBuilt, noChromium, pageForEachTest, readSse } from './support'

interface State {
  clock: { nowMs: number }
  containers: { name: string }[]
  deliveries: { client: string; expected: number }[]
  deliveriesAt: number
  deliveriesRecountMs: number
}

/** A fake with 1,000 named events clients (in process) watching container `other`, and 5,000 events on `web`. */
async function crowded(): Promise<Dockside> {
  const fake = createDockside({ seed: 2 })
  const hooks = await fake.intercept()
  const filters = encodeURIComponent(JSON.stringify({ container: ['other'] }))
  const sockets = Array.from({ length: 1000 }, (_, i) => new hooks.WebSocket(`${hooks.wsBaseUrl}/events/ws?client=c${i}&filters=${filters}`))
  await Promise.all(sockets.map((s) => new Promise((resolve) => s.addEventListener('open', resolve))))
  const web = fake.containers.create({ name: 'web', image: 'nginx' })
  for (let i = 0; i < 5000; i++) if (web.state === 'running') web.stop()
  else web.start()
  return fake
}

let fake: Dockside | undefined
beforeAll(() => ensureUiBuilt())

describe('GET /_dockside/live with 1,000 events clients', () => {
  afterEach(() => fake?.close())

  it('reuses costly delivery counts, says what time they are of, and counts again once that cost is paid', async () => {
    fake = await crowded()
    const server = await fake.listen()
    let changed = false
    const states: State[] = []
    await readSse(await fetch(`${server.url}/_dockside/live`), (ms) => {
      const last = ms.at(-1)
      if (last?.event !== 'state') return false
      states.push(last.data as State)
      if (!changed) {
        changed = true
        // Every client is now owed one event, a second later on the fake's clock.
        void fake!.clock.advance(1000).then(() => fake!.containers.create({ name: 'other', image: 'nginx' }).start())
      }
      return (last.data as State).deliveries[0].expected === 1
    }, 5000)
    const [first] = states
    expect(first.deliveries).toHaveLength(1000)
    expect(first.deliveriesAt).toBe(first.clock.nowMs)
    // Counting took tens of milliseconds or more: the next count waits ten times that.
    expect(first.deliveriesRecountMs).toBeGreaterThanOrEqual(300)
    // The state right after the change shows the new container with the last counts, dated before it.
    const next = states.find((s) => s.containers.some((c) => c.name === 'other'))!
    expect(next.deliveriesAt).toBe(first.clock.nowMs)
    expect(next.clock.nowMs).toBe(first.clock.nowMs + 1000)
    expect(next.deliveries[0]).toMatchObject({ client: 'c0', expected: 0 })
    // Then the counts catch up, dated by the clock they were counted at.
    const caught = states.at(-1)!
    expect(caught.deliveriesAt).toBe(caught.clock.nowMs)
    expect(caught.deliveries.every((d) => d.expected === 1)).toBe(true)
  })
})

describe.skipIf(noChromium)('the dashboard with 1,000 events clients, in Chromium', () => {
  let page: Page
  const chromium = pageForEachTest('dockside-live-counts-', () => fake?.close())
  beforeAll(() => void (page = chromium.page))

  it('says what time the delivery counts are of when they are recounted less often', async () => {
    fake = await crowded()
    const server = await fake.listen()
    await page.goto(`${server.url}/_dockside/ui`)
    // The first state comes once the 1,000 clients are counted.
    await expect.poll(() => page.getByTestId('clients-counted-at').textContent(), { timeout: 10_000 }).toMatch(/^Counts as of 00:00:00(\.000)? UTC: .* about every \d+\.\d s/)
  })
})
