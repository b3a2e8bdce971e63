// Regression: a push the fake stopped serving while its client still read ended clean on two paths, which a client
// reads as a push that went through (`docker push` exits 0 when the stream ends without an error line):
// - the real server's close (fake.close(), server.close()) aborted the request as a shutdown, and the push took that
//   for its client leaving: no line, then a clean end of the body. In process the same close gave the error line.
// - a dribbled push (a `dribble` fault) under a reset or close ended silently on every way in.
// Each now ends with the push's error line, and nothing is committed.
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

const fakes: Dockside[] = []
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close()
})

function fresh() {
  const fake = createDockside({ pushBandwidth: 1000 })
  fakes.push(fake)
  fake.images.add('localhost:5000/team/app:1.0', { layers: [50_000] })
  return fake
}

const ways = [
  { name: 'server', base: async (fake: Dockside) => (await fake.listen({ port: 0 })).url },
  { name: 'in-process', base: async (fake: Dockside) => (await fake.intercept()).baseUrl },
]

/** Starts the push, reads its first chunk (after `before()`); `rest()` reads the body to its end and gives its last line. */
async function pushing(base: string, before = async () => {}) {
  const res = await fetch(`${base}/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST' })
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  const reading = reader.read()
  await before()
  const first = decoder.decode((await reading).value)
  const rest = async () => {
    let text = ''
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return text.trim().split('\n').at(-1)!
      text += decoder.decode(value, { stream: true })
    }
  }
  return { first, rest }
}

describe('a push the fake stops serving ends with its error line, never a clean end', () => {
  it("server: fake.close() mid-push (the server's close) ends the body with the error line", async () => {
    const fake = fresh()
    const push = await pushing(await ways[0].base(fake))
    expect(push.first).toContain('The push refers to repository')
    await fake.clock.advance('1s')
    const tail = push.rest()
    await fake.close()
    expect(JSON.parse(await tail)).toEqual({
      errorDetail: { message: "push of localhost:5000/team/app:1.0 interrupted: the fake's server closed; this tag was not pushed" },
      error: "push of localhost:5000/team/app:1.0 interrupted: the fake's server closed; this tag was not pushed",
    })
    expect(fake.journal.ofType('push.tag')).toEqual([])
    expect(fake.journal.ofType('push.cancelled')).toHaveLength(1)
  })

  it('server: server.close() alone mid-push ends it the same way; the fake lives on', async () => {
    const fake = fresh()
    const server = await fake.listen({ port: 0 })
    const push = await pushing(server.url)
    await fake.clock.advance('1s')
    const tail = push.rest()
    await server.close()
    expect(JSON.parse(await tail).error).toMatch(/interrupted: the fake's server closed; this tag was not pushed$/)
    expect(fake.registries.list().flatMap((r) => r.tags)).toEqual([])
  })

  for (const way of ways) {
    it(`${way.name}: a dribbled push under reset() ends with the error line`, async () => {
      const fake = fresh()
      fake.faults.add({ on: 'push', dribble: { line: '1s' } })
      // A line a second: the first comes once the clock has moved.
      const push = await pushing(await way.base(fake), () => fake.clock.advance('1s'))
      expect(push.first).toContain('The push refers to repository')
      await fake.clock.advance('1s')
      const tail = push.rest()
      await fake.reset()
      expect(JSON.parse(await tail).error).toBe('push of localhost:5000/team/app:1.0 interrupted: the fake was reset or closed; this tag was not pushed')
      expect(fake.registries.list().flatMap((r) => r.tags)).toEqual([])
    })
  }

  for (const way of ways) {
    it(`${way.name}: a push an injected stall silenced ends with the error line on reset(), and on close()`, async () => {
      for (const end of ['reset', 'close'] as const) {
        const fake = fresh()
        fake.faults.add({ on: 'push', stall: true })
        const push = await pushing(await way.base(fake))
        await fake.clock.advance('1s')
        const tail = push.rest()
        await (end === 'reset' ? fake.reset() : fake.close())
        const expected = way.name === 'server' && end === 'close' ? "the fake's server closed" : 'the fake was reset or closed'
        expect(JSON.parse(await tail).error).toBe(`push of localhost:5000/team/app:1.0 interrupted: ${expected}; this tag was not pushed`)
        await fake.close()
      }
    })
  }

  it('the journal says who ended a push: its client, a reset, or the server closing', async () => {
    const fake = fresh()
    const server = await fake.listen({ port: 0 })
    // fake.on('journal') hears entries across a reset (which starts a new journal).
    const seen: unknown[] = []
    fake.on('journal', (e) => void (e.type === 'push.cancelled' && seen.push(e.by)))
    const cancelled = () => seen
    const first = await pushing(server.url)
    await fake.clock.advance('1s')
    const firstTail = first.rest()
    await server.close()
    await firstTail
    expect(cancelled()).toEqual(['server'])
    const again = await pushing((await fake.listen({ port: 0 })).url)
    await fake.clock.advance('1s')
    const againTail = again.rest()
    await fake.reset()
    await againTail
    expect(cancelled()).toEqual(['server', 'reset'])
  })

  it('a client that leaves mid-push is still cancelled without a line (nothing to tell it)', async () => {
    const fake = fresh()
    const { url } = await fake.listen({ port: 0 })
    const controller = new AbortController()
    const res = await fetch(`${url}/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST', signal: controller.signal })
    await res.body!.getReader().read()
    const cancelled = new Promise<void>((resolve) => fake.on('journal', (e) => e.type === 'push.cancelled' && resolve()))
    controller.abort()
    await cancelled
    expect(fake.journal.ofType('push.failed')).toEqual([])
    expect(fake.journal.ofType('push.cancelled').map((e) => e.by)).toEqual(['client'])
  })
})
