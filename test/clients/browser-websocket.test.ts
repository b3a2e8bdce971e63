import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../src/index'
import { selfSignedCertificate } from '../../src/transports/server/tls'
import { hasCommand, skipUnless } from './support/clients'

// Debian's Chromium, driven by playwright-core; never a downloaded browser.
const CHROMIUM = '/usr/bin/chromium'
const skip = skipUnless(hasCommand(CHROMIUM), "Debian's Chromium", 'apt-get install chromium')

interface BrowserResult {
  opened: boolean
  errored: boolean
  frames: { Action: string; id: string }[]
  code: number
  reason: string
  wasClean: boolean
}

/** Opens a native `WebSocket` in the page and resolves when it closes. */
function openInPage(page: Page, url: string): Promise<BrowserResult> {
  return page.evaluate(
    (u) =>
      new Promise<BrowserResult>((resolve) => {
        const out = { opened: false, errored: false, frames: [] as { Action: string; id: string }[] }
        const ws = new WebSocket(u)
        ws.onopen = () => (out.opened = true)
        ws.onerror = () => (out.errored = true)
        ws.onmessage = (e) => out.frames.push(JSON.parse(e.data as string))
        ws.onclose = (e) => resolve({ ...out, code: e.code, reason: e.reason, wasClean: e.wasClean })
      }),
    url,
  )
}

const whenOpen = (fake: Dockside) =>
  new Promise<void>((resolve) => {
    const off = fake.on('journal', (e) => {
      if (e.type === 'ws.open') {
        off()
        resolve()
      }
    })
  })

describe.skipIf(skip)("a browser's native WebSocket (headless Chromium) on the events websocket", () => {
  let context: BrowserContext
  let page: Page
  let profile: string
  let fake: Dockside
  beforeAll(async () => {
    profile = mkdtempSync(join(tmpdir(), 'dockside-chromium-'))
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--ignore-certificate-errors'],
    })
    page = context.pages()[0] ?? (await context.newPage())
  })
  afterAll(async () => {
    await context?.close()
    rmSync(profile, { recursive: true, force: true })
  })
  afterEach(() => fake.close())

  it('receives filtered frames, then the close code and reason the fake sends', async () => {
    fake = createDockside({ seed: 3 })
    const server = await fake.listen({ port: 0 })
    const web = fake.containers.create({ name: 'web', image: 'nginx', labels: { app: 'web' } })
    const api = fake.containers.create({ name: 'api', image: 'nginx' })
    const opened = whenOpen(fake)
    const result = openInPage(page, `${server.wsUrl}/events/ws?filters=${encodeURIComponent('{"image":["nginx"],"event":["stop"]}')}`)
    await opened
    web.start()
    api.start()
    api.stop({ exitCode: 2 })
    web.stop()
    fake.closeSockets(1011, 'internal error: simulated by the test')
    const r = await result
    expect(r.frames.map((f) => [f.Action, f.id])).toEqual([
      ['stop', api.id],
      ['stop', web.id],
    ])
    expect(r).toMatchObject({ opened: true, code: 1011, reason: 'internal error: simulated by the test', wasClean: true })
  })

  it('a refused handshake (429) gives error then close 1006 and never open', async () => {
    fake = createDockside()
    fake.faults.add({ on: 'events', reply: 429, message: 'too many requests' })
    const server = await fake.listen({ port: 0 })
    const r = await openInPage(page, `${server.wsUrl}/events/ws`)
    expect(r).toMatchObject({ opened: false, errored: true, code: 1006, wasClean: false, frames: [] })
    expect(fake.journal.ofType('request').at(-1)).toMatchObject({ path: '/events/ws', status: 429 })
  })

  it('works over wss:// with the self-signed certificate and closes with 1000 at the maximum age', async () => {
    fake = createDockside({ maxConnectionAge: '30m' })
    const server = await fake.listen({ port: 0, tls: await selfSignedCertificate() })
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    const opened = whenOpen(fake)
    const result = openInPage(page, `${server.wsUrl}/events/ws`)
    await opened
    web.start()
    await fake.clock.advance('30m')
    const r = await result
    expect(r.frames.map((f) => f.Action)).toEqual(['start'])
    expect(r).toMatchObject({ code: 1000, reason: 'maximum connection age of 30m reached; reconnect to continue', wasClean: true })
  })
})
