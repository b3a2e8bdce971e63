import { describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'
import type { ProtoRequest } from '../../../src/protocol/types'
import { humanSize, progressText } from '../../../src/service/push'

describe('humanSize (Docker units.HumanSize, %.4g with decimal units)', () => {
  it.each([
    [0, '0B'],
    [528, '528B'],
    [999, '999B'],
    [1000, '1kB'],
    [1500, '1.5kB'],
    [68_608, '68.61kB'],
    [999_999, '1000kB'],
    [5_613_130, '5.613MB'],
    [1_000_000_000, '1GB'],
    [1_234_567_890, '1.235GB'],
    [10_737_418_240, '10.74GB'],
  ])('%d bytes is %s', (bytes, text) => {
    expect(humanSize(bytes)).toBe(text)
  })
})

describe('humanSize at rounding ties and at each scale (Go\'s %.4g rounds the exact binary value)', () => {
  it.each([
    // 3, 2 and 1 digits before the point keep 1, 2 and 3 after it.
    [123_456, '123.5kB'],
    [12_345_678, '12.35MB'],
    [1_234_567, '1.235MB'],
    // Decimal ties are not ties in binary: 1.0005 is 1.000499999..., so it rounds down, as the daemon prints it.
    [1_000_500, '1MB'],
    [1_002_500, '1.002MB'],
    [1_234_500, '1.234MB'],
    [100_050, '100kB'],
    // go-units' decimal units end at YB; past it the count grows.
    [1e18, '1EB'],
    [1.5e21, '1.5ZB'],
    [1e24, '1YB'],
    [1e27, '1000YB'],
    [1.23456e27, '1235YB'],
  ])('%d bytes is %s', (bytes, text) => {
    expect(humanSize(bytes)).toBe(text)
  })
})

describe('progressText (Docker JSONProgress.String on a 200-wide daemon)', () => {
  it('matches the real daemon sample', () => {
    expect(progressText(68_608, 5_613_130)).toBe(`[>${' '.repeat(50)}]  68.61kB/5.613MB`)
  })
  it('is a 50-wide bar with `>` and the counts right-aligned in 8', () => {
    expect(progressText(2_806_565, 5_613_130)).toBe(`[${'='.repeat(25)}>${' '.repeat(25)}]  2.807MB/5.613MB`)
    expect(progressText(5_613_130, 5_613_130)).toBe(`[${'='.repeat(50)}>]  5.613MB/5.613MB`)
    expect(progressText(500, 1000)).toBe(`[${'='.repeat(25)}>${' '.repeat(25)}]     500B/1kB`)
  })
  it('uses Docker percentage rounding: int(current/total*100)/2', () => {
    for (const [c, t] of [[1, 50], [3, 100], [199, 10_000], [58, 100], [99_999, 100_000]]) {
      const pct = Math.trunc((c / t) * 100) >> 1
      expect(progressText(c, t).startsWith(`[${'='.repeat(pct)}>${' '.repeat(50 - pct)}] `)).toBe(true)
    }
  })
})

function request(fake: Dockside, path: string, headers: Record<string, string> = {}): ProtoRequest {
  return { method: 'POST', url: path, headers, signal: new AbortController().signal, body: async () => '' }
}

/** Runs a push through the protocol on a virtual clock, advancing 100 ms whenever the stream waits. */
async function push(fake: Dockside, path: string, headers: Record<string, string> = {}) {
  const res = await fake.protocol.handle(request(fake, path, headers))
  expect(res.status).toBe(200)
  expect(res.headers['content-type']).toBe('application/json')
  const chunks: { at: number; text: string }[] = []
  const it = (res.body as AsyncIterable<string>)[Symbol.asyncIterator]()
  for (;;) {
    let settled = false
    const p = it.next().then((r) => ((settled = true), r))
    for (let i = 0; i < 5 && !settled; i++) await Promise.resolve()
    while (!settled) await fake.clock.advance(100)
    const r = await p
    if (r.done) break
    chunks.push({ at: fake.clock.elapsed(), text: r.value })
  }
  const text = chunks.map((c) => c.text).join('')
  // Docker's streamformatter ends every line with CRLF; a bare LF would be a line the daemon never sends.
  expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/)
  return { chunks, text, lines: text.split('\r\n').filter(Boolean) }
}

describe('the push stream', () => {
  it('sends every line in Docker key order, one compact object per line', async () => {
    await using fake = createDockside({ seed: 5, pushBandwidth: 1_000_000 })
    fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: [250_000, 400_000, 120_000, 90_000, 300_000, 50_000, 70_000] })
    const { text, lines } = await push(fake, '/v1.47/images/localhost:5000/team/app/push?tag=1.0')
    expect(text.endsWith('\r\n')).toBe(true)
    // Compact, and escaped as Go's encoding/json escapes (`>` in the bar is \u003e).
    const goJson = (v: unknown) => JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    for (const l of lines) expect(goJson(JSON.parse(l))).toBe(l)
    expect(lines.find((l) => l.includes('"Pushing"'))).toContain('\\u003e')
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(parsed[0]).toEqual({ status: 'The push refers to repository [localhost:5000/team/app]' })
    const keysOf = (status: string) => parsed.filter((p) => p.status === status).map((p) => Object.keys(p).join(','))
    for (const s of ['Preparing', 'Waiting', 'Pushed']) {
      expect(keysOf(s).length).toBeGreaterThan(0)
      expect(new Set(keysOf(s))).toEqual(new Set(['status,progressDetail,id']))
    }
    expect(new Set(keysOf('Pushing'))).toEqual(new Set(['status,progressDetail,progress,id']))
    // 7 layers, 5 at a time: the last two wait.
    expect(keysOf('Preparing')).toHaveLength(7)
    expect(keysOf('Waiting')).toHaveLength(2)
    expect(keysOf('Pushed')).toHaveLength(7)
    for (const p of parsed.filter((x) => x.id !== undefined)) expect(p.id).toMatch(/^[0-9a-f]{12}$/)
    for (const p of parsed.filter((x) => x.status === 'Pushing')) {
      const d = p.progressDetail as { current: number; total: number }
      expect(Object.keys(d)).toEqual(['current', 'total'])
      // Docker's bar: '[', 50 cells of '=' (2% each) plus the '>' head, ']', then current/total in decimal units.
      expect(p.progress).toMatch(/^\[=*>? *\] +\d+(\.\d+)?[kM]?B\/\d+(\.\d+)?[kM]?B$/)
      expect((p.progress as string).indexOf(']')).toBe(52)
    }
    // Literal fixtures (seed 5), not values the code under test computes.
    expect(lines.at(-2)).toBe('{"status":"1.0: digest: sha256:f4f4ae4c6d0a483b47854acb3b129dfc18aedae5da01743ceaf6824acadeab0f size: 1784"}')
    expect(lines.at(-1)).toBe('{"progressDetail":{},"aux":{"Tag":"1.0","Digest":"sha256:f4f4ae4c6d0a483b47854acb3b129dfc18aedae5da01743ceaf6824acadeab0f","Size":1784}}')
  })

  it('sends Pushing updates at most every 100 ms of clock time, per layer', async () => {
    await using fake = createDockside({ seed: 5, pushBandwidth: 1_000_000 })
    fake.images.add('busybox', { tags: ['latest'], layers: [2_000_000] })
    const { chunks } = await push(fake, '/images/busybox/push')
    const pushing = chunks.filter((c) => c.text.includes('"Pushing"'))
    // 2 MB at 1 MB/s in 100 ms steps: 20 updates over 2 s of clock time.
    expect(pushing).toHaveLength(20)
    for (let i = 1; i < pushing.length; i++) expect(pushing[i].at - pushing[i - 1].at).toBeGreaterThanOrEqual(100)
    for (const c of pushing) expect(c.text.match(/"Pushing"/g)).toHaveLength(1)
    expect(pushing.at(-1)!.at).toBe(2000)
  })

  it('reports layers the registry already holds and repeats digest and aux per tag', async () => {
    await using fake = createDockside({ seed: 9 })
    fake.images.add('localhost:5000/app', { tags: ['1', '2'], layers: [1000, 2000] })
    const first = await push(fake, '/images/localhost:5000/app/push')
    expect(first.lines.filter((l) => l.includes('"aux"'))).toHaveLength(2)
    expect(first.lines.filter((l) => l.includes('digest: sha256:'))).toHaveLength(2)
    // The second tag's layers were pushed with the first.
    expect(first.lines.filter((l) => l.includes('"Layer already exists"'))).toHaveLength(2)
    const again = await push(fake, '/images/localhost:5000/app:1/push')
    expect(again.lines.filter((l) => l.startsWith('{"status":"Layer already exists","progressDetail":{},"id":"'))).toHaveLength(2)
    expect(again.text).not.toContain('"Pushing"')
  })

  it('writes an error line with errorDetail first, then error', async () => {
    await using fake = createDockside({ seed: 9 })
    fake.registries.add('localhost:5000', { username: 'u', password: 'p' })
    fake.images.add('localhost:5000/app', { tags: ['1'], layers: 1 })
    const { lines } = await push(fake, '/images/localhost:5000/app/push')
    // No credentials at all: the daemon refuses before asking the registry, as before any `docker login`.
    expect(lines.at(-1)).toBe('{"errorDetail":{"message":"no basic auth credentials"},"error":"no basic auth credentials"}')
  })
})
