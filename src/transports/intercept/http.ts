import diagnostics_channel from 'node:diagnostics_channel'
import { Readable } from 'node:stream'
import { readCappedText } from '../../protocol/limits'
import type { ProtoRequest, ProtoResponse } from '../../protocol/types'
import { ReadAhead } from '../read-ahead'
import { invalidTargetAnswer } from '../methods'
import { httpOrigins, servedAt, type HookedRegion } from './registry'
import { serverHeaders } from '../server-headers'
import type { Nock } from './nock-loader'

type Interceptor = ReturnType<ReturnType<Nock>['intercept']>

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

/**
 * Turns the protocol's async-iterable body into a byte stream that nock plays back progressively, read ahead as the
 * server writes ({@link ReadAhead}). An empty first chunk makes the interceptor write the status line and headers at
 * once: `await fetch()` resolves before the first line (an idle GET /events stream included).
 */
function toReadable(body: AsyncIterable<string>): Readable {
  const reader = new ReadAhead(body, (text) => Buffer.from(text), Buffer.alloc(0))
  async function* chunks() {
    try {
      for (let chunk = await reader.take(); chunk !== undefined; chunk = await reader.take()) yield chunk
    } finally {
      // The client went away (abort) or the body ended: end the protocol's body as the server does.
      reader.stop()
    }
  }
  // Object mode keeps the empty chunk; the read-ahead is the reader's queue.
  return Readable.from(chunks(), { objectMode: true, highWaterMark: 1 })
}

/**
 * What `node:http` wrote on its request line, by the URL the interceptor parsed it into. nock's request is a WHATWG
 * `Request`, whose URL parser changes a raw target (`"` becomes `%22`, `#` starts a fragment, `..` is resolved): a
 * client that sends `?filters={"label":["a#b"]}` as it is gets the server's answer only with the bytes it sent.
 * Node publishes each client request on this channel as it is made, before its bytes reach the interceptor. Only
 * targets the parser would change are kept, a few at most (each is taken by its request within the same turns).
 */
const rawTargets = new Map<string, string[]>()
const RAW_TARGETS_KEPT = 64
/** The parts of node's ClientRequest the channels below read. */
interface ClientRequestLike {
  method?: string
  path?: string
  protocol?: string
  getHeader?(name: string): unknown
}
/** Target bytes the server's parser (llhttp) refuses and `node:http` sends (it allows \u0021-\u00ff): 0x7f and up. */
const UNPARSED_TARGET = /[\u007f-\u00ff]/
const UNPARSED_TARGET_ALL = /[\u007f-\u00ff]/g
/** Requests whose target onClientRequestCreated encoded (and kept as sent). */
const encodedTargets = new WeakSet<object>()
const onClientRequest = (message: unknown) => {
  const request = (message as { request?: ClientRequestLike }).request
  const path = request?.path
  const host = request?.getHeader?.('host')
  if (typeof path !== 'string' || !path.startsWith('/') || typeof host !== 'string' || encodedTargets.has(request!)) return
  let parsed: URL
  try {
    parsed = new URL(`${request!.protocol ?? 'http:'}//${host}${path}`)
  } catch {
    return
  }
  if (parsed.pathname + parsed.search === path) return
  keepRawTarget(`${request!.method ?? 'GET'} ${parsed.href}`, path)
}
function keepRawTarget(key: string, path: string) {
  if (rawTargets.size >= RAW_TARGETS_KEPT) rawTargets.delete(rawTargets.keys().next().value!)
  const list = rawTargets.get(key)
  if (list) list.push(path)
  else rawTargets.set(key, [path])
}
/**
 * A target with bytes the server's parser refuses, to a hooked host: the interceptor under nock cannot parse them
 * either and sent the request to the network. Before its request line is written (Node 22.12+ publishes each request
 * on this channel as it is made), the target goes percent-encoded, so that the hooks get the request; the bytes as
 * sent are kept (rawTargets), and answer() refuses them as the server does.
 */
const onClientRequestCreated = (message: unknown) => {
  const request = (message as { request?: ClientRequestLike }).request
  const path = request?.path
  const host = request?.getHeader?.('host')
  if (typeof path !== 'string' || !UNPARSED_TARGET.test(path) || typeof host !== 'string') return
  const protocol = request!.protocol ?? 'http:'
  const encoded = path.replace(UNPARSED_TARGET_ALL, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  let parsed: URL
  try {
    parsed = new URL(`${protocol}//${host}${encoded}`)
  } catch {
    return
  }
  const region = httpOrigins.get(parsed.origin)
  const method = request!.method ?? 'GET'
  // A path that bypass mode sends to the network goes there as written.
  if (!region || (region.onUnhandled === 'bypass' && !region.routes.http(method, encoded) && !region.protocol.overrides.covers(method, encoded, {}))) return
  request!.path = encoded
  encodedTargets.add(request!)
  keepRawTarget(`${method} ${parsed.href}`, path)
}
let rawTargetUsers = 0
function watchRawTargets(on: boolean) {
  rawTargetUsers += on ? 1 : -1
  if (on && rawTargetUsers === 1) {
    diagnostics_channel.subscribe('http.client.request.created', onClientRequestCreated)
    diagnostics_channel.subscribe('http.client.request.start', onClientRequest)
  }
  if (!on && rawTargetUsers === 0) {
    diagnostics_channel.unsubscribe('http.client.request.created', onClientRequestCreated)
    diagnostics_channel.unsubscribe('http.client.request.start', onClientRequest)
    rawTargets.clear()
  }
}
/** The raw target `node:http` sent for this request, if the URL parser changed it; else the parsed one. */
function targetOf(request: Request, url: URL): string {
  if (rawTargets.size > 0) {
    const key = `${request.method} ${url.href}`
    const list = rawTargets.get(key)
    const raw = list?.shift()
    if (list?.length === 0) rawTargets.delete(key)
    if (raw !== undefined) return raw
  }
  return url.pathname + url.search
}

function toProtoRequest(request: Request, region: HookedRegion): ProtoRequest {
  const url = new URL(request.url)
  const headers: Record<string, string | undefined> = {}
  request.headers.forEach((value, key) => (headers[key] = value))
  let body: Promise<string> | undefined
  return {
    method: request.method,
    url: targetOf(request, url),
    headers,
    // nock hands over a Request parsed from the in-process socket; its signal follows the client's abort: the
    // interceptor aborts it when the client destroys that socket, within the same host turn (measured 0.3-2 ms,
    // before the next setImmediate). clock.advance() lets two host turns pass before it fires anything, so an
    // abort then an advance cancels the push (test/behaviour/push/cancel/cancel-beats-advance.test.ts).
    signal: request.signal,
    body: (max) => (body ??= readCappedText(request.body as AsyncIterable<Uint8Array> | null, max)),
    remoteAddress: 'in-process',
    served: servedAt(region.origin),
  }
}

/**
 * What a request that asks to upgrade to a websocket is told: nock's interceptor answers requests, it cannot hand
 * over an upgraded node:http socket, so a client of the `ws` package (which upgrades through node:http) cannot
 * connect in process. Failing its handshake with this, rather than with the route's own "send an Upgrade: websocket
 * request" (which it did send), tells the user what to do.
 */
export function upgradeInProcessMessage(method: string, url: string): string {
  return (
    `dockside: ${method} ${url} asks to upgrade to a websocket (Upgrade: websocket), and the in-process hooks cannot upgrade a node:http socket: ` +
    `a client built on the ws package (or any node:http upgrade) cannot connect in process. Use the global WebSocket (globalThis.WebSocket, which the hooks replace), ` +
    `hand the client hooks.WebSocket if it takes a WebSocket class, or serve the fake on a real port with fake.listen() and point the client at server.wsUrl. ` +
    `See docs/in-process.md#clients-built-on-the-ws-package.`
  )
}

async function answer(region: HookedRegion, request: Request): Promise<[number, string | Readable, Record<string, string>]> {
  if (request.headers.get('upgrade')?.toLowerCase() === 'websocket') throw new Error(upgradeInProcessMessage(request.method, request.url))
  const proto = toProtoRequest(request, region)
  // Refused by the server's parser before any route: the fake never sees it.
  if (UNPARSED_TARGET.test(proto.url)) {
    const { status, headers, body } = invalidTargetAnswer()
    return [status, body, Object.fromEntries(headers)]
  }
  // A route the fake serves, or one an override covers (a stub for a Docker route the fake lacks).
  const served = region.routes.http(request.method, proto.url) || region.protocol.overrides.covers(request.method, proto.url, proto.headers)
  if (!served) return region.unhandled(request.method, request.url, () => region.protocol.handle(proto).then(finish))
  return finish(await region.protocol.handle(proto))

  function finish(answer: ProtoResponse): [number, string | Readable, Record<string, string>] {
    // serverHeaders adds chunked framing to a body of no stated length, as node:http does: without it the interceptor
    // frames a stream by closing the connection, so a TransportReset mid-body would look like a clean end to fetch.
    // With it, fetch fails with `TypeError: terminated` and node:http with 'aborted', exactly as against the server.
    const res = { ...answer, headers: { ...answer.headers, ...Object.fromEntries(serverHeaders(answer.headers, proto.headers.connection, request.method, answer.status)) } }
    if (request.method === 'HEAD' || res.body === undefined) return [res.status, '', res.headers]
    if (typeof res.body === 'string') return [res.status, res.body, res.headers]
    return [res.status, toReadable(res.body), res.headers]
  }
}

/** Installs nock interceptors for one region's HTTP origin; returns how to remove them. */
export function hookHttp(nock: Nock, region: HookedRegion): () => void {
  // In bypass mode, paths the fake does not serve do not match and nock lets them through. Otherwise every path
  // matches, so allowUnmocked changes nothing while hooked; it matters after restore: nock keeps the host's entry,
  // emptied, and one without allowUnmocked answers 501 "No match" while another install keeps nock on.
  const bypass = region.onUnhandled === 'bypass'
  watchRawTargets(true)
  const scope = nock(region.origin, { allowUnmocked: true }).persist()
  const interceptors: Interceptor[] = []
  for (const method of METHODS) {
    const interceptor = scope.intercept((uri: string) => !bypass || region.routes.http(method, uri) || region.protocol.overrides.covers(method, uri, {}), method)
    interceptors.push(interceptor)
    interceptor.reply(function (this: unknown, request: Request) {
      return answer(region, request)
    } as never)
  }
  let hooked = true
  return () => {
    if (hooked) watchRawTargets(false)
    hooked = false
    for (const i of interceptors) nock.removeInterceptor(i)
    // nock keeps an empty entry per host (passing through, see allowUnmocked above); drop them when nothing else is mocked.
    if (nock.activeMocks().length === 0) nock.cleanAll()
  }
}
