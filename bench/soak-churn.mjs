// Connect/close churn of one events client id against the real server, for the bounded-history check (issue 8,
// point 10): every reconnect adds to the client's delivery history and the journal, which must stay bounded.
// Prints heap after GC at the start and periodically; the bar is flat within 10%.
// Usage: npx tsup --silent && node --expose-gc bench/soak-churn.mjs [seconds=60] [reportEverySeconds=10] [--events]
// With --events, each connection also receives one event (a container start or stop): the event log then fills to
// its retention (RETAIN, default 10000) during the warm-up, and its own eviction (at 1.5x retention) adds a sawtooth.
import WebSocket from 'ws'
import { createDockside } from '../dist/index.js'

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc')
const args = process.argv.slice(2).filter((a) => !a.startsWith('--'))
const EVENTS = process.argv.includes('--events')
const SECONDS = Number(args[0] ?? 60)
const EVERY = Number(args[1] ?? 10)

const fake = createDockside({ seed: 1, retainEvents: Number(process.env.RETAIN ?? 10_000) })
const server = await fake.listen({ port: 0 })
const web = fake.containers.create({ name: 'web', image: 'nginx' })
const url = `${server.wsUrl}/events/ws?client=churn`

/** One connection: open, (with --events: one event delivered,) close from the client. */
function once() {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false })
    if (EVENTS) {
      ws.on('open', () => (web.state === 'running' ? web.stop() : web.start()))
      ws.on('message', () => ws.close(1000, 'done'))
    } else ws.on('open', () => ws.close(1000, 'done'))
    ws.on('close', resolve)
    ws.on('error', reject)
  })
}

const heapMb = () => {
  globalThis.gc()
  globalThis.gc()
  return process.memoryUsage().heapUsed / 2 ** 20
}
let connections = 0
const churn = async (ms) => {
  const end = performance.now() + ms
  while (performance.now() < end) {
    await once()
    connections++
  }
}

// Warm-up: fill the journal and the client's history (and with --events the event log) to their bounds first.
while (fake.journal.omitted === 0 || (EVENTS && fake.events.events.length < Number(process.env.RETAIN ?? 10_000))) await churn(1000)
await churn(2000)
const start = heapMb()
const t0 = performance.now()
const row = (label, mb) => {
  const r = fake.deliveries.report('churn')
  console.log(
    `${label.padEnd(6)} connections ${String(connections).padStart(7)}  heap after GC ${mb.toFixed(1).padStart(6)} MB (${(((mb - start) / start) * 100).toFixed(1).padStart(5)}%)  ` +
      `journal ${fake.journal.entries.length} (+${fake.journal.omitted} dropped)  client history: ${r.connections.length} connections (+${r.omitted.connections}), ${r.timeline.length} timeline lines (+${r.omitted.timeline})  missed ${r.missed.length}`,
  )
}
row('start', start)
let worst = start
while (performance.now() - t0 < SECONDS * 1000) {
  await churn(Math.min(EVERY * 1000, SECONDS * 1000 - (performance.now() - t0)))
  const mb = heapMb()
  worst = Math.max(worst, mb)
  row(`${Math.round((performance.now() - t0) / 1000)}s`, mb)
}
const growth = (worst - start) / start
console.log(`${connections} connections in ${SECONDS} s; heap after GC ${start.toFixed(1)} MB at start, at most ${worst.toFixed(1)} MB (${(growth * 100).toFixed(1)}%): ${growth <= 0.1 ? 'flat within 10%' : 'GREW MORE THAN 10%'}`)
await server.close()
await fake.close()
process.exit(growth <= 0.1 ? 0 : 1)
