// Regression found by the fidelity audit: reset() (or close() with in-process hooks) under a live push or
// `GET /events` stream disposed the clock the stream was sleeping on, so the response never ended.
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'

const fakes: Dockside[] = []
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close()
})

async function started() {
  const fake = createDockside({ pushBandwidth: 1000 })
  fakes.push(fake)
  fake.images.add('localhost:5000/team/app:1.0', { layers: [50_000] })
  return { fake, url: (await fake.listen({ port: 0 })).url }
}

async function firstChunk(reader: ReadableStreamDefaultReader<Uint8Array>) {
  const { value } = await reader.read()
  return new TextDecoder().decode(value)
}

async function rest(reader: ReadableStreamDefaultReader<Uint8Array>) {
  let text = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return text
    text += new TextDecoder().decode(value)
  }
}

describe('reset() under live streams (audit)', () => {
  it('bug: a push mid-stream hung forever after reset(); now it ends with an error line and nothing is committed', async () => {
    const { fake, url } = await started()
    const res = await fetch(`${url}/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST' })
    const reader = res.body!.getReader()
    expect(await firstChunk(reader)).toContain('The push refers to repository')
    await fake.clock.advance('1s')
    await fake.reset()
    const tail = await rest(reader)
    const last = JSON.parse(tail.trim().split('\n').at(-1)!)
    expect(last).toEqual({ errorDetail: { message: expect.stringMatching(/interrupted: the fake was reset or closed/) }, error: expect.any(String) })
    expect(fake.registries.list().flatMap((r) => r.tags)).toEqual([])
  })

  it('bug: a docker-style GET /events stream hung forever after reset(); now it ends', async () => {
    const { fake, url } = await started()
    const res = await fetch(`${url}/events`)
    expect(res.status).toBe(200)
    const reader = res.body!.getReader()
    const c = fake.containers.create({ name: 'web', image: 'nginx' })
    c.start()
    expect(await firstChunk(reader)).toContain('"status":"start"')
    await fake.reset()
    expect(await rest(reader)).toBe('')
  })
})
