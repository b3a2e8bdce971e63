import type { Dockside } from '../../dockside'
import type { Served } from '../../protocol/guard'
import type { Protocol } from '../../protocol/router'
import type { RouteMatcher } from './routes'

/** What an unhandled request to a hooked host is told. */
export interface UnhandledRequest {
  method: string
  url: string
  /** What the fake serves (`fake.protocol.routes`). */
  routes: readonly string[]
  /** The message the `'error'` and `'warn'` modes use. */
  message: string
}

/**
 * What happens to a request to a hooked host that the fake does not serve:
 * `'error'` fails the request (fetch rejects; a websocket fails its handshake) with a message naming the method,
 * the URL and what the fake serves; `'warn'` prints that message and answers the fake's 404;
 * `'bypass'` lets the request go to the real network; a function is called and the fake's 404 is answered
 * (throw from it to fail the request).
 * @default 'error'
 */
export type OnUnhandled = 'error' | 'warn' | 'bypass' | ((request: UnhandledRequest) => void)

/** One hooked region: an HTTP origin and a websocket origin answered by one fake. */
export interface HookedRegion {
  readonly fake: Dockside
  readonly protocol: Protocol
  /** `https://us-west-1.hyper.test` (origin, default port dropped). */
  readonly origin: string
  /** `wss://us-west-1.hyper.test` (origin, default port dropped). */
  readonly wsOrigin: string
  readonly onUnhandled: OnUnhandled
  readonly routes: RouteMatcher
  /** Applies `onUnhandled`; `fallback` is the fake's own answer (a 404 naming its routes). */
  unhandled<T>(method: string, url: string, fallback: () => Promise<T>): Promise<T>
}

/** Hooked regions by origin, shared by every install in this process. */
export const httpOrigins = new Map<string, HookedRegion>()
export const wsOrigins = new Map<string, HookedRegion>()

export function unhandledMessage(method: string, url: string, routes: readonly string[]) {
  return (
    `dockside: ${method} ${url} is not a route of the fake hooked on this host. The fake serves: ${routes.join('; ')}. ` +
    `Fix the URL, or pass onUnhandled: 'bypass' (send it to the network), 'warn' or a function to intercept().`
  )
}

export function makeUnhandled(onUnhandled: OnUnhandled, routes: readonly string[]): HookedRegion['unhandled'] {
  return async (method, url, fallback) => {
    const message = unhandledMessage(method, url, routes)
    if (onUnhandled === 'error') throw new Error(message)
    if (onUnhandled === 'warn') console.warn(message)
    else if (typeof onUnhandled === 'function') onUnhandled({ method, url, routes, message })
    return fallback()
  }
}

/** The hooked origin as the address this way in serves (the admin guard's "bound address"). */
export function servedAt(origin: string): Served {
  const url = new URL(origin)
  const secure = url.protocol === 'https:' || url.protocol === 'wss:'
  return { scheme: secure ? 'https' : 'http', host: url.hostname, port: url.port ? Number(url.port) : secure ? 443 : 80 }
}

/** The domain of the real service's regional hosts: `https://<region>.hyper.test`. */
export const DEFAULT_DOMAIN = 'hyper.test'
/** The region hooked when none is given. */
export const DEFAULT_REGION = 'us-west-1'

function originOf(name: string, value: string, schemes: string[]): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new TypeError(`Invalid ${name} ${JSON.stringify(value)}: expected an absolute URL such as https://us-west-1.hyper.test.`)
  }
  if (!schemes.includes(url.protocol)) throw new TypeError(`Invalid ${name} ${JSON.stringify(value)}: expected a ${schemes.join(' or ')} URL.`)
  if (url.pathname !== '/' || url.search) throw new TypeError(`Invalid ${name} ${JSON.stringify(value)}: give the origin only (scheme, host and port), no path or query.`)
  return url.origin
}

/** The last options' answer: a suite's tests hook the same addresses each time (URL parsing is a good part of a hook's cost). */
let lastOrigins: { key: string; value: { region: string | undefined; origin: string; wsOrigin: string } } | undefined

/** The service's addresses for the options of `intercept()` and `docksideHandlers()` (one rule for both ways in). */
export function serviceOrigins(options: { baseUrl?: string; wsBaseUrl?: string; region?: string; domain?: string }) {
  const key = JSON.stringify([options.baseUrl, options.wsBaseUrl, options.region, options.domain])
  if (lastOrigins?.key === key) return { ...lastOrigins.value }
  const value = computeOrigins(options)
  lastOrigins = { key, value }
  return { ...value }
}

function computeOrigins(options: { baseUrl?: string; wsBaseUrl?: string; region?: string; domain?: string }) {
  const region = options.baseUrl ? undefined : (options.region ?? DEFAULT_REGION)
  const origin = originOf('baseUrl', options.baseUrl ?? `https://${region}.${options.domain ?? DEFAULT_DOMAIN}`, ['https:', 'http:'])
  const wsOrigin = options.wsBaseUrl ? originOf('wsBaseUrl', options.wsBaseUrl, ['wss:', 'ws:']) : origin.replace(/^http/, 'ws')
  return { region, origin, wsOrigin }
}
