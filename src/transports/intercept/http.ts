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
    for await (const chunk of body) if (chunk !== '') yield Buffer.from(chunk)
  }
  // objectMode false: nock pulls chunk by chunk, so the body is read only as fast as the client reads.
  return Readable.from(bytes(), { objectMode: false })
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
    const body = request.method === 'HEAD' || res.body === undefined ? '' : typeof res.body === 'string' ? res.body : toReadable(res.body)
    return [res.status, body, res.headers]
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
