import { describe, expect, it } from 'vitest'
import { createDockside, type ClockMode } from '../../../../src/index'

/** Pushes one image through a real server with plain `fetch`, as a client that never touches the clock. */
async function pushThroughServer(mode: ClockMode, layers: number[]) {
  await using fake = createDockside({ seed: 11, clock: mode })
  fake.images.add('localhost:5000/big:1', { layers })
  await using server = await fake.listen({ port: 0 })
  const wall = performance.now()
  const res = await fetch(`${server.url}/v1.47/images/localhost:5000/big/push?tag=1`, { method: 'POST' })
  const text = await res.text()
  return {
    wallMs: performance.now() - wall,
    clockMs: fake.clock.now() - fake.clock.startedAt,
    text,
    pushedAt: fake.registries.get('localhost:5000').tags.map((t) => t.time - fake.clock.startedAt),
  }
}

describe('push pacing under the auto and real clocks, through the real server', () => {
  it('auto: a 10 GB image streams whole at once, byte-identical every run, taking 500 s of clock time', async () => {
    const tenGB = [4_000_000_000, 3_000_000_000, 3_000_000_000]
    const a = await pushThroughServer('auto', tenGB)
    expect(a.text.trimEnd().split('\n').at(-1)).toContain('"aux":{"Tag":"1"')
    // 10 GB at the default 20 MB/s is 500 s of virtual time (three layers share the bandwidth).
    expect(a.clockMs).toBeGreaterThanOrEqual(500_000)
    expect(a.clockMs).toBeLessThan(510_000)
    expect(a.wallMs).toBeLessThan(15_000)
    const b = await pushThroughServer('auto', tenGB)
    expect(b.text).toBe(a.text)
    // Times: the scripted duration, plus only the wall time the I/O between jumps took (docs/decisions/0001).
    for (const t of [...a.pushedAt, ...b.pushedAt]) {
      expect(t).toBeGreaterThanOrEqual(500_000)
      expect(t).toBeLessThan(502_000)
    }
  })

  it('real: a 30 MB image takes visible but short wall time at the default bandwidth', async () => {
    const r = await pushThroughServer('real', [2_500_000, 9_000_000, 18_500_000])
    expect(r.text).toContain('"aux"')
    // 30 MB at 20 MB/s: about 1.5 s (the slowest layer sets the end).
    expect(r.wallMs).toBeGreaterThan(900)
    expect(r.wallMs).toBeLessThan(5_000)
  })
})
