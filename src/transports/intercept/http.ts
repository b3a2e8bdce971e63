import { Readable } from 'node:stream'
import type nockType from 'nock'
import { readCappedText } from '../../protocol/limits'
import type { ProtoRequest, ProtoResponse } from '../../protocol/types'
import { servedAt, type HookedRegion } from './registry'

type Nock = typeof nockType
type Interceptor = ReturnType<ReturnType<Nock>['intercept']>

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

/** Chunks read ahead of the client, standing in for a socket's buffer (backpressure beyond that). */
const READ_AHEAD = 64

/**
 * Turns the protocol's async-iterable body into a byte stream that nock plays back progressively.
 * Pumped like the server's write loop: the next chunk is asked for as soon as the previous one is queued (up to
 * {@link READ_AHEAD} chunks, which is backpressure), not when the client gets around to reading. A push paced by
 * the clock thus moves as far per `clock.advance()` as on the server, whatever the hops between here and `fetch`.
 * A failure (a TransportReset) reaches the client after the chunks queued before it, as on the server.
 */
function toReadable(body: AsyncIterable<string>): Readable {
  const iterator = body[Symbol.asyncIterator]()
  // An empty first chunk makes the interceptor write the status line and headers at once, as the server's
  // flushHeaders() does: `await fetch()` resolves before the first line (an idle GET /events stream included).
  const queue: Buffer[] = [Buffer.alloc(0)]
  let ended = false
  let closed = false
  let failure: unknown
  let wake: (() => void) | undefined
  let space: (() => void) | undefined
  const notify = () => {
    wake?.()
    wake = undefined
  }
  const release = () => {
    space?.()
    space = undefined
  }
  void (async () => {
    try {
      while (!closed) {
        const { value, done } = await iterator.next()
        if (done || closed) break
        if (value === '') continue
        queue.push(Buffer.from(value))
        notify()
        if (queue.length >= READ_AHEAD) await new Promise<void>((resolve) => (space = resolve))
      }
    } catch (error) {
      failure = error
    }
    ended = true
    notify()
  })()
  async function* chunks() {
    try {
      for (;;) {
        if (queue.length) {
          const chunk = queue.shift()!
          release()
          yield chunk
        } else if (ended) {
          if (failure !== undefined) throw failure
          return
        } else await new Promise<void>((resolve) => (wake = resolve))
      }
    } finally {
      // The client went away (abort) or the body ended: end the protocol's body as the server does.
      closed = true
      release()
      if (!ended) void Promise.resolve(iterator.return?.()).catch(() => {})
    }
  }
  // Object mode keeps the empty chunk; the read-ahead is the queue above.
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
