import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { createDockside, docksideHandlers, loadScenario } from '../../src/browser/index'
import { root } from '../support/cli'
import { hasCommand, skipUnless } from '../clients/support/clients'

// Debian's Chromium, driven by playwright-core; never a downloaded browser.
const CHROMIUM = '/usr/bin/chromium'
const skip = skipUnless(hasCommand(CHROMIUM), "Debian's Chromium", 'apt-get install chromium')

/** What page.ts puts on the page's global object. */
interface InPage {
  dockside: {
    fake: ReturnType<typeof createDockside>
    API: string
    watch(path: string): {
      ws: WebSocket
      seen: { events: string[]; frames: { Action: string; id: string }[] }
      opened: Promise<void>
      closed: Promise<{ code: number; reason: string; wasClean: boolean }>
    }
    push(name: string, tag: string, onChunk: (text: string) => Promise<void>): Promise<{ status: number; contentType: string | null }>
    worker: { use(...handlers: unknown[]): void; resetHandlers(): void }
    createDockside: typeof createDockside
    docksideHandlers: typeof docksideHandlers
    loadScenario: typeof loadScenario
  }
}

/** The page's script: test/browser/page.ts bundled for browsers against the built dockside/browser (dist/browser.js). */
async function bundlePage(): Promise<string> {
  const entry = join(root, 'dist/browser.js')
  if (!existsSync(entry)) {
    const built = spawnSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'pipe', encoding: 'utf8' })
    if (built.status !== 0) throw new Error(`npx tsup failed:\n${built.stdout}\n${built.stderr}`)
  }
  const out = await build({
    entryPoints: [join(root, 'test/browser/page.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2023',
    write: false,
    logLevel: 'silent',
    alias: { 'dockside/browser': entry },
  })
  return out.outputFiles[0].text
}

describe.skipIf(skip)('a page runs a fake behind MSW (headless Chromium, service worker)', () => {
  let server: Server
  let origin: string
  let context: BrowserContext
  let page: Page
  let profile: string
  const outside: string[] = []

  beforeAll(async () => {
    const files: Record<string, [string, string]> = {
      '/': ['text/html', readFileSync(join(root, 'test/browser/index.html'), 'utf8')],
      '/page.js': ['text/javascript', await bundlePage()],
      '/mockServiceWorker.js': ['text/javascript', readFileSync(join(root, 'node_modules/msw/lib/mockServiceWorker.js'), 'utf8')],
    }
    server = createServer((req, res) => {
      const file = files[new URL(req.url ?? '/', 'http://127.0.0.1').pathname]
      if (!file) return void res.writeHead(404).end()
      res.writeHead(200, { 'content-type': file[0], 'cache-control': 'no-store' }).end(file[1])
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
    profile = mkdtempSync(join(tmpdir(), 'dockside-msw-chromium-'))
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      // Every name but 127.0.0.1 fails to resolve: a request MSW did not answer cannot leave the machine.
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
    })
    // Anything that reached the network instead of the worker (requests the worker answered are marked as such).
    context.on('requestfinished', (request) => {
      const url = request.url()
      if (!url.startsWith(origin)) void request.response().then((r) => (r?.fromServiceWorker() ? undefined : outside.push(url)))
    })
    // The page's own aborts are not traffic; anything else that failed tried the network.
    context.on('requestfailed', (request) => void (request.failure()?.errorText === 'net::ERR_ABORTED' || outside.push(`${request.url()} (${request.failure()?.errorText})`)))
    page = context.pages()[0] ?? (await context.newPage())
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(`${origin}/`)
    await page.waitForFunction(() => 'dockside' in globalThis, undefined, { timeout: 20_000 }).catch(() => {
      throw new Error(`the page did not start: ${errors.join('; ')}`)
    })
  }, 120_000)

  afterAll(async () => {
    await context?.close()
    rmSync(profile, { recursive: true, force: true })
    await new Promise((resolve) => server?.close(resolve))
  })

  it('container events arrive on the page\'s own WebSocket, filtered by the fake', async () => {
    const frames = await page.evaluate(async () => {
      const { fake, watch } = (globalThis as unknown as InPage).dockside
      const feed = watch(`/events/ws?filters=${encodeURIComponent('{"event":["stop"]}')}`)
      await feed.opened
      // Frames arrive in order: once the stop's frame is in, a start the filter let through would be in too.
      const stopped = new Promise<void>((resolve) => feed.ws.addEventListener('message', (m) => JSON.parse(String(m.data)).Action === 'stop' && resolve()))
      const web = fake.containers.create({ name: 'web', image: 'nginx:1.27' })
      web.start()
      web.stop({ exitCode: 137 })
      await stopped
      feed.ws.close()
      await feed.closed
      return { frames: feed.seen.frames.map((f) => [f.Action, f.id === web.id]), events: feed.seen.events }
    })
    expect(frames).toEqual({ frames: [['stop', true]], events: ['open', 'message', 'close 1005'] })
  })

  it("a push streams its progress to the page's fetch through the service worker, line by line as the clock moves", async () => {
    const result = await page.evaluate(async () => {
      const { fake, push } = (globalThis as unknown as InPage).dockside
      const image = fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: [2_000_000, 1_000_000] })
      const chunks: { text: string; at: number }[] = []
      const t0 = fake.clock.elapsed()
      const answer = await push('localhost:5000/team/app', '1.0', async (text) => {
        chunks.push({ text, at: fake.clock.elapsed() - t0 })
        // The page reads as the clock moves: each step releases the next tick of progress.
        await fake.clock.advance('100ms')
      })
      return { answer, chunks, digest: image.manifestDigest, pushed: fake.registries.get('localhost:5000').get('localhost:5000/team/app', '1.0')?.digest }
    })
    expect(result.answer).toEqual({ status: 200, contentType: 'application/json' })
    const text = result.chunks.map((c) => c.text).join('')
    // The first line reached the page before the clock moved at all: the body streams, it is not buffered.
    expect(result.chunks[0]).toMatchObject({ at: 0 })
    expect(result.chunks[0].text).toContain('The push refers to repository [localhost:5000/team/app]')
    const pushing = text.split('\n').filter((l) => l.includes('"status":"Pushing"'))
    expect(pushing.length).toBeGreaterThan(2)
    expect(new Set(result.chunks.map((c) => c.at)).size).toBeGreaterThan(2)
    expect(text).toContain(`"aux":{"Tag":"1.0","Digest":"${result.digest}"`)
    expect(result.pushed).toBe(result.digest)
  })

  it('a forced close reaches the page: a drop is error then 1006, a server close carries its code and reason', async () => {
    const result = await page.evaluate(async () => {
      const { fake, watch } = (globalThis as unknown as InPage).dockside
      const dropped = watch('/events/ws')
      await dropped.opened
      fake.dropSockets()
      const drop = await dropped.closed
      const closedByServer = watch('/events/ws')
      await closedByServer.opened
      fake.closeSockets(1011, 'internal error: simulated by the test')
      const close = await closedByServer.closed
      fake.faults.add({ on: 'events', reply: 429, retryAfter: 1 })
      const refused = watch('/events/ws')
      const refusal = await refused.closed
      return { drop, dropEvents: dropped.seen.events, close, refusal, refusedEvents: refused.seen.events, handshake: (refused.ws as WebSocket & { handshake?: { status: number } }).handshake?.status }
    })
    expect(result.drop).toEqual({ code: 1006, reason: '', wasClean: false })
    expect(result.dropEvents).toEqual(['open', 'error', 'close 1006'])
    expect(result.close).toEqual({ code: 1011, reason: 'internal error: simulated by the test', wasClean: true })
    // A refused handshake: never open, error then 1006, as a browser shows it; the status is on `handshake`.
    expect(result.refusal).toEqual({ code: 1006, reason: '', wasClean: false })
    expect(result.refusedEvents).toEqual(['error', 'close 1006'])
    expect(result.handshake).toBe(429)
  })

  it("the page's WebSocket sends the page's Origin: allowedOrigins refuses another page and admits this one", async () => {
    const result = await page.evaluate(async () => {
      const { worker, createDockside, docksideHandlers } = (globalThis as unknown as InPage).dockside
      const strict = createDockside({ allowedOrigins: ['https://app.example'] })
      const admits = createDockside({ allowedOrigins: [location.origin] })
      worker.use(...docksideHandlers(strict, { region: 'eu-central-1' }), ...docksideHandlers(admits, { region: 'ap-south-1' }))
      const status = async (region: string) => {
        const ws = new WebSocket(`wss://${region}.hyper.test/events/ws`) as WebSocket & { handshake?: { status: number } }
        await new Promise((resolve) => {
          ws.addEventListener('open', resolve)
          ws.addEventListener('close', resolve)
        })
        ws.close()
        return ws.handshake?.status
      }
      const out = [await status('eu-central-1'), await status('ap-south-1'), strict.journal.ofType('access.refused').map((e) => (e as { origin?: string }).origin)]
      worker.resetHandlers()
      return out
    })
    expect(result).toEqual([403, 101, [origin]])
  })

  it('what needs Node says so in a page: listen(), intercept(), loadScenario(path); scenarios as objects work', async () => {
    const result = await page.evaluate(async () => {
      const { fake, createDockside, loadScenario } = (globalThis as unknown as InPage).dockside
      const message = (p: Promise<unknown>) => p.then(() => 'resolved', (e: Error) => e.message)
      const withScenario = createDockside({ scenario: { seed: 4, containers: [{ name: 'db', image: 'postgres:17', running: true }] } })
      return {
        listen: await message(fake.listen()),
        intercept: await message(fake.intercept()),
        loadScenario: await message(loadScenario('scenario.yaml')),
        containers: withScenario.containers.list().map((c) => c.name),
      }
    })
    expect(result.listen).toMatch(/^dockside: fake.listen\(\) opens a port, which needs Node; in a browser, answer .* setupWorker\(...docksideHandlers\(fake\)\)/)
    expect(result.intercept).toMatch(/fake.intercept\(\) hooks Node's fetch and http, which needs Node/)
    expect(result.loadScenario).toMatch(/loadScenario\(path\) reads a file, which needs Node/)
    expect(result.containers).toEqual(['db'])
  })

  it("the dashboard's page through MSW says where the dashboard is served; the bundle reads no files beside it", async () => {
    const result = await page.evaluate(async () => {
      const { API } = (globalThis as unknown as InPage).dockside
      const ui = await fetch(`${API}/_dockside/ui`)
      const script = await fetch(`${API}/_dockside/ui/app.js`)
      return { status: ui.status, type: ui.headers.get('content-type'), body: await ui.text(), script: script.status }
    })
    expect(result).toMatchObject({ status: 200, type: 'text/html; charset=utf-8', script: 404 })
    expect(result.body).toContain('The dashboard is served by a real dockside server')
    expect(result.body).not.toContain('/_dockside/ui/app.js')
    // A page's bundler resolves `new URL('...', import.meta.url)` as an asset and warns when it is not there (Vite).
    expect(readFileSync(join(root, 'dist/browser.js'), 'utf8')).not.toMatch(/new URL\([^)]*import\.meta\.url/)
  })

  // MSW's limit, pinned so that docs/msw.md is updated when MSW lifts it: its worker tees each mocked response to
  // report it to the page, and a teed stream cancels its source only when both copies are cancelled.
  it('a page that aborts a push does not cancel it in the fake (documented MSW limit)', async () => {
    const cancelled = await page.evaluate(async () => {
      const { fake, API } = (globalThis as unknown as InPage).dockside
      // 50 MB: 25 pacing ticks of 100 ms at the default bandwidth, fewer chunks than the read-ahead holds.
      fake.images.add('localhost:5000/big:1', { layers: [50_000_000] })
      const controller = new AbortController()
      const res = await fetch(`${API}/images/localhost:5000/big/push?tag=1`, { method: 'POST', signal: controller.signal })
      await res.body!.getReader().read()
      await fake.clock.advance('1s')
      controller.abort()
      // The clock is driven past the push's end: a cancelled push would stop at once, this one runs to its tag.
      const ended = () => fake.journal.ofType('push.cancelled').length + fake.journal.ofType('push.tag').length
      for (let i = 0; i < 100 && ended() === 0; i++) await fake.clock.advance('100ms')
      return { cancelled: fake.journal.ofType('push.cancelled').length, tagged: fake.journal.ofType('push.tag').length }
    })
    expect(cancelled).toEqual({ cancelled: 0, tagged: 1 })
  })

  it('no request left the page for the network: the worker answered every one', () => {
    expect(outside).toEqual([])
  })
})
