// The dashboard's third review, as a presenter and an audience rely on it in a demo: the page never says `live` over a
// picture that stopped moving, tells apart events a clock jump put on different days, stays bounded when many events
// clients connect, and keeps every container's state and buttons on screen whatever its image reference. Each test
// drives the page in Chromium, as test/behaviour/dashboard/dashboard.test.ts does.
// Found by the dashboard's third review (was test/dashboard/dashboard-review-3.test.ts).
import type { Page } from 'playwright-core'
import WebSocket from 'ws'
import { beforeAll, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideOptions } from '../../../src/index'
import { noChromium, pageForEachTest } from './support'

describe.skipIf(noChromium)('the dashboard in a demo, in Chromium', () => {
  let fake: Dockside
  let page: Page
  let url: string
  const chromium = pageForEachTest('dockside-dashboard-review-3-', () => fake?.close())
  beforeAll(() => void (page = chromium.page))

  const open = async (options: DocksideOptions) => {
    fake = createDockside(options)
    url = (await fake.listen()).url
    await page.goto(`${url}/_dockside/ui`)
    await page.getByTestId('status').filter({ hasText: /^live$/ }).waitFor()
  }
  const stateOf = (name: string) => page.locator(`[data-container="${name}"] [data-label=State]`).textContent()

  it('an acknowledgement that does not get through: the page reopens the feed at once, never `live` over a frozen picture', async () => {
    await open({ seed: 3, scenario: { containers: [{ name: 'web', image: 'nginx', running: true }, { name: 'worker', image: 'busybox' }] } })
    chromium.allow(/Failed to load resource/)
    // The page's acknowledgements are lost (a proxy or a flaky link): the fake sends nothing more until one arrives.
    let lost = 0
    await page.route('**/_dockside/live/ack', (r) => (lost++, r.abort()))
    fake.containers.get('worker').start()
    await expect.poll(() => stateOf('worker')).toBe('running')
    await expect.poll(() => lost).toBeGreaterThan(0)
    fake.containers.get('worker').stop()
    // Within 2 s the page shows the stop, or says it is not live: never `live` with `running` (the old watchdog took 5 s).
    await expect
      .poll(async () => ((await page.getByTestId('status').textContent()) === 'live' ? await stateOf('worker') : 'not live'), { timeout: 2000, interval: 100 })
      .toMatch(/^(exited|not live)$/)
    await page.unrouteAll()
    await page.getByTestId('status').filter({ hasText: /^live$/ }).waitFor({ timeout: 10_000 })
    expect(await stateOf('worker')).toBe('exited')
    expect(fake.containers.get('worker').state).toBe('exited')
  })

  it("after the clock jumps a day, an event of another day than the clock's shows its date", async () => {
    await open({ seed: 3, scenario: { containers: [{ name: 'web', image: 'nginx', running: true }] } })
    await fake.clock.advance('24h')
    fake.containers.get('web').stop()
    const lines = page.locator('.events li')
    await expect.poll(() => lines.count()).toBe(2)
    // Newest first: the stop (today, the clock's day) and the start a day earlier, both at 00:00:00 UTC.
    expect(await lines.allTextContents()).toEqual(['00:00:00 stop web nginx exit 0', '2026-01-01 00:00:00 start web nginx'])
    expect(await page.getByTestId('clock-now').textContent()).toBe('2026-01-02 00:00:00 UTC')
  })

  it('many events clients (each anonymous connection is one): the first 30 are listed, all counted, Show all lists the rest', async () => {
    await open({ seed: 3 })
    const sockets = Array.from({ length: 40 }, () => new WebSocket(`${url.replace('http', 'ws')}/events/ws`))
    await Promise.all(sockets.map((ws) => new Promise((r) => ws.once('open', r))))
    await expect.poll(() => page.getByTestId('connected').textContent()).toBe('40 connections open now (40 websocket, 0 GET /events) from 40 of 40 clients · showing the first 30')
    expect(await page.locator('#clients tbody tr').count()).toBe(30)
    await page.getByRole('button', { name: 'Show all 40 clients' }).click()
    expect(await page.locator('#clients tbody tr').count()).toBe(40)
    await page.getByRole('button', { name: 'Show the first 30' }).click()
    expect(await page.locator('#clients tbody tr').count()).toBe(30)
    for (const ws of sockets) ws.close()
  })

  it('once the log drops events (retainEvents), the delivery counts say they cover only what it holds, and from when', async () => {
    await open({ seed: 3, retainEvents: 3, scenario: { containers: [{ name: 'web', image: 'nginx' }] } })
    const ws = new WebSocket(`${url.replace('http', 'ws')}/events/ws`)
    await new Promise((r) => ws.once('open', r))
    const web = fake.containers.get('web')
    web.start()
    await expect.poll(() => page.locator('#clients [data-label=Expected]').textContent()).toBe('1')
    expect(await page.getByTestId('clients-window').count()).toBe(0)
    await fake.clock.advance('1s')
    web.stop()
    await fake.clock.advance('1s')
    web.start()
    await fake.clock.advance('1s')
    web.stop()
    // Four events, three held: the first start (at the clock's start) is gone from the log and from the counts.
    await expect.poll(() => page.locator('#clients [data-label=Expected]').textContent()).toBe('3')
    expect(await page.getByTestId('clients-window').textContent()).toBe("Expected, delivered, missed and duplicates count the events the fake still holds: its log dropped those up to 00:00:00 UTC (retainEvents).")
    ws.close()
  })

  it('an image by digest and a long label: every column and button of the row stays in its panel at 1280 and 1920 px', async () => {
    const image = `registry.example.com/team/payments-service@sha256:${'9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'}`
    await open({ seed: 3, scenario: { containers: [{ name: 'payments-service-canary-eu-west-1', image, labels: { 'org.opencontainers.image.revision': 'e83c5163316f89bfbde7d9ab23ca2e25604af290' }, running: true }] } })
    await fake.clock.advance('1s')
    await page.locator('.events li').first().waitFor()
    for (const width of [1280, 1920]) {
      await page.setViewportSize({ width, height: 800 })
      const overflow = await page.evaluate(() => {
        const out: string[] = []
        for (const panel of Array.from(document.querySelectorAll<HTMLElement>('.panel'))) if (panel.scrollWidth > panel.clientWidth + 1) out.push(`${panel.id} scrolls: ${panel.scrollWidth} > ${panel.clientWidth}`)
        const box = document.querySelector('#containers')!.getBoundingClientRect()
        const stop = document.querySelector('[data-container] button')!.getBoundingClientRect()
        if (stop.right > box.right) out.push(`Stop at ${Math.round(stop.right)} past the panel's edge ${Math.round(box.right)}`)
        return out
      })
      expect(overflow, `at ${width} px`).toEqual([])
    }
    expect(await stateOf('payments-service-canary-eu-west-1')).toBe('running')
  })
})
