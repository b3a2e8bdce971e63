// Connection-reset soak: clients that vanish with a TCP reset at every stage of every route, against a real server.
// Each round resets: a websocket before the handshake is answered, a websocket mid-stream, a GET /events stream,
// a push mid-stream, and a request whose body never finishes; then checks that the fake forgot them all (no live
// socket, no server connection, no timer beyond the baseline), serves a normal client, and samples the heap after GC.
// The bar (issue 8): nothing left behind after any round, and the heap after GC flat within 10% of the first sample.
// Usage: npx tsup --silent && node --expose-gc bench/soak-resets.mjs [seconds=60]
// test/behaviour/robustness/connection-resets.test.ts runs the same rounds for a few seconds in `npm test`.
import { resetRounds } from './support/resets.mjs'

const SECONDS = Number(process.argv[2] ?? 60)
if (typeof globalThis.gc !== 'function') {
  console.error('run with --expose-gc: node --expose-gc bench/soak-resets.mjs [seconds]')
  process.exit(2)
}
const { createDockside } = await import('../dist/index.js')
// The virtual clock holds every push at its first chunk: each one is still running when its client resets. A small
// event log (each round emits 2 events), so that its filling up to retention is not mistaken for growth.
const fake = createDockside({ seed: 1, retainEvents: 100 })
fake.images.add('localhost:5000/team/app:1.0', { layers: [30_000_000, 20_000_000] })
const web = fake.containers.create({ name: 'web', image: 'nginx' })
const server = await fake.listen({ port: 0 })
const heap = () => {
  globalThis.gc()
  globalThis.gc()
  return process.memoryUsage().heapUsed / 1e6
}

// Warm-up until the journal (10,000 entries) and the clients' histories (1,000 lines) are full.
await resetRounds({ fake, server, web, rounds: 1500 })
let first
let peak = 0
const result = await resetRounds({ fake, server, web, seconds: SECONDS, onSample: (round) => {
  const h = heap()
  first ??= h
  peak = Math.max(peak, h)
  console.log(`${String(round).padStart(6)} rounds  heap after GC ${h.toFixed(1)} MB (${(((h - first) / first) * 100).toFixed(1)}%)  connections ${server.connections?.() ?? '-'}`)
} })
const grew = (peak - first) / first
console.log(`${result.rounds} rounds (${result.resets} resets) in ${SECONDS} s; leftovers after every round: none; heap after GC ${first.toFixed(1)} MB at the first sample, at most ${peak.toFixed(1)} MB (${(grew * 100).toFixed(1)}%): ${grew <= 0.1 ? 'flat within 10%' : 'GREW MORE THAN 10%'}`)
await fake.close()
