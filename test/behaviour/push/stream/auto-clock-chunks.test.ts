// Regression (issue 9): under the `auto` clock a push went out as one 5-line chunk per 100 ms pacing tick, each in its
// own event-loop turn and its own write (a 10 GB push: 5,000 chunks; in process 19,998 chunks where nock sent 271).
// The ticks the clock skips to in one turn now go out together, in chunks of up to 64 KiB: the same lines, byte for
// byte, the same clock times, on every way in.
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

const TEN_GB = [2e9, 2e9, 2e9, 2e9, 2e9]
const PUSH = '/images/localhost:5000/big/push?tag=1'
const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

function fresh(clock: 'auto' | 'virtual') {
  const fake = createDockside({ seed: 3, clock })
  open.push(fake)
  fake.images.add('localhost:5000/big:1', { layers: TEN_GB })
  return fake
}

/** The push as the transports get it from the protocol: its chunks, in order. */
async function chunksOf(fake: Dockside, drive?: () => Promise<void>) {
  const res = await fake.protocol.handle({ method: 'POST', url: PUSH, headers: { host: 'x' }, signal: new AbortController().signal, body: async () => '', remoteAddress: '127.0.0.1' })
  const chunks: string[] = []
  const reading = (async () => {
    for await (const c of res.body as AsyncIterable<string>) chunks.push(c)
  })()
  if (drive) await drive()
  await reading
  return chunks
}

/** The same push under the virtual clock, advanced a minute at a time: one chunk per tick, the reference lines. */
async function reference() {
  const fake = fresh('virtual')
  let done = false
  const chunks = await chunksOf(fake, async () => {
    while (!done) {
      await fake.clock.advance('1m')
      if (fake.registries.list().some((r) => r.tags.length)) done = true
    }
  })
  return chunks.join('')
}

describe('a push under the auto clock goes out in few chunks, with the same lines', () => {
  it('through the protocol: 5,000 ticks in chunks of up to 64 KiB (was one per tick), the virtual clock\'s exact bytes', async () => {
    const fake = fresh('auto')
    const started = performance.now()
    const chunks = await chunksOf(fake)
    const wallMs = performance.now() - started
    const text = chunks.join('')
    expect(text.trimEnd().split('\n').at(-1)).toContain('"aux":{"Tag":"1"')
    const lines = text.split('\n').length - 1
    expect(lines).toBeGreaterThan(25_000)
    // One chunk per 64 KiB, plus one more each time the clock yields to the host loop (every ~10 ms of wall time, so
    // that other clients are served): ~70 on a quiet machine, 94 seen on a loaded one. One per tick would be 5,000.
    expect(chunks.length).toBeLessThanOrEqual(Math.ceil(text.length / 65_536) + Math.ceil(wallMs / 10) + 20)
    expect(chunks.length).toBeGreaterThanOrEqual(Math.ceil(text.length / 65_536))
    expect(text).toBe(await reference())
    // The clock paced it all the same: 10 GB at the default 20 MB/s is 500 s.
    expect(fake.clock.elapsed()).toBeGreaterThanOrEqual(500_000)
    expect(fake.clock.elapsed()).toBeLessThan(502_000)
  })

  it('in process and through the server: the same bytes, and fetch in process reads a few dozen chunks, not thousands', async () => {
    const served = fresh('auto')
    await using server = await served.listen({ port: 0 })
    const viaServer = await (await fetch(`${server.url}${PUSH}`, { method: 'POST' })).text()
    const hooked = fresh('auto')
    await using hooks = await hooked.intercept()
    const started = performance.now()
    const res = await fetch(`${hooks.baseUrl}${PUSH}`, { method: 'POST' })
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    let text = ''
    let reads = 0
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      text += decoder.decode(r.value, { stream: true })
      reads++
    }
    expect(text).toBe(viaServer)
    // As above: a few dozen reads (more on a loaded machine, where the clock yields more often), never one per tick.
    expect(reads).toBeLessThanOrEqual(Math.ceil(text.length / 65_536) + Math.ceil((performance.now() - started) / 10) + 20)
  })
})
