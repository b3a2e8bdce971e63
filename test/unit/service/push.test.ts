// The push model (src/service/push.ts) through its exported startPush: the exact chunks of the progress stream
// (PROTOCOL.md "Push": the daemon's line sequence, Docker's key order and progress text, updates every 100 ms of clock
// time), its journal entries, what the dashboard's board shows, faults mid-stream and cancellation.
import { describe, expect, it } from 'vitest'
import type { FaultAction } from '../../../src/faults/plan'
import { hostTimers } from '../../../src/runtime/host-timers'
import type { Image } from '../../../src/service/images'
import { createService, type Service } from '../../../src/core/service'
import { PushReset, pushedByIdProblem, readPushTarget, startPush, type PushRequest } from '../../../src/service/push'
import { startNamedPush } from '../../support/start-push'

type Fault = Extract<FaultAction, { kind: 'error' | 'reset' | 'truncate' | 'stall' }>

const start = startNamedPush

/** Reads a push stream chunk by chunk, advancing the virtual clock 100 ms whenever it waits; notes when each came. */
async function drain(svc: Service, lines: AsyncIterable<string>, opts: { stopAfter?: number } = {}) {
  const chunks: { at: number; text: string }[] = []
  const it = lines[Symbol.asyncIterator]()
  let failure: unknown
  for (;;) {
    let settled = false
    const p = it.next().then(
      (r) => ((settled = true), r),
      (error: unknown) => ((settled = true), (failure = error), { done: true as const, value: undefined }),
    )
    for (let i = 0; i < 5 && !settled; i++) await Promise.resolve()
    while (!settled) await svc.clock.advance(100)
    const r = await p
    if (r.done) break
    chunks.push({ at: svc.clock.elapsed(), text: r.value })
    if (opts.stopAfter !== undefined && chunks.length >= opts.stopAfter) break
  }
  return { chunks, text: chunks.map((c) => c.text).join(''), failure, it }
}

/** The registry already holds one of the image's layers, as if a base image sharing it had been pushed before. */
const holdLayer = (svc: Service, image: Image, i: number) =>
  svc.registries.commit('localhost:5000', { repository: 'localhost:5000/base', tag: '1', digest: `sha256:${'0'.repeat(64)}`, size: 1, time: 0, pushedBy: undefined, image: { ...image, layers: [image.layers[i]] } })

const pushing = (id: string, current: number, total: number, progress: string) =>
  `{"status":"Pushing","progressDetail":{"current":${current},"total":${total}},"progress":"${progress}","id":"${id}"}\r\n`
const layerLine = (status: string, id: string) => `{"status":"${status}","progressDetail":{},"id":"${id}"}\r\n`
/** The bar as the daemon's JSON carries it: Go's encoder writes the head `>` as `\u003e`. */
const bar = (pct: number) => `[${'='.repeat(pct)}\\u003e${' '.repeat(50 - pct)}]`

describe('startPush', () => {
  it('streams the daemon sequence chunk by chunk, one tick of 100 ms each, sharing the bandwidth between active layers', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    const image = svc.images.add('localhost:5000/app', { tags: ['1'], layers: [250, 150] })
    const [a, b] = image.layers.map((l) => l.shortId)
    const digest = image.manifestDigest
    const s = start(svc, { name: 'localhost:5000/app', tag: '1' })
    expect(s).toMatchObject({ kind: 'stream', repository: 'localhost:5000/app', tags: ['1'] })
    if (s.kind !== 'stream') return
    const { chunks, failure } = await drain(svc, s.lines)
    expect(failure).toBeUndefined()
    // 200 B per tick, shared by the active layers (100 B each while both push); layers go in reverse image order.
    expect(chunks).toEqual([
      { at: 0, text: '{"status":"The push refers to repository [localhost:5000/app]"}\r\n' },
      { at: 0, text: layerLine('Preparing', b) + layerLine('Preparing', a) },
      { at: 100, text: pushing(b, 100, 150, `${bar(33)}     100B/150B`) + pushing(a, 100, 250, `${bar(20)}     100B/250B`) },
      { at: 200, text: pushing(b, 150, 150, `${bar(50)}     150B/150B`) + layerLine('Pushed', b) + pushing(a, 200, 250, `${bar(40)}     200B/250B`) },
      { at: 300, text: pushing(a, 250, 250, `${bar(50)}     250B/250B`) + layerLine('Pushed', a) },
      { at: 300, text: `{"status":"1: digest: ${digest} size: 731"}\r\n{"progressDetail":{},"aux":{"Tag":"1","Digest":"${digest}","Size":731}}\r\n` },
    ])
    expect(digest).toBe('sha256:fbc1a1d911b149acd8d36b345a00a3ebcf8198d25b59e63fcd0905f16ffaadac')
    const t0 = svc.clock.startedAt
    expect(svc.journal.entries).toStrictEqual([
      { seq: 1, time: t0, type: 'push.start', repository: 'localhost:5000/app', tags: ['1'], registry: 'localhost:5000', auth: undefined },
      { seq: 2, time: t0 + 300, type: 'push.tag', repository: 'localhost:5000/app', tag: '1', registry: 'localhost:5000', digest, user: undefined },
      { seq: 3, time: t0 + 300, type: 'push.done', repository: 'localhost:5000/app', tags: ['1'], registry: 'localhost:5000', user: undefined },
    ])
    expect(svc.registries.get('localhost:5000').get('localhost:5000/app', '1')).toEqual({
      repository: 'localhost:5000/app',
      tag: '1',
      digest,
      size: 731,
      pushedBy: undefined,
      time: t0 + 300,
      layers: image.layers.map((l) => l.digest),
    })
    expect(svc.pushes.list()).toStrictEqual([
      {
        id: 1,
        repository: 'localhost:5000/app',
        tags: ['1'],
        registry: 'localhost:5000',
        startedAt: t0,
        state: 'done',
        layers: [
          { id: b, size: 150, current: 150, status: 'pushed' },
          { id: a, size: 250, current: 250, status: 'pushed' },
        ],
        digests: { '1': digest },
      },
    ])
  })

  it('the board follows each layer: waiting, pushing, pushed', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    const image = svc.images.add('localhost:5000/app', { tags: ['1'], layers: [250, 150] })
    const [a, b] = image.layers.map((l) => l.shortId)
    const s = start(svc, { name: 'localhost:5000/app:1' })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const seen: string[] = []
    svc.pushes.subscribe(() => {
      const v = svc.pushes.list()[0]
      seen.push([v.state, ...v.layers.map((l) => `${l.id === a ? 'a' : 'b'}:${l.status}:${l.current}`), ...Object.keys(v.digests)].join(' '))
    })
    await drain(svc, s.lines)
    expect(b).not.toBe(a)
    expect(seen).toEqual([
      'pushing',
      'pushing b:waiting:0',
      'pushing b:waiting:0 a:waiting:0',
      'pushing b:pushing:100 a:waiting:0',
      'pushing b:pushing:100 a:pushing:100',
      'pushing b:pushed:150 a:pushing:100',
      'pushing b:pushed:150 a:pushing:200',
      'pushing b:pushed:150 a:pushed:250',
      'pushing b:pushed:150 a:pushed:250 1',
      'done b:pushed:150 a:pushed:250 1',
    ])
  })

  it('more than five layers: five at a time, the rest wait and join as layers finish', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 5000 })
    const image = svc.images.add('localhost:5000/wide:1', { layers: [100, 100, 100, 100, 100, 100, 100] })
    const r = image.layers.map((l) => l.shortId).reverse()
    const s = start(svc, { name: 'localhost:5000/wide:1' })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { chunks } = await drain(svc, s.lines)
    const done = (id: string) => pushing(id, 100, 100, `${bar(50)}     100B/100B`) + layerLine('Pushed', id)
    // 500 B per tick: 100 B each for the first five (each done in one tick); then 250 B each for the last two.
    expect(chunks.slice(1, 4)).toEqual([
      { at: 0, text: r.map((id) => layerLine('Preparing', id)).join('') + layerLine('Waiting', r[5]) + layerLine('Waiting', r[6]) },
      { at: 100, text: r.slice(0, 5).map(done).join('') },
      { at: 200, text: done(r[5]) + done(r[6]) },
    ])
    expect(chunks).toHaveLength(5)
  })

  it('layers the registry holds are reported as existing, count as done layers, and are not sent again', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    const image = svc.images.add('localhost:5000/app:1', { layers: [100, 200, 300] })
    const [l0, l1, l2] = image.layers.map((l) => l.shortId)
    holdLayer(svc, image, 1)
    const s = start(svc, { name: 'localhost:5000/app:1' })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { chunks } = await drain(svc, s.lines)
    expect(chunks.slice(1, 4)).toEqual([
      { at: 0, text: layerLine('Preparing', l2) + layerLine('Preparing', l1) + layerLine('Preparing', l0) + layerLine('Mounted from base', l1) },
      { at: 100, text: pushing(l2, 100, 300, `${bar(16)}     100B/300B`) + pushing(l0, 100, 100, `${bar(50)}     100B/100B`) + layerLine('Pushed', l0) },
      { at: 200, text: pushing(l2, 300, 300, `${bar(50)}     300B/300B`) + layerLine('Pushed', l2) },
    ])
    expect(chunks).toHaveLength(5)
    expect(svc.pushes.list()[0].layers).toEqual([
      { id: l2, size: 300, current: 300, status: 'pushed' },
      { id: l1, size: 200, current: 200, status: 'exists' },
      { id: l0, size: 100, current: 100, status: 'pushed' },
    ])
    // Pushed again: every layer exists, nothing waits for the clock, and the tag line follows at once.
    const again = start(svc, { name: 'localhost:5000/app:1' })
    if (again.kind !== 'stream') throw new Error(again.kind)
    const second = await drain(svc, again.lines)
    expect(second.chunks.map((c) => c.at)).toEqual([200, 200, 200])
    expect(second.chunks[1].text).toBe(
      [l2, l1, l0].map((id) => layerLine('Preparing', id)).join('') + [l2, l1, l0].map((id) => layerLine('Layer already exists', id)).join(''),
    )
    expect(second.chunks[2].text).toMatch(/^\{"status":"1: digest: sha256:[0-9a-f]{64} size: \d+"\}\r\n\{"progressDetail":\{\},"aux":/)
    expect(svc.pushes.list()[1].layers.map((l) => l.status)).toEqual(['exists', 'exists', 'exists'])
  })

  it('a fault after N layers counts the layers the registry already holds', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    const image = svc.images.add('localhost:5000/app:1', { layers: [100, 200, 300] })
    const [l0, l1, l2] = image.layers.map((l) => l.shortId)
    holdLayer(svc, image, 1)
    const fault: Fault = { kind: 'error', message: 'denied: requested access to the resource is denied', afterLayer: 1 }
    const s = start(svc, { name: 'localhost:5000/app:1', fault })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { chunks } = await drain(svc, s.lines)
    expect(chunks).toEqual([
      { at: 0, text: '{"status":"The push refers to repository [localhost:5000/app]"}\r\n' },
      {
        at: 0,
        text:
          layerLine('Preparing', l2) +
          layerLine('Preparing', l1) +
          layerLine('Preparing', l0) +
          layerLine('Mounted from base', l1) +
          '{"errorDetail":{"message":"denied: requested access to the resource is denied"},"error":"denied: requested access to the resource is denied"}\r\n',
      },
    ])
    expect(svc.journal.ofType('push.failed')).toStrictEqual([
      { seq: 2, time: svc.clock.startedAt, type: 'push.failed', repository: 'localhost:5000/app', registry: 'localhost:5000', message: 'denied: requested access to the resource is denied' },
    ])
    expect(svc.pushes.list()[0]).toMatchObject({
      state: 'failed',
      error: 'denied: requested access to the resource is denied',
      layers: [
        { id: l2, size: 300, current: 0, status: 'waiting' },
        { id: l1, size: 200, current: 200, status: 'exists' },
        { id: l0, size: 100, current: 0, status: 'waiting' },
      ],
    })
    expect(svc.registries.get('localhost:5000').get('localhost:5000/app', '1')).toBeUndefined()
  })

  it('an error fault after 0 layers comes right after the Preparing lines; after 1, right after the first Pushed line', async () => {
    for (const [afterLayer, tail] of [
      [0, (a: string, _b: string) => layerLine('Preparing', a)],
      [1, (_a: string, b: string) => pushing(b, 150, 150, `${bar(50)}     150B/150B`) + layerLine('Pushed', b)],
    ] as const) {
      const svc = createService({ seed: 3, pushBandwidth: 2000 })
      const image = svc.images.add('localhost:5000/app', { tags: ['1'], layers: [250, 150] })
      const [a, b] = image.layers.map((l) => l.shortId)
      const s = start(svc, { name: 'localhost:5000/app:1', fault: { kind: 'error', message: 'boom', afterLayer } })
      if (s.kind !== 'stream') throw new Error(s.kind)
      const { chunks } = await drain(svc, s.lines)
      const last = chunks.at(-1)!
      expect(last.text.endsWith(tail(a, b) + '{"errorDetail":{"message":"boom"},"error":"boom"}\r\n')).toBe(true)
      expect(last.at).toBe(afterLayer === 0 ? 0 : 200)
      expect(svc.pushes.list()[0]).toMatchObject({ state: 'failed', error: 'boom' })
    }
  })

  it('a reset after 1 layer: the lines up to that layer’s Pushed line, then a PushReset; journaled with layers and bytes', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    const image = svc.images.add('localhost:5000/app', { tags: ['1'], layers: [250, 150] })
    const [, b] = image.layers.map((l) => l.shortId)
    const s = start(svc, { name: 'localhost:5000/app:1', fault: { kind: 'reset', afterLayer: 1 } })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { chunks, failure } = await drain(svc, s.lines)
    expect(chunks.at(-1)).toEqual({ at: 200, text: pushing(b, 150, 150, `${bar(50)}     150B/150B`) + layerLine('Pushed', b) })
    expect(failure).toBeInstanceOf(PushReset)
    expect((failure as Error).message).toBe('push reset by an injected fault')
    expect(svc.journal.ofType('push.failed')).toStrictEqual([
      { seq: 2, time: svc.clock.startedAt + 200, type: 'push.failed', repository: 'localhost:5000/app', registry: 'localhost:5000', fault: 'reset', layersDone: 1, bytes: 250 },
    ])
    expect(svc.pushes.list()[0]).toMatchObject({ state: 'failed', error: 'connection reset by an injected fault after 1 layer' })
    expect(svc.registries.get('localhost:5000').tags).toEqual([])
  })

  it('a truncation: half of the last line, then a PushReset', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    const image = svc.images.add('localhost:5000/app', { tags: ['1'], layers: [250, 150] })
    const [a, b] = image.layers.map((l) => l.shortId)
    expect(layerLine('Preparing', a)).toHaveLength(64)
    const s = start(svc, { name: 'localhost:5000/app:1', fault: { kind: 'truncate', afterLayer: 0 } })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { chunks, failure } = await drain(svc, s.lines)
    // The 62 characters of the last line (without its CRLF) cut to 31.
    expect(chunks.at(-1)).toEqual({ at: 0, text: layerLine('Preparing', b) + '{"status":"Preparing","progress' })
    expect(failure).toBeInstanceOf(PushReset)
    expect((failure as Error).message).toBe('push truncated mid-line by an injected fault')
    expect(svc.journal.ofType('push.failed')).toStrictEqual([
      { seq: 2, time: svc.clock.startedAt, type: 'push.failed', repository: 'localhost:5000/app', registry: 'localhost:5000', fault: 'truncate', layersDone: 0, bytes: 0 },
    ])
    expect(svc.pushes.list()[0]).toMatchObject({ state: 'failed', error: 'truncated mid-line by an injected fault after 0 layers' })
  })

  it('a stall after some bytes: the line that crossed them, then silence until the client leaves', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    const image = svc.images.add('localhost:5000/app', { tags: ['1'], layers: [250, 150] })
    const [a, b] = image.layers.map((l) => l.shortId)
    const client = new AbortController()
    const s = start(svc, { name: 'localhost:5000/app:1', signal: client.signal, fault: { kind: 'stall', afterLayer: 0, afterBytes: 150 } })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { chunks, it } = await drain(svc, s.lines, { stopAfter: 3 })
    // 100 B of the first layer, then the second layer's first 100 B cross 150 B: the stall strikes after that line.
    expect(chunks[2]).toEqual({ at: 100, text: pushing(b, 100, 150, `${bar(33)}     100B/150B`) + pushing(a, 100, 250, `${bar(20)}     100B/250B`) })
    expect(svc.journal.ofType('push.failed')).toStrictEqual([
      { seq: 2, time: svc.clock.startedAt + 100, type: 'push.failed', repository: 'localhost:5000/app', registry: 'localhost:5000', fault: 'stall', layersDone: 0, bytes: 200 },
    ])
    expect(svc.pushes.list()[0]).toMatchObject({ state: 'stalled', error: 'stalled by an injected fault after 0 layers: no more output until the client gives up' })
    let ended = false
    const next = it.next().then((r) => ((ended = true), r))
    await svc.clock.advance('1h')
    expect(ended).toBe(false)
    client.abort()
    expect(await next).toEqual({ done: true, value: undefined })
    expect(svc.pushes.list()[0]).toMatchObject({ state: 'cancelled', error: 'stalled by an injected fault after 0 layers; the client gave up' })
    expect(svc.journal.ofType('push.cancelled')).toEqual([])
  })

  it('a fault after 0 bytes strikes after the first Pushing line, not before the clock moves', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    const image = svc.images.add('localhost:5000/app', { tags: ['1'], layers: [250, 150] })
    const [, b] = image.layers.map((l) => l.shortId)
    const s = start(svc, { name: 'localhost:5000/app:1', fault: { kind: 'reset', afterLayer: 0, afterBytes: 0 } })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { chunks, failure } = await drain(svc, s.lines)
    expect(failure).toBeInstanceOf(PushReset)
    expect(chunks.at(-1)).toEqual({ at: 100, text: pushing(b, 100, 150, `${bar(33)}     100B/150B`) })
    expect(svc.journal.ofType('push.failed').at(-1)).toMatchObject({ layersDone: 0, bytes: 100 })
  })

  it('a client that leaves mid-push cancels it: journaled, no error line, nothing committed, the board says cancelled', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    svc.images.add('localhost:5000/app', { tags: ['1'], layers: [250, 150] })
    const client = new AbortController()
    const s = start(svc, { name: 'localhost:5000/app:1', signal: client.signal })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { it } = await drain(svc, s.lines, { stopAfter: 3 })
    client.abort()
    expect(await it.next()).toEqual({ done: true, value: undefined })
    expect(svc.journal.ofType('push.cancelled')).toStrictEqual([
      { seq: 2, time: svc.clock.startedAt + 100, type: 'push.cancelled', repository: 'localhost:5000/app', tag: '1', registry: 'localhost:5000', layersDone: 0, bytes: 200, by: 'client' },
    ])
    expect(svc.pushes.list()[0]).toMatchObject({ state: 'cancelled' })
    expect(Object.hasOwn(svc.pushes.list()[0], 'error')).toBe(false)
    await svc.clock.advance('1m')
    expect(svc.registries.get('localhost:5000').tags).toEqual([])
  })

  it('a client that leaves after the last layer’s lines, before the tag line, still cancels: the tag is not committed', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    const image = svc.images.add('localhost:5000/app', { tags: ['1'], layers: [250, 150] })
    const [a] = image.layers.map((l) => l.shortId)
    const client = new AbortController()
    const s = start(svc, { name: 'localhost:5000/app:1', signal: client.signal })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { chunks, it } = await drain(svc, s.lines, { stopAfter: 5 })
    expect(chunks[4].text.endsWith(layerLine('Pushed', a))).toBe(true)
    client.abort()
    expect(await it.next()).toEqual({ done: true, value: undefined })
    expect(svc.journal.ofType('push.')).toMatchObject([
      { type: 'push.start' },
      { type: 'push.cancelled', repository: 'localhost:5000/app', tag: '1', registry: 'localhost:5000', layersDone: 2, bytes: 400 },
    ])
    expect(svc.registries.get('localhost:5000').tags).toEqual([])
    expect(svc.pushes.list()[0]).toMatchObject({ state: 'cancelled', digests: {} })
  })

  it('the fake reset or closed under a push: an error line says the tag was not pushed', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    svc.images.add('localhost:5000/app', { tags: ['1'], layers: [250, 150] })
    const s = start(svc, { name: 'localhost:5000/app:1' })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { it } = await drain(svc, s.lines, { stopAfter: 3 })
    svc.clock.dispose()
    expect(await it.next()).toEqual({
      done: false,
      value: '{"errorDetail":{"message":"push of localhost:5000/app:1 interrupted: the fake was reset or closed; this tag was not pushed"},"error":"push of localhost:5000/app:1 interrupted: the fake was reset or closed; this tag was not pushed"}\r\n',
    })
    expect(await it.next()).toEqual({ done: true, value: undefined })
    expect(svc.journal.ofType('push.cancelled')).toMatchObject([{ repository: 'localhost:5000/app', tag: '1', registry: 'localhost:5000', layersDone: 0, bytes: 200 }])
  })

  it('a reader that stops reading marks the push cancelled on the board', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    svc.images.add('localhost:5000/app', { tags: ['1'], layers: [250, 150] })
    const s = start(svc, { name: 'localhost:5000/app:1' })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { it } = await drain(svc, s.lines, { stopAfter: 3 })
    expect(svc.pushes.list()[0].state).toBe('pushing')
    await it.return!()
    expect(svc.pushes.list()[0].state).toBe('cancelled')
  })

  it('every tag of the repository without a tag; the second finds its layers pushed with the first', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    const image = svc.images.add('localhost:5000/app', { tags: ['1', '2'], layers: [100] })
    const [a] = image.layers.map((l) => l.shortId)
    const s = start(svc, { name: 'localhost:5000/app' })
    expect(s).toMatchObject({ kind: 'stream', tags: ['1', '2'] })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { text } = await drain(svc, s.lines)
    const d = image.manifestDigest
    expect(text.split('\r\n').filter(Boolean).slice(4)).toEqual([
      `{"status":"1: digest: ${d} size: 524"}`,
      `{"progressDetail":{},"aux":{"Tag":"1","Digest":"${d}","Size":524}}`,
      `{"status":"Preparing","progressDetail":{},"id":"${a}"}`,
      `{"status":"Layer already exists","progressDetail":{},"id":"${a}"}`,
      `{"status":"2: digest: ${d} size: 524"}`,
      `{"progressDetail":{},"aux":{"Tag":"2","Digest":"${d}","Size":524}}`,
    ])
    expect(svc.journal.ofType('push.done')).toMatchObject([{ repository: 'localhost:5000/app', tags: ['1', '2'], registry: 'localhost:5000' }])
    expect(svc.pushes.list()[0].digests).toEqual({ '1': d, '2': d })
  })

  it('credentials: a refusal names no secret; the user who pushed is journaled', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    svc.registries.add('localhost:5000', { username: 'alice', password: 's3cret' })
    const image = svc.images.add('localhost:5000/app', { tags: ['1'], layers: [100] })
    const [a] = image.layers.map((l) => l.shortId)
    const header = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64')
    const refused = start(svc, { name: 'localhost:5000/app:1', authHeader: header({ username: 'alice', password: 'nope' }) })
    if (refused.kind !== 'stream') throw new Error(refused.kind)
    expect((await drain(svc, refused.lines)).chunks.at(-1)).toEqual({
      at: 0,
      text: layerLine('Preparing', a) + '{"errorDetail":{"message":"unauthorized: authentication required"},"error":"unauthorized: authentication required"}\r\n',
    })
    expect(svc.journal.entries.map(({ seq: _s, time: _t, ...e }) => e)).toStrictEqual([
      { type: 'push.start', repository: 'localhost:5000/app', tags: ['1'], registry: 'localhost:5000', auth: { username: 'alice', password: '***' } },
      { type: 'push.failed', repository: 'localhost:5000/app', registry: 'localhost:5000', message: 'unauthorized: authentication required' },
    ])
    expect(svc.pushes.list()[0]).toMatchObject({ state: 'failed', error: 'unauthorized: authentication required', layers: [{ id: a, size: 100, current: 0, status: 'waiting' }] })
    // A header that is not base64 is journaled as such, and refused the same way.
    const garbled = start(svc, { name: 'localhost:5000/app:1', authHeader: '!!!' })
    if (garbled.kind !== 'stream') throw new Error(garbled.kind)
    expect((await drain(svc, garbled.lines)).text).toContain('"error":"no basic auth credentials"')
    expect(svc.journal.ofType('push.start').at(-1)).toMatchObject({ auth: { invalid: 'X-Registry-Auth is not base64' } })
    const ok = start(svc, { name: 'localhost:5000/app:1', authHeader: header({ username: 'alice', password: 's3cret' }) })
    if (ok.kind !== 'stream') throw new Error(ok.kind)
    await drain(svc, ok.lines)
    expect(svc.journal.ofType('push.tag').at(-1)).toMatchObject({ user: 'alice' })
    expect(svc.journal.ofType('push.done').at(-1)).toMatchObject({ user: 'alice' })
    expect(svc.registries.get('localhost:5000').get('localhost:5000/app', '1')?.pushedBy).toBe('alice')
  })

  it('an unknown image or tag is not found, a bad reference invalid; neither journals a push', () => {
    const svc = createService({ seed: 3 })
    svc.images.add('localhost:5000/app', { tags: ['1', '2'], layers: [100] })
    expect(start(svc, { name: 'localhost:5000/nope', tag: '1' })).toEqual({ kind: 'not-found', message: 'No such image: localhost:5000/nope:1' })
    expect(start(svc, { name: 'localhost:5000/nope' })).toEqual({ kind: 'not-found', message: 'No such image: localhost:5000/nope' })
    expect(start(svc, { name: 'localhost:5000/app:3' })).toEqual({ kind: 'not-found', message: 'No such image: localhost:5000/app:3' })
    expect(start(svc, { name: 'localhost:5000/app:1', tag: '3' })).toEqual({ kind: 'not-found', message: 'No such image: localhost:5000/app:3' })
    expect(start(svc, { name: 'localhost:5000/App' })).toEqual({
      kind: 'invalid',
      message: 'invalid reference format "localhost:5000/App": expected lower-case [host[:port]/]path[:tag], e.g. "localhost:5000/team/app:1.0".',
    })
    expect(svc.journal.entries).toEqual([])
    expect(svc.pushes.list()).toEqual([])
  })

  it('works without a board (every report to it is optional)', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    const image = svc.images.add('localhost:5000/app', { tags: ['1'], layers: [100, 200] })
    holdLayer(svc, image, 0)
    const deps = { images: svc.images, registries: svc.registries, clock: svc.clock, journal: svc.journal, bandwidth: 2000 }
    const run = async ({ name, ...req }: Omit<PushRequest, 'signal' | 'target'> & { name: string }) => {
      const target = readPushTarget(name, undefined)
      if ('problem' in target) throw new Error(target.problem)
      const s = startPush(deps, { signal: new AbortController().signal, ...req, target })
      if (s.kind !== 'stream') throw new Error(s.kind)
      return drain(svc, s.lines)
    }
    const pushed = await run({ name: 'localhost:5000/app:1' })
    expect(pushed.text).toContain('"aux":{"Tag":"1"')
    expect(pushed.failure).toBeUndefined()
    expect(svc.journal.ofType('push.done')).toHaveLength(1)
    expect((await run({ name: 'localhost:5000/app:1', fault: { kind: 'reset', afterLayer: 0 } })).failure).toBeInstanceOf(PushReset)
    svc.registries.add('localhost:5001', { token: 't' })
    svc.images.tag('localhost:5000/app:1', 'localhost:5001/app:1')
    expect((await run({ name: 'localhost:5001/app:1' })).text).toContain('"error":"unauthorized: authentication required"')
    expect(svc.pushes.list()).toEqual([])
  })

  it('under the auto clock, the ticks it skips to at once go out together, in chunks of at most 64 KiB, the same bytes', async () => {
    const layers = [100_000_000, 100_000_000, 100_000_000, 100_000_000, 100_000_000]
    const virtual = createService({ seed: 3 })
    virtual.images.add('localhost:5000/big:1', { layers })
    const v = start(virtual, { name: 'localhost:5000/big:1' })
    if (v.kind !== 'stream') throw new Error(v.kind)
    const reference = await drain(virtual, v.lines)
    // 500 MB at 20 MB/s: 250 ticks of 100 ms, each a chunk of its own under the virtual clock.
    const ticks = reference.chunks.filter((c) => c.text.includes('"Pushing"')).length
    expect(ticks).toBe(250)
    const auto = createService({ seed: 3, clock: 'auto' }, hostTimers)
    try {
      auto.images.add('localhost:5000/big:1', { layers })
      const a = start(auto, { name: 'localhost:5000/big:1' })
      if (a.kind !== 'stream') throw new Error(a.kind)
      const chunks: string[] = []
      for await (const c of a.lines) chunks.push(c)
      expect(chunks.join('')).toBe(reference.text)
      expect(chunks.length).toBeLessThan(ticks)
      // A chunk is handed on once it reaches 64 KiB: at most that plus one tick's lines (5 layers, under 1 KiB).
      for (const c of chunks) expect(c.length).toBeLessThan(65_536 + 1024)
      expect(auto.clock.elapsed()).toBeGreaterThanOrEqual(25_000)
    } finally {
      auto.clock.dispose()
    }
  })
})

// Found by mutation testing (src/service/push.ts, 2026-12-08): what the plan is told when a fault misses, Go's escapes
// in an error line, mounts from Docker Hub repositories, what a mount or a blob given by hand leaves in the registry,
// a stall on the board, the client leaving with the last chunk, the wait of a bandwidth below a byte per layer a tick.
describe('startPush: faults missed, escapes, mounts, the board', () => {
  it('a fault that never struck tells the plan why, naming afterLayer or afterBytes and whether the client left', async () => {
    for (const [fault, leave, why] of [
      [{ kind: 'error', message: 'x', afterLayer: 5 }, false, "the push of localhost:5000/app ended (done or refused) before the fault's afterLayer 5"],
      [{ kind: 'error', message: 'x', afterLayer: 0, afterBytes: 1_000_000 }, false, "the push of localhost:5000/app ended (done or refused) before the fault's afterBytes 1000000"],
      [{ kind: 'reset', afterLayer: 9 }, true, "the push of localhost:5000/app ended (its client left) before the fault's afterLayer 9"],
    ] as const) {
      const svc = createService({ seed: 3, pushBandwidth: 2000 })
      svc.images.add('localhost:5000/app:1', { layers: [100, 300] })
      const client = new AbortController()
      const missed: string[] = []
      const s = start(svc, { name: 'localhost:5000/app:1', signal: client.signal, fault, faultMissed: (w) => missed.push(w) })
      if (s.kind !== 'stream') throw new Error(s.kind)
      const { it: rest } = await drain(svc, s.lines, { stopAfter: leave ? 2 : undefined })
      if (leave) {
        const next = rest.next()
        client.abort()
        await next
      }
      expect(missed).toEqual([why])
    }
  })

  it('an error line escapes <, > and & as Go writes them', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    svc.images.add('localhost:5000/app:1', { layers: [100] })
    const s = start(svc, { name: 'localhost:5000/app:1', fault: { kind: 'error', message: 'denied: <team> & co', afterLayer: 0 } })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { text } = await drain(svc, s.lines)
    expect(text.endsWith('{"errorDetail":{"message":"denied: \\u003cteam\\u003e \\u0026 co"},"error":"denied: \\u003cteam\\u003e \\u0026 co"}\r\n')).toBe(true)
  })

  it('a layer another Docker Hub repository holds is mounted from it by its path (library/ for an official image), and this repository holds it at once', async () => {
    for (const [holder, from] of [
      ['team/base', 'team/base'],
      ['alpine', 'library/alpine'],
    ]) {
      const svc = createService({ seed: 3, pushBandwidth: 2000 })
      const image = svc.images.add('team/app:1', { layers: [100, 200] })
      svc.registries.storeBlob('docker.io', image.layers[0].digest, holder)
      const s = start(svc, { name: 'team/app:1', fault: { kind: 'error', message: 'x', afterLayer: 1 } })
      if (s.kind !== 'stream') throw new Error(s.kind)
      const { text } = await drain(svc, s.lines)
      expect(text).toContain(layerLine(`Mounted from ${from}`, image.layers[0].shortId))
      // Mounted before the push failed: the mount stays.
      expect(svc.registries.get('docker.io').holders(image.layers[0].digest)).toEqual([holder, 'team/app'])
    }
  })

  it('a blob given to the registry by hand exists, and no repository is recorded as holding it', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    const image = svc.images.add('localhost:5000/app:1', { layers: [100, 200] })
    svc.registries.storeBlob('localhost:5000', image.layers[0].digest)
    const s = start(svc, { name: 'localhost:5000/app:1', fault: { kind: 'error', message: 'x', afterLayer: 1 } })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { text } = await drain(svc, s.lines)
    expect(text).toContain(layerLine('Layer already exists', image.layers[0].shortId))
    expect(svc.registries.get('localhost:5000').holders(image.layers[0].digest)).toEqual([])
  })

  it('a stall shows on the board, then how it ended: the client giving up, the server closing or the fake reset', async () => {
    for (const end of ['client', 'server', 'reset'] as const) {
      const svc = createService({ seed: 3, pushBandwidth: 2000 })
      svc.images.add('localhost:5000/app:1', { layers: [100] })
      const client = new AbortController()
      const halt = new AbortController()
      // A halt signal only where the way in gives one (a server): a push without one ends by a reset.
      const s = start(svc, { name: 'localhost:5000/app:1', signal: client.signal, halt: end === 'server' ? halt.signal : undefined, fault: { kind: 'stall', afterLayer: 0 } })
      if (s.kind !== 'stream') throw new Error(s.kind)
      const { it: rest } = await drain(svc, s.lines, { stopAfter: 2 })
      const next = rest.next()
      await svc.clock.advance(100)
      expect(svc.pushes.list()[0]).toMatchObject({ state: 'stalled', error: 'stalled by an injected fault after 0 layers: no more output until the client gives up' })
      if (end === 'client') client.abort()
      else if (end === 'server') halt.abort()
      else svc.clock.dispose()
      await next
      expect(svc.pushes.list()[0]).toMatchObject({
        state: 'cancelled',
        error: `stalled by an injected fault after 0 layers; ${{ client: 'the client gave up', server: "the fake's server closed", reset: 'the fake was reset or closed' }[end]}`,
      })
    }
  })

  it('a client that leaves with the last chunk on its way: journaled as cancelled by the client', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    svc.images.add('localhost:5000/app:1', { layers: [100] })
    const client = new AbortController()
    const s = start(svc, { name: 'localhost:5000/app:1', signal: client.signal })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { it: rest } = await drain(svc, s.lines, { stopAfter: 3 })
    client.abort()
    expect(await rest.next()).toEqual({ done: true, value: undefined })
    expect(svc.journal.ofType('push.cancelled')).toStrictEqual([
      expect.objectContaining({ repository: 'localhost:5000/app', tag: '1', registry: 'localhost:5000', layersDone: 1, bytes: 100, by: 'client' }),
    ])
  })

  it('below a byte per active layer a tick, a step waits the ticks the bytes still due take (15 B/s, four layers: 300, 300, 200 ms)', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 15 })
    svc.images.add('localhost:5000/app:1', { layers: [100, 100, 100, 100] })
    const s = start(svc, { name: 'localhost:5000/app:1' })
    if (s.kind !== 'stream') throw new Error(s.kind)
    const { chunks } = await drain(svc, s.lines, { stopAfter: 5 })
    expect(chunks.map((c) => c.at)).toEqual([0, 0, 300, 600, 800])
  })
})

describe('startPush without a board, a halt signal or a faultMissed callback (each optional)', () => {
  it('an invalid port, a stall ended by a reset, a registry out of reach and a fault that misses run to their ends', async () => {
    const svc = createService({ seed: 3, pushBandwidth: 2000 })
    svc.images.add('r1:99999/app:1', { layers: [100] })
    svc.images.add('127.0.0.1:5055/app:1', { layers: [100] })
    const deps = { images: svc.images, registries: svc.registries, clock: svc.clock, journal: svc.journal, bandwidth: 2000 }
    const open = (name: string, fault?: PushRequest['fault'], signal = new AbortController().signal) => {
      const target = readPushTarget(name, undefined)
      if ('problem' in target) throw new Error(target.problem)
      const s = startPush(deps, { signal, fault, target })
      if (s.kind !== 'stream') throw new Error(s.kind)
      return s.lines
    }
    expect((await drain(svc, open('r1:99999/app:1'))).text).toContain('invalid port')
    expect((await drain(svc, open('127.0.0.1:5055/app:1', { kind: 'error', message: 'x', afterLayer: 5 }))).failure).toBeUndefined()
    const client = new AbortController()
    const { it: retrying, failure } = await drain(svc, open('127.0.0.1:5055/app:1', { kind: 'unreachable', afterLayer: 0, afterBytes: 0, dies: true }, client.signal), { stopAfter: 4 })
    expect(failure).toBeUndefined()
    const left = retrying.next()
    client.abort()
    expect(await left).toEqual({ done: true, value: undefined })
    const gone = new AbortController()
    const { it: given } = await drain(svc, open('127.0.0.1:5055/app:1', { kind: 'stall', afterLayer: 0 }, gone.signal), { stopAfter: 2 })
    const up = given.next()
    gone.abort()
    expect(await up).toEqual({ done: true, value: undefined })
    const { it: stalled } = await drain(svc, open('127.0.0.1:5055/app:1', { kind: 'stall', afterLayer: 0 }), { stopAfter: 2 })
    const last = stalled.next()
    svc.clock.dispose()
    expect((await last).value).toContain('interrupted: the fake was reset or closed')
  })
})

describe('pushedByIdProblem', () => {
  it('only a sha256:<hex> push is read as an id: a repository named by an image’s short id is no problem of this kind (not found as a push)', () => {
    const svc = createService({ seed: 3 })
    const image = svc.images.add('app:1', { layers: [100] })
    const short = image.id.slice(7, 19)
    const target = readPushTarget(short, undefined)
    if ('problem' in target) throw new Error(target.problem)
    expect(pushedByIdProblem(svc.images, target)).toBeUndefined()
    const byId = readPushTarget(`sha256:${image.id.slice(7)}`, undefined)
    if ('problem' in byId) throw new Error(byId.problem)
    // A repository named sha256 pushed without a tag pushes its tags, as any other.
    svc.images.add('sha256:latest', { layers: [100] })
    const named = readPushTarget('sha256', undefined)
    if ('problem' in named) throw new Error(named.problem)
    expect(pushedByIdProblem(svc.images, named)).toBeUndefined()
    expect(pushedByIdProblem(svc.images, byId)).toMatch(/^No such image: sha256:[0-9a-f]{64}: a push takes a repository and tag, not an image id/)
  })
})
