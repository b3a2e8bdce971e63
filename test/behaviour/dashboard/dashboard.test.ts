// The dashboard in a real browser: Debian's Chromium driven by playwright-core (never a downloaded browser).
// Each test acts as a user would (clicks, keys) or as the fake's other clients do (the admin API, a push, a
// websocket), and checks what the page shows and what the fake did. Screenshots go to docs/dashboard/*.png.
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import WebSocket from 'ws'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createDockside, loadScenario, type Dockside, type DocksideOptions } from '../../../src/index'
import { root } from '../../support/cli'
import { ensureUiBuilt, noChromium, openChromium } from './support'

const skip = noChromium
// Screenshots go to .tmp/ (so a test run leaves the checkout clean); DOCKSIDE_SCREENSHOTS=update writes the ones
// docs/dashboard.md shows. They ship in the package: quantize them before committing (`pngquant --quality=70-90
// --strip --force --ext .png docs/dashboard/*.png`, Debian's pngquant), which takes them from 605 to 180 KB and keeps
// the installed weight under its 12 MB bar (test/packaging/light-install.test.ts).
const SHOTS = join(root, process.env.DOCKSIDE_SCREENSHOTS === 'update' ? 'docs/dashboard' : '.tmp/screenshots')

describe.skipIf(skip)('the dashboard in Chromium', () => {
  let context: BrowserContext
  let page: Page
  let profile: string
  let fake: Dockside
  let url: string
  let problems: string[] = []

  beforeAll(async () => {
    ensureUiBuilt()
    mkdirSync(SHOTS, { recursive: true })
    ;({ context, profile } = await openChromium('dockside-dashboard-'))
    page = context.pages()[0] ?? (await context.newPage())
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`))
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
  })
  afterAll(async () => {
    await context?.close()
    rmSync(profile, { recursive: true, force: true })
  })
  afterEach(async () => {
    // The page is left before the fake closes, so its live feed does not see the server go away.
    await page.goto('about:blank')
    await fake?.close()
    expect(problems).toEqual([])
    problems = []
  })

  const open = async (options: DocksideOptions) => {
    fake = createDockside(options)
    url = (await fake.listen()).url
    await page.goto(`${url}/_dockside/ui`)
    await page.getByTestId('status').filter({ hasText: 'live' }).waitFor()
  }
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/_dockside/${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
    return res.json()
  }

  it('loads with no console errors, and a container started through the admin API appears within a second', async () => {
    await open({ seed: 5, scenario: { containers: [{ name: 'web', image: 'nginx:1.27', labels: { app: 'web' }, running: true }] } })
    await page.locator('[data-container=web]').waitFor()
    const asked = Date.now()
    await admin('POST', 'containers', { name: 'api', image: 'registry.example.com/team/api:2.3', labels: { app: 'api' }, start: true })
    await page.locator('[data-container=api]').getByText('running').waitFor({ timeout: 1000 })
    expect(Date.now() - asked).toBeLessThan(1000)
    // Every control has a name a screen reader reads out.
    const unnamed = await page.evaluate(() =>
      Array.from(document.querySelectorAll('input, button')).filter((el) => !(el.closest('label') || el.getAttribute('aria-label') || el.textContent?.trim())).map((el) => el.outerHTML),
    )
    expect(unnamed).toEqual([])
  })

  it('each fault button adds its rule to GET /_dockside/faults; maintenance restart closes the sockets', async () => {
    await open({ seed: 5 })
    const expected: [string, Record<string, unknown>][] = [
      ['429 on events', { on: 'events', reply: 429 }],
      ['500 on push', { on: 'push', reply: 500 }],
      ['Mid-push error', { on: 'push', afterLayer: 1 }],
      ['Forced socket close', { on: 'events', close: { code: 1011, reason: 'forced close from the dashboard' } }],
    ]
    for (const [label, rule] of expected) {
      const before = (await admin('GET', 'faults')).length
      await page.getByRole('button', { name: label }).click()
      await page.getByText(`✓ inject ${label}`).waitFor()
      const rules = (await admin('GET', 'faults')) as Record<string, unknown>[]
      expect(rules).toHaveLength(before + 1)
      expect(rules.at(-1)).toMatchObject(rule)
      await page.locator(`[data-fault="${rules.at(-1)!.id}"]`).getByText('pending').waitFor()
    }
    expect(((await admin('GET', 'faults')) as { error?: string }[])[2].error).toMatch(/blob upload unknown/)
    await page.screenshot({ path: join(SHOTS, 'faults.png') })
    await admin('DELETE', 'faults')
    const ws = new WebSocket(`${url.replace('http', 'ws')}/events/ws?client=sdk`)
    await new Promise((r) => ws.once('open', r))
    const closed = new Promise<number>((r) => ws.once('close', r))
    await page.getByRole('button', { name: 'Maintenance restart' }).click()
    expect(await closed).toBe(1001)
  })

  it('a push shows a bar per layer reaching 100%, then its digest', async () => {
    await open({ seed: 5, pushBandwidth: 2_000_000, scenario: { images: [{ name: 'localhost:5000/team/app', tags: ['1.0'], layers: [3_000_000, 6_000_000, 1_500_000] }] } })
    const push = fetch(`${url}/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST' }).then((r) => r.text())
    await fake.clock.advance('2s')
    const bars = page.locator('#pushes progress')
    await expect.poll(() => bars.count()).toBe(3)
    await expect.poll(() => bars.evaluateAll((ps) => ps.some((p) => Number(p.getAttribute('data-pct')) > 0 && Number(p.getAttribute('data-pct')) < 100))).toBe(true)
    await page.locator('#pushes').screenshot({ path: join(SHOTS, 'push.png') })
    let text = ''
    void push.then((t) => (text = t))
    for (let i = 0; i < 100 && !text; i++) await fake.clock.advance('500ms')
    const digest = /digest: (sha256:[0-9a-f]{64})/.exec(text)![1]
    await page.getByTestId('digest').filter({ hasText: digest }).waitFor()
    expect(await bars.evaluateAll((ps) => ps.map((p) => p.getAttribute('data-pct')))).toEqual(['100', '100', '100'])
  })

  it("a step's caption appears when the step runs; a paused scenario continues from the page", async () => {
    await open({ seed: 5 })
    await admin('POST', 'scenario?from=now', { timeline: [{ at: '3s', say: 'the registry starts answering 429', pause: true }, { at: '4s', say: 'back to normal' }] })
    const caption = page.getByTestId('caption')
    await expect.poll(() => caption.textContent()).toMatch(/No caption yet/)
    await fake.clock.advance('10s')
    await caption.getByText('the registry starts answering 429').waitFor()
    expect(fake.clock.elapsed()).toBe(3000)
    await page.screenshot({ path: join(SHOTS, 'caption.png') })
    // The presenter continues with the keyboard: Tab to the Continue button, Enter.
    await page.getByRole('button', { name: 'Continue' }).focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => fake.clock.paused).toBe(false)
    await fake.clock.advance('2s')
    await caption.getByText('back to normal').waitFor()
  })

  it('clock controls move the clock: advance (keyboard), pause, resume and speed', async () => {
    await open({ seed: 5 })
    const shown = () => page.getByTestId('clock-now').getAttribute('data-ms').then(Number)
    const start = await shown()
    await page.getByLabel('Advance by').fill('90s')
    await page.getByLabel('Advance by').press('Enter')
    await expect.poll(() => admin('GET', 'clock').then((c) => c.elapsedMs)).toBe(90_000)
    await expect.poll(shown).toBe(start + 90_000)
    // Reset (after its confirmation): the fake starts over and the page follows it on a new feed.
    page.once('dialog', (d) => void d.accept())
    await page.getByRole('button', { name: 'Reset' }).click()
    await expect.poll(shown, { timeout: 5000 }).toBe(start)
    await page.goto('about:blank')
    await fake.close()

    fake = createDockside({ clock: 'real' })
    url = (await fake.listen()).url
    await page.goto(`${url}/_dockside/ui`)
    await page.getByRole('button', { name: 'Pause' }).click()
    await expect.poll(() => admin('GET', 'clock').then((c) => c.paused)).toBe(true)
    const frozen = fake.clock.now()
    await page.getByRole('button', { name: 'Resume' }).waitFor()
    expect(fake.clock.now()).toBe(frozen)
    await page.getByLabel('Speed').fill('60')
    await page.getByRole('button', { name: 'Set speed' }).click()
    await expect.poll(() => admin('GET', 'clock').then((c) => c.speed)).toBe(60)
    await page.getByRole('button', { name: 'Resume' }).click()
    // At 60x the clock runs a minute per second: it moved on from where it was frozen.
    await expect.poll(() => fake.clock.now() - frozen).toBeGreaterThan(2000)
  })

  it('the event filter takes /events/ws syntax; the deploy story reads at 1280x800 and on a narrow screen', async () => {
    const scenario = await loadScenario(join(root, 'examples/deploy-story.yaml'))
    await open({ scenario, clock: 'virtual', rateLimit: { route: 'events', limit: 5, window: '10s' } })
    const ws = new WebSocket(`${url.replace('http', 'ws')}/events/ws?client=billing-sdk`)
    await new Promise((r) => ws.once('open', r))
    await fake.clock.advance('20s')
    await page.getByLabel(/Filter/).fill('{"event":["stop"]}')
    await page.getByLabel(/Filter/).press('Enter')
    await expect.poll(() => page.locator('.events li').allTextContents()).toEqual([expect.stringMatching(/stop api-2/), expect.stringMatching(/stop web-1/)])
    await page.getByLabel(/Filter/).fill('')
    await page.getByLabel(/Filter/).press('Enter')
    await expect.poll(() => page.locator('.events li').count()).toBeGreaterThan(2)
    await page.screenshot({ path: join(SHOTS, 'overview.png') })
    await page.locator('#clients').getByText('billing-sdk').waitFor()
    await page.screenshot({ path: join(SHOTS, 'full.png'), fullPage: true })
    await page.setViewportSize({ width: 390, height: 844 })
    const wide = await page.evaluate(() => Array.from(document.querySelectorAll('body *')).filter((el) => el.getBoundingClientRect().right > innerWidth + 1 && !el.closest('.panel table, .panel tbody, .panel thead')).map((el) => `${el.tagName}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`))
    expect(wide).toEqual([])
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true)
    await page.screenshot({ path: join(SHOTS, 'narrow.png') })
    await page.setViewportSize({ width: 1280, height: 800 })
    ws.close()
  })
})
