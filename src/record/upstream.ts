import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http'
import type { Socket } from 'node:net'
import { parseHost } from '../verify/host'

// Built-ins through getBuiltinModule, as the CLI loads them (docs/performance.md).
const http = process.getBuiltinModule('node:http')
const https = process.getBuiltinModule('node:https')
const net = process.getBuiltinModule('node:net')
const tls = process.getBuiltinModule('node:tls')

/** Where the recorded service answers: a unix socket, or a host and port over HTTP or HTTPS. */
export type Upstream = { kind: 'unix'; path: string; text: string } | { kind: 'tcp'; host: string; port: number; tls: boolean; text: string }

/**
 * Parses `unix:///var/run/docker.sock`, `tcp://HOST:PORT`, `http://HOST:PORT` or `https://HOST:PORT`. Throws a
 * RangeError naming the forms it takes.
 */
export function parseUpstream(text: string): Upstream {
  const secure = text.startsWith('https://')
  let address
  try {
    address = parseHost(secure ? `http://${text.slice('https://'.length)}` : text)
  } catch {
    throw new RangeError(`Invalid upstream "${text}": expected unix:///path/to/docker.sock, tcp://HOST:PORT, http://HOST:PORT or https://HOST:PORT.`)
  }
  return address.kind === 'unix' ? { ...address, text } : { ...address, tls: secure, text }
}

/** An HTTP request to the upstream, on a connection of its own (a stream may end only by closing it). */
export function upstreamRequest(up: Upstream, options: RequestOptions, onResponse: (res: IncomingMessage) => void): ClientRequest {
  const target = up.kind === 'unix' ? { socketPath: up.path } : { host: up.host, port: up.port }
  const lib = up.kind === 'tcp' && up.tls ? https : http
  return lib.request({ ...options, ...target, agent: false }, onResponse)
}

/** A raw connection to the upstream, for upgraded requests (attach, exec, websockets): bytes pass both ways unread. */
export function upstreamSocket(up: Upstream): Socket {
  if (up.kind === 'unix') return net.connect(up.path)
  return up.tls ? tls.connect({ host: up.host, port: up.port, servername: net.isIP(up.host) ? undefined : up.host }) : net.connect(up.port, up.host)
}
