import { hostWallNow } from '../runtime/host-timers'

/** Whether a Connection header's options include `close` (any case). */
const saysClose = (value: string | undefined) => value !== undefined && value.split(',').some((option) => option.trim().toLowerCase() === 'close')

/**
 * The headers node:http adds to every answer of the real server, after the route's own: its `Date` (the host's wall
 * clock, as node's, for an answer without one: the protocol dates its own answers by the fake's clock, decision 0022), the connection's keep-alive, or `close` after a request or an answer that asked for it, and
 * chunked framing for a body of no stated length. The in-process
 * hooks add the same, so that a client reading them sees no difference. Names the answer already has are left out.
 */
export function serverHeaders(answer: Record<string, string>, requestConnection: string | undefined, method: string, status: number): [string, string][] {
  const valueOf = (name: string) => {
    for (const k in answer) if (k.toLowerCase() === name) return answer[k]
    return undefined
  }
  const answered = valueOf('connection')
  // node:http keeps the connection open unless the request or the answer says close (a 413 does): `close` among the
  // header's options counts (`keep-alive, close`), as node's parser reads it.
  const close = saysClose(requestConnection) || saysClose(answered)
  const out: [string, string][] = []
  // The host's wall clock, not the global Date: node's own header ignores a test's fake timers (vi.useFakeTimers()).
  if (valueOf('date') === undefined) out.push(['date', new Date(hostWallNow()).toUTCString()])
  if (answered === undefined) out.push(['connection', close ? 'close' : 'keep-alive'])
  if (!close && valueOf('keep-alive') === undefined) out.push(['keep-alive', 'timeout=5'])
  // A body of no stated length goes chunked: a stream, and a string answer too (the server's writeHead comes first).
  // A HEAD, a 204 and a 304 have no body to frame.
  if (valueOf('content-length') === undefined && valueOf('transfer-encoding') === undefined && method !== 'HEAD' && status !== 204 && status !== 304) out.push(['transfer-encoding', 'chunked'])
  return out
}
