// Review of pushes and images (second pass): false answers the fake gave.
// - An injected `stall` showed on the push board (the dashboard's GET /_dockside/live) as `failed` at once, while the
//   client still waited on the open stream; it is `stalled` until the client gives up, then `cancelled`.
// - A `pushBandwidth` under 10 B/s per layer pushing was not honoured: each layer's share of a 100 ms tick was rounded
//   up to a byte (10 B/s per layer whatever the setting), and a share that did not divide evenly was rounded down for
//   good (15 B/s pushed 10 B/s).
// - A `name@sha256:...` image name was read as `name:latest`: the digest was dropped (images.add made `name:latest`,
//   untag removed `name:latest`, resolve answered `name:latest`'s image whatever the digest).
// Found by the second review of pushes and images (was test/regressions/push-review-2.test.ts).
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'
import { readSse } from '../dashboard/support'

const fakes: Dockside[] = []
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close()
})
const make = (options: Parameters<typeof createDockside>[0]) => {
  const fake = createDockside(options)
  fakes.push(fake)
  return fake
}

interface BoardPush { repository: string; state: string; error?: string }
const pushesOf = (m: { event: string; data: unknown }) => (m.data as { pushes: BoardPush[] }).pushes

describe('a stalled push on the board', () => {
  it('is stalled while the client waits on the open stream, cancelled once it gives up, never failed', async () => {
    const fake = make({ seed: 1 })
    const server = await fake.listen({ port: 0 })
    fake.images.add('localhost:5000/app:1', { layers: [1000, 1000] })
    fake.faults.add({ on: 'push', stall: true, afterLayer: 1 })
    const client = new AbortController()
    const res = await fetch(`${server.url}/images/localhost:5000/app/push?tag=1`, { method: 'POST', signal: client.signal })
    const body = res.text().catch(() => 'aborted')
    await fake.clock.advance('1s')
    // The stall struck once its decision is journaled (push.failed with fault: stall).
    await expect.poll(() => fake.journal.ofType('push.failed').length).toBe(1)
    // An hour later the client is still waiting, and so is the push.
    await fake.clock.advance('1h')

    const live = await fetch(`${server.url}/_dockside/live`)
    let gaveUp = false
    const messages = await readSse(live, (ms) => {
      const last = ms.filter((m) => m.event === 'state').at(-1)
      if (!last) return false
      const push = pushesOf(last)[0]
      if (push.state === 'stalled' && !gaveUp) {
        gaveUp = true
        client.abort()
      }
      return push.state !== 'stalled'
    })
    const states = messages.filter((m) => m.event === 'state').map((m) => pushesOf(m)[0])
    expect(states[0]).toMatchObject({ repository: 'localhost:5000/app', state: 'stalled', error: 'stalled by an injected fault after 1 layer: no more output until the client gives up' })
    expect(states.at(-1)).toMatchObject({ state: 'cancelled', error: 'stalled by an injected fault after 1 layer; the client gave up' })
    expect(states.map((s) => s.state)).not.toContain('failed')
    expect(await body).toBe('aborted')
  })
})

/** Pushes `repository:1` over a real server; resolves to the clock time (ms since the push began) its tag landed. */
async function pushDuration(bandwidth: number, layers: number[], notBefore: number) {
  const fake = make({ seed: 2, pushBandwidth: bandwidth })
  const server = await fake.listen({ port: 0 })
  fake.images.add('localhost:5000/slow:1', { layers })
  const res = await fetch(`${server.url}/images/localhost:5000/slow/push?tag=1`, { method: 'POST' })
  const body = res.text()
  const t0 = fake.clock.elapsed()
  // Just short of the due time: not pushed yet.
  await fake.clock.advance(notBefore - 100)
  const early = fake.journal.ofType('push.tag').length
  // Then on, one tick at a time, until the tag lands.
  while (fake.journal.ofType('push.tag').length === 0 && fake.clock.elapsed() - t0 < 10 * notBefore) await fake.clock.advance(100)
  const text = await body
  return { early, took: fake.journal.ofType('push.tag')[0]?.time - fake.clock.startedAt - t0, text }
}

describe('pushBandwidth below 10 B/s per layer is honoured', () => {
  it('1 B/s: a 10-byte layer takes 10 s of clock time (it took 1 s), one byte per progress line', async () => {
    const { early, took, text } = await pushDuration(1, [10], 10_000)
    expect(early).toBe(0)
    expect(took).toBe(10_000)
    // PROTOCOL.md's progress lines, as ever: one Pushing line per byte, then Pushed.
    const pushing = text.split('\r\n').filter((l) => l.includes('"Pushing"'))
    expect(pushing.map((l) => JSON.parse(l).progressDetail.current)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(pushing[0]).toMatch(/^\{"status":"Pushing","progressDetail":\{"current":1,"total":10\},"progress":"\[=====\\u003e {45}\]       1B\/10B","id":"[0-9a-f]{12}"\}$/)
    expect(text).toMatch(/\{"status":"Pushed","progressDetail":\{\},"id":"[0-9a-f]{12}"\}\r\n/)
  })

  it('20 B/s over three layers at once: 30 bytes take 1.5 s (they took 1 s)', async () => {
    const { early, took } = await pushDuration(20, [10, 10, 10], 1500)
    expect(early).toBe(0)
    expect(took).toBe(1500)
  })

  it('15 B/s: a 15-byte layer takes 1 s (a share rounded down to 1 B a tick took 1.5 s)', async () => {
    const { early, took } = await pushDuration(15, [15], 1000)
    expect(early).toBe(0)
    expect(took).toBe(1000)
  })
})

describe('a name@sha256: digest is refused or honoured, never dropped', () => {
  const digest = `sha256:${'a'.repeat(64)}`

  it('POST /_dockside/images with a digest in the name is a 400 naming it, and adds nothing (it added name:latest)', async () => {
    const fake = make({ seed: 3, clock: 'auto' })
    const server = await fake.listen({ port: 0 })
    const res = await fetch(`${server.url}/_dockside/images`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: `localhost:5000/app@${digest}` }) })
    expect(res.status).toBe(400)
    expect((await res.json()).message).toBe(
      `refusing to create a tag with a digest reference: the image name "localhost:5000/app@${digest}" holds a digest; name a repository and tag, e.g. "localhost:5000/team/app:1.0" (a push records the image's digest).`,
    )
    expect(fake.images.list()).toEqual([])
  })

  it('a scenario image with a digest is refused, naming where', () => {
    expect(() => make({ scenario: { images: [{ name: `localhost:5000/app@${digest}` }] } })).toThrow(/images\[0\].*refusing to create a tag with a digest reference/)
  })

  it('the library: tag to a digest and untag a digest throw; resolve reads the digest, not name:latest', () => {
    const fake = make({ seed: 3, clock: 'auto' })
    const image = fake.images.add('localhost:5000/app', { layers: 1 })
    expect(() => fake.images.tag('localhost:5000/app', `localhost:5000/other@${digest}`)).toThrow(/refusing to create a tag with a digest reference/)
    expect(() => fake.images.untag(`localhost:5000/app@${digest}`)).toThrow(/cannot untag a digest reference/)
    expect(fake.images.tagsOf('localhost:5000/app')).toEqual(['latest'])
    expect(fake.images.resolve(`localhost:5000/app@${digest}`)).toBeUndefined()
    expect(fake.images.resolve(`localhost:5000/app@${image.manifestDigest}`)).toBe(image)
    expect(fake.images.resolve(`localhost:5000/app:9@${image.manifestDigest}`)).toBe(image)
    expect(fake.images.resolve(`localhost:5000/elsewhere@${image.manifestDigest}`)).toBeUndefined()
  })
})

describe('a push to a registry port no registry can listen on', () => {
  it.each(['r1:99999', 'localhost:0', 'registry.example.com:70000'])('%s: the daemon\'s dial error after the first line; no registry is made', async (host) => {
    const fake = createDockside({ seed: 1 })
    const { url } = await fake.listen({ port: 0 })
    try {
      fake.images.add(`${host}/team/app:1.0`)
      const res = await fetch(`${url}/images/${host}/team/app/push?tag=1.0`, { method: 'POST' })
      expect(res.status).toBe(200)
      const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
      const port = host.slice(host.lastIndexOf(':') + 1)
      expect(lines).toEqual([
        { status: `The push refers to repository [${host}/team/app]` },
        { errorDetail: { message: `Get "https://${host}/v2/": dial tcp: address ${port}: invalid port` }, error: `Get "https://${host}/v2/": dial tcp: address ${port}: invalid port` },
      ])
      expect(fake.registries.list().map((r) => r.host)).toEqual([])
    } finally {
      await fake.close()
    }
  })
})

describe('a refused push on the board', () => {
  it("a rate limit's 429 and a fault's 500 are on the board, failed with the answer the client saw", async () => {
    const fake = make({ seed: 3, clock: 'auto' })
    const server = await fake.listen({ port: 0 })
    fake.images.add('localhost:5000/team/app:1.0')
    fake.rateLimit.set({ route: 'push', limit: 1, window: '1m' })
    const push = () => fetch(`${server.url}/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST' }).then(async (r) => [r.status, await r.text()] as const)
    expect((await push())[0]).toBe(200)
    const [limited, limitedBody] = await push()
    expect(limited).toBe(429)
    fake.rateLimit.set(undefined)
    fake.faults.add({ on: 'push', reply: 500, message: 'registry on fire' })
    expect((await push())[0]).toBe(500)
    const live = await fetch(`${server.url}/_dockside/live`)
    const [first] = await readSse(live, (ms) => ms.some((m) => m.event === 'state'))
    const board = pushesOf(first).map((p) => [p.repository, p.state, p.error])
    expect(board).toEqual([
      ['localhost:5000/team/app', 'done', undefined],
      ['localhost:5000/team/app', 'failed', `429: ${(JSON.parse(limitedBody) as { message: string }).message}`],
      ['localhost:5000/team/app', 'failed', '500: registry on fire'],
    ])
  })
})
