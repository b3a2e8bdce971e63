import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

// fetch with a streamed request body (a ReadableStream, duplex 'half'): undici writes the request's head with the
// body's first chunk, framed chunked (or `content-length: 0` when the body is empty). The fake behind the hooks sees
// what the real server on 127.0.0.1 sees, when it sees it, and records the same.
// Found by the first HTTP parity hunt (was test/intercept/http-parity-hunt-1.test.ts).

const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

/** Runs `fn` against the real server, then against the hooks of a fresh fake with the same seed; returns both. */
async function both<T>(fn: (fake: Dockside, base: string) => Promise<T>): Promise<{ server: T; inProcess: T }> {
  const a = createDockside({ seed: 5 })
  open.push(a)
  await using server = await a.listen({ port: 0 })
  const onServer = await fn(a, server.url)
  const b = createDockside({ seed: 5 })
  open.push(b)
  await using hooks = await b.intercept({ baseUrl: 'http://in-process.test' })
  const inProcess = await fn(b, hooks.baseUrl)
  return { server: onServer, inProcess }
}

/** What the request log kept: method, target, status, body, and the framing headers. */
const recorded = (fake: Dockside) =>
  fake.requests.list().map((r) => ({ request: `${r.method} ${r.url} ${r.status}`, body: r.body, length: r.headers['content-length'], encoding: r.headers['transfer-encoding'] }))

const utf8 = (text: string) => new TextEncoder().encode(text)
/** A body stream giving `chunks` one per pull, then ending, or failing with `error` once `failWhen` settles. */
function source(chunks: string[], end: { error?: Error; failWhen?: Promise<void> } = {}) {
  let i = 0
  return new ReadableStream<Uint8Array>({
    async pull(c) {
      if (i < chunks.length) return c.enqueue(utf8(chunks[i++]!))
      if (!end.error) return c.close()
      await end.failWhen
      c.error(end.error)
    },
  })
}
const post = (body: ReadableStream<Uint8Array>) => ({ method: 'POST', body, duplex: 'half' }) as RequestInit
const failure = (e: unknown) => `${(e as Error).message}: ${((e as Error).cause as Error | undefined)?.message}`

describe('fetch with a streamed body, in process as against the server', () => {
  it('is recorded with its chunked framing, or content-length 0 when empty', async () => {
    const { server, inProcess } = await both(async (fake, base) => {
      const login = JSON.stringify({ username: 'ci', password: 's3cret' })
      const statuses = [
        (await fetch(`${base}/auth`, post(source([login.slice(0, 9), login.slice(9)])))).status,
        (await fetch(`${base}/auth`, post(source([])))).status,
        (await fetch(`${base}/containers/x/start`, post(source([])))).status,
      ]
      return { statuses, recorded: recorded(fake) }
    })
    expect(inProcess).toEqual(server)
    expect(inProcess.recorded.map((r) => [r.length, r.encoding])).toEqual([
      [undefined, 'chunked'],
      ['0', undefined],
      ['0', undefined],
    ])
  })

  it('reaches the fake only with its first chunk: a push waiting on its body is not started', async () => {
    const { server, inProcess } = await both(async (fake, base) => {
      let send!: () => void
      const ready = new Promise<void>((resolve) => (send = resolve))
      const body = new ReadableStream<Uint8Array>({
        async pull(c) {
          await ready
          c.enqueue(utf8('{}'))
          c.close()
        },
      })
      const answer = fetch(`${base}/images/nope/push`, post(body))
      // A few host turns: the server has had every chance to see the request's head, had it been sent.
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
      const before = fake.requests.count()
      send()
      const res = await answer
      return { before, status: res.status, text: await res.text(), recorded: recorded(fake) }
    })
    expect(inProcess).toEqual(server)
    expect(inProcess.before).toBe(0)
  })

  it('that fails before its first chunk never reaches the fake: fetch rejects with its failure', async () => {
    const { server, inProcess } = await both(async (fake, base) => {
      const error = await fetch(`${base}/auth`, post(source([], { error: new Error('source broke') }))).catch(failure)
      // A few host turns: the server has had every chance to see a request, had one been sent.
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
      return { error, recorded: recorded(fake) }
    })
    expect(inProcess).toEqual(server)
    expect(inProcess).toEqual({ error: 'fetch failed: source broke', recorded: [] })
  })

  // In process only: against the server the request's head sometimes never reaches the fake's handler in this run
  // (undici reports it sent), which would hang a side-by-side test. The server's answer, seen in the runs where it did:
  // 500 (node's `aborted` while reading the body), recorded without a body, framed chunked.
  it('that fails mid-body is not read as whole: the fake answers and records it as the server does', async () => {
    const fake = createDockside({ seed: 5 })
    open.push(fake)
    await using hooks = await fake.intercept({ baseUrl: 'http://in-process.test' })
    // It fails once the fake has the request (its head and first chunk): a handler that passes it on says when.
    let seen!: () => void
    const failWhen = new Promise<void>((resolve) => (seen = resolve))
    fake.use('POST /auth', () => void seen())
    const error = await fetch(`${hooks.baseUrl}/auth`, post(source(['{"username":'], { error: new Error('source broke later'), failWhen }))).catch(failure)
    await expect.poll(() => fake.requests.count()).toBe(1)
    expect(error).toBe('fetch failed: source broke later')
    expect(recorded(fake)).toEqual([{ request: 'POST /auth 500', body: undefined, length: undefined, encoding: 'chunked' }])
  })
})
