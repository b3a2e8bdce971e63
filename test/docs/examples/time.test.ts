import { expect, test } from 'vitest'
import { createDockside } from 'dockside'

// Your client: it takes a sleep, so a test can hand it the fake's. Its backoff, its Retry-After and its timeout all
// wait on that one sleep.
type Sleep = (ms: number, signal?: AbortSignal) => Promise<unknown>
function createClient(base: string, { sleep, timeoutMs = 30_000 }: { sleep: Sleep; timeoutMs?: number }) {
  return {
    async push(image: string, tag: string) {
      for (let attempt = 0; ; attempt++) {
        const res = await fetch(`${base}/images/${image}/push?tag=${tag}`, { method: 'POST' })
        if (res.status === 200) return res.text()
        if (res.status !== 429 && res.status !== 503) throw new Error(`push failed: ${res.status}`)
        const retryAfter = Number(res.headers.get('retry-after') ?? 0) * 1000
        await sleep(Math.max(retryAfter, 100 * 2 ** attempt)) // Retry-After, or its own backoff
      }
    },
    // A timeout on the same clock: it fires when the fake's clock says so, not the wall's.
    async withTimeout<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
      const timer = new AbortController()
      const expired = sleep(timeoutMs, timer.signal).then((ran) => {
        if (ran) throw new Error(`timed out after ${timeoutMs} ms`)
      })
      try {
        return (await Promise.race([work(timer.signal), expired])) as T
      } finally {
        timer.abort()
      }
    },
  }
}

test('the client honours Retry-After on the fake clock, and its push completes', async () => {
  await using fake = createDockside({ seed: 1 })
  fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 2 })
  fake.faults.add({ on: 'push', reply: 429, retryAfter: 30, times: 2 })
  const server = await fake.listen({ port: 0 })
  const client = createClient(server.url, { sleep: (ms, signal) => fake.clock.sleep(ms, signal) })

  // advanceUntil moves the clock a step at a time until the promise settles: two 30 s waits cost no wall time.
  const text = await fake.clock.advanceUntil(client.push('localhost:5000/team/app', '1.0'), { step: '1s' })

  expect(text).toContain('"Tag":"1.0"')
  const requests = fake.journal.ofType('request').map((r) => [r.status, (r.time - fake.clock.startedAt) / 1000])
  expect(requests).toEqual([[429, 0], [429, 30], [200, 60]]) // each retry exactly Retry-After later
})

test('a timeout on the fake clock, and waiting for a journal entry', async () => {
  await using fake = createDockside({ seed: 1 })
  fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 1 })
  fake.faults.add({ on: 'push', stall: true }) // headers, then silence
  const server = await fake.listen({ port: 0 })
  const client = createClient(server.url, { sleep: (ms, signal) => fake.clock.sleep(ms, signal), timeoutMs: 10_000 })

  const stalled = client.withTimeout((signal) => fetch(`${server.url}/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST', signal }).then((r) => r.text()))
  const fault = await fake.journal.next('fault') // typed: rule, site, action...
  expect(fault.action).toBe('stall')
  await expect(fake.clock.advanceUntil(stalled, { step: '1s' })).rejects.toThrow('timed out after 10000 ms')
  expect(fake.clock.elapsed()).toBe(10_000)
  expect(fake.journal.ofType('push.failed')).toMatchObject([{ fault: 'stall', layersDone: 0 }])
})
