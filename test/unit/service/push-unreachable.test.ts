// A registry out of reach (the push fault `unreachable`), as dockerd 20.10 reports it (seen side by side by
// `dockside verify`, cases push/registry-down and push/registry-dies): down from the start, the dial error right
// after the `refers to` line; dying mid-upload, each upload counts down to its next attempt a line a second of clock
// time (5, 10, 15, 20 s: distribution/xfer's five attempts), then the dial error.
import { describe, expect, it } from 'vitest'
import { createDockside } from '../../../src/index'
import type { FaultAction } from '../../../src/faults/plan'
import { createService, type Service } from '../../../src/core/service'
import { startNamedPush } from '../../support/start-push'

type Unreachable = Extract<FaultAction, { kind: 'unreachable' }>

const start = startNamedPush

/** Every chunk of a push with the clock time it came at, advancing the virtual clock 100 ms whenever the push waits. */
async function drain(svc: Service, lines: AsyncIterable<string>, stopAt?: (text: string) => boolean) {
  const chunks: { at: number; text: string }[] = []
  const it = lines[Symbol.asyncIterator]()
  for (;;) {
    let settled = false
    const p = it.next().then((r) => ((settled = true), r))
    for (let i = 0; i < 5 && !settled; i++) await Promise.resolve()
    while (!settled) await svc.clock.advance(100)
    const r = await p
    if (r.done) break
    chunks.push({ at: svc.clock.elapsed(), text: r.value })
    if (stopAt?.(chunks.map((c) => c.text).join(''))) break
  }
  return { chunks, lines: chunks.map((c) => c.text).join('').split('\r\n').filter(Boolean), it }
}

const down: Unreachable = { kind: 'unreachable', afterLayer: 0, dies: false }
const retrying = (left: number, id: string) => `{"status":"Retrying in ${left} second${left === 1 ? '' : 's'}","progressDetail":{},"id":"${id}"}`
const errorOf = (message: string) => `{"errorDetail":{"message":${JSON.stringify(message)}},"error":${JSON.stringify(message)}}`

describe('a registry that is down from the start', () => {
  it.each([
    ['127.0.0.1:5055/team/app', 'Get "http://127.0.0.1:5055/v2/": dial tcp 127.0.0.1:5055: connect: connection refused'],
    ['localhost:5000/team/app', 'Get "http://localhost:5000/v2/": dial tcp 127.0.0.1:5000: connect: connection refused'],
    ['registry.example.com/team/app', 'Get "https://registry.example.com/v2/": dial tcp registry.example.com:443: connect: connection refused'],
  ])('%s: the refers-to line, then the dial error of its /v2/ ping, before any layer or credential', async (repo, message) => {
    const svc = createService({ seed: 3 })
    svc.images.add(`${repo}:1.0`, { layers: [100, 200] })
    const s = start(svc, { name: `${repo}:1.0`, fault: down })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { chunks, lines } = await drain(svc, s.lines)
    expect(chunks.map((c) => c.at)).toEqual([0])
    expect(lines).toEqual([`{"status":"The push refers to repository [${repo}]"}`, errorOf(message)])
    expect(svc.journal.ofType('push.failed')).toMatchObject([{ repository: repo, message }])
    expect(svc.journal.ofType('push.tag')).toEqual([])
    expect(svc.pushes.list()[0]).toMatchObject({ state: 'failed', error: message })
  })
})

describe('a registry that dies mid-upload', () => {
  it('after 0 bytes: one Pushing line, then each upload counts down 5, 10, 15 and 20 seconds on the clock, then the dial error', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    const image = svc.images.add('127.0.0.1:5055/team/app:1.0', { layers: [250, 150] })
    const [a, b] = image.layers.map((l) => l.shortId)
    const s = start(svc, { name: '127.0.0.1:5055/team/app:1.0', fault: { kind: 'unreachable', afterLayer: 0, afterBytes: 0, dies: true } })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { chunks, lines } = await drain(svc, s.lines)
    const countdown = [5, 10, 15, 20].flatMap((delay) => Array.from({ length: delay }, (_, i) => delay - i)).flatMap((left) => [retrying(left, b), retrying(left, a)])
    expect(lines).toEqual([
      '{"status":"The push refers to repository [127.0.0.1:5055/team/app]"}',
      `{"status":"Preparing","progressDetail":{},"id":"${b}"}`,
      `{"status":"Preparing","progressDetail":{},"id":"${a}"}`,
      expect.stringMatching(new RegExp(`^\\{"status":"Pushing","progressDetail":\\{"current":100,"total":150\\},.*"id":"${b}"\\}$`)),
      ...countdown,
      errorOf('dial tcp 127.0.0.1:5055: connect: connection refused'),
    ])
    // A line a second: the countdown starts with the strike (at 100 ms) and gives up 50 s later.
    expect(chunks.at(-1)!.at - chunks.find((c) => c.text.includes('Retrying in 5 seconds'))!.at).toBe(50_000)
    expect(svc.registries.get('127.0.0.1:5055')!.tags).toEqual([])
    expect(svc.journal.ofType('push.failed')).toMatchObject([{ message: 'dial tcp 127.0.0.1:5055: connect: connection refused' }])
  })

  it('a layer Pushed before the registry died stays; the next upload is the one that retries', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    const image = svc.images.add('127.0.0.1:5055/team/app:1.0', { layers: [100, 900] })
    const [small, big] = image.layers.map((l) => l.shortId)
    const s = start(svc, { name: '127.0.0.1:5055/team/app:1.0', fault: { kind: 'unreachable', afterLayer: 1, dies: true } })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { lines } = await drain(svc, s.lines)
    const retries = lines.filter((l) => l.includes('Retrying'))
    expect(retries).toHaveLength(50)
    expect(retries.every((l) => l.includes(`"id":"${big}"`))).toBe(true)
    expect(lines).toContain(`{"status":"Pushed","progressDetail":{},"id":"${small}"}`)
    expect(svc.registries.get('127.0.0.1:5055')!.blobs.has(image.layers[0].digest)).toBe(true)
  })

  it('after every layer: the manifest PUT is what fails, at once', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    svc.images.add('127.0.0.1:5055/team/app:1.0', { layers: [100] })
    const s = start(svc, { name: '127.0.0.1:5055/team/app:1.0', fault: { kind: 'unreachable', afterLayer: 1, dies: true } })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { lines } = await drain(svc, s.lines)
    expect(lines.at(-1)).toBe(errorOf('Put "http://127.0.0.1:5055/v2/team/app/manifests/1.0": dial tcp 127.0.0.1:5055: connect: connection refused'))
    expect(lines.some((l) => l.includes('Retrying'))).toBe(false)
  })

  it('a client that leaves during the countdown cancels the push: no error line, journaled as cancelled', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    svc.images.add('127.0.0.1:5055/team/app:1.0', { layers: [500] })
    const client = new AbortController()
    const s = start(svc, { name: '127.0.0.1:5055/team/app:1.0', signal: client.signal, fault: { kind: 'unreachable', afterLayer: 0, afterBytes: 0, dies: true } })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { it: rest } = await drain(svc, s.lines, (text) => text.includes('Retrying in 3 seconds'))
    const next = rest.next()
    client.abort()
    await svc.clock.advance(1000)
    expect(await next).toEqual({ done: true, value: undefined })
    expect(svc.journal.ofType('push.cancelled')).toMatchObject([{ by: 'client' }])
    expect(svc.journal.ofType('push.failed')).toEqual([])
  })
})

describe('the fault rule', () => {
  it('is taken on push alone or with afterLayer/afterBytes, refused on events naming the push actions', async () => {
    await using fake = createDockside({ seed: 1, clock: 'auto' })
    fake.images.add('127.0.0.1:5055/team/app:1.0', { layers: [100] })
    fake.faults.add({ on: 'push', unreachable: true, match: { route: '/images/127.0.0.1:5055/*' } })
    const res = await fake.protocol.handle({ method: 'POST', url: '/v1.41/images/127.0.0.1:5055/team/app/push?tag=1.0', headers: { 'x-registry-auth': 'e30=' }, signal: new AbortController().signal, body: async () => '' })
    let text = ''
    for await (const chunk of res.body as AsyncIterable<string>) text += chunk
    expect(text.trimEnd().split('\r\n').at(-1)).toBe(errorOf('Get "http://127.0.0.1:5055/v2/": dial tcp 127.0.0.1:5055: connect: connection refused'))
    expect(() => fake.faults.add({ on: 'push', unreachable: true, afterBytes: 10 })).not.toThrow()
    // @ts-expect-error events take no unreachable: a compile error as well as the FieldError here (rules from JSON or YAML)
    expect(() => fake.faults.add({ on: 'events', unreachable: true })).toThrow(/unreachable: does not apply to "events"/)
  })

  it('under the auto clock, the 50 s countdown costs no wall time', async () => {
    await using fake = createDockside({ seed: 1, clock: 'auto' })
    fake.images.add('127.0.0.1:5055/team/app:1.0', { layers: [100] })
    fake.faults.add({ on: 'push', unreachable: true, afterBytes: 0 })
    const res = await fake.protocol.handle({ method: 'POST', url: '/images/127.0.0.1:5055/team/app/push?tag=1.0', headers: {}, signal: new AbortController().signal, body: async () => '' })
    let text = ''
    for await (const chunk of res.body as AsyncIterable<string>) text += chunk
    expect(text.split('\r\n').filter((l) => l.includes('Retrying'))).toHaveLength(50)
    expect(fake.clock.elapsed()).toBeGreaterThanOrEqual(50_000)
  })
})

// Found by mutation testing (src/service/push.ts, 2026-12-08): the addresses the dial errors name, the invalid-port
// refusal's journal and board, the uploads that count down (at most five at once), the board while the registry is
// out of reach, a halt during the countdown, the auto clock's one chunk.
describe('a registry out of reach: addresses, uploads that retry, the board', () => {
  it.each([
    ['[::1]:5000/team/app', 'Get "http://[::1]:5000/v2/": dial tcp [::1]:5000: connect: connection refused'],
    ['localhost/team/app', 'Get "http://localhost/v2/": dial tcp 127.0.0.1:80: connect: connection refused'],
    ['r1:1/team/app', 'Get "https://r1:1/v2/": dial tcp r1:1: connect: connection refused'],
    ['r1:65535/team/app', 'Get "https://r1:65535/v2/": dial tcp r1:65535: connect: connection refused'],
  ])('%s down: its /v2/ ping dials %s', async (repo, message) => {
    const svc = createService({ seed: 3 })
    svc.images.add(`${repo}:1.0`, { layers: [100] })
    const missed: string[] = []
    const s = start(svc, { name: `${repo}:1.0`, fault: down, faultMissed: (why) => missed.push(why) })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { lines } = await drain(svc, s.lines)
    expect(lines.at(-1)).toBe(errorOf(message))
    // The fault struck: the plan is not told it missed.
    expect(missed).toEqual([])
  })

  it('a port no registry listens on ([::1]:99999): the dial error at once, journaled, the board failed', async () => {
    const svc = createService({ seed: 3 })
    svc.images.add('[::1]:99999/app:1', { layers: [100] })
    const s = start(svc, { name: '[::1]:99999/app:1' })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { lines } = await drain(svc, s.lines)
    const message = 'Get "https://[::1]:99999/v2/": dial tcp: address 99999: invalid port'
    expect(lines).toEqual(['{"status":"The push refers to repository [[::1]:99999/app]"}', errorOf(message)])
    expect(svc.journal.ofType('push.failed')).toStrictEqual([expect.objectContaining({ repository: '[::1]:99999/app', registry: '[::1]:99999', message })])
    expect(svc.pushes.list()[0]).toMatchObject({ state: 'failed', error: message })
  })

  /** Ids of the layers counting down (the last round's first second: each round counts down the same uploads). */
  const firstSecond = (lines: string[]) => lines.filter((l) => l.includes('Retrying in 20 seconds')).map((l) => JSON.parse(l).id as string)

  it('at most five uploads count down: the registry dying before any upload (afterLayer 0) leaves the rest waiting', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    const image = svc.images.add('127.0.0.1:5055/team/app:1.0', { layers: [10, 20, 30, 40, 50, 60, 70] })
    const ids = image.layers.map((l) => l.shortId).reverse()
    const s = start(svc, { name: '127.0.0.1:5055/team/app:1.0', fault: { kind: 'unreachable', afterLayer: 0, dies: true } })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { lines } = await drain(svc, s.lines)
    expect(firstSecond(lines)).toEqual(ids.slice(0, 5))
    expect(lines.filter((l) => l.includes('Retrying'))).toHaveLength(250)
  })

  it('at most five uploads count down when it dies mid-upload (afterBytes) or after a layer (afterLayer): the active ones, then the next queued', async () => {
    for (const fault of [
      { kind: 'unreachable', afterLayer: 0, afterBytes: 1, dies: true },
      { kind: 'unreachable', afterLayer: 1, dies: true },
    ] as const) {
      const svc = createService({ seed: 3, pushBandwidth: 2000 })
      // Reversed, the small layer is pushed first and done after one tick.
      const image = svc.images.add('127.0.0.1:5055/team/app:1.0', { layers: [900, 900, 900, 900, 900, 900, 10] })
      const ids = image.layers.map((l) => l.shortId).reverse()
      const s = start(svc, { name: '127.0.0.1:5055/team/app:1.0', fault })
      if (s.kind !== 'stream') throw new Error(s.kind)
      const { lines } = await drain(svc, s.lines)
      expect(firstSecond(lines)).toEqual(fault.afterBytes === 1 ? ids.slice(0, 5) : [...ids.slice(1, 5), ids[5]])
    }
  })

  it('the board shows the push stalled on its retries (attempt 2 of 5 first), then how it ended', async () => {
    for (const leave of ['client', 'server'] as const) {
      const svc = createService({ seed: 3, pushBandwidth: 2000 })
      svc.images.add('127.0.0.1:5055/team/app:1.0', { layers: [500] })
      const client = new AbortController()
      const halt = new AbortController()
      const s = start(svc, { name: '127.0.0.1:5055/team/app:1.0', signal: client.signal, halt: halt.signal, fault: { kind: 'unreachable', afterLayer: 0, afterBytes: 0, dies: true } })
      if (s.kind !== 'stream') throw new Error(s.kind)
      const { it: rest } = await drain(svc, s.lines, (text) => text.includes('Retrying in 3 seconds'))
      expect(svc.pushes.list()[0]).toMatchObject({ state: 'stalled', error: 'registry 127.0.0.1:5055 out of reach (injected fault): retrying, attempt 2 of 5' })
      const next = rest.next()
      ;(leave === 'client' ? client : halt).abort()
      await svc.clock.advance(1000)
      if (leave === 'client') expect(await next).toEqual({ done: true, value: undefined })
      // The server closing under a client still there: the error line that says so, never a clean end.
      else expect(await next).toEqual({ done: false, value: errorOf("push of 127.0.0.1:5055/team/app:1.0 interrupted: the fake's server closed; this tag was not pushed") + '\r\n' })
      expect(svc.journal.ofType('push.cancelled')).toStrictEqual([
        expect.objectContaining({ repository: '127.0.0.1:5055/team/app', tag: '1.0', registry: '127.0.0.1:5055', layersDone: 0, bytes: 200, by: leave }),
      ])
      expect(svc.pushes.list()[0]).toMatchObject({
        state: 'cancelled',
        error: `registry 127.0.0.1:5055 out of reach (injected fault); ${leave === 'client' ? 'the client gave up' : 'the push was interrupted'}`,
      })
    }
  })

  it('under the auto clock the countdown it skips to at once goes out together, not a chunk a second', async () => {
    await using fake = createDockside({ seed: 1, clock: 'auto' })
    fake.images.add('127.0.0.1:5055/team/app:1.0', { layers: [100] })
    fake.faults.add({ on: 'push', unreachable: true, afterBytes: 0 })
    const res = await fake.protocol.handle({ method: 'POST', url: '/images/127.0.0.1:5055/team/app/push?tag=1.0', headers: {}, signal: new AbortController().signal, body: async () => '' })
    const chunks: string[] = []
    for await (const chunk of res.body as AsyncIterable<string>) chunks.push(chunk)
    expect(chunks.filter((c) => c.includes('Retrying')).length).toBeLessThan(10)
  })
})
