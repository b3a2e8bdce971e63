// The in-process hooks: fetch/node:http/https through nock, the global WebSocket as our own in-process class.
// See docs/in-process.md.
import '../../runtime/node-version' // first: fails at once on a Node older than 22
import type { ServedFake } from '../served-fake'
import { hostTimers } from '../../runtime/host-timers'
import { hookFetch } from './fetch'
import { hookHttp } from './http'
import { httpOrigins, makeUnhandled, serviceOrigins, wsOrigins, type HookedRegion, type OnUnhandled } from './registry'
import { routeMatcher } from './routes'
import { InProcessWebSocket, setPassThrough } from './websocket'
import { wireSettled } from './websocket-tasks'
import { loadNock, usingBundledNock, type Nock } from './nock-loader'
import { activeSocketInterceptor, refuseTwoCopies } from './interceptor-copies'

export { InProcessWebSocket, type Handshake } from './websocket'
export type { OnUnhandled, UnhandledRequest } from './registry'
export { followGlobalTimers, globalTimers } from '../../runtime/global-timers'

export { DEFAULT_DOMAIN, DEFAULT_REGION } from './registry'

/** Options of {@link intercept} (and `fake.intercept()`). */
export interface InterceptOptions {
  /** The region whose host is hooked: `https://<region>.<domain>`. Ignored when `baseUrl` is given. @default 'us-west-1' */
  region?: string
  /** @default 'hyper.test' */
  domain?: string
  /** The HTTP address the client uses. @default `https://<region>.<domain>` */
  baseUrl?: string
  /** The websocket address the client uses. @default `baseUrl` with `wss:` (or `ws:` for `http:`) */
  wsBaseUrl?: string
  /** What a request to a hooked host that the fake does not serve gets. @default 'error' */
  onUnhandled?: OnUnhandled
}

/** Options of {@link interceptRegions}: several regions, each answered by its own fake. */
export interface InterceptRegionsOptions {
  /** Region name to the fake that answers it, e.g. `{ 'us-west-1': fakeA, 'eu-central-1': fakeB }`. */
  regions: Record<string, ServedFake>
  /** @default 'hyper.test' */
  domain?: string
  /** @default 'error' */
  onUnhandled?: OnUnhandled
}

/** One hooked address pair. */
export interface HookedAddress {
  /** The region name, when the address was built from one. */
  region: string | undefined
  /** `https://us-west-1.hyper.test` */
  baseUrl: string
  /** `wss://us-west-1.hyper.test` */
  wsBaseUrl: string
  fake: ServedFake
}

/** What an install gives back: its addresses, and how to put everything back. */
export interface InterceptHandle extends AsyncDisposable, Disposable {
  /** The first (or only) hooked HTTP address. */
  readonly baseUrl: string
  /** The first (or only) hooked websocket address. */
  readonly wsBaseUrl: string
  readonly addresses: readonly HookedAddress[]
  /**
   * The WebSocket class the hook installs as `globalThis.WebSocket`: hand it to clients that take a WebSocket
   * constructor instead of using the global one (for example clients built for the `ws` package's API).
   */
  readonly WebSocket: typeof InProcessWebSocket
  /** Removes this install's hooks (the global WebSocket comes back when the last install is restored); idempotent. */
  restore(): void
  /**
   * Resolves once nothing an in-process socket sent or was sent is still on its way (a close the fake sent, a frame):
   * the fake's clock awaits it before it moves (as it awaits a real server's requests in flight).
   */
  settled(): Promise<void>
}

interface Planned {
  region: string | undefined
  origin: string
  wsOrigin: string
  fake: ServedFake
}


function plan(fake: ServedFake, options: InterceptOptions): Planned {
  return { ...serviceOrigins(options), fake }
}

let installs = 0
/** nock, once loaded (a dynamic import resolves the module again on every call). */
let nockModule: Promise<Nock> | undefined
/** nock as the installs loaded it, for the last restore. */
let loadedNock: Nock | undefined
/** The global WebSocket before the first install. */
let original: typeof WebSocket | undefined
/** The last restore has asked for nock's interceptors to come out in the next host task (see restore()). */
let deactivating = false

/**
 * nock activates itself when it loads and, like MSW's `setupServer`, patches `globalThis.fetch` through
 * @mswjs/interceptors, which refuses a second patch ("Failed to replace a global value at \"fetch\": already
 * replaced"). With MSW listening first, nock never loads in this process (an ES module that failed stays failed).
 */
function besideMsw(error: unknown): never {
  if (error instanceof Error && /Failed to replace a global value at "fetch": already replaced/.test(error.message)) {
    throw new Error(
      "dockside: intercept() cannot hook beside MSW's setupServer: both patch globalThis.fetch (through nock here), and " +
        'the second patch is refused. Answer the fake from your own server instead: setupServer(...docksideHandlers(fake)) ' +
        'with docksideHandlers from dockside/msw (docs/msw.md), or use fake.listen() and its URL.',
      { cause: error },
    )
  }
  throw error
}

async function install(planned: Planned[], onUnhandled: OnUnhandled = 'error'): Promise<InterceptHandle> {
  if (!['error', 'warn', 'bypass'].includes(onUnhandled as string) && typeof onUnhandled !== 'function') {
    throw new TypeError(`Invalid onUnhandled ${JSON.stringify(onUnhandled)}: expected 'error', 'warn', 'bypass' or a function.`)
  }
  // Loaded on first use, so that importing dockside does not patch http or fetch. Everything after is synchronous.
  // What @mswjs/interceptors copy is active before nock loads (it activates itself) or is activated below.
  const before = activeSocketInterceptor()
  const fresh = nockModule === undefined
  const nock = await (nockModule ??= loadNock()).catch(besideMsw)
  const seen = new Set<string>()
  for (const p of planned) {
    for (const [origin, map] of [[p.origin, httpOrigins], [p.wsOrigin, wsOrigins]] as const) {
      const other = map.get(origin)
      if (other) {
        throw new Error(
          `dockside: ${origin} is already hooked by another intercept() in this process (a fake with seed ${other.fake.seed}). ` +
            `Call restore() on that handle first (or use \`await using\`), or hook another region. An intercept() whose promise ` +
            `was not awaited holds its region too, and its handle has no restore() (\`hooks.restore is not a function\`): await it.`,
        )
      }
      if (seen.has(origin)) throw new Error(`dockside: ${origin} is given twice in one intercept(); give each region its own address.`)
      seen.add(origin)
    }
  }
  // An install right after the last restore (the next test of a file) finds nock still active: no re-patching.
  deactivating = false
  const activated = fresh || !nock.isActive()
  if (!nock.isActive()) nock.activate()
  loadedNock = nock
  refuseTwoCopies(nock, before, activated, usingBundledNock())

  const undo: (() => void)[] = []
  const hooked: HookedRegion[] = []
  try {
    // fetch: Node's own undici dispatcher answers hooked origins (fetch.ts); nock below serves node:http/https.
    undo.push(hookFetch())
    for (const p of planned) {
      const routes = p.fake.protocol.routes
      const region: HookedRegion = {
        fake: p.fake,
        protocol: p.fake.protocol,
        origin: p.origin,
        wsOrigin: p.wsOrigin,
        onUnhandled,
        routes: routeMatcher(routes),
        unhandled: makeUnhandled(onUnhandled, routes),
      }
      undo.push(hookHttp(nock, region))
      httpOrigins.set(p.origin, region)
      wsOrigins.set(p.wsOrigin, region)
      undo.push(() => {
        httpOrigins.delete(p.origin)
        wsOrigins.delete(p.wsOrigin)
      })
      hooked.push(region)
    }
  } catch (error) {
    for (const u of undo.reverse()) u()
    throw error
  }
  if (installs++ === 0) {
    original = globalThis.WebSocket
    setPassThrough(original)
    globalThis.WebSocket = InProcessWebSocket as unknown as typeof WebSocket
  }
  let restored = false
  const restore = () => {
    if (restored) return
    restored = true
    for (const u of undo.reverse()) u()
    if (--installs === 0) {
      const { WebSocket: current } = globalThis
      if ((current as unknown) === InProcessWebSocket) globalThis.WebSocket = original as typeof WebSocket
      setPassThrough(undefined)
      original = undefined
      // Leave no interceptor patched into node:http/net behind (nock activates itself when loaded): under jest each
      // test file loads its own nock, and a previous file's, still active, broke the next file's streamed responses
      // (`TypeError: terminated`). Kept active while the user has nock mocks of their own; the next install reactivates.
      // Done in the next host task, not here: a suite's next test usually installs again within this one, and
      // un-patching then re-patching node:http, net and the http agents costs ~0.2 ms a test. No scope is left (each
      // install's undo removed its interceptors), so until then a request passes through as without nock.
      if (loadedNock && !deactivating) {
        deactivating = true
        const nock = loadedNock
        hostTimers.immediate(() => {
          if (!deactivating) return
          deactivating = false
          if (installs === 0 && nock.isActive() && nock.activeMocks().length === 0 && nock.pendingMocks().length === 0) nock.restore()
        })
      }
    }
  }
  const addresses = planned.map((p) => ({ region: p.region, baseUrl: p.origin, wsBaseUrl: p.wsOrigin, fake: p.fake }))
  return {
    baseUrl: addresses[0].baseUrl,
    wsBaseUrl: addresses[0].wsBaseUrl,
    addresses,
    WebSocket: InProcessWebSocket,
    restore,
    settled: wireSettled,
    [Symbol.dispose]: restore,
    [Symbol.asyncDispose]: async () => restore(),
  }
}


/**
 * Hooks `fetch`, `node:http`/`https` (through nock) and the global `WebSocket` (an in-process class) for one
 * region's addresses, answered by `fake`. Other hosts pass through untouched.
 * @example
 * await using hooks = await intercept(fake, { region: 'us-west-1' })
 * await fetch('https://us-west-1.hyper.test/_ping')
 */
export async function intercept(fake: ServedFake, options: InterceptOptions = {}): Promise<InterceptHandle> {
  return install([plan(fake, options)], options.onUnhandled)
}

/**
 * Hooks several regions at once, each answered by its own fake (its own state, clock and journal).
 * @example
 * await using hooks = await interceptRegions({ regions: { 'us-west-1': west, 'eu-central-1': east } })
 */
export async function interceptRegions(options: InterceptRegionsOptions): Promise<InterceptHandle> {
  const entries = Object.entries(options.regions ?? {})
  if (entries.length === 0) throw new TypeError('interceptRegions() needs at least one region, e.g. { regions: { "us-west-1": fake } }.')
  return install(
    entries.map(([region, fake]) => plan(fake, { region, domain: options.domain })),
    options.onUnhandled,
  )
}
