import { Readable } from 'node:stream'
import type nockType from 'nock'
import { readCappedText } from '../../protocol/limits'
import type { ProtoRequest, ProtoResponse } from '../../protocol/types'
import { ReadAhead } from '../read-ahead'
import { servedAt, type HookedRegion } from './registry'

type Nock = typeof nockType
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

function toProtoRequest(request: Request, region: HookedRegion): ProtoRequest {
  const url = new URL(request.url)
  const headers: Record<string, string | undefined> = {}
  request.headers.forEach((value, key) => (headers[key] = value))
  let body: Promise<string> | undefined
  return {
    method: request.method,
    url: url.pathname + url.search,
    headers,
    // nock hands over a Request parsed from the in-process socket; its signal follows the client's abort: the
    // interceptor aborts it when the client destroys that socket, within the same host turn (measured 0.3-2 ms,
    // before the next setImmediate). clock.advance() lets two host turns pass before it fires anything, so an
    // abort then an advance cancels the push (test/regressions/push-cancel-beats-advance.test.ts).
    signal: request.signal,
    body: (max) => (body ??= readCappedText(request.body as AsyncIterable<Uint8Array> | null, max)),
    remoteAddress: 'in-process',
    served: servedAt(region.origin),
  }
}

async function answer(region: HookedRegion, request: Request): Promise<[number, string | Readable, Record<string, string>]> {
  const proto = toProtoRequest(request, region)
  // A route the fake serves, or one an override covers (a stub for a Docker route the fake lacks).
  const served = region.routes.http(request.method, proto.url) || region.protocol.overrides.covers(request.method, proto.url, proto.headers)
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
  // In bypass mode, paths the fake does not serve do not match and nock lets them through. Otherwise every path
  // matches, so allowUnmocked changes nothing while hooked; it matters after restore: nock keeps the host's entry,
  // emptied, and one without allowUnmocked answers 501 "No match" while another install keeps nock on.
  const bypass = region.onUnhandled === 'bypass'
  const scope = nock(region.origin, { allowUnmocked: true }).persist()
  const interceptors: Interceptor[] = []
  for (const method of METHODS) {
    const interceptor = scope.intercept((uri: string) => !bypass || region.routes.http(method, uri) || region.protocol.overrides.covers(method, uri, {}), method)
    interceptors.push(interceptor)
    interceptor.reply(function (this: unknown, request: Request) {
      return answer(region, request)
    } as never)
  }
  return () => {
    for (const i of interceptors) nock.removeInterceptor(i)
    // nock keeps an empty entry per host (passing through, see allowUnmocked above); drop them when nothing else is mocked.
    if (nock.activeMocks().length === 0) nock.cleanAll()
  }
}
