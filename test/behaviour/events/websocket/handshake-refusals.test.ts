// Regressions found by the fidelity audit: handshake refusals that `ws` answered as text/html.
import net from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside } from '../../../../src/index'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0)) await c()
})

async function port() {
  const fake = createDockside()
  closers.push(() => fake.close())
  return (await fake.listen({ port: 0 })).port
}

/** Sends raw bytes and returns the whole answer (the server closes after a refusal). */
function raw(p: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(p, '127.0.0.1')
    let out = ''
    s.on('data', (d) => (out += d.toString('latin1')))
    s.on('close', () => resolve(out))
    s.on('error', reject)
    s.write(request)
  })
}

function parse(answer: string) {
  const [head, body] = answer.split('\r\n\r\n')
  const [status, ...lines] = head.split('\r\n')
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
  return { status, headers, body, json: JSON.parse(body) as { message: string } }
}

const KEY = 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n'
const upgrade = (method: string, extra: { key?: string; version?: string } = {}) =>
  `${method} /events/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n${extra.key ?? KEY}Sec-WebSocket-Version: ${extra.version ?? '13'}\r\nContent-Length: 0\r\n\r\n`

describe('websocket handshake refusals are JSON with a Content-Length (audit)', () => {
  it('bug: a missing Sec-WebSocket-Key got ws\'s text/html 400', async () => {
    const r = parse(await raw(await port(), upgrade('GET', { key: '' })))
    expect(r.status).toBe('HTTP/1.1 400 Bad Request')
    expect(r.headers['content-type']).toBe('application/json')
    expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(r.body))
    expect(r.json.message).toMatch(/Sec-WebSocket-Key/)
  })

  it('bug: an unsupported Sec-WebSocket-Version got ws\'s text/html 400', async () => {
    const r = parse(await raw(await port(), upgrade('GET', { version: '99' })))
    expect(r.status).toBe('HTTP/1.1 400 Bad Request')
    expect(r.headers['content-type']).toBe('application/json')
    expect(r.headers['sec-websocket-version']).toBe('13, 8')
    expect(r.json.message).toMatch(/Sec-WebSocket-Version "99".*13/)
  })

  it('bug: a POST upgrade got ws\'s text/html 405', async () => {
    const r = parse(await raw(await port(), upgrade('POST')))
    expect(r.status).toBe('HTTP/1.1 405 Method Not Allowed')
    expect(r.headers['content-type']).toBe('application/json')
    expect(r.headers.allow).toBe('GET')
    expect(r.json.message).toMatch(/must be a GET request, not POST/)
  })

  it('a request line over 16 KB is a 431 JSON answer saying why', async () => {
    const r = parse(await raw(await port(), `GET /events/ws?filters=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`))
    expect(r.status).toBe('HTTP/1.1 431 Request Header Fields Too Large')
    expect(r.json.message).toMatch(/16 KB/)
  })
})
