/**
 * The headers node:http adds to every answer of the real server, after the route's own: its `Date` (the host's wall
 * clock, as node's), and the connection's keep-alive, or `close` after a request that asked for it. The in-process
 * hooks add the same, so that a client reading them sees no difference. Names the answer already has are left out.
 */
export function serverHeaders(answer: Record<string, string>, requestConnection: string | undefined): [string, string][] {
  const has = (name: string) => Object.keys(answer).some((k) => k.toLowerCase() === name)
  const close = requestConnection?.toLowerCase() === 'close'
  const out: [string, string][] = []
  if (!has('date')) out.push(['date', new Date().toUTCString()])
  if (!has('connection')) out.push(['connection', close ? 'close' : 'keep-alive'])
  if (!close && !has('keep-alive')) out.push(['keep-alive', 'timeout=5'])
  return out
}
