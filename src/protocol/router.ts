import type { Service } from '../core/service'
import { goPathSegment } from './go/url'
import { apiAtLeast } from './api-version'
import type { ProtocolHost } from './host'
import { handleAdmin } from './admin/routes'
import { API_VERSION, DOCKER_HEADERS, handleDocker, PAGE_NOT_FOUND_BODY, unservedDocker } from './docker/routes'
import { guardAdmin, guardUpgrade, type AccessOptions, type Refusal } from './guard'
import { eventsUpgrade } from './events/routes'
import { eventsStream } from './events/stream'
import { createHub, type SocketHub } from './events/socket-hub'
import { beforeRoutes, errorResponse, json, jsonError, targetOf, type Target } from './http'
import { BodyTooLargeError, HEADER_OVERFLOW_MESSAGE, headerOverflow, resolveLimits, type ProtocolLimits } from './limits'
import { createOverrides, type OverrideStore } from './requests/overrides'
import { pushRoute } from './docker/push'
import { createRequestLog, type RequestLog } from './requests/log'
import { checkSignature, unverifiedSignature, type SignatureCheck } from './signing'
import type { ProtoRequest, ProtoResponse, UpgradeResult } from './types'

export type { ProtocolHost, UiAsset } from './host'

/** Transport-neutral routes: every way in calls these and nothing else. */
export interface Protocol {
  handle(req: ProtoRequest): Promise<ProtoResponse>
  /** Decides an events websocket upgrade: refuse with an HTTP answer, or accept. */
  upgrade(req: ProtoRequest): Promise<UpgradeResult>
  /**
   * {@link upgrade}, decided at once when nothing waits (no override that answers, no signature to verify, no connect
   * latency or stall): the result itself, else its promise. For a transport that does less on a connect decided at
   * once (the server reads the socket only while a decision waits). May throw where `upgrade` rejects.
   */
  decideUpgrade(req: ProtoRequest): UpgradeResult | Promise<UpgradeResult>
  /** Live events sockets. */
  readonly hub: SocketHub
  /** The routes the fake serves, for "unhandled request" messages. */
  readonly routes: readonly string[]
  /** What one request or client may cost (bodies, backlog). */
  readonly limits: ProtocolLimits
  /** Per-test overrides of any route (overrides.ts); emptied by the fake's reset(). */
  readonly overrides: OverrideStore
  /** What the fake received, for verification (requests.ts); emptied by the fake's reset(). */
  readonly requests: RequestLog
}

export const ROUTES = [
  'GET /events/ws (websocket)',
  'POST /images/{name}/push',
  'GET /events',
  'HEAD|GET /_ping, GET /version, GET /info, POST /auth',
  'GET /images/json, GET /images/{name}/json, POST /images/{name}/tag',
  'GET /containers/json, GET /containers/{id}/json, POST /containers/{id}/start, POST /containers/{id}/stop',
  'GET /networks/{id}, GET /volumes/{name}, GET /plugins/{name}/json (always not found)',
  '/_dockside/* (admin API)',
]

const PUSH = /^\/images\/(.+)\/push$/

/**
 * Whether API version `a` is newer than `b`, compared as Docker compares them (dot-separated numbers, a missing part
 * is 0). Older versions are served: the real service's own clients speak 1.23, below the Engine's minimum.
 */
let dateSecond = NaN
let dateText = ''
/**
 * The answer with a `Date` header from the fake's clock, as the real service's follows its own: on the virtual clock
 * it is the time of the events and of the signature check (a client that corrects its signing clock by `Date` signs
 * in the fake's time), and the same bytes every run. An answer that names its own Date (an override's) keeps it.
 */
function dated(res: ProtoResponse, now: number): ProtoResponse {
  for (const k in res.headers) if (k.length === 4 && k.toLowerCase() === 'date') return res
  const second = Math.floor(now / 1000)
  if (second !== dateSecond) {
    dateSecond = second
    dateText = new Date(second * 1000).toUTCString()
  }
  return { ...res, headers: { ...res.headers, date: dateText } }
}

/**
 * The headers the Engine's version middleware sets on every answer of a Docker route, errors included (its mux's
 * `page not found` has none). An answer that names them itself keeps its own.
 */
function withDockerHeaders(res: ProtoResponse, version: string | undefined): ProtoResponse {
  if (res.status === 404 && res.headers['x-dockside-hint'] !== undefined && res.body === PAGE_NOT_FOUND_BODY) return plainBefore124(goJsonLine(res, version), version)
  return plainBefore124(goJsonLine({ ...res, headers: { ...DOCKER_HEADERS, ...res.headers } }, version), version)
}

/**
 * The oldest API version served: the 20.10 daemon's (its version middleware refuses older). Engine 25 on refuses
 * below 1.24; the fake serves 1.23, the real service's own clients' version (docs/docker-compat.md).
 */
const MIN_API_VERSION = '1.12'

/**
 * An error to API 1.23 or older, as Engines before 25 send it (MakeErrorHandler: JSON errors only past 1.23): Go's
 * http.Error, the message and a newline in plain text. dockerd 20.10 checked.
 */
function plainBefore124(res: ProtoResponse, version: string | undefined): ProtoResponse {
  if (version === undefined || newerThan(version, '1.23') || res.status < 400 || typeof res.body !== 'string' || !res.headers['content-type']?.startsWith('application/json')) return res
  let message: unknown
  try {
    message = (JSON.parse(res.body) as { message?: unknown }).message
  } catch {
    return res
  }
  if (typeof message !== 'string') return res
  const body = `${message}\n`
  return { ...res, headers: { ...res.headers, 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', 'content-length': String(encoder.encode(body).length) }, body }
}

/**
 * A Docker route's JSON answer as the daemon's httputils.WriteJSON writes it (json.Encoder.Encode, HTML left as it is):
 * a newline at the end, U+2028 and U+2029 escaped (Go always escapes them), and below API 1.42 `\b` and `\f` written
 * as `\u0008` and `\u000c`, as the Go before 1.22 that built Engine 20.10 wrote them (dockerd 20.10 checked). A client
 * that reads the body to its end, or compares it, gets the same bytes.
 */
const encoder = new TextEncoder()

function goJsonLine(res: ProtoResponse, version: string | undefined): ProtoResponse {
  if (typeof res.body !== 'string' || res.body.endsWith('\n') || !res.headers['content-type']?.startsWith('application/json')) return res
  let body = res.body.replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`)
  // Escape by escape, left to right, so an escaped backslash before a `b` stays what it is.
  if (!apiAtLeast(version, '1.42') && /\\[bf]/.test(body)) body = body.replace(/\\(.)/g, (m: string, c: string) => (c === 'b' ? '\\u0008' : c === 'f' ? '\\u000c' : m))
  body += '\n'
  const length = res.headers['content-length']
  return { ...res, body, headers: length === undefined ? res.headers : { ...res.headers, 'content-length': String(encoder.encode(body).length) } }
}

function newerThan(a: string, b: string): boolean {
  const x = a.split('.')
  const y = b.split('.')
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = Number(x[i] ?? 0) - Number(y[i] ?? 0)
    if (d !== 0) return d > 0
  }
  return false
}

export function createProtocol(host: ProtocolHost): Protocol {
  const hub = createHub()
  const limits = host.limits ?? resolveLimits()

  const overrides = createOverrides()
  const requests = createRequestLog()
  const isAdmin = (path: string) => path === '/_dockside' || path.startsWith('/_dockside/')
  const watching = (path: string) => path.startsWith('/_dockside/journal') || path === '/_dockside/live' || path === '/_dockside/live/ack'
  const clientOf = (req: ProtoRequest, target: Target) => req.headers['x-dockside-client'] ?? target.query.get('client')
  // The journal line, and (outside the admin API) one entry of the request log: references only, masked on read. The
  // URL is the target's, shared by every request with that URL (thousands of open event sockets keep their entry).
  const record = (began: Service, req: ProtoRequest, target: Target, status: number, override?: string, body?: string, websocket = false) => {
    const svc = host.service()
    const path = target.path
    // A request that began before a reset (a stalled handshake answered after it) belongs to the history the reset
    // emptied: it is not recorded in the fresh one. An admin request that made the reset is, as before.
    if (svc !== began && !isAdmin(path)) return
    svc.journal.record('request', { method: req.method, path, status, client: req.headers['x-dockside-client'] })
    if (!isAdmin(path)) requests.record({ seq: 0, time: svc.clock.now(), method: req.method, url: target.url, path, headers: req.headers, body, client: clientOf(req, target), status, override, websocket })
  }
  // The override that answers, if any: only looked for when there are overrides (one comparison otherwise).
  const overridden = (req: ProtoRequest, target: Target) =>
    overrides.size === 0 || isAdmin(target.path)
      ? undefined
      : overrides.answer(host.service(), { method: req.method, url: req.url, path: target.path, query: target.query, headers: req.headers, client: clientOf(req, target), signal: req.signal, body: () => req.body() })
  /** What an override made of a request: its answer (or none: pass it on) and its id. */
  type Outcome = Awaited<ReturnType<typeof overridden>>
  const refused = (req: ProtoRequest, path: string, refusal: Refusal) => {
    host.service().journal.record('access.refused', { path, status: refusal.response.status, reason: refusal.reason, origin: req.headers.origin, host: req.headers.host })
    return refusal.response
  }
  const noAccess: AccessOptions = {}

  return {
    hub,
    routes: ROUTES,
    limits,
    overrides,
    requests,
    async handle(request) {
      const target = targetOf(request.url)
      // Node's header limit, for every way in: the real server answers 431 before the protocol sees such a request
      // (so nothing is recorded); the in-process ways in reach this check instead.
      if (headerOverflow(request.url, request.headers)) return jsonError(431, HEADER_OVERFLOW_MESSAGE)
      const svc = host.service()
      const began = svc
      // Every route reads its body through this cap, on every way in; the text read is kept for the request log.
      let bodyText: string | undefined
      let bodyRead: Promise<string> | undefined
      const req: ProtoRequest = { ...request, body: () => (bodyRead ??= request.body(limits.maxBodySize).then((t) => (bodyText = t))) }
      let res: ProtoResponse
      let override: string | undefined
      // A Docker Engine route (served, refused or failing): answered with the daemon's version headers.
      let docker = false
      let versionRefused = false
      // What Go's HTTP server and the Engine's router answer before any route or header: a broken escape in the path,
      // an unclean path. The admin API keeps its own answers.
      const badPath = isAdmin(target.path) ? undefined : beforeRoutes(request.url)
      if (badPath) {
        record(began, req, target, badPath.status, undefined, undefined)
        return dated(badPath, svc.clock.now())
      }
      try {
        if (Number(req.headers['content-length']) > limits.maxBodySize) throw new BodyTooLargeError(limits.maxBodySize)
        // No await unless an override could answer: the common path costs no extra microtask.
        const looking = overridden(req, target)
        const outcome = looking && (await looking)
        override = outcome?.id
        const push = PUSH.exec(target.path)
        if (outcome?.response) res = outcome.response
        else if ((docker = !isAdmin(target.path) && target.path !== '/events/ws') && target.version !== undefined && newerThan(target.version, API_VERSION)) {
          // The Engine's version middleware: a client pinned past the daemon's API version is refused on every route.
          res = jsonError(400, `client version ${target.version} is too new. Maximum supported API version is ${API_VERSION}`)
          versionRefused = true
        } else if (docker && target.version !== undefined && newerThan(MIN_API_VERSION, target.version)) {
          res = jsonError(400, `client version ${target.version} is too old. Minimum supported API version is ${MIN_API_VERSION}, please upgrade your client to a newer version`)
          versionRefused = true
        } else if (docker && req.method === 'OPTIONS') {
          // The Engine's CORS options route (`OPTIONS /{anyroute:.*}`): 200 and no body, whatever the path.
          res = { status: 200, headers: { 'content-length': '0' } }
        } else if (push && req.method === 'POST') {
          res = await pushRoute(svc, req, goPathSegment(push[1]), target.query.get('tag') || undefined, target.query.get('client'))
        } else if (target.path === '/events/ws') {
          res = jsonError(400, 'GET /events/ws is a websocket endpoint: send an Upgrade: websocket request.')
        } else if (target.path === '/events' && req.method === 'GET') {
          res = await eventsStream(svc, req, target, limits, hub)
        } else if (target.path.startsWith('/_dockside/') || target.path === '/_dockside') {
          const refusal = await guardAdmin(req, host.access?.() ?? noAccess)
          res = refusal ? (refusal.granted ? refusal.response : refused(req, target.path, refusal)) : await handleAdmin(svc, host, hub, req, target, { overrides, requests })
        } else {
          res = (await handleDocker(svc, req, target)) ?? unservedDocker(req.method, target.path)
        }
      } catch (error) {
        res = errorResponse(error)
      }
      if (docker) res = withDockerHeaders(res, target.version)
      // The version middleware refuses before the experimental one (inside it) has set its header.
      if (versionRefused) {
        const { 'docker-experimental': _, ...headers } = res.headers
        res = { ...res, headers }
      }
      // Reading what the fake did (the journal, the dashboard's live feed and its acknowledgements) is not recorded:
      // an open dashboard, acknowledging at the pace of the wall, would change the journal of a seeded run.
      if (!watching(target.path)) record(began, req, target, res.status, override, bodyText)
      return dated(res, svc.clock.now())
    },
    upgrade(req) {
      try {
        const decided = decideUpgrade(req)
        return decided instanceof Promise ? decided : Promise.resolve(decided)
      } catch (error) {
        return Promise.reject(error)
      }
    },
    decideUpgrade: (req) => decideUpgrade(req),
  }

  // An upgrade is decided in steps, each going on at once unless what it needs is a promise (an override's answer,
  // a signature to verify, a connect latency): the connect of every client is decided without a promise turn.
  function decideUpgrade(req: ProtoRequest): UpgradeResult | Promise<UpgradeResult> {
    if (headerOverflow(req.url, req.headers)) return { kind: 'reject', response: jsonError(431, HEADER_OVERFLOW_MESSAGE) }
    const target = targetOf(req.url)
    const began = host.service()
    if (target.path !== '/events/ws') return { kind: 'not-found', response: jsonError(404, `No websocket endpoint at ${req.url}. This fake serves GET /events/ws.`) }
    // An override may refuse the upgrade with its own answer, delay it, or pass it on.
    const failed = (error: unknown): Outcome => ({ id: '(failed)', response: errorResponse(error) })
    let looking: ReturnType<typeof overridden>
    try {
      looking = overridden(req, target)
    } catch (error) {
      return afterOverride(req, target, began, failed(error))
    }
    if (looking === undefined) return afterOverride(req, target, began, undefined)
    return Promise.resolve(looking).then((outcome) => afterOverride(req, target, began, outcome), (error: unknown) => afterOverride(req, target, began, failed(error)))
  }

  function afterOverride(req: ProtoRequest, target: Target, began: Service, outcome: Outcome): UpgradeResult | Promise<UpgradeResult> {
    if (outcome?.response) {
      record(began, req, target, outcome.response.status, outcome.id, undefined, true)
      return { kind: 'reject', response: { ...outcome.response, body: outcome.response.body ?? '' } }
    }
    const override = outcome?.id
    if (req.method !== 'GET') {
      record(began, req, target, 405, override, undefined, true)
      return { kind: 'reject', response: jsonError(405, `A websocket upgrade must be a GET request, not ${req.method}.`, { allow: 'GET' }) }
    }
    const refusal = guardUpgrade(req, host.access?.() ?? noAccess)
    if (refusal) {
      record(began, req, target, refusal.response.status, override, undefined, true)
      return { kind: 'reject', response: refused(req, target.path, refusal) }
    }
    // HYPER-HMAC-SHA256 signed headers: always accepted; verified when access keys are configured.
    const svc = host.service()
    const keys = host.accessKeys?.()
    const unverified = unverifiedSignature(req.headers, keys)
    if (unverified) return afterSignature(req, target, began, override, svc, unverified)
    return checkSignature({ method: req.method, url: req.url, headers: req.headers, body: '' }, keys, svc.clock.now()).then((signature) => afterSignature(req, target, began, override, svc, signature))
  }

  function afterSignature(req: ProtoRequest, target: Target, began: Service, override: string | undefined, svc: Service, signature: SignatureCheck): UpgradeResult | Promise<UpgradeResult> {
    if (!signature.ok) {
      svc.journal.record('auth.refused', { path: target.path, status: signature.status, reason: signature.message })
      const response = json(signature.status, signature.detail ? { message: signature.message, ...signature.detail } : { message: signature.message })
      record(began, req, target, signature.status, override, undefined, true)
      return { kind: 'reject', response }
    }
    if (signature.accessKey) svc.journal.record('auth.signed', { accessKey: signature.accessKey, verified: signature.verified })
    const decided = (result: UpgradeResult) => {
      record(began, req, target, result.kind === 'reject' ? result.response.status : 101, override, undefined, true)
      return result
    }
    const deciding = eventsUpgrade(host.service(), hub, req, target, limits)
    return deciding instanceof Promise ? deciding.then(decided) : decided(deciding)
  }
}
