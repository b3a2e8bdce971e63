// Events delivered per second to 100 filtered subscribers, against a raw `ws` broadcast baseline
// measured in the same run. Usage: node bench/events-fanout.mjs [events=2000] [subscribers=100]
import { WebSocketServer, WebSocket } from 'ws'
import { createDockside } from '../dist/index.js'

const EVENTS = Number(process.argv[2] ?? 2000)
const SUBS = Number(process.argv[3] ?? 100)
const filters = encodeURIComponent(JSON.stringify({ event: { start: true }, label: ['app=web'] }))

function connectAll(url, n) {
  return Promise.all(
    Array.from({ length: n }, () => new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false })
      ws.on('open', () => resolve(ws))
      ws.on('error', reject)
    })),
  )
}

function waitAll(clients, expected) {
  return Promise.all(clients.map((ws) => new Promise((resolve) => {
    let n = 0
    ws.on('message', () => { if (++n === expected) resolve() })
  })))
}

async function raw() {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false })
  await new Promise((r) => wss.on('listening', r))
  const clients = await connectAll(`ws://127.0.0.1:${wss.address().port}/`, SUBS)
  const done = waitAll(clients, EVENTS)
  const frame = JSON.stringify({ status: 'start', id: 'x'.repeat(64), from: 'nginx', Type: 'container', Action: 'start', Actor: { ID: 'x'.repeat(64), Attributes: { app: 'web', exitCode: '0', image: 'nginx', name: 'web', sh_hyper_instancetype: 's4' } }, time: 1767225600, timeNano: 1767225600000000000 })
  const t0 = performance.now()
  for (let i = 0; i < EVENTS; i++) {
    for (const ws of wss.clients) ws.send(frame)
    if (i % 50 === 0) await new Promise((r) => setImmediate(r))
  }
  await done
  const ms = performance.now() - t0
  clients.forEach((c) => c.terminate())
  wss.close()
  return ms
}

async function fake() {
  const dock = createDockside({ seed: 1 })
  const server = await dock.listen({ port: 0 })
  const web = dock.containers.create({ name: 'web', image: 'nginx', labels: { app: 'web' } })
  // Subscribers that must NOT match, so filtering is exercised too.
  const others = await connectAll(`${server.wsUrl}/events/ws?filters=${encodeURIComponent(JSON.stringify({ label: ['app=db'] }))}`, 20)
  const clients = await connectAll(`${server.wsUrl}/events/ws?filters=${filters}`, SUBS)
  const done = waitAll(clients, EVENTS)
  const t0 = performance.now()
  for (let i = 0; i < EVENTS; i++) {
    web.start()
    web.stop()
    if (i % 50 === 0) await new Promise((r) => setImmediate(r))
  }
  await done
  const ms = performance.now() - t0
  others.forEach((c) => c.terminate())
  clients.forEach((c) => c.terminate())
  await dock.close()
  return ms
}

const rawMs = [], fakeMs = []
for (let round = 0; round < 3; round++) {
  rawMs.push(await raw())
  fakeMs.push(await fake())
}
const best = (xs) => Math.min(...xs)
const deliveries = EVENTS * SUBS
const rawRate = deliveries / (best(rawMs) / 1000)
const fakeRate = deliveries / (best(fakeMs) / 1000)
console.log(JSON.stringify({
  bench: 'events-fanout', events: EVENTS, subscribers: SUBS, node: process.version,
  rawDeliveriesPerSec: Math.round(rawRate), fakeDeliveriesPerSec: Math.round(fakeRate),
  fakeEventsPerSec: Math.round(EVENTS / (best(fakeMs) / 1000)),
  ratio: +(fakeRate / rawRate).toFixed(3),
}))
