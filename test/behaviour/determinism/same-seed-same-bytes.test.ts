import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createDockside } from '../../../src/index'
import { drainWithClock, enc, registryAuth } from '../../support/helpers'

/** Opens a ws client and collects raw frames as text. */
async function collect(url: string) {
  const ws = new WebSocket(url)
  const frames: string[] = []
  ws.on('message', (data, isBinary) => frames.push(`${isBinary ? 'binary' : 'text'}:${data.toString()}`))
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  const closed = new Promise<void>((r) => ws.once('close', () => r()))
  return { frames, close: () => (ws.close(), closed) }
}

/** One fixed script, run through the real server; returns everything a user could compare between runs. */
async function runScript(seed: number) {
  await using fake = createDockside({ seed })
  await using server = await fake.listen({ port: 0 })
  fake.registries.add('localhost:5000', { username: 'alice', password: 'pw' })
  fake.images.add('localhost:5000/team/app', { tags: ['1.0', 'latest'], layers: [150_000, 3_000_000, 800_000] })
  fake.images.add('busybox:latest', { layers: 2 })

  const all = await collect(`${server.wsUrl}/events/ws`)
  const filtered = await collect(`${server.wsUrl}/events/ws?filters=${enc({ event: ['stop'], label: ['tier'] })}`)

  const a = fake.containers.create({ image: 'busybox:latest', labels: { tier: 'web', note: 'a=b' } })
  const b = fake.containers.create({ image: 'localhost:5000/team/app:1.0', instanceType: 'm1' })
  const c = fake.containers.create({ name: 'fixed', image: 'busybox', labels: { tier: '' } })
  a.start()
  await fake.clock.advance('1.5s')
  b.start()
  c.start()
  await fake.clock.advance(333)
  a.stop({ exitCode: 137 })
  c.stop()
  await fake.clock.advance('2m')
  b.stop({ exitCode: 1 })
  // Every frame of both sockets has arrived once the last event reached the unfiltered one.
  while (all.frames.length < 6 || filtered.frames.length < 2) await new Promise((r) => setImmediate(r))

  const res = await fetch(`${server.url}/v1.47/images/localhost:5000/team/app/push`, {
    method: 'POST',
    headers: { 'X-Registry-Auth': registryAuth({ username: 'alice', password: 'pw' }, true) },
  })
  const pushText = await drainWithClock(res, () => fake.clock.advance(100))
  await all.close()
  await filtered.close()

  return {
    ids: fake.containers.list().map((x) => x.id),
    names: fake.containers.list().map((x) => x.name),
    digests: fake.images.list().map((i) => [i.image.id, i.image.manifestDigest, ...i.image.layers.map((l) => l.digest)]),
    frames: all.frames,
    filtered: filtered.frames,
    pushText,
    registry: JSON.stringify(fake.registries.list()),
    journal: fake.journal.entries.map(({ seq, time, type }) => `${seq} ${time} ${type}`),
  }
}

describe('determinism', () => {
  it('the same seed and script give byte-identical ids, names, digests, frames and push lines', async () => {
    const one = await runScript(42)
    const two = await runScript(42)
    // The script really produced something to compare.
    expect(one.frames).toHaveLength(6)
    expect(one.filtered).toHaveLength(2)
    expect(one.frames.every((f) => f.startsWith('text:{"status":'))).toBe(true)
    expect(one.pushText).toContain('"aux":{"Tag":"latest"')
    expect(one.names.filter((n) => n !== 'fixed').every((n) => /^[a-z]+_[a-z]+$/.test(n))).toBe(true)
    expect(one.ids.every((id) => /^[0-9a-f]{64}$/.test(id))).toBe(true)

    expect(two.ids).toEqual(one.ids)
    expect(two.names).toEqual(one.names)
    expect(two.digests).toEqual(one.digests)
    expect(two.frames.join('\n')).toBe(one.frames.join('\n'))
    expect(two.filtered.join('\n')).toBe(one.filtered.join('\n'))
    expect(two.pushText).toBe(one.pushText)
    expect(two.registry).toBe(one.registry)
    expect(two.journal).toEqual(one.journal)
  })

  it('event times come from the clock, not the wall', async () => {
    const run = await runScript(42)
    const times = run.frames.map((f) => JSON.parse(f.slice(5)) as { time: number; timeNano: number })
    const start = Date.UTC(2026, 0, 1) / 1000
    expect(times.map((t) => t.time - start)).toEqual([0, 1, 1, 1, 1, 121])
    expect(run.frames[3]).toContain(`"timeNano":${(BigInt(Date.UTC(2026, 0, 1)) + 1833n) * 1_000_000n}}`)
  })

  it('a different seed gives different ids, names, digests and streams', async () => {
    const one = await runScript(42)
    const other = await runScript(43)
    expect(other.ids).not.toEqual(one.ids)
    expect(other.names.filter((n) => n !== 'fixed')).not.toEqual(one.names.filter((n) => n !== 'fixed'))
    expect(other.digests.flat().some((d, i) => d !== one.digests.flat()[i])).toBe(true)
    expect(other.digests.flat().filter((d) => one.digests.flat().includes(d))).toEqual([])
    expect(other.frames).not.toEqual(one.frames)
    expect(other.pushText).not.toBe(one.pushText)
  })
})
