// The in-process WebSocket against the mocks it replaces, measured in one run, interleaved (A B A B A B), the
// ratio per rep, the median of 3 reported (issue 9):
//  1. deliveries/s to 10 in-process subscribers of the model's own container events (started and stopped through
//     the model, full event JSON, a filter that matches them) against mock-socket's own Server -> client send of one
//     pre-serialised frame to 10 mock-socket clients. ratio = dockside / baseline (goal >= 1.0).
//  2. per-test cost: create a fake + hook + one WebSocket connect + first message + close (+ restore and close the
//     fake), in ms; against MSW's `ws.link()` doing the same (setupServer + listen + connect + first message + close).
//     ratio = baseline / dockside (above 1: dockside is cheaper); goal <= 0.5 ms.
// Usage: node bench/inprocess-ws.mjs [--json] [events=50000] [tests=300]   (needs `npx tsup` for dist/)
import { Server as MockServer, WebSocket as MockWebSocket } from 'mock-socket'
import { createDockside } from '../dist/index.js'

const args = process.argv.slice(2)
const json = args.includes('--json')
const [EVENTS = 50000, TESTS = 300] = args.filter((a) => !a.startsWith('--')).map(Number)
const SUBS = 10
const BATCH = 500
const NodeWebSocket = globalThis.WebSocket
const turn = () => new Promise((resolve) => setImmediate(resolve))

// --- 1. deliveries/s -----------------------------------------------------------------------------------------
async function mockSocketSend() {
  const url = 'ws://mock-socket.bench/events'
  const server = new MockServer(url)
  let n = 0
  const clients = Array.from({ length: SUBS }, () => new MockWebSocket(url))
  for (const c of clients) c.onmessage = (e) => (n += e.data.length > 0 ? 1 : 0)
  await Promise.all(clients.map((c) => new Promise((resolve) => (c.onopen = resolve))))
  const frame = JSON.stringify({ status: 'start', id: 'f'.repeat(64), from: 'nginx', Type: 'container', Action: 'start', Actor: { ID: 'f'.repeat(64), Attributes: { image: 'nginx', name: 'web' } }, time: 1767225600, timeNano: 1767225600000000000 })
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  for (let i = 0; i < EVENTS; i += BATCH) {
    for (let k = 0; k < BATCH; k++) server.emit('message', frame)
    await turn()
  }
  const ms = performance.now() - t0
  const cpu = process.cpuUsage(c0)
  if (n !== EVENTS * SUBS) throw new Error(`mock-socket delivered ${n}, expected ${EVENTS * SUBS}`)
  for (const c of clients) c.close()
  server.stop()
  return { rate: (n / ms) * 1000, cpuUs: (cpu.user + cpu.system) / n }
}

async function docksideSend() {
  const fake = createDockside({ seed: 1 })
  const hooks = await fake.intercept()
  let n = 0
  const url = `${hooks.wsBaseUrl}/events/ws?filters={"event":["start","stop"],"label":["app=web"]}`
  const clients = Array.from({ length: SUBS }, () => new WebSocket(url))
  for (const c of clients) c.onmessage = (e) => (n += e.data.length > 0 ? 1 : 0)
  await Promise.all(clients.map((c) => new Promise((resolve) => (c.onopen = resolve))))
  const web = fake.containers.create({ name: 'web', image: 'nginx', labels: { app: 'web' } })
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  for (let i = 0; i < EVENTS; i += BATCH) {
    for (let k = 0; k < BATCH; k += 2) {
      web.start()
      web.stop()
    }
    while (n < Math.min(i + BATCH, EVENTS) * SUBS) await turn()
  }
  const ms = performance.now() - t0
  const cpu = process.cpuUsage(c0)
  if (n !== EVENTS * SUBS) throw new Error(`dockside delivered ${n}, expected ${EVENTS * SUBS}`)
  for (const c of clients) c.close()
  hooks.restore()
  await fake.close()
  return { rate: (n / ms) * 1000, cpuUs: (cpu.user + cpu.system) / n }
}

// --- 2. per-test cost --------------------------------------------------------------------------------------------
async function docksideTest() {
  const fake = createDockside({ seed: 1 })
  const hooks = await fake.intercept()
  const ws = new WebSocket(`${hooks.wsBaseUrl}/events/ws`)
  await new Promise((resolve) => (ws.onopen = resolve))
  const first = new Promise((resolve) => (ws.onmessage = resolve))
  fake.containers.create({ name: 'web', image: 'nginx' }).start()
  await first
  ws.close()
  await new Promise((resolve) => (ws.onclose = resolve))
  hooks.restore()
  await fake.close()
}

let msw
async function mswTest() {
  msw ??= { ws: (await import('msw')).ws, setupServer: (await import('msw/node')).setupServer }
  const link = msw.ws.link('wss://msw.bench/events')
  const server = msw.setupServer(link.addEventListener('connection', ({ client }) => client.send('{"status":"start"}')))
  server.listen({ onUnhandledRequest: 'bypass' })
  const ws = new WebSocket('wss://msw.bench/events')
  await new Promise((resolve) => (ws.onmessage = resolve))
  ws.close()
  await new Promise((resolve) => (ws.onclose = resolve))
  server.close()
  globalThis.WebSocket = NodeWebSocket
}

/**
 * MSW and nock both replace the global `fetch` through @mswjs/interceptors and refuse to share it, and nock stays
 * active once imported: MSW's reps run in a child process (still interleaved in time with dockside's).
 */
async function mswInChild() {
  const { execFileSync } = await import('node:child_process')
  return JSON.parse(execFileSync(process.execPath, [new URL(import.meta.url).pathname, '--msw-only', String(EVENTS), String(TESTS)], { encoding: 'utf8' }).trim())
}

/** Wall and CPU ms per test: on a shared machine the CPU time is the steadier of the two. */
async function perTest(fn) {
  // Warm: a suite of thousands of tests runs at the steady state, not at the first tests' JIT.
  for (let i = 0; i < 200; i++) await fn()
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  for (let i = 0; i < TESTS; i++) await fn()
  const c = process.cpuUsage(c0)
  return { ms: (performance.now() - t0) / TESTS, cpuMs: (c.user + c.system) / 1000 / TESTS }
}

if (args.includes('--msw-only')) {
  console.log(JSON.stringify(await perTest(mswTest)))
  process.exit(0)
}

// --- interleaved reps ----------------------------------------------------------------------------------------------
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const reps = { send: [], test: [] }
// One untimed run of each side first (JIT, first compile of the paths), as the server benchmarks do: the reps measure
// the steady state a suite of thousands of tests runs in.
await mockSocketSend()
await docksideSend()
for (let rep = 0; rep < 3; rep++) {
  const base = await mockSocketSend()
  const dock = await docksideSend()
  reps.send.push({ base: base.rate, dock: dock.rate, ratio: dock.rate / base.rate, cpu: { mockSocket: base.cpuUs, dockside: dock.cpuUs, ratio: base.cpuUs / dock.cpuUs } })
  const msw = await mswInChild()
  const dockside = await perTest(docksideTest)
  reps.test.push({ base: msw.ms, dock: dockside.ms, ratio: msw.ms / dockside.ms, cpu: { msw: msw.cpuMs, dockside: dockside.cpuMs } })
}

const pick = (rs) => rs.find((r) => r.ratio === median(rs.map((x) => x.ratio)))
const send = pick(reps.send)
const test = pick(reps.test)
const figures = [
  { figure: `in-process WebSocket deliveries/s, ${SUBS} subscribers`, unit: 'deliveries/s', baseline: Math.round(send.base), baselineName: "mock-socket Server.emit to 10 clients", dockside: Math.round(send.dock), ratio: +send.ratio.toFixed(3), goal: '>= 1.0', pass: send.ratio >= 1.0, cpuUsPerDelivery: { mockSocket: +send.cpu.mockSocket.toFixed(3), dockside: +send.cpu.dockside.toFixed(3), ratio: +median(reps.send.map((r) => r.cpu.ratio)).toFixed(3) } },
  { figure: 'in-process per-test cost: fake + hook + connect + first message + close', unit: 'ms', baseline: +test.base.toFixed(3), baselineName: 'MSW ws.link (setupServer, connect, first message, close)', dockside: +test.dock.toFixed(3), ratio: +test.ratio.toFixed(3), goal: '<= 0.5 ms', pass: test.dock <= 0.5, cpuMsPerTest: { msw: +test.cpu.msw.toFixed(3), dockside: +test.cpu.dockside.toFixed(3) } },
]
if (json) for (const f of figures) console.log(JSON.stringify(f))
else {
  console.log(`node ${process.version}, ${EVENTS} events x ${SUBS} subscribers, ${TESTS} tests per rep; reps:`)
  for (let i = 0; i < 3; i++) console.log(`  rep ${i + 1}: deliveries/s mock-socket ${Math.round(reps.send[i].base)} dockside ${Math.round(reps.send[i].dock)} (x${reps.send[i].ratio.toFixed(3)}; CPU per delivery ${reps.send[i].cpu.mockSocket.toFixed(3)} / ${reps.send[i].cpu.dockside.toFixed(3)} us); per test MSW ${reps.test[i].base.toFixed(3)} ms dockside ${reps.test[i].dock.toFixed(3)} ms (CPU ${reps.test[i].cpu.msw.toFixed(3)}, ${reps.test[i].cpu.dockside.toFixed(3)} ms)`)
  console.table(figures)
}
