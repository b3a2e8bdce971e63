import { Readable } from 'node:stream'
import type nockType from 'nock'
import type { ProtoRequest, ProtoResponse } from '../../protocol/types'
import type { HookedRegion } from './registry'

type Nock = typeof nockType
type Interceptor = ReturnType<ReturnType<Nock>['intercept']>

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

/** Turns the protocol's async-iterable body into a byte stream that nock plays back progressively. */
function toReadable(body: AsyncIterable<string>): Readable {
  async function* bytes() {
    // An empty first chunk makes the interceptor write the status line and headers at once, as the server's
    // flushHeaders() does: `await fetch()` resolves before the first line (an idle GET /events stream included).
    yield Buffer.alloc(0)
    for await (const chunk of body) if (chunk !== '') yield Buffer.from(chunk)
  }
  // Object mode keeps the empty chunk; highWaterMark 1: the body is read only as fast as the client reads.
  return Readable.from(bytes(), { objectMode: true, highWaterMark: 1 })
}

function toProtoRequest(request: Request): ProtoRequest {
  const url = new URL(request.url)
  const headers: Record<string, string | undefined> = {}
  request.headers.forEach((value, key) => (headers[key] = value))
  let body: Promise<string> | undefined
  return {
    method: request.method,
    url: url.pathname + url.search,
    headers,
    // nock hands over the client's Request; its signal fires when the client aborts (about 1 ms later).
    signal: request.signal,
    body: () => (body ??= request.text()),
    remoteAddress: 'in-process',
  }
}

async function answer(region: HookedRegion, request: Request): Promise<[number, string | Readable, Record<string, string>]> {
  const proto = toProtoRequest(request)
  const served = region.routes.http(request.method, proto.url)
  if (!served) return region.unhandled(request.method, request.url, () => region.protocol.handle(proto).then(finish))
  return finish(await region.protocol.handle(proto))

  function finish(res: ProtoResponse): [number, string | Readable, Record<string, string>] {
    if (request.method === 'HEAD' || res.body === undefined) return [res.status, '', res.headers]
    if (typeof res.body === 'string') return [res.status, res.body, res.headers]
    // Chunked framing, as node:http uses for a body of unknown length: without it the interceptor frames the body
    // by closing the connection, so a TransportReset mid-body would look like a clean end to fetch. With it, fetch
    // fails with `TypeError: terminated` and node:http with 'aborted', exactly as against the server.
    const hasLength = Object.keys(res.headers).some((k) => k.toLowerCase() === 'content-length')
    return [res.status, toReadable(res.body), hasLength ? res.headers : { ...res.headers, 'transfer-encoding': 'chunked' }]
  }
}

/** Installs nock interceptors for one region's HTTP origin; returns how to remove them. */
export function hookHttp(nock: Nock, region: HookedRegion): () => void {
  // In bypass mode, paths the fake does not serve do not match and nock lets them through.
  const bypass = region.onUnhandled === 'bypass'
  const scope = nock(region.origin, { allowUnmocked: bypass }).persist()
  const interceptors: Interceptor[] = []
  for (const method of METHODS) {
    const interceptor = scope.intercept((uri: string) => !bypass || region.routes.http(method, uri), method)
    interceptors.push(interceptor)
    interceptor.reply(function (this: unknown, request: Request) {
      return answer(region, request)
    } as never)
  }
  return () => {
    for (const i of interceptors) nock.removeInterceptor(i)
    // nock keeps an empty entry per host that answers 501 "No match"; drop it when nothing else is mocked.
    if (nock.activeMocks().length === 0) nock.cleanAll()
  }
}
