// Bad input at the server's edge. A request the server's HTTP parser refuses gets a 400 whose JSON message names the
// parser's code and what to send instead (the rule for bad input). It was the bare code (`Bad request:
// HPE_INVALID_TRANSFER_ENCODING`), which tells a client author nothing about which header or byte to change. Raw bytes
// over a real socket, as a hand-written client or a proxy sends them.
import { connect } from 'node:net'
import { expect, it } from 'vitest'
import { createDockside } from '../../../src/index'
import { serve } from '../../../src/transports/server'

/** The status line and the JSON message of the server's answer to `raw`. */
async function send(port: number, raw: string): Promise<{ status: string; message: string }> {
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(raw))
    let got = ''
    socket.on('data', (chunk) => (got += chunk))
    socket.on('close', () => resolve(got))
    socket.on('error', reject)
  })
  return { status: text.slice(0, text.indexOf('\r\n')), message: (JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { message: string }).message }
}

const CASES: [string, string, string][] = [
  ['a byte of 0x7f in the target', 'GET /_ping\x7f HTTP/1.1\r\nHost: x\r\n\r\n', 'HPE_INVALID_URL: the request target has a byte HTTP does not allow there (a space, a control character or a byte of 0x7f or more): percent-encode it.'],
  ['a space in a header name', 'GET /_ping HTTP/1.1\r\nX Token: a\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN: a header line is not "Name: value"'],
  ['a folded header value', 'GET /_ping HTTP/1.1\r\nHost: x\r\n more\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN: a header line is not "Name: value": a name is letters, digits and !#$%&\'*+-.^_`|~ with no space before the colon; a value has no control character but tab and does not go on to the next line.'],
  ['lines ended by LF alone', 'GET /_ping HTTP/1.1\nHost: x\n\n', 'HPE_INVALID_VERSION: the request line does not end in " HTTP/1.1" (or " HTTP/1.0") and CRLF.'],
  ['a request line without a version', 'GET /_ping FOO\r\nHost: x\r\n\r\n', 'HPE_INVALID_CONSTANT: the request line is not "METHOD target HTTP/1.1".'],
  ['a length that is not a number', 'POST /_ping HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n', 'HPE_INVALID_CONTENT_LENGTH: Content-Length is not one decimal number.'],
  ['two lengths', 'POST /_ping HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab', 'HPE_UNEXPECTED_CONTENT_LENGTH: Content-Length is sent twice, or with Transfer-Encoding: send one length.'],
  ['a length beside chunked', 'POST /_ping HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 'HPE_INVALID_TRANSFER_ENCODING: Transfer-Encoding must end with chunked (the server reads chunked bodies only) and come without Content-Length.'],
  ['gzip framing', 'POST /_ping HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n', 'HPE_INVALID_TRANSFER_ENCODING: Transfer-Encoding must end with chunked'],
  ['a chunk size that is not hexadecimal', 'POST /_ping HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 'HPE_INVALID_CHUNK_SIZE: a chunk size of the body is not a hexadecimal number.'],
]

it('each refusal of the parser names its code and what the server accepts', async () => {
  await using fake = createDockside({ seed: 1 })
  const server = await fake.listen({ port: 0 })
  const { port } = new URL(server.url)
  for (const [what, raw, expected] of CASES) {
    const answer = await send(Number(port), raw)
    expect(answer.status, what).toBe('HTTP/1.1 400 Bad Request')
    expect(answer.message, what).toContain(`Bad request: ${expected}`)
  }
})

it('serve() handed the fake instead of its protocol refuses at once, before any request can crash the process', async () => {
  await using fake = createDockside({ seed: 1 })
  // Before: the server started, and its first request threw `protocol.handle is not a function` out of node:http's
  // request handler, ending the process.
  await expect(serve(fake as unknown as Parameters<typeof serve>[0], { port: 0 })).rejects.toThrow(
    "serve() takes a fake's protocol: serve(fake.protocol, options), or fake.listen(options) to serve a fake.",
  )
})
