import { createDockside, loadScenario, type Dockside } from '../../src/index'
import type { DeliveryReport } from '../../src/service/delivery'
import type { ClientOptions, EventsClient } from './clients'

/**
 * Waits until the fake says the client is served or refused at the current clock time:
 * its last timeline entry is an `open`, or a refusal at this very moment.
 */
export async function settled(fake: Dockside, client: string, timeoutMs = 5000): Promise<void> {
  const ok = () => {
    if (!fake.deliveries.clients().includes(client)) return false
    const t = fake.deliveries.report(client).timeline
    const last = t.at(-1)
    return last !== undefined && (last.kind === 'open' || (last.kind === 'refused' && last.elapsedMs === fake.clock.elapsed()))
  }
  if (ok()) return
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      off()
      reject(new Error(`client ${client} did not reconnect within ${timeoutMs} ms of real time (clock at +${fake.clock.elapsed()} ms).\n${fake.deliveries.clients().includes(client) ? JSON.stringify(fake.deliveries.report(client).timeline.slice(-5)) : 'never connected'}`))
    }, timeoutMs)
    // Checked once the entry's synchronous follow-ups ran (an open that closes at once is not settled).
    const off = fake.on('journal', () =>
      setImmediate(() => {
        if (!ok()) return
        clearTimeout(timer)
        off()
        resolve()
      }),
    )
  })
}

/** Runs a storyboard scenario against one client, a second of clock time at a step, and returns the fake's report. */
export async function runStoryboard(
  file: string,
  start: (o: ClientOptions) => EventsClient,
  options: Omit<ClientOptions, 'url' | 'id'>,
  seconds = 120,
): Promise<{ fake: Dockside; report: DeliveryReport; frames: string[] }> {
  const fake = createDockside({ scenario: await loadScenario(file) })
  const server = await fake.listen({ port: 0 })
  const id = 'reference-client'
  // A client the fake refused at this instant retries once the clock has moved (see ClientOptions.gate).
  let held: (() => void)[] = []
  const refusedNow = () => {
    if (!fake.deliveries.clients().includes(id)) return false
    const last = fake.deliveries.report(id).timeline.at(-1)
    return last?.kind === 'refused' && last.elapsedMs === fake.clock.elapsed()
  }
  const gate = () => (refusedNow() ? new Promise<void>((resolve) => held.push(resolve)) : Promise.resolve())
  const client = start({ url: server.wsUrl, id, gate, ...options })
  try {
    await settled(fake, id)
    for (let s = 0; s < seconds; s++) {
      await fake.clock.advance('1s')
      const release = held
      held = []
      for (const go of release) go()
      await settled(fake, id)
    }
    // Let what the fake sent reach the client (it may still be finishing a handshake), then stop it.
    const sent = () => fake.deliveries.report(id).connections.reduce((n, c) => n + c.sent, 0)
    const deadline = Date.now() + 5000
    while (client.frames.length < sent() && Date.now() < deadline) await new Promise((r) => setImmediate(r))
    const closed = new Promise<void>((resolve) => {
      const off = fake.on('journal', (e) => {
        if (e.type === 'ws.close' && e.by === 'client') {
          off()
          resolve()
        }
      })
    })
    client.stop()
    await closed
    return { fake, report: fake.deliveries.report(id), frames: client.frames }
  } finally {
    client.stop()
    await server.close()
  }
}
