/**
 * Who may drive the admin API (`/_dockside/*`) and open the events websocket. See docs/security.md.
 *
 * The admin API changes state and injects faults, so a web page in the user's browser must not reach it:
 * - `Host` must name the fake: a loopback name (`localhost`, `127.0.0.1`, `[::1]`), the address the transport
 *   serves (the bound host; in process, the hooked region's host), any IP literal when bound to a wildcard
 *   (`0.0.0.0`, `::`), or a name in `allowedHosts`. A page that reached the fake through DNS rebinding sends its
 *   own domain name. The port is not compared: rebinding needs a foreign name, and port mappings change the port.
 * - `Origin`, when sent, must be the fake's own origin (the scheme it serves and the request's `Host`), a loopback
 *   origin on the port it serves, or one of `allowedOrigins`; with no `Origin`, `Sec-Fetch-Site` must not be
 *   `cross-site` or `same-site` (a link, image or form on another page).
 * - With an admin token, `Authorization: Bearer <token>` is required (compared in constant time), or the dashboard's
 *   cookie: a browser cannot add the header, so `GET /_dockside/ui?token=<token>` (passing the checks above) answers
 *   303 to the same URL without the token and sets an HttpOnly, SameSite=Strict cookie scoped to `/_dockside` and to
 *   the port, holding a digest of the token, which later requests (the page, its admin calls, the live feed) carry.
 *
 * The events websocket accepts any `Origin`, as the real service does, unless `allowedOrigins` is set.
 * Tools (docker CLI, dockerode, curl, tests) send no `Origin` and a `Host` of the address they dial: they pass.
 */
import { InvalidInputError } from '../service/errors'
import { json } from './http'
import { sha256Hex, timingSafeEqual } from './signing'
import type { AccessOptions, ProtoRequest, ProtoResponse, Served } from './types'

export type { AccessOptions, Served } from './types'

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1'])
const WILDCARD = new Set(['0.0.0.0', '::', '[::]', ''])
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/
const TOKEN = /^[\x21-\x7e]+$/

/** True for a loopback host: `localhost`, `127.0.0.0/8` or `::1`. */
export const isLoopback = (host: string) => LOOPBACK.has(host.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(host)

/** Checks and normalises access options (origins to `scheme://host[:port]`, hosts lower-case); throws naming the bad value. Never echoes a token. */
export function checkAccess(options: AccessOptions, names = { adminToken: 'adminToken', allowedOrigins: 'allowedOrigins', allowedHosts: 'allowedHosts' }): AccessOptions {
  const out: AccessOptions = {}
  if (options.adminToken !== undefined) {
    if (typeof options.adminToken !== 'string' || !TOKEN.test(options.adminToken)) {
      throw new InvalidInputError(`Invalid ${names.adminToken}: expected a non-empty string of visible ASCII characters with no spaces (the value is not shown: it is a secret).`)
    }
    out.adminToken = options.adminToken
  }
  if (options.allowedOrigins !== undefined) {
    if (!Array.isArray(options.allowedOrigins)) throw new InvalidInputError(`Invalid ${names.allowedOrigins}: expected a list of origins such as ["https://app.example"].`)
    out.allowedOrigins = options.allowedOrigins.map((o: unknown) => {
      let url: URL | undefined
      try {
        url = typeof o === 'string' ? new URL(o) : undefined
      } catch {
        // Not a URL: refused below.
      }
      if (!url || !/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
        throw new InvalidInputError(`Invalid ${names.allowedOrigins} entry ${JSON.stringify(o)}: expected an origin (scheme, host and port, no path), e.g. "http://localhost:5173".`)
      }
      return url.origin
    })
  }
  if (options.allowedHosts !== undefined) {
    if (!Array.isArray(options.allowedHosts)) throw new InvalidInputError(`Invalid ${names.allowedHosts}: expected a list of host names such as ["dockside"].`)
    out.allowedHosts = options.allowedHosts.map((h: unknown) => {
      if (typeof h !== 'string' || !(h === '*' || /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)$/.test(h))) {
        throw new InvalidInputError(`Invalid ${names.allowedHosts} entry ${JSON.stringify(h)}: expected a host name without port, e.g. "dockside", or "*" for any.`)
      }
      return h.toLowerCase()
    })
  }
  return out
}

/** Splits a `Host` value into a lower-case name (IPv6 in brackets) and a port; undefined when malformed. */
function splitHost(value: string): { name: string; port: string | undefined } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/@\s]+)(?::(\d{1,5}))?$/.exec(value.trim())
  return m ? { name: m[1].toLowerCase(), port: m[2] } : undefined
}

const bracket = (host: string) => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host).toLowerCase()

function effective(fake: AccessOptions, served: Served | undefined): AccessOptions {
  return { ...fake, ...Object.fromEntries(Object.entries(served?.access ?? {}).filter(([, v]) => v !== undefined)) }
}

function refusal(status: 401 | 403, reason: string, message: string, headers: Record<string, string> = {}): Refusal {
  return { reason, response: json(status, { message }, headers) }
}

/** A refused request: the answer, and a short reason for the journal (never a secret). */
export interface Refusal {
  reason: string
  response: ProtoResponse & { body: string }
  /** Not a refusal: the dashboard's token exchange (a 303 that sets its cookie), answered as is. */
  granted?: true
}

const FLAGS = {
  origin: 'allow it with --allow-origin ORIGIN (createDockside or listen option allowedOrigins)',
  host: 'allow the name with --allow-host NAME (option allowedHosts)',
}

/** The first Host the admin API should refuse, with why; undefined when it names this fake. */
function checkHost(req: ProtoRequest, served: Served | undefined, access: AccessOptions): Refusal | undefined {
  const raw = req.headers.host
  const where = served ? `${bracket(served.host)}:${served.port}` : 'this fake'
  if (raw === undefined || raw.trim() === '') {
    return refusal(403, 'host', `Missing Host header: the admin API answers only requests that name the fake (127.0.0.1, localhost, [::1] or ${where}).`)
  }
  const host = splitHost(raw)
  const name = host?.name
  const ok =
    name !== undefined &&
    (isLoopback(name.replace(/^\[|\]$/g, '')) ||
      (served !== undefined && name === bracket(served.host)) ||
      (served !== undefined && WILDCARD.has(served.host) && (IPV4.test(name) || name.startsWith('['))) ||
      access.allowedHosts?.includes('*') === true ||
      access.allowedHosts?.includes(name) === true)
  if (ok) return undefined
  return refusal(
    403,
    'host',
    `Host ${JSON.stringify(raw)} is not an address of this fake (served at ${where}): the admin API answers only requests sent to ` +
      `127.0.0.1, localhost, [::1] or the bound address, because a web page that reached it through DNS rebinding sends its own domain name. ` +
      `Use one of those addresses, or ${FLAGS.host}.`,
  )
}

/** The fake's own origin and loopback origins on its port, plus `allowedOrigins`. */
function originAllowed(origin: string, req: ProtoRequest, served: Served | undefined, access: AccessOptions): boolean {
  if (access.allowedOrigins?.includes(origin)) return true
  // Throws for a header that is not a URL: safeOriginAllowed refuses it.
  const url = new URL(origin)
  if (served === undefined || url.protocol !== `${served.scheme}:` || url.origin !== origin) return false
  // Same origin: the page was served from the address this request was sent to.
  if (req.headers.host !== undefined && url.host === new URL(`${url.protocol}//${req.headers.host.trim()}`).host) return true
  const port = url.port === '' ? (served.scheme === 'https' ? 443 : 80) : Number(url.port)
  return isLoopback(url.hostname.replace(/^\[|\]$/g, '')) && port === served.port
}

/** Whether `origin` names a loopback host (never a page that reached the fake through DNS rebinding). */
function loopbackOrigin(origin: string): boolean {
  try {
    return isLoopback(new URL(origin.trim()).hostname.replace(/^\[|\]$/g, ''))
  } catch {
    return false
  }
}

/** Whether `origin` may call: a header that is not a URL at all is refused, never thrown. */
function safeOriginAllowed(origin: string, req: ProtoRequest, served: Served | undefined, access: AccessOptions): boolean {
  try {
    return originAllowed(origin.trim(), req, served, access)
  } catch {
    return false
  }
}

function checkOrigin(req: ProtoRequest, served: Served | undefined, access: AccessOptions): Refusal | undefined {
  const origin = req.headers.origin
  if (origin !== undefined) {
    if (safeOriginAllowed(origin, req, served, access)) return undefined
    return refusal(
      403,
      'origin',
      `Cross-origin request refused: Origin ${JSON.stringify(origin)} is not this fake's own origin, so a web page sent it. ` +
        `The admin API changes state and injects faults; a page on another site must not drive it. ` +
        `Call it from a test, a script or curl (they send no Origin), or ${FLAGS.origin}.`,
    )
  }
  const site = req.headers['sec-fetch-site']?.trim().toLowerCase()
  if (site === 'cross-site' || site === 'same-site') {
    return refusal(
      403,
      'sec-fetch-site',
      `Cross-site request refused: Sec-Fetch-Site: ${site} means a link, image or form on another page sent it. ` +
        `The admin API changes state and injects faults; call it from a test, a script or curl, or open the address directly.`,
    )
  }
  return undefined
}

/** The dashboard's cookie: one per port (cookies ignore ports, and a fleet runs fakes with their own tokens side by side). */
const cookieName = (served: Served | undefined) => `dockside_admin_${served?.port ?? 0}`
/** What the cookie holds: a digest of the token (the token itself never sits in the browser's cookie store). */
const cookieValue = (token: string) => sha256Hex(`dockside dashboard cookie\n${token}`)

function cookieOf(req: ProtoRequest, name: string): string | undefined {
  const header = req.headers.cookie
  if (header === undefined) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

/** `GET /_dockside/ui...?token=<token>`: the token checked, a 303 to the URL without it that sets the cookie. */
async function dashboardLogin(req: ProtoRequest, token: string): Promise<Refusal | undefined> {
  if (req.method !== 'GET' || !/^\/_dockside\/ui(\/|\?|$)/.test(req.url)) return undefined
  const q = req.url.indexOf('?')
  if (q < 0) return undefined
  const query = new URLSearchParams(req.url.slice(q + 1))
  const given = query.get('token')
  if (given === null) return undefined
  if (!(await timingSafeEqual(given, token))) {
    return refusal(401, 'token wrong', 'Wrong admin token in ?token=: it does not match the admin token this fake was started with.', { 'www-authenticate': 'Bearer realm="dockside admin", error="invalid_token"' })
  }
  query.delete('token')
  const rest = query.toString()
  const secure = req.served?.scheme === 'https' ? '; Secure' : ''
  return {
    reason: 'dashboard login',
    granted: true,
    response: {
      status: 303,
      headers: {
        location: `${req.url.slice(0, q)}${rest ? `?${rest}` : ''}`,
        'set-cookie': `${cookieName(req.served)}=${await cookieValue(token)}; Path=/_dockside; HttpOnly; SameSite=Strict${secure}`,
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      },
      body: '',
    },
  }
}

async function checkToken(req: ProtoRequest, token: string): Promise<Refusal | undefined> {
  const header = req.headers.authorization
  const challenge = { 'www-authenticate': 'Bearer realm="dockside admin"' }
  if (header === undefined) {
    const login = await dashboardLogin(req, token)
    if (login) return login
    const cookie = cookieOf(req, cookieName(req.served))
    if (cookie !== undefined && (await timingSafeEqual(cookie, await cookieValue(token)))) return undefined
  }
  const m = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header)
  if (!m) {
    return refusal(
      401,
      'token missing',
      `${header === undefined ? 'Missing Authorization header' : 'Malformed Authorization header'}: this fake's admin API requires "Authorization: Bearer <token>" ` +
        `with the admin token it was started with (--admin-token-file, DOCKSIDE_ADMIN_TOKEN, --admin-token or the adminToken option). ` +
        `In a browser, open /_dockside/ui?token=<token> once: the dashboard then keeps a cookie.`,
      challenge,
    )
  }
  if (await timingSafeEqual(m[1], token)) return undefined
  return refusal(401, 'token wrong', 'Wrong admin token: the Bearer token does not match the admin token this fake was started with.', { ...challenge, 'www-authenticate': 'Bearer realm="dockside admin", error="invalid_token"' })
}

/** Decides an admin request: a refusal (403 for a foreign Host or a web page, 401 for a missing or wrong token), or undefined to go on. */
export async function guardAdmin(req: ProtoRequest, fakeAccess: AccessOptions): Promise<Refusal | undefined> {
  const access = effective(fakeAccess, req.served)
  return checkHost(req, req.served, access) ?? checkOrigin(req, req.served, access) ?? (access.adminToken === undefined ? undefined : checkToken(req, access.adminToken))
}

/** Decides an events websocket upgrade's Origin: any, unless `allowedOrigins` is set; then only those, the fake's own, and none (non-browser clients). */
export function guardUpgrade(req: ProtoRequest, fakeAccess: AccessOptions): Refusal | undefined {
  // No Origin (a client that is not a browser): nothing to check, and no options merged for it.
  const origin = req.headers.origin
  if (origin === undefined) return undefined
  const access = effective(fakeAccess, req.served)
  if (access.allowedOrigins === undefined) return undefined
  // A listed origin, or the fake's own: a loopback origin on the served port, or the origin of the request's Host when
  // that Host names the fake (a page that reached it through DNS rebinding sends its own domain as both Host and
  // Origin: the admin API's Host check, here too).
  if (access.allowedOrigins.includes(origin.trim())) return undefined
  if (safeOriginAllowed(origin, req, req.served, access) && (loopbackOrigin(origin) || checkHost(req, req.served, access) === undefined)) return undefined
  return refusal(
    403,
    'origin',
    `Origin ${JSON.stringify(origin)} may not open the events websocket: this fake allows ${access.allowedOrigins.map((o) => JSON.stringify(o)).join(', ') || 'no web origin'} ` +
      `(besides its own). Add it with --allow-origin ORIGIN (option allowedOrigins).`,
  )
}
