// A request whose method Node's HTTP parser (llhttp) refuses never reaches the fake on the real server: node:http
// answers it 400 with HPE_INVALID_METHOD before any route is looked up. Methods are case-sensitive there, and fetch
// upper-cases only DELETE, GET, HEAD, OPTIONS, POST and PUT, so `fetch(url, { method: 'patch' })` sends `patch` and is
// refused. The ways in without a parser of their own (fetch in process, MSW's handlers) give the same answer, built
// here, so that no way in answers what the server refuses. No Node built-ins: the MSW transport runs in browsers.

/** The methods llhttp parses, as Node 24's `http.METHODS` lists them (the MSW transport's list; Node's own is used where it is at hand). */
export const PARSED_METHODS: readonly string[] = [
  'ACL', 'BIND', 'CHECKOUT', 'CONNECT', 'COPY', 'DELETE', 'GET', 'HEAD', 'LINK', 'LOCK', 'M-SEARCH', 'MERGE', 'MKACTIVITY',
  'MKCALENDAR', 'MKCOL', 'MOVE', 'NOTIFY', 'OPTIONS', 'PATCH', 'POST', 'PROPFIND', 'PROPPATCH', 'PURGE', 'PUT', 'QUERY',
  'REBIND', 'REPORT', 'SEARCH', 'SOURCE', 'SUBSCRIBE', 'TRACE', 'UNBIND', 'UNLINK', 'UNLOCK', 'UNSUBSCRIBE',
]

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/

/**
 * The message of the 400 for a method the parser refused: the method as sent, the one to send instead when it is a
 * known method in the wrong case, and the methods the fake serves. `method` undefined: the request line did not start
 * with a method at all (bytes that are not HTTP).
 */
export function invalidMethodMessage(method: string | undefined, known: readonly string[] = PARSED_METHODS): string {
  const start = 'Bad request: HPE_INVALID_METHOD'
  const serves = 'This fake serves GET, HEAD, POST and DELETE.'
  if (method === undefined || !TOKEN.test(method)) return `${start}: the request does not start with an HTTP method. ${serves}`
  const upper = method.toUpperCase()
  const hint =
    upper !== method && known.includes(upper)
      ? ` Methods are case-sensitive, and fetch upper-cases only DELETE, GET, HEAD, OPTIONS, POST and PUT: send "${upper}".`
      : ''
  return `${start}: "${method}" is not an HTTP method the server accepts.${hint} ${serves}`
}

/** The server's whole answer to a refused method: status, headers in node's order (no Date: node:http writes it raw), body. */
export function invalidMethodAnswer(method: string | undefined, known?: readonly string[]): { status: 400; headers: [string, string][]; body: string } {
  const body = JSON.stringify({ message: invalidMethodMessage(method, known) })
  return {
    status: 400,
    headers: [
      ['content-type', 'application/json'],
      ['content-length', String(new TextEncoder().encode(body).byteLength)],
      ['connection', 'close'],
    ],
    body,
  }
}

/**
 * The server's whole answer to a request target its parser refused (HPE_INVALID_URL: a byte of 0x7f or more, which
 * `node:http` sends as written), for the in-process hooks: node:http's clientError answer in the server, byte for byte.
 */
export function invalidTargetAnswer(): { status: 400; headers: [string, string][]; body: string } {
  const body = JSON.stringify({ message: 'Bad request: HPE_INVALID_URL' })
  return { status: 400, headers: [['content-type', 'application/json'], ['content-length', String(body.length)], ['connection', 'close']], body }
}

/**
 * The method the parser stopped at, from the bytes node:http hands its 'clientError' (`rawPacket`, `bytesParsed`):
 * the token that starts the request line the error is in.
 */
export function methodOfPacket(raw: Uint8Array | undefined, at: number | undefined): string | undefined {
  if (!raw) return undefined
  const text = new TextDecoder('latin1').decode(raw.subarray(0, 4096))
  const from = text.lastIndexOf('\n', Math.max(0, (at ?? 0) - 1)) + 1
  const line = text.slice(from)
  const end = line.search(/[ \r\n]/)
  return end > 0 ? line.slice(0, end) : undefined
}
