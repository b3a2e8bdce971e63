import { readdir } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { createDockside, loadScenario, parseScenario } from '../../src/index'

const EXAMPLES = new URL('../../examples/', import.meta.url).pathname

/** Reads a push response to its end while advancing the clock; reports how it ended. */
async function push(fake: ReturnType<typeof createDockside>, url: string) {
  const res = await fetch(`${url}/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST', headers: { 'x-dockside-client': 'ci' } })
  if (res.status !== 200) return { status: res.status, retryAfter: res.headers.get('retry-after'), text: await res.text() }
  const reader = res.body!.getReader()
  let text = ''
  let failed = false
  const read = (async () => {
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value)
    } catch {
      failed = true
    }
  })()
  let finished = false
  void read.then(() => (finished = true))
  for (let i = 0; !finished && i < 500; i++) {
    await fake.clock.advance('100ms')
    await new Promise((r) => setImmediate(r))
  }
  await read
  return { status: 200, failed, text }
}

describe('example chaos scenarios', () => {
  it('every example validates against the schema', async () => {
    const files = (await readdir(EXAMPLES)).filter((f) => /\.ya?ml$|\.json$/.test(f))
    expect(files).toEqual(expect.arrayContaining(['chaos-reconnect.yaml', 'chaos-push.yaml']))
    for (const f of files) await expect(loadScenario(EXAMPLES + f)).resolves.toBeTruthy()
  })

  it('docs/scenarios.md names every scenario field and every timeline step field of the schema', async () => {
    const { readFile } = await import('node:fs/promises')
    const doc = await readFile(new URL('../../docs/scenarios.md', import.meta.url), 'utf8')
    const schema = JSON.parse(await readFile(new URL('../../docs/scenario.schema.json', import.meta.url), 'utf8'))
    const fields = [...Object.keys(schema.properties), ...Object.keys(schema.properties.timeline.items.properties)].filter((f) => f !== '$schema')
    expect(fields).toEqual(expect.arrayContaining(['rateLimit', 'retainEventsFor', 'close', 'drop', 'faults']))
    expect(fields.filter((f) => !new RegExp(`\`${f}[\`:?,\\[ ]`).test(doc))).toEqual([])
  })

  it('a storyboard step that is not one action is refused with the allowed actions', async () => {
    await expect(parseScenario('timeline:\n  - { at: 1s }\n', 'bad.yaml')).rejects.toThrow(/bad\.yaml.*timeline\[0\].*"restart", "close", "drop", "faults" or "push"/)
    await expect(parseScenario('rateLimit: { limit: 2 }\n', 'bad.yaml')).rejects.toThrow(/window/)
  })

  it('chaos-push.yaml: reset, truncated line, rate limit with a truthful Retry-After, 503, then a slow dribble', async () => {
    const fake = createDockside({ scenario: await loadScenario(EXAMPLES + 'chaos-push.yaml') })
    const server = await fake.listen({ port: 0 })
    try {
      const reset = await push(fake, server.url)
      expect(reset).toMatchObject({ status: 200, failed: true })
      expect(reset.text).toContain('"Pushed"')
      const truncated = await push(fake, server.url)
      expect(truncated).toMatchObject({ status: 200, failed: true })
      expect(() => JSON.parse(truncated.text.split('\n').at(-1)!)).toThrow()
      const limited = await push(fake, server.url)
      expect(limited.status).toBe(429)
      const wait = Number(limited.retryAfter) * 1000
      // Retry-After is whole seconds, rounded up: a second earlier is still refused, at Retry-After it passes.
      await fake.clock.advance(wait - 1000)
      expect((await push(fake, server.url)).status).toBe(429)
      await fake.clock.advance(1000)
      const unavailable = await push(fake, server.url)
      expect(unavailable).toMatchObject({ status: 503, retryAfter: '2' })
      await fake.clock.advance('10s')
      const t0 = fake.clock.elapsed()
      // The answer itself waits 2 s of clock time: move the clock while it is pending.
      let answered = false
      const pending = push(fake, server.url).finally(() => (answered = true))
      while (!answered) {
        await fake.clock.advance('100ms')
        await new Promise((r) => setImmediate(r))
      }
      const slow = await pending
      expect(slow).toMatchObject({ status: 200, failed: false })
      const lines = slow.text.trim().split('\n')
      expect(lines.at(-1)).toContain('"aux"')
      // 2 s of connect latency, then each line 200 ms apart.
      expect(fake.clock.elapsed() - t0).toBeGreaterThanOrEqual(2000 + 200 * lines.length)
      expect(fake.registries.get('localhost:5000').tags.map((t) => t.tag)).toEqual(['1.0'])
      fake.faults.assertAllFired()
    } finally {
      await server.close()
      await fake.close()
    }
  })
})
