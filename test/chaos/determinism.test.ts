import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createDockside, type FaultRule } from '../../src/index'

const PLAN: FaultRule[] = [
  { id: 'flaky-close', on: 'events', close: { code: 4000, reason: 'chaos' }, afterMessages: 2, probability: 0.5, times: 'always' },
  { id: 'slow', on: 'events', latency: { perEvent: '20ms', jitter: '80ms' } },
  { id: 'flaky-refuse', on: 'events', reply: 503, probability: 0.3, times: 'always' },
]

/** One chaos run: a client reconnecting on every close while containers churn. Returns every decision and every byte. */
async function chaosRun(seed: number) {
  const fake = createDockside({ seed })
  for (const r of PLAN) fake.faults.add(r)
  const server = await fake.listen({ port: 0 })
  const bytes: string[] = []
  const c = fake.containers.create({ name: 'churn', image: 'busybox' })
  let ws: WebSocket | undefined
  const connect = () =>
    new Promise<void>((resolve) => {
      ws = new WebSocket(`${server.wsUrl}/events/ws?client=det`)
      ws.on('message', (d) => bytes.push(d.toString()))
      ws.on('open', () => resolve())
      ws.on('unexpected-response', (_q, res) => {
        bytes.push(`refused ${res.statusCode}`)
        res.resume()
        ws!.terminate()
        resolve()
      })
      ws.on('error', () => {})
      ws.on('close', (code, reason) => bytes.push(`close ${code} ${reason}`))
    })
  for (let i = 0; i < 15; i++) {
    if (!ws || ws.readyState !== WebSocket.OPEN) await connect()
    if (c.state === 'running') c.stop()
    else c.start()
    await fake.clock.advance('200ms')
    // Let the frames and closes of this step arrive before the next step decides anything.
    const r = fake.deliveries.report('det')
    const sent = r.connections.reduce((n, x) => n + x.sent, 0)
    const serverClosed = r.connections.filter((x) => x.closedBy === 'server').length
    const arrived = () => bytes.filter((b) => b.startsWith('{')).length >= sent && bytes.filter((b) => b.startsWith('close 4000')).length >= serverClosed && (ws!.readyState === WebSocket.OPEN || ws!.readyState === WebSocket.CLOSED)
    for (let spin = 0; spin < 100_000 && !arrived(); spin++) await new Promise((r) => setImmediate(r))
  }
  if (ws && ws.readyState !== WebSocket.CLOSED) {
    const done = new Promise((r) => ws!.once('close', r))
    ws.close(1000, 'run over')
    await done
  }
  await server.close()
  const journal = fake.journal.entries.filter((e) => e.type.startsWith('fault') || e.type.startsWith('ws.')).map((e) => ({ ...e, seq: 0, socket: undefined }))
  await fake.close()
  return { journal: JSON.stringify(journal), bytes }
}

describe('a chaos run repeats with its seed', () => {
  it('the same seed repeats every decision and every byte; another seed does not', async () => {
    const a = await chaosRun(6)
    const b = await chaosRun(6)
    expect(b.bytes).toEqual(a.bytes)
    expect(a.bytes.filter((x) => x.startsWith('refused') || x.startsWith('close 4000')).length).toBeGreaterThan(0)
    expect(b.journal).toEqual(a.journal)
    expect(a.journal).toContain('fault.draw')
    const other = await chaosRun(4321)
    expect(other.journal).not.toEqual(a.journal)
  })

  it('a failing delivery assertion prints the seed and the plan to repeat it', async () => {
    const { installDeliveryMatchers } = await import('../../src/vitest/delivery-matchers')
    installDeliveryMatchers()
    const fake = createDockside({ seed: 77 })
    fake.faults.add({ id: 'cut', on: 'events', close: { code: 4000, reason: 'cut' }, afterMessages: 1 })
    const server = await fake.listen({ port: 0 })
    const ws = new WebSocket(`${server.wsUrl}/events/ws?client=victim`)
    await new Promise((r) => ws.once('open', r))
    const closed = new Promise((r) => ws.once('close', r))
    const c = fake.containers.create({ name: 'x', image: 'busybox' })
    c.start()
    c.stop()
    await closed
    let message = ''
    try {
      expect(fake).toHaveDeliveredAllEventsTo('victim')
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toMatch(/1 of 2 never did/)
    expect(message).toMatch(/#2 stop x/)
    expect(message).toMatch(/Repeat this run with seed 77/)
    expect(message).toMatch(/cut\s+on events\s+close 4000 after 1 msg/)
    await server.close()
    await fake.close()
  })
})
