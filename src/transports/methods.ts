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
 * What the server's parser (llhttp) refused, by its error code, and what it accepts: node:http hands the code to
 * 'clientError' and the fake adds the rest, so that a client sees what to change rather than a bare code. A code not
 * listed keeps the bare form.
 */
const PARSER_ERRORS: Record<string, string> = {
  HPE_INVALID_URL: 'the request target has a byte HTTP does not allow there (a space, a control character or a byte of 0x7f or more): percent-encode it',
  HPE_INVALID_HEADER_TOKEN:
    "a header line is not \"Name: value\": a name is letters, digits and !#$%&'*+-.^_`|~ with no space before the colon; a value has no control character but tab and does not go on to the next line",
  HPE_INVALID_CONSTANT: 'the request line is not "METHOD target HTTP/1.1"',
  HPE_INVALID_VERSION: 'the request line does not end in " HTTP/1.1" (or " HTTP/1.0") and CRLF',
  HPE_STRICT: 'a line is not ended by CRLF',
  HPE_CR_EXPECTED: 'a line is not ended by CRLF',
  HPE_LF_EXPECTED: 'a line is not ended by CRLF',
  HPE_INVALID_CONTENT_LENGTH: 'Content-Length is not one decimal number',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length is sent twice, or with Transfer-Encoding: send one length',
  HPE_INVALID_TRANSFER_ENCODING: 'Transfer-Encoding must end with chunked (the server reads chunked bodies only) and come without Content-Length',
  HPE_INVALID_CHUNK_SIZE: 'a chunk size of the body is not a hexadecimal number',
}

/** The message of the 400 for a request the parser refused with `code` (see {@link PARSER_ERRORS}). */
export function parserErrorMessage(code: string): string {
  const why = PARSER_ERRORS[code]
  return why === undefined ? `Bad request: ${code}` : `Bad request: ${code}: ${why}.`
}

/** The server's whole 400 for a request its parser refused with `code`: status, headers in node's order, body. */
export function parserErrorAnswer(code: string): { status: 400; headers: [string, string][]; body: string } {
  const body = JSON.stringify({ message: parserErrorMessage(code) })
  return { status: 400, headers: [['content-type', 'application/json'], ['content-length', String(new TextEncoder().encode(body).byteLength)], ['connection', 'close']], body }
}

/**
 * The server's whole answer to a request target its parser refused (HPE_INVALID_URL: a byte of 0x7f or more, which
 * `node:http` sends as written), for the in-process hooks: node:http's clientError answer in the server, byte for byte.
 */
export function invalidTargetAnswer(): { status: 400; headers: [string, string][]; body: string } {
  return parserErrorAnswer('HPE_INVALID_URL')
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
