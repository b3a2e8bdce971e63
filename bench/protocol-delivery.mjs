// The protocol's own cost per delivery, without sockets: 100 filtered subscribers opened through
// protocol.upgrade() with a counting sink, the model emitting start/stop events. Baseline in the same
// run: a loop handing one pre-serialised string to 100 sinks per start event (what a bare broadcaster
// does per delivery). Usage: node bench/protocol-delivery.mjs [events=20000]
import { createDockside } from '../dist/index.js'

const EVENTS = Number(process.argv[2] ?? 20000)
const SUBS = 100

async function fake() {
  const dock = createDockside({ seed: 1 })
  const web = dock.containers.create({ name: 'web', image: 'nginx', labels: { app: 'web' } })
  const filters = encodeURIComponent(JSON.stringify({ event: { start: true }, label: ['app=web'] }))
  let n = 0
  for (let i = 0; i < SUBS; i++) {
    const r = await dock.protocol.upgrade({ method: 'GET', url: `/events/ws?filters=${filters}&client=c${i}`, headers: {}, signal: new AbortController().signal, body: async () => '', remoteAddress: '127.0.0.1' })
    r.open({ send: () => n++, close() {}, drop() {} })
  }
  const t0 = performance.now()
  for (let i = 0; i < EVENTS; i++) {
    web.start()
    web.stop()
  }
  const ms = performance.now() - t0
  await dock.close()
  return { ms, n }
}

function raw() {
  let n = 0
  const sinks = Array.from({ length: SUBS }, () => ({ send: () => n++ }))
  const t0 = performance.now()
  for (let i = 0; i < EVENTS; i++) {
    const frame = JSON.stringify({ status: 'start', id: String(i), time: i })
    for (const s of sinks) s.send(frame)
  }
  return { ms: performance.now() - t0, n }
}

const f = [], r = []
for (let round = 0; round < 3; round++) {
  r.push(raw())
  f.push(await fake())
}
const best = (xs) => xs.reduce((a, b) => (a.ms < b.ms ? a : b))
const bf = best(f), br = best(r)
console.log(JSON.stringify({
  bench: 'protocol-delivery', events: EVENTS * 2, subscribers: SUBS, deliveries: bf.n, node: process.version,
  usPerDelivery: +((bf.ms * 1000) / bf.n).toFixed(3), rawUsPerDelivery: +((br.ms * 1000) / br.n).toFixed(3),
  ratio: +(br.ms / bf.ms).toFixed(3),
}))
