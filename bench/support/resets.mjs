// Rounds of clients that vanish with a TCP reset at every stage, shared by bench/soak-resets.mjs and
// test/behaviour/robustness/connection-resets.test.ts. Traffic goes only to the server's 127.0.0.1 port.
import net from 'node:net'

const IMAGE = 'localhost:5000/team/app'
const KEY = 'dGhlIHNhbXBsZSBub25jZQ=='

/** Opens a raw connection, writes `request`, and resolves once `until` matches what came back (or at once without it). */
function raw(port, request, until) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    socket.once('error', reject)
    socket.write(request)
    if (!until) return resolve(socket)
    let seen = ''
    socket.on('data', function onData(d) {
      seen += d.toString('latin1')
      if (until.test(seen)) {
        socket.off('data', onData)
        resolve(socket)
      }
    })
  })
}

/** Ends the connection with a TCP RST (no FIN): the client vanished. */
const reset = (socket) => socket.resetAndDestroy()

const upgrade = (host, query = '') =>
  `GET /events/ws${query} HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n`

/** Resolves once `check()` is true, polling on the event loop (no fixed sleep); rejects after `ms`. */
async function until(check, what, ms = 5000) {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`still left behind after ${ms} ms: ${what()}`)
    await new Promise((r) => setImmediate(r))
  }
}

/**
 * Runs reset rounds for `seconds` (or `rounds`), checking after each that the fake left nothing behind: no live
 * events socket, no server connection, no clock timer beyond the baseline. Calls `onSample(round)` now and then.
 */
export async function resetRounds({ fake, server, web, seconds = Infinity, rounds = Infinity, onSample, sampleEvery = 200 }) {
  const host = `127.0.0.1:${server.port}`
  const baseline = fake.clock.pending
  const started = Date.now()
  let round = 0
  let resets = 0
  const leftovers = () => `${fake.protocol.hub.sockets.size} events sockets, ${server.connections()} connections, ${fake.clock.pending - baseline} timers`
  while (round < rounds && Date.now() - started < seconds * 1000) {
    const sockets = await Promise.all([
      // Half a handshake, then gone.
      raw(server.port, upgrade(host).slice(0, 40)),
      // A whole handshake, gone before reading the answer.
      raw(server.port, upgrade(host, '?client=hasty')),
      // Upgraded and streaming, then gone.
      raw(server.port, upgrade(host, '?client=streaming'), /^HTTP\/1\.1 101/),
      // Docker's GET /events, headers received, then gone.
      raw(server.port, `GET /events HTTP/1.1\r\nHost: ${host}\r\n\r\n`, /\r\n\r\n/),
      // A push mid-stream, then gone.
      raw(server.port, `POST /images/${IMAGE}/push?tag=1.0 HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\n\r\n`, /The push refers to repository/),
      // A body that never finishes, then gone.
      raw(server.port, `POST /_dockside/faults HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"on":"ev`),
    ])
    web.start()
    web.stop()
    for (const s of sockets) reset(s)
    resets += sockets.length
    await until(() => fake.protocol.hub.sockets.size === 0 && server.connections() === 0 && fake.clock.pending <= baseline, leftovers)
    round++
    if (onSample && round % sampleEvery === 0) onSample(round)
  }
  // After all that, a normal client is served.
  const res = await fetch(`${server.url}/_ping`)
  if (res.status !== 200) throw new Error(`a normal request after the resets answered ${res.status}`)
  return { rounds: round, resets }
}
