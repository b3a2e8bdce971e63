// Regressions: answers a client could tell apart, the real server's from the in-process hooks' (a review that sent the
// same requests both ways and diffed what came back):
// 1. Under a test's fake `Date` (vi.useFakeTimers() fakes it by default) the in-process `Date` header showed the fake
//    time; node:http's own header reads the real clock.
// 2. A 413 in process said `connection: close` and `keep-alive: timeout=5` together; node:http drops keep-alive when
//    the answer closes.
// 3. A string answer of no stated length (GET /_dockside/ui) had no framing header in process; node:http sends it
//    chunked.
// 4. A status node has no name for (an override's 599) had the status text "" through the in-process fetch; node:http
//    writes "unknown".
// 5. fetch with a header undici's client refuses (transfer-encoding, keep-alive, upgrade, expect, a bad content-length
//    or connection) reached the fake in process: a client bug that passed there failed against the server.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

const open: (() => unknown)[] = []
afterEach(async () => {
  vi.useRealTimers()
  for (const close of open.splice(0).reverse()) await close()
})

/** Two fakes of one seed: one on a real port, one hooked in process; `base` of each. */
async function both(): Promise<{ server: string; inProcess: string; fakes: Dockside[] }> {
  const a = createDockside({ seed: 3, maxBodySize: '1KiB' })
  const b = createDockside({ seed: 3, maxBodySize: '1KiB' })
  open.push(() => a.close(), () => b.close())
  const server = await a.listen({ port: 0 })
  const hooks = await b.intercept({ baseUrl: 'http://docker.test:2375' })
  open.push(() => hooks.restore())
  return { server: server.url, inProcess: hooks.baseUrl, fakes: [a, b] }
}

/** The headers a client reads, without the date (compared on its own) and in order. */
const headersOf = (res: Response) => {
  const out: [string, string][] = []
  res.headers.forEach((value, name) => name !== 'date' && out.push([name, value]))
  return out
}

describe("the in-process fetch refuses what undici's client refuses, as against the server", () => {
  it.each([
    [{ 'keep-alive': 'timeout=5' }, 'InvalidArgumentError', 'invalid keep-alive header'],
    [{ 'transfer-encoding': 'chunked' }, 'InvalidArgumentError', 'invalid transfer-encoding header'],
    [{ 'content-length': 'abc' }, 'InvalidArgumentError', 'invalid content-length header'],
    [{ upgrade: 'h2c' }, 'InvalidArgumentError', 'invalid upgrade header'],
    [{ connection: 'bad value' }, 'InvalidArgumentError', 'invalid connection header'],
    [{ expect: '100-continue' }, 'NotSupportedError', 'expect header not supported'],
  ])('bug: fetch with %j reached the fake in process; now fetch failed with the cause undici gives', async (headers, name, message) => {
    const { server, inProcess, fakes } = await both()
    const failure = (url: string) => fetch(`${url}/_ping`, { headers }).then(() => undefined, (e: TypeError) => ({ message: e.message, cause: { name: (e.cause as Error).name, message: (e.cause as Error).message } }))
    const expected = { message: 'fetch failed', cause: { name, message } }
    expect(await failure(server)).toEqual(expected)
    expect(await failure(inProcess)).toEqual(expected)
    expect(fakes.map((f) => f.requests.count())).toEqual([0, 0])
  })
})

describe('the in-process answer carries the headers node:http adds, as the server does', () => {
  it('bug: the Date header followed a fake Date in process; now the real clock, as the server', async () => {
    const { server, inProcess } = await both()
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2000-01-01T00:00:00Z') })
    const [s, p] = [await fetch(`${server}/_ping`), await fetch(`${inProcess}/_ping`)]
    const year = (res: Response) => new Date(res.headers.get('date')!).getUTCFullYear()
    expect(year(s)).toBeGreaterThan(2000)
    expect(year(p)).toBe(year(s))
  })

  it('bug: a 413 in process kept keep-alive beside connection: close; now the same headers as the server', async () => {
    const { server, inProcess } = await both()
    const big = 'x'.repeat(4096)
    const [s, p] = [await fetch(`${server}/_dockside/containers`, { method: 'POST', body: big }), await fetch(`${inProcess}/_dockside/containers`, { method: 'POST', body: big })]
    expect([s.status, p.status]).toEqual([413, 413])
    expect(headersOf(p)).toEqual(headersOf(s))
    expect(p.headers.get('keep-alive')).toBeNull()
  })

  it('bug: a string answer of no stated length had no framing in process; now chunked, as the server sends it', async () => {
    const { server, inProcess } = await both()
    const [s, p] = [await fetch(`${server}/_dockside/ui`), await fetch(`${inProcess}/_dockside/ui`)]
    expect(s.headers.get('transfer-encoding')).toBe('chunked')
    expect(headersOf(p)).toEqual(headersOf(s))
    expect(await p.text()).toBe(await s.text())
    // A HEAD, a 204 and a 304 have no body to frame, both ways.
    const head = [await fetch(`${server}/_ping`, { method: 'HEAD' }), await fetch(`${inProcess}/_ping`, { method: 'HEAD' })]
    expect(headersOf(head[1]!)).toEqual(headersOf(head[0]!))
  })

  it('bug: a status node has no name for had the status text "" through the in-process fetch; now "unknown"', async () => {
    const { server, inProcess, fakes } = await both()
    for (const fake of fakes) fake.use('GET /version', { status: 599, body: { message: 'odd' } })
    const [s, p] = [await fetch(`${server}/version`), await fetch(`${inProcess}/version`)]
    expect([s.status, s.statusText]).toEqual([599, 'unknown'])
    expect([p.status, p.statusText]).toEqual([599, 'unknown'])
  })
})

describe('restore() and a stream already open (in-process.md, known limits)', () => {
  it('restore() unhooks new requests; an open GET /events runs on until fake.close() ends it', async () => {
    const fake = createDockside({ seed: 3 })
    open.push(() => fake.close())
    const hooks = await fake.intercept({ baseUrl: 'http://docker.test:2375' })
    const res = await fetch(`${hooks.baseUrl}/events`)
    const reader = res.body!.getReader()
    hooks.restore()
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    const { value } = await reader.read()
    expect(JSON.parse(new TextDecoder().decode(value)).Action).toBe('start')
    await fake.close()
    expect((await reader.read()).done).toBe(true)
  })
})
