// The server figures of issue 9, each against the `ws` README's broadcast server measured in the same run:
// fan-out, latency, connect churn, idle memory and opening time, and the scale curve (dockside against itself).
// Server and client are separate processes (bench/support/server-child.mjs); the client is bench/support/light-client.mjs.
// Usage: node bench/events-server.mjs [--json] [--reps=3] [--only=fanout,latency,churn,memory,scale]
import { openMany, LightClient, wallMs } from './support/light-client.mjs'
import { startServer, interleaved, figure, report, quantile, median, arg } from './support/harness.mjs'

const REPS = Number(arg('reps', 3))
const ONLY = arg('only', 'fanout,latency,churn,memory,scale').split(',')
const filterPath = (filters) => `/events/ws?filters=${encodeURIComponent(JSON.stringify(filters))}`
// Matches every start and stop of the model's `web` container: every event is a delivery.
const WEB = filterPath({ event: ['start', 'stop'], label: ['app=web'] })
const pathOf = (mode) => (mode === 'raw' ? '/' : WEB)

/** Frames received by all clients until `target`, as a promise; `onFrame` counts. */
function counter() {
  let seen = 0
  let target = Infinity
  let done
  return {
    onFrame() {
      if (++seen === target) done()
    },
    expect(n) {
      seen = 0
      target = n
      return new Promise((resolve) => (done = resolve))
    },
  }
}

async function fanout(servers) {
  for (const n of [1, 10, 100, 1000]) {
    const events = Math.max(200, Math.round(120_000 / n))
    const count = { raw: counter(), dockside: counter() }
    const clients = {}
    for (const mode of ['raw', 'dockside']) clients[mode] = await openMany(servers[mode].port, pathOf(mode), n, { onFrame: count[mode].onFrame })
    const run = async (mode) => {
      const arrived = count[mode].expect(n * events)
      const t0 = performance.now()
      await servers[mode].call('fanout', { events })
      await arrived
      return (n * events) / ((performance.now() - t0) / 1000)
    }
    await run('raw')
    await run('dockside')
    const m = await interleaved(REPS, run, (a, b) => b / a)
    report(figure(`fan-out, ${n} subscriber${n > 1 ? 's' : ''}`, 'deliveries/s', 'raw ws broadcast', m, '>= 0.90'))
    for (const mode of ['raw', 'dockside']) for (const c of clients[mode]) c.destroy()
  }
}

async function latency(servers) {
  const RATE = 20_000
  for (const n of [10, 100]) {
    const perSec = RATE / n
    const events = Math.round(perSec * 1.5)
    const samples = new Float64Array(n * events)
    let k = 0
    let target = 0
    let done
    const onFrame = (c) => {
      samples[k++] = (wallMs() - c.timeNanoMs()) * 1000
      if (k === target) done()
    }
    const clients = {}
    for (const mode of ['raw', 'dockside']) clients[mode] = await openMany(servers[mode].port, pathOf(mode), n, { onFrame, tail: true })
    const run = async (mode) => {
      k = 0
      target = n * events
      const arrived = new Promise((resolve) => (done = resolve))
      await servers[mode].call('rate', { events, perSec })
      await arrived
      return { p50: quantile(samples, k, 0.5), p99: quantile(samples, k, 0.99) }
    }
    await run('raw')
    await run('dockside')
    const reps = []
    for (let r = 0; r < REPS; r++) reps.push({ raw: await run('raw'), dockside: await run('dockside') })
    for (const [q, goal] of [['p50', '<= 1.2'], ['p99', '<= 1.5']]) {
      const m = { baseline: median(reps.map((x) => x.raw[q])), dockside: median(reps.map((x) => x.dockside[q])), ratio: median(reps.map((x) => x.dockside[q] / x.raw[q])) }
      report(figure(`latency ${q}, ${n} subscribers at ${RATE / 1000}k deliveries/s`, 'µs', 'raw ws broadcast', m, goal))
    }
    for (const mode of ['raw', 'dockside']) for (const c of clients[mode]) c.destroy()
  }
}

async function churn(servers) {
  const COUNT = 1000
  const CONCURRENCY = 8
  const upgrades = new Float64Array(COUNT)
  const run = async (mode) => {
    let next = 0
    const t0 = performance.now()
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < COUNT) {
        const i = next++
        const c = new LightClient(servers[mode].port, pathOf(mode))
        await c.opened
        upgrades[i] = (c.upgradedAt - c.startedAt) * 1000
        await c.close()
      }
    }))
    return { rate: COUNT / ((performance.now() - t0) / 1000), p50: quantile(upgrades, COUNT, 0.5) }
  }
  await run('raw')
  await run('dockside')
  const reps = []
  for (let r = 0; r < REPS; r++) reps.push({ raw: await run('raw'), dockside: await run('dockside') })
  const pick = (q) => ({ baseline: median(reps.map((x) => x.raw[q])), dockside: median(reps.map((x) => x.dockside[q])), ratio: median(reps.map((x) => x.dockside[q] / x.raw[q])) })
  report(figure(`connect + upgrade + close churn (${CONCURRENCY} at a time)`, 'connections/s', 'raw ws server', pick('rate'), '>= 0.8'))
  report(figure('upgrade p50 (during the churn)', 'µs', 'raw ws server', pick('p50'), '<= 1.3'))
}

async function memory() {
  for (const n of [1000, 5000]) {
    const run = async (mode) => {
      const server = await startServer(mode)
      try {
        // Warm the paths (first filter compile, lazy imports) so the baseline reading is after them.
        for (const c of await openMany(server.port, pathOf(mode), 10)) await c.close()
        const before = await server.call('mem')
        const t0 = performance.now()
        const clients = await openMany(server.port, pathOf(mode), n)
        const openMs = performance.now() - t0
        const after = await server.call('mem')
        for (const c of clients) c.destroy()
        return { heap: (after.heap - before.heap) / n, rss: (after.rss - before.rss) / n, openMs }
      } finally {
        await server.stop()
      }
    }
    const reps = []
    for (let r = 0; r < REPS; r++) reps.push({ raw: await run('raw'), dockside: await run('dockside') })
    const pick = (q) => ({ baseline: median(reps.map((x) => x.raw[q])), dockside: median(reps.map((x) => x.dockside[q])), ratio: median(reps.map((x) => x.dockside[q] / x.raw[q])) })
    report(figure(`idle heap per events connection, ${n} open`, 'bytes', 'raw ws server', pick('heap'), '<= 1.3'))
    report(figure(`idle RSS per events connection, ${n} open`, 'bytes', 'raw ws server', pick('rss'), '<= 1.3'))
    if (n === 5000) report(figure(`opening ${n} events connections (200 at a time)`, 'ms', 'raw ws server', pick('openMs'), '<= 1.2'))
  }
}

/**
 * 10,000 containers, 1,000 subscribers with distinct filters (`container: [c<group>, u<i>]`), M of them matching
 * the container the events are on. Baseline: a server with only those M subscribers. A ratio near 1 at every M is
 * the claim: the cost per event follows the matching subscribers, not all of them.
 */
async function scale() {
  const SUBS = 1000
  const A = await startServer('dockside')
  const B = await startServer('dockside')
  try {
    await A.call('containers', { count: 10_000 })
    await B.call('containers', { count: 10_000 })
    for (const m of [1, 10, 100, 1000]) {
      const groups = SUBS / m
      const path = (i) => filterPath({ container: [`c${i % groups}`, `u${i}`] })
      const count = counter()
      const only = await Promise.all(Array.from({ length: m }, (_, j) => new LightClient(A.port, path(j * groups), { onFrame: count.onFrame }).opened))
      const all = await Promise.all(Array.from({ length: SUBS }, (_, i) => new LightClient(B.port, path(i), { onFrame: count.onFrame }).opened))
      // ~0.3-0.6 s of events per run at every M: with 300 events at M = 100 (30 ms) a run was mostly its first
      // milliseconds after an idle wait, and single runs read 0.6x to 2.3x.
      const events = Math.min(100_000, Math.round(300_000 / m))
      const run = async (mode) => {
        const arrived = count.expect(m * events)
        const t0 = performance.now()
        await (mode === 'raw' ? A : B).call('scale', { events, index: 0 })
        await arrived
        return ((performance.now() - t0) * 1000) / events
      }
      await run('raw')
      await run('dockside')
      const r = await interleaved(REPS, run, (a, b) => b / a)
      report(figure(`scale: per event, ${m} of ${SUBS} distinct subscribers match (10,000 containers)`, 'µs/event', `only the ${m} matching`, r, '<= 1.3'))
      for (const c of [...only, ...all]) c.destroy()
    }
  } finally {
    await A.stop()
    await B.stop()
  }
}

const servers = { raw: await startServer('raw'), dockside: await startServer('dockside') }
try {
  if (ONLY.includes('fanout')) await fanout(servers)
  if (ONLY.includes('latency')) await latency(servers)
  if (ONLY.includes('churn')) await churn(servers)
} finally {
  await servers.raw.stop()
  await servers.dockside.stop()
}
if (ONLY.includes('memory')) await memory()
if (ONLY.includes('scale')) await scale()
