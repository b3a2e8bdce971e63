// Slow consumers soak: 10 websocket clients and 4 GET /events streams that stop reading after the handshake (raw TCP,
// paused), one reading websocket client beside them, and 1,000 events/s for 60 s emitted in the server's process.
// Prints the server's heap and external/arrayBuffers (after GC) at the start and the end, the backlog closes, and the
// reading client's delivery report. The bar: end within 20% of start, and the reader misses nothing.
// The start is measured once the event log holds its retained window (retainEvents, 10,000 by default), so that
// what is compared is what the slow clients cost, not the log filling up.
// Usage: npx tsup --silent && node bench/soak-slow-consumers.mjs [seconds=60] [eventsPerSecond=1000] [slowClients=on|off]
// (`off`: the same run without the slow clients, the baseline of what the journal and delivery history grow by.)
import { fork } from 'node:child_process'
import net from 'node:net'
import WebSocket from 'ws'

const SECONDS = Number(process.argv[2] ?? 60)
const RATE = Number(process.argv[3] ?? 1000)
const SLOW = process.argv[4] !== 'off'

if (process.argv[2] === 'server') {
  // The server's process: the fake, the event source, and memory on request.
  const { createDockside } = await import('../dist/index.js')
  const fake = createDockside({ seed: 1 })
  const server = await fake.listen({ port: 0 })
  const containers = Array.from({ length: 20 }, (_, i) => fake.containers.create({ name: `c${i}`, image: 'nginx', labels: { app: 'web', tier: `t${i % 3}` } }))
  let emitted = 0
  const emit = (n) => {
    for (let i = 0; i < n; i++, emitted++) {
      const c = containers[emitted % containers.length]
      if (c.state === 'running') c.stop()
      else c.start()
    }
  }
  const run = (seconds, rate) =>
    new Promise((resolve) => {
      const started = performance.now()
      const tick = setInterval(() => {
        const due = Math.min(Math.floor(((performance.now() - started) / 1000) * rate), seconds * rate)
        emit(due - (emitted - base))
        if (due >= seconds * rate) {
          clearInterval(tick)
          resolve()
        }
      }, 10)
      const base = emitted
    })
  const memory = () => {
    for (let i = 0; i < 3; i++) globalThis.gc()
    const m = process.memoryUsage()
    return { heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers }
  }
  process.on('message', async (msg) => {
    if (msg.cmd === 'run') {
      await run(msg.seconds, msg.rate)
      process.send({ cmd: 'ran', emitted })
    } else if (msg.cmd === 'memory') {
      process.send({ cmd: 'memory', memory: memory(), sockets: fake.protocol.hub.sockets.size })
    } else if (msg.cmd === 'report') {
      const r = fake.deliveries.report('reader')
      const closes = fake.journal.ofType('ws.close').filter((e) => e.code === 1013).length
      const streams = fake.journal.ofType('stream.backlog').length
      const slow = fake.deliveries.clients().includes('deaf-ws-0') ? fake.deliveries.report('deaf-ws-0').connections[0] : undefined
      process.send({ cmd: 'report', emitted, report: { expected: r.expected, delivered: r.delivered, missed: r.missed.length, duplicates: r.duplicates.length, closedBy: r.connections[0].closedBy }, closes, streams, slow, journal: fake.journal.entries.length })
    } else if (msg.cmd === 'exit') {
      await fake.close()
      process.exit(0)
    }
  })
  process.send({ cmd: 'ready', port: server.port })
} else {
  const child = fork(new URL(import.meta.url).pathname, ['server'], { execArgv: ['--expose-gc'] })
  const inbox = []
  const waiters = []
  child.on('message', (m) => (waiters.length ? waiters.shift()(m) : inbox.push(m)))
  const next = () => (inbox.length ? Promise.resolve(inbox.shift()) : new Promise((r) => waiters.push(r)))
  const ask = (cmd, extra = {}) => (child.send({ cmd, ...extra }), next())
  const { port } = await next()
  const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`
  const show = (label, { memory: m, sockets }) => console.log(`${label}: heap ${mb(m.heapUsed)}, external ${mb(m.external)}, arrayBuffers ${mb(m.arrayBuffers)}, sockets ${sockets}`)

  const reader = new WebSocket(`ws://127.0.0.1:${port}/events/ws?client=reader`, { perMessageDeflate: false })
  let received = 0
  reader.on('message', () => received++)
  await new Promise((r) => reader.once('open', r))

  // Fill the retained window of the log first (10,000 events), at the same rate.
  await ask('run', { seconds: Math.ceil(10_000 / RATE) + 1, rate: RATE })
  const start = await ask('memory')
  show('start (log retention full, reader connected)', start)

  const deaf = (request) =>
    new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1')
      let head = ''
      s.on('error', () => {})
      s.on('data', function onData(d) {
        head += d.toString('latin1')
        if (!head.includes('\r\n\r\n')) return
        s.off('data', onData)
        s.pause()
        resolve(s)
      })
      s.write(request)
    })
  const KEY = 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n'
  const slow = !SLOW ? [] : await Promise.all([
    ...Array.from({ length: 10 }, (_, i) => deaf(`GET /events/ws?client=deaf-ws-${i} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n${KEY}\r\n`)),
    ...Array.from({ length: 4 }, (_, i) => deaf(`GET /events?client=deaf-stream-${i} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)),
  ])
  console.log(`${slow.length} clients stopped reading; emitting ${RATE} events/s for ${SECONDS} s`)
  const ran = ask('run', { seconds: SECONDS, rate: RATE })
  const { emitted } = await ran
  // Let the reader catch up.
  while (received < emitted) await new Promise((r) => setTimeout(r, 50))
  const end = await ask('memory')
  show('end', end)
  const { report, closes, streams, slow: one, journal } = await ask('report')
  console.log(`backlog closes: ${closes} websockets (1013), ${streams} streams${one ? `; e.g. ${JSON.stringify({ closedBy: one.closedBy, code: one.code, reason: one.reason, sent: one.sent })}` : ''}; journal entries: ${journal}`)
  console.log(`reader: emitted ${emitted}, received ${received}, report ${JSON.stringify(report)}`)
  const total = (x) => x.memory.heapUsed + x.memory.external
  const growth = (total(end) - total(start)) / total(start)
  const ok = growth <= 0.2 && report.missed === 0 && received === emitted
  console.log(`heap+external: ${mb(total(start))} -> ${mb(total(end))} (${(growth * 100).toFixed(1)}%): ${ok ? 'within the bar' : 'OVER THE BAR'}`)
  for (const s of slow) s.destroy()
  reader.close()
  child.send({ cmd: 'exit' })
  await new Promise((r) => child.once('exit', r))
  process.exit(ok ? 0 : 1)
}
