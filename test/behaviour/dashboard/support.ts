import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, expect } from 'vitest'
import { hasCommand, skipUnless } from '../../clients/support/clients'
import { root } from '../../support/cli'

/** Debian's Chromium, driven by playwright-core; never a downloaded browser. */
export const CHROMIUM = '/usr/bin/chromium'
/** Why the Chromium tests skip outside CI (in CI, .ci/run installs it and they never skip). */
export const noChromium = skipUnless(hasCommand(CHROMIUM), "Debian's Chromium", 'apt-get install chromium')

/** Chromium with a fresh profile (a folder under the OS temp dir, named by `prefix`): remove `profile` when done. */
export async function openChromium(prefix: string): Promise<{ context: BrowserContext; profile: string }> {
  const profile = mkdtempSync(join(tmpdir(), prefix))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
  return { context, profile }
}

/** The dashboard's built files (dist/ui), which the fake serves at /_dockside/ui. */
export const uiDir = join(root, 'dist/ui')

/** Builds dist/ (the dashboard bundle included) once if it is missing. */
export function ensureUiBuilt(): void {
  if (existsSync(join(uiDir, 'app.js')) && existsSync(join(uiDir, 'app.css'))) return
  const build = spawnSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'pipe', encoding: 'utf8' })
  if (build.status !== 0) throw new Error(`npx tsup failed:\n${build.stdout}\n${build.stderr}`)
}

/** Reads a server-sent-events response until `until` accepts the messages so far (or `limit` chunks). */
export async function readSse(res: Response, until: (messages: { event: string; data: unknown }[]) => boolean, limit = 200) {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  const messages: { event: string; data: unknown }[] = []
  let buffer = ''
  for (let i = 0; i < limit; i++) {
    const { value, done } = await reader.read()
    if (done) break
    buffer += decoder.decode(value, { stream: true })
    let end
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const event = /^event: (.*)$/m.exec(block)?.[1]
      const data = /^data: (.*)$/m.exec(block)?.[1]
      if (event && data !== undefined) messages.push({ event, data: JSON.parse(data) })
    }
    if (until(messages)) break
  }
  await reader.cancel()
  return messages
}

/**
 * One Chromium page for the tests of a describe block (call it there). After each test: the page is back on
 * about:blank with its routes removed, `close` has closed the test's fake, the viewport is 1280x800 again, and the test
 * fails if the page logged a console error or threw, but for the console errors it `allow`ed (the browser's own lines
 * for a request that failed, say).
 */
export function pageForEachTest(prefix: string, close: () => Promise<void> | undefined): { readonly page: Page; allow(...errors: RegExp[]): void } {
  let context: BrowserContext | undefined
  let profile = ''
  let page: Page | undefined
  let problems: string[] = []
  let allowed: RegExp[] = []
  beforeAll(async () => {
    ensureUiBuilt()
    ;({ context, profile } = await openChromium(prefix))
    page = context.pages()[0] ?? (await context.newPage())
    page.on('console', (m) => m.type() === 'error' && !allowed.some((re) => re.test(m.text())) && problems.push(`console: ${m.text()}`))
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
  }, 120_000)
  afterAll(async () => {
    await context?.close()
    if (profile) rmSync(profile, { recursive: true, force: true })
  })
  afterEach(async () => {
    await page?.goto('about:blank')
    await page?.unrouteAll()
    await close()
    await page?.setViewportSize({ width: 1280, height: 800 })
    const seen = problems
    problems = []
    allowed = []
    expect(seen).toEqual([])
  })
  return {
    get page() {
      return page!
    },
    allow: (...errors) => void allowed.push(...errors),
  }
}
