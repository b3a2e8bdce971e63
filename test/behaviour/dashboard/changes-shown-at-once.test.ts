// Hunting what the dashboard shows against what the admin API says at the same moment: every change the page shows
// reaches it within a state's pace (100 ms), not at the next once-a-second idle state. Each test drives the page in
// Chromium, as test/behaviour/dashboard/dashboard.test.ts does.
// Found by the dashboard hunt (was test/dashboard/hunt-live-truth.test.ts).
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideOptions } from '../../../src/index'
import { noChromium, pageForEachTest } from './support'

describe.skipIf(noChromium)('the dashboard follows the fake at once, in Chromium', () => {
  let fake: Dockside
  let page: Page
  let url: string
  const chromium = pageForEachTest('dockside-hunt-live-truth-', () => fake?.close())
  beforeAll(() => void (page = chromium.page))

  const open = async (options: DocksideOptions, query = '') => {
    fake = createDockside(options)
    url = (await fake.listen()).url
    await page.goto(`${url}/_dockside/ui${query}`)
    await page.getByTestId('status').filter({ hasText: /^live$/ }).waitFor()
  }
  /** Resolves once the page has acknowledged a state: the feed then waits for a change, or its idle second. */
  const stateRead = () => page.waitForRequest('**/_dockside/live/ack')
  /** How long a change may take to show: a state's pace (100 ms) and the page's turn, well under the idle second. */
  const AT_ONCE = { timeout: 700, interval: 25 }

  it("with the event stream filtered to stops, a container's start shows at once, though its event is filtered out", async () => {
    await open({ seed: 3, scenario: { containers: [{ name: 'web', image: 'nginx' }] } }, `?filters=${encodeURIComponent('{"event":["stop"]}')}`)
    await page.getByTestId('filter-now').waitFor()
    await stateRead()
    // Started as a scenario's timer or a test's own code starts it: no request to the fake wakes the feed.
    fake.containers.get('web').start()
    expect(fake.containers.get('web').state).toBe('running')
    await expect.poll(() => page.locator('[data-container=web] [data-label=State]').textContent(), AT_ONCE).toBe('running')
    expect(await page.locator('.events li').count()).toBe(0)
  })

  it("the virtual clock advanced by the test's own code (no request, no event) shows its new time at once", async () => {
    await open({ seed: 3 })
    await stateRead()
    await fake.clock.advance('1h')
    expect(new Date(fake.clock.now()).toISOString()).toBe('2026-01-01T01:00:00.000Z')
    await expect.poll(() => page.getByTestId('clock-now').textContent(), AT_ONCE).toBe('2026-01-01 01:00:00 UTC')
  })

  it('a `GET /events` stream that ends leaves the open connections count at once', async () => {
    await open({ seed: 3 })
    await stateRead()
    const stream = await fetch(`${url}/events`, { headers: { 'x-dockside-client': 'docker-cli' } })
    await expect.poll(() => page.getByTestId('connected').textContent(), AT_ONCE).toMatch(/^1 connection open now/)
    await stateRead()
    await stream.body!.cancel()
    await expect.poll(() => page.getByTestId('connected').textContent(), AT_ONCE).toMatch(/^0 connections open now/)
  })

  it('a fault rule removed through its handle leaves the Fault plan at once', async () => {
    await open({ seed: 3 })
    const f = fake.faults.add({ on: 'push', reply: 500 })
    await page.locator('#faults tbody tr').first().waitFor()
    await stateRead()
    f.remove()
    expect(fake.faults.list()).toEqual([])
    await expect.poll(() => page.locator('#faults tbody tr').count(), AT_ONCE).toBe(0)
  })
  it('a stopped container removed through its handle (no event, no request) leaves the list at once', async () => {
    await open({ seed: 3, scenario: { containers: [{ name: 'web', image: 'nginx' }, { name: 'db', image: 'postgres' }] } })
    await stateRead()
    fake.containers.get('db').remove()
    expect(fake.containers.list().map((c) => c.name)).toEqual(['web'])
    await expect.poll(() => page.getByTestId('container-count').textContent(), AT_ONCE).toMatch(/^1 container: /)
    expect(await page.locator('[data-container=db]').count()).toBe(0)
  })
})
