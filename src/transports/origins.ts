// The service's addresses as the in-process ways in (intercept, MSW) hook them: one rule for both, below both.
import type { Served } from '../protocol/types'

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
