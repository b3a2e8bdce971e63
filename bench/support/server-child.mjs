// The server side of the benchmarks, in its own process (forked with IPC, run with --expose-gc):
//   node bench/support/server-child.mjs raw       the `ws` README's broadcast server
//   node bench/support/server-child.mjs dockside  `createDockside({ clock: 'real' }).listen()`
// Both get the same pacing: after each event, wait for `drain` on any TCP socket with more than 64 KiB queued
// (sockets are collected from node's `net.server.socket` diagnostics channel, so dockside is paced on the very
// sockets ws writes to, without reaching into it). Only the sockets written to since the last check are looked at, so
// that pacing costs what was sent, not the number of open sockets (a scan of every socket weighed on the 1,000-socket
// side of the scale figure only). Those sockets are kept in an array with a mark on each socket, not in a Set: a Set
// that is filled and emptied once per event flipped, process by process and run by run, between a mode where its adds
// and deletes cost nothing and one where they took half of a run (the scale figure's bimodal 1.0x / 2.0x readings).
// Commands arrive over IPC; each is answered with one message.
import diagnostics from 'node:diagnostics_channel'
import { once } from 'node:events'

const MODE = process.argv[2]
const HIGH_WATER = 64 * 1024
const sockets = new Set()
/** Sockets written to since pace() last looked at them, each once: `kWritten` marks a socket that is in the list. */
const written = []
const kWritten = Symbol('written')
diagnostics.channel('net.server.socket').subscribe(({ socket }) => {
  sockets.add(socket)
  socket[kWritten] = false
  const write = socket.write
  socket.write = function (chunk, encoding, callback) {
    if (!this[kWritten]) {
      this[kWritten] = true
      written.push(this)
    }
    return write.call(this, chunk, encoding, callback)
  }
  socket.once('close', () => sockets.delete(socket))
})
const wallMs = () => performance.timeOrigin + performance.now()
const msToNano = (ms) => {
  const whole = Math.floor(ms)
  return BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1e6))
}

async function pace() {
  // A socket written to while this waits for a drain is added to the list and visited in this same loop.
  for (let i = 0; i < written.length; i++) {
    const s = written[i]
    s[kWritten] = false
    if (s.writableLength > HIGH_WATER && !s.destroyed) await once(s, 'drain')
  }
  written.length = 0
}
const turn = () => new Promise((resolve) => setImmediate(resolve))

/** Emits `count` events; with `perSec`, at that rate (a 1 ms tick emits what is due). */
async function emit(count, perSec, one) {
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  for (let i = 0; i < count; ) {
    if (perSec) {
      const due = Math.min(count, Math.floor(((performance.now() - t0) / 1000) * perSec) + 1)
      if (due <= i) {
        await new Promise((resolve) => setTimeout(resolve, 1))
        continue
      }
      while (i < due) one(i++)
      await pace()
    } else {
      one(i++)
      await pace()
      if (i % 64 === 0) await turn()
    }
  }
  const cpu = process.cpuUsage(cpu0)
  return { ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 }
}

const ATTRS = { app: 'web', exitCode: '0', image: 'nginx', name: 'web', sh_hyper_instancetype: 's4' }
const ID = 'a'.repeat(64)
const sample = (action, ms) =>
  JSON.stringify({ status: action, id: ID, from: 'nginx', Type: 'container', Action: action, Actor: { ID, Attributes: ATTRS } }).slice(0, -1) +
  `,"time":${Math.floor(ms / 1000)},"timeNano":${msToNano(ms)}}`

let handlers
if (MODE === 'raw') {
  const { WebSocketServer } = await import('ws')
  const http = await import('node:http')
  const server = http.createServer((req, res) => res.end('OK'))
  const wss = new WebSocketServer({ server, perMessageDeflate: false })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  // The README's broadcast: one pre-serialised buffer to every open client.
  const broadcast = (data) => {
    for (const client of wss.clients) if (client.readyState === 1) client.send(data, { binary: false })
  }
  const fixed = Buffer.from(sample('start', wallMs()))
  handlers = {
    port: server.address().port,
    fanout: ({ events }) => emit(events, 0, () => broadcast(fixed)),
    rate: ({ events, perSec }) => emit(events, perSec, (i) => broadcast(Buffer.from(sample(i % 2 ? 'stop' : 'start', wallMs())))),
  }
} else {
  const { createDockside } = await import('../../dist/index.js')
  // The real clock starts at the wall time (sub-millisecond) when it is made, the clock the client reads. (A `start`
  // read before createDockside put every event's time behind the wall by the fake's build time: 1-5 ms of latency.)
  const dock = createDockside({ seed: 1, clock: 'real' })
  const server = await dock.listen({ port: 0 })
  const web = dock.containers.create({ name: 'web', image: 'nginx', labels: { app: 'web' } })
  const toggle = () => (web.state === 'running' ? web.stop() : web.start())
  const many = []
  handlers = {
    port: server.port,
    fanout: ({ events }) => emit(events, 0, toggle),
    rate: ({ events, perSec }) => emit(events, perSec, toggle),
    containers: ({ count }) => {
      for (let i = many.length; i < count; i++) many.push(dock.containers.create({ name: `c${i}`, image: 'nginx', labels: { app: 'scale' } }))
      return many.length
    },
    /** Events on container `name`, toggled; answers the wall ms of the emitting loop. */
    scale: ({ events, index }) => {
      const c = many[index]
      return emit(events, 0, () => (c.state === 'running' ? c.stop() : c.start()))
    },
  }
}

handlers.mem = () => {
  globalThis.gc()
  globalThis.gc()
  const m = process.memoryUsage()
  return { heap: m.heapUsed, rss: m.rss }
}
handlers.sockets = () => sockets.size
handlers.exit = () => process.exit(0)

process.on('message', async ({ id, cmd, ...args }) => {
  try {
    process.send({ id, result: await handlers[cmd](args) })
  } catch (error) {
    process.send({ id, error: String(error?.stack ?? error) })
  }
})
process.send({ ready: handlers.port })
