import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'
import { hasCommand, skipUnless } from '../clients/support/clients'
import { root } from '../support/cli'

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
