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
