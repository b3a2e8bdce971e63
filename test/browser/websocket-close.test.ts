// Chromium's own WebSocket against the real server, beside the page's WebSocket answered by MSW (dockside/browser in
// the page): the same calls give the same close events, throws, events and journal. MSW's socket took any close code
// ('4000', 4000.5; 1001 threw an InvariantError, not a DOMException), sent reasons over 123 bytes, closed with 1000
// where Chromium sends an empty close frame (1005 on both ends), and a send() while the fake held the handshake back
// threw a DOMException named `Error` and closed the socket, where Chromium throws InvalidStateError and opens. It
// also kept any binaryType, and gave a frame's MessageEvent the socket's whole URL as its origin.
// Found by a hunt of the browser WebSocket (was test/browser/hunt-websocket-close.test.ts).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type JournalEntryType } from '../../src/index'
import { root } from '../support/cli'

// Debian's Chromium, driven by playwright-core; never a downloaded browser (.ci/run installs it).
const CHROMIUM = '/usr/bin/chromium'

/** test/browser/page.ts bundled against the built dockside/browser, as msw-worker.test.ts does. */
async function bundlePage(): Promise<string> {
  const out = await build({
    entryPoints: [join(root, 'test/browser/page.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2023',
    write: false,
    logLevel: 'silent',
    alias: { 'dockside/browser': join(root, 'dist/browser.js') },
  })
  return out.outputFiles[0].text
}

/** What page.ts puts on the page's global object. */
interface InPage {
  dockside: {
    createDockside: typeof import('../../src/browser/index').createDockside
    docksideHandlers: typeof import('../../src/browser/index').docksideHandlers
    worker: { use(...handlers: unknown[]): void; resetHandlers(): void }
  }
}

/** What one close() call showed the page: its throw (class and name) and the close event. */
interface Closing {
  thrown?: string[]
  close: [number, string, boolean]
}

/**
 * Runs in a page, with its global WebSocket (Chromium's, or MSW's): open, close(...args) (a throwing call is followed
 * by a plain close()), and what the page saw.
 */
async function closeInPage([base, args]: [string, unknown[]]): Promise<Closing> {
  const ws = new WebSocket(`${base}/events/ws`)
  await new Promise((resolve) => ws.addEventListener('open', resolve))
  const closed = new Promise<Closing['close']>((resolve) => ws.addEventListener('close', (e) => resolve([e.code, e.reason, e.wasClean])))
  let thrown: string[] | undefined
  try {
    ;(ws.close as (...a: unknown[]) => void)(...args)
  } catch (e) {
    thrown = [(e as Error).constructor.name, (e as Error).name]
    ws.close()
  }
  const close = await closed
  return thrown ? { thrown, close } : { close }
}

/** The page calls send() while the fake holds the handshake back (connect latency); `hunt` moves the fake's clock. */
async function sendWhileConnectingInPage(base: string) {
  const hunt = (globalThis as unknown as { hunt: { faultFired(): Promise<void>; advance(ms: number): Promise<void> } }).hunt
  const ws = new WebSocket(`${base}/events/ws`)
  const events: string[] = []
  for (const type of ['open', 'error', 'close']) ws.addEventListener(type, () => events.push(type))
  await hunt.faultFired()
  let thrown: string[] | undefined
  try {
    ws.send('hello')
  } catch (e) {
    thrown = [(e as Error).constructor.name, (e as Error).name]
  }
  const closed = new Promise((resolve) => ws.addEventListener('close', resolve))
  const opened = new Promise((resolve) => ws.addEventListener('open', () => resolve('open')))
  await hunt.advance(1000)
  if ((await Promise.race([opened, closed])) === 'open') ws.close(1000)
  await closed
  return { thrown, events }
}

/** The page's first frame: its MessageEvent's origin, beside the socket's. */
async function messageOriginInPage(base: string) {
  const hunt = (globalThis as unknown as { hunt: { startContainer(): Promise<void> } }).hunt
  const ws = new WebSocket(`${base}/events/ws?filters=%7B%7D`)
  await new Promise((resolve) => ws.addEventListener('open', resolve))
  const message = new Promise<MessageEvent>((resolve) => ws.addEventListener('message', resolve))
  await hunt.startContainer()
  const { origin } = await message
  ws.close(1000)
  await new Promise((resolve) => ws.addEventListener('close', resolve))
  return [origin === new URL(base).origin, origin.replace(/\d+$/, 'PORT').replace('eu-west-9.hyper.test', 'HOST').replace('127.0.0.1:PORT', 'HOST')]
}

/** The page sets binaryType to each value in turn and reads it back. */
async function binaryTypesInPage(base: string) {
  const ws = new WebSocket(`${base}/events/ws`)
  await new Promise((resolve) => ws.addEventListener('open', resolve))
  const seen: string[] = [ws.binaryType]
  for (const value of ['foo', 'arraybuffer', 'Blob', 'blob']) {
    ;(ws as { binaryType: string }).binaryType = value
    seen.push(ws.binaryType)
  }
  ws.close(1000)
  await new Promise((resolve) => ws.addEventListener('close', resolve))
  return seen
}

/** Resolves once the fake has journaled an entry of `type` (at once if it has one). */
function journaled(fake: Dockside, type: JournalEntryType): Promise<void> {
  return new Promise((resolve) => {
    if (fake.journal.ofType(type).length) return resolve()
    const off = fake.on('journal', (e: { type: string }) => e.type === type && (off(), resolve()))
  })
}

const closes = (fake: { journal: Dockside['journal'] }) => fake.journal.ofType('ws.close').map((e) => [(e as { code?: number }).code, (e as { reason?: string }).reason, (e as { by?: string }).by])

const CLOSES: unknown[][] = [[], [1000], [undefined, 'bye'], [4000, 'done'], ['4000'], [4000.5], [3000.7], [3001.5], [66536], [-64536], [NaN], [Infinity], [1001], [0], [null], [4000, 'x'.repeat(124)], [4000, 'é'.repeat(62)]]

describe("the page's WebSocket: Chromium's against the real server, and MSW's in front of the fake", () => {
  let server: Server
  let origin: string
  let context: BrowserContext
  let mswPage: Page
  let plainPage: Page
  let profile: string
  /** The fake the plain page's socket reaches through the real server (one per case). */
  let current: Dockside | undefined

  beforeAll(async () => {
    const files: Record<string, [string, string]> = {
      '/': ['text/html', readFileSync(join(root, 'test/browser/index.html'), 'utf8')],
      '/page.js': ['text/javascript', await bundlePage()],
      '/mockServiceWorker.js': ['text/javascript', readFileSync(join(root, 'node_modules/msw/lib/mockServiceWorker.js'), 'utf8')],
      '/plain': ['text/html', '<!doctype html><meta charset="utf-8"><title>no MSW here</title>'],
    }
    server = createServer((req, res) => {
      const file = files[new URL(req.url ?? '/', 'http://127.0.0.1').pathname]
      if (!file) return void res.writeHead(404).end()
      res.writeHead(200, { 'content-type': file[0], 'cache-control': 'no-store' }).end(file[1])
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
    profile = mkdtempSync(join(tmpdir(), 'dockside-hunt-ws-'))
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
    })
    mswPage = context.pages()[0] ?? (await context.newPage())
    await mswPage.goto(`${origin}/`)
    await mswPage.waitForFunction(() => 'dockside' in globalThis, undefined, { timeout: 20_000 })
    plainPage = await context.newPage()
    await plainPage.goto(`${origin}/plain`)
    await plainPage.exposeFunction('huntFaultFired', () => journaled(current!, 'fault'))
    await plainPage.exposeFunction('huntAdvance', (ms: number) => current!.clock.advance(ms))
    await plainPage.exposeFunction('huntStartContainer', () => void current!.containers.create({ name: 'web', image: 'nginx' }).start())
    await plainPage.evaluate(() => {
      const g = globalThis as unknown as Record<string, unknown>
      g.hunt = { faultFired: g.huntFaultFired, advance: g.huntAdvance, startContainer: g.huntStartContainer }
    })
  }, 120_000)

  afterAll(async () => {
    await context?.close()
    rmSync(profile, { recursive: true, force: true })
    await new Promise((resolve) => server?.close(resolve))
  })

  /** One case on the real server: Chromium's WebSocket in the plain page, the fake in Node. */
  async function onServer<T>(prepare: (fake: Dockside) => unknown, run: (wsUrl: string) => Promise<T>) {
    await using fake = createDockside()
    prepare(fake)
    await using s = await fake.listen({ port: 0 })
    current = fake
    const seen = await run(s.wsUrl)
    // A socket that opened is journaled closed too (the server may read the close frame after the page's event).
    if (fake.journal.ofType('ws.open').length) await journaled(fake, 'ws.close')
    return { seen, journal: closes(fake) }
  }

  /** The same case in the MSW page: a fresh fake of its own behind `docksideHandlers` (on its own region), in the page. */
  async function throughMsw<A, T>(latency: boolean, run: (arg: A) => Promise<T>, arg: A) {
    await mswPage.evaluate((latency) => {
      const { createDockside, docksideHandlers, worker } = (globalThis as unknown as InPage).dockside
      const fake = createDockside()
      if (latency) fake.faults.add({ on: 'events', latency: { connect: '1s' } })
      worker.use(...docksideHandlers(fake, { region: 'eu-west-9' }))
      const journaled = (type: 'fault' | 'ws.close') => new Promise<void>((resolve) => (fake.journal.ofType(type).length ? resolve() : fake.on('journal', (e: { type: string }) => e.type === type && resolve())))
      Object.assign(globalThis, { huntFake: fake, hunt: { faultFired: () => journaled('fault'), advance: (ms: number) => fake.clock.advance(ms), startContainer: async () => void fake.containers.create({ name: 'web', image: 'nginx' }).start(), journaled } })
    }, latency)
    const seen = await mswPage.evaluate(run as (arg: unknown) => Promise<T>, arg)
    const journal = await mswPage.evaluate(async () => {
      const { huntFake: fake, hunt, dockside } = globalThis as unknown as InPage & { huntFake: Dockside; hunt: { journaled(type: string): Promise<void> } }
      if (fake.journal.ofType('ws.open').length) await hunt.journaled('ws.close')
      dockside.worker.resetHandlers()
      await fake.close()
      return fake.journal.ofType('ws.close').map((e) => [(e as { code?: number }).code, (e as { reason?: string }).reason, (e as { by?: string }).by])
    })
    return { seen, journal }
  }

  it('close() with each code and reason: the same close event, throw and journaled code (1005 for no code)', async () => {
    const real: [unknown, unknown][] = []
    const msw: [unknown, unknown][] = []
    for (const args of CLOSES) {
      real.push([args, await onServer(() => {}, (url) => plainPage.evaluate(closeInPage, [url, args] as [string, unknown[]]))])
      msw.push([args, await throughMsw(false, closeInPage, ['wss://eu-west-9.hyper.test', args] as [string, unknown[]])])
    }
    expect(msw).toEqual(real)
    expect(Object.fromEntries(real.map(([args, r]) => [JSON.stringify(args), r]))).toMatchObject({
      '[]': { seen: { close: [1005, '', true] }, journal: [[1005, '', 'client']] },
      '["4000"]': { seen: { close: [4000, '', true] } },
      '[1001]': { seen: { thrown: ['DOMException', 'InvalidAccessError'] } },
      [JSON.stringify([4000, 'x'.repeat(124)])]: { seen: { thrown: ['DOMException', 'SyntaxError'] } },
    })
  })

  it("a frame's MessageEvent names the socket's origin (it was the socket's whole URL)", async () => {
    const real = await onServer(() => {}, (url) => plainPage.evaluate(messageOriginInPage, url))
    const msw = await throughMsw(false, messageOriginInPage, 'wss://eu-west-9.hyper.test')
    expect(real.seen).toEqual([true, 'ws://HOST'])
    expect(msw.seen).toEqual([true, 'wss://HOST'])
  })

  it('an unknown binaryType is ignored (it was kept, and read back as set)', async () => {
    const real = await onServer(() => {}, (url) => plainPage.evaluate(binaryTypesInPage, url))
    const msw = await throughMsw(false, binaryTypesInPage, 'wss://eu-west-9.hyper.test')
    expect(real.seen).toEqual(['blob', 'blob', 'arraybuffer', 'arraybuffer', 'blob'])
    expect(msw).toEqual(real)
  })

  it('send() while the fake holds the handshake back throws InvalidStateError; the socket still opens', async () => {
    const real = await onServer((fake) => fake.faults.add({ on: 'events', latency: { connect: '1s' } }), (url) => plainPage.evaluate(sendWhileConnectingInPage, url))
    const msw = await throughMsw(true, sendWhileConnectingInPage, 'wss://eu-west-9.hyper.test')
    expect(real.seen).toEqual({ thrown: ['DOMException', 'InvalidStateError'], events: ['open', 'close'] })
    expect(msw).toEqual(real)
  })
})
