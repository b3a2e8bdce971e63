// The dashboard behind an admin token, in Chromium: opening /_dockside/ui?token= once lands on the URL without the
// token, and the page, its live feed and its buttons (admin API calls) work with the cookie the fake set; a second
// tab of the same browser needs no token. docs/security.md#the-dashboard-with-an-admin-token
import { rmSync } from 'node:fs'
import type { BrowserContext } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'
import { ensureUiBuilt, noChromium, openChromium } from './support'

const skip = noChromium

describe.skipIf(skip)('the dashboard with an admin token, in Chromium', () => {
  let context: BrowserContext
  let profile: string
  let fake: Dockside

  beforeAll(async () => {
    ensureUiBuilt()
    ;({ context, profile } = await openChromium('dockside-dashboard-token-'))
  })
  afterAll(async () => {
    await context?.close()
    await fake?.close()
    rmSync(profile, { recursive: true, force: true })
  })

  it('opens with ?token= once, drops the token from the address, goes live and acts through the admin API with the cookie', async () => {
    fake = createDockside({ seed: 5, adminToken: 'ui-t0ken', scenario: { containers: [{ name: 'web', image: 'nginx:1.27', running: true }] } })
    const { url } = await fake.listen()
    const page = context.pages()[0] ?? (await context.newPage())
    const problems: string[] = []
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`))
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
    await page.goto(`${url}/_dockside/ui?token=ui-t0ken`)
    expect(page.url()).toBe(`${url}/_dockside/ui`)
    await page.getByTestId('status').filter({ hasText: 'live' }).waitFor()
    await page.locator('[data-container=web]').getByText('running').waitFor()
    // A button of the page: an admin API call the cookie authorises.
    await page.locator('[data-container=web]').getByRole('button', { name: /stop/i }).click()
    await page.locator('[data-container=web]').getByText('exited').waitFor()
    expect(fake.containers.get('web')?.state).toBe('exited')
    expect(await page.evaluate(() => document.cookie)).toBe('')
    // Another tab of the same browser needs no token.
    const second = await context.newPage()
    await second.goto(`${url}/_dockside/ui`)
    await second.getByTestId('status').filter({ hasText: 'live' }).waitFor()
    await second.close()
    await page.goto('about:blank')
    expect(problems).toEqual([])
  }, 30_000)
})
