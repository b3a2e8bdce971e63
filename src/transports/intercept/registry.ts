import type { ServedFake } from '../served-fake'
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
  readonly fake: ServedFake
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

export { DEFAULT_DOMAIN, DEFAULT_REGION, servedAt, serviceOrigins } from '../origins'
