// Push progress stream through the real server under the `auto` clock: lines/s and bytes/s, against a raw
// node:http server writing the same NDJSON lines one `write()` per line. Server and client in separate
// processes: each server is a child of this script, the client (a raw TCP socket that only counts bytes, so it
// is never the bottleneck) runs here. Interleaved reps (raw, dockside, raw, dockside...), the ratio per rep,
// the median of the reps.
// Usage: node bench/push-stream.mjs [--json] [--reps 3] [--gb 10] [--pushes 4]
//   a 10 GB image of 5 layers at the default 20 MB/s is 500 s of clock time: 5,000 pacing ticks, ~25,000 lines.
import { spawn } from 'node:child_process'
import net from 'node:net'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const { values: opts } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    reps: { type: 'string', default: '3' },
    gb: { type: 'string', default: '10' },
    pushes: { type: 'string', default: '4' },
    serve: { type: 'string' },
  },
})
const LAYERS = 5
const layerSize = Math.round((Number(opts.gb) * 1e9) / LAYERS)
const REGISTRIES = 100

// ---- children -------------------------------------------------------------------------------------------
if (opts.serve === 'dockside') {
  const { createDockside } = await import('../dist/index.js')
  const fake = createDockside({ seed: 1, clock: 'auto' })
  // One registry per push: a registry that already has the blobs answers "Layer already exists" instead of progress.
  for (let i = 0; i < REGISTRIES; i++) fake.images.add(`localhost:${5000 + i}/big:1`, { layers: Array(LAYERS).fill(layerSize) })
  const server = await fake.listen({ port: 0 })
  console.log(JSON.stringify({ port: server.port }))
  answerCpu(() => fake.close().then(() => process.exit(0)))
} else if (opts.serve === 'raw') {
  const http = await import('node:http')
  let lines = []
  const server = http.createServer(async (req, res) => {
    if (req.method === 'PUT') {
      // The lines to serve, as dockside streamed them (sent once by the parent).
      let text = ''
      req.setEncoding('utf8')
      for await (const c of req) text += c
      lines = text.split(/(?<=\n)/)
      return res.end('ok')
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    for (const line of lines) if (!res.write(line)) await new Promise((r) => res.once('drain', r))
    res.end()
  })
  server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })))
  answerCpu(() => process.exit(0))
} else await main()

/** A child answers each line on stdin with its CPU time so far (µs), and stops when stdin ends. */
function answerCpu(stop) {
  process.stdin.setEncoding('utf8')
  process.stdin.on('data', (d) => {
    for (let i = 0; i < d.split('\n').length - 1; i++) {
      const u = process.cpuUsage()
      console.log(JSON.stringify({ cpu: u.user + u.system }))
    }
  })
  process.stdin.on('end', stop)
}

// ---- parent: the client ---------------------------------------------------------------------------------
function child(kind) {
  const proc = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', kind, '--gb', opts.gb], { stdio: ['pipe', 'pipe', 'inherit'] })
  const waiting = []
  let out = ''
  proc.stdout.setEncoding('utf8')
  proc.stdout.on('data', (d) => {
    out += d
    for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
      const line = JSON.parse(out.slice(0, nl))
      out = out.slice(nl + 1)
      waiting.shift()?.(line)
    }
  })
  const next = () => new Promise((resolve) => waiting.push(resolve))
  return new Promise((resolve, reject) => {
    proc.on('error', reject)
    next().then(({ port }) =>
      resolve({
        port,
        /** The server's CPU time so far, in ms. */
        cpu: () => {
          proc.stdin.write('cpu\n')
          return next().then((r) => r.cpu / 1000)
        },
        stop: () => proc.stdin.end(),
      }),
    )
  })
}

/** One request on a fresh connection; resolves with the wall time to the last byte and the bytes on the wire. */
function timed(port, path) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    let bytes = 0
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`)
    })
    socket.on('data', (d) => (bytes += d.length))
    socket.on('end', () => resolve({ ms: performance.now() - t0, wire: bytes }))
    socket.on('error', reject)
  })
}

async function main() {
  const reps = Number(opts.reps)
  const pushes = Number(opts.pushes)
  if (1 + reps * pushes > REGISTRIES) throw new Error(`at most ${REGISTRIES - 1} pushes in all`)
  const [dockside, raw] = await Promise.all([child('dockside'), child('raw')])
  try {
    const push = (i) => `/images/localhost:${5000 + i}/big/push?tag=1`
    // The reference stream (registry localhost:5000), decoded by fetch; the raw server serves exactly these lines.
    const reference = await (await fetch(`http://127.0.0.1:${dockside.port}${push(0)}`, { method: 'POST' })).text()
    if (!reference.includes('"aux"')) throw new Error(`the push did not complete: ${reference.slice(-300)}`)
    await (await fetch(`http://127.0.0.1:${raw.port}/`, { method: 'PUT', body: reference })).text()
    const check = await (await fetch(`http://127.0.0.1:${raw.port}/`, { method: 'POST' })).text()
    if (check !== reference) throw new Error('the raw server does not serve the reference lines')
    const lines = reference.split('\n').length - 1
    const bytes = Buffer.byteLength(reference)
    let next = 1
    const rows = []
    for (let rep = 0; rep < reps; rep++) {
      let rawMs = 0
      let docksideMs = 0
      let rawCpu = -(await raw.cpu())
      for (let p = 0; p < pushes; p++) rawMs += (await timed(raw.port, '/')).ms
      rawCpu += await raw.cpu()
      let docksideCpu = -(await dockside.cpu())
      for (let p = 0; p < pushes; p++) docksideMs += (await timed(dockside.port, push(next++))).ms
      docksideCpu += await dockside.cpu()
      rows.push({ rawMs: rawMs / pushes, docksideMs: docksideMs / pushes, ratio: rawMs / docksideMs, rawCpu: rawCpu / pushes, docksideCpu: docksideCpu / pushes, cpuRatio: rawCpu / docksideCpu })
    }
    // One more dockside push, decoded, to check its lines are the reference's (the image's own names and ids aside).
    const last = await (await fetch(`http://127.0.0.1:${dockside.port}${push(next)}`, { method: 'POST' })).text()
    const names = (text) => text.replace(/localhost:50\d\d\//g, 'R/').replace(/[0-9a-f]{64}|"id":"[0-9a-f]{12}"/g, 'X')
    if (names(last) !== names(reference) || last.length !== reference.length) throw new Error('dockside streamed different lines on a later push')
    const mid = [...rows].sort((a, b) => a.ratio - b.ratio)[Math.floor(rows.length / 2)]
    // Beside the wall-time ratio (the figure), the servers' own CPU time per push: steadier on a shared machine.
    const cpuRatio = +[...rows].sort((a, b) => a.cpuRatio - b.cpuRatio)[Math.floor(rows.length / 2)].cpuRatio.toFixed(3)
    const rate = (n, ms) => Math.round(n / (ms / 1000))
    const figures = [
      { figure: 'push stream lines/s (server, auto clock)', unit: 'lines/s', baseline: rate(lines, mid.rawMs), baselineName: 'raw node:http, one write per line', dockside: rate(lines, mid.docksideMs) },
      { figure: 'push stream bytes/s (server, auto clock)', unit: 'bytes/s', baseline: rate(bytes, mid.rawMs), baselineName: 'raw node:http, one write per line', dockside: rate(bytes, mid.docksideMs) },
    ].map((f) => ({ ...f, ratio: +mid.ratio.toFixed(3), goal: '>= 0.9', pass: mid.ratio >= 0.9, serverCpuRatio: cpuRatio }))
    if (opts.json) for (const f of figures) console.log(JSON.stringify(f))
    else {
      console.log(`push of ${opts.gb} GB (${LAYERS} layers): ${lines} lines, ${bytes} bytes; ${pushes} pushes per rep`)
      for (const r of rows) console.log(`  rep: raw ${r.rawMs.toFixed(1)} ms, dockside ${r.docksideMs.toFixed(1)} ms, ratio ${r.ratio.toFixed(3)}; server CPU per push: raw ${r.rawCpu.toFixed(1)} ms, dockside ${r.docksideCpu.toFixed(1)} ms, ratio ${r.cpuRatio.toFixed(3)}`)
      for (const f of figures) console.log(`${f.figure}: raw ${f.baseline}, dockside ${f.dockside}, ratio ${f.ratio} (goal ${f.goal}) ${f.pass ? 'pass' : 'FAIL'}; server CPU ratio ${f.serverCpuRatio}`)
    }
  } finally {
    dockside.stop()
    raw.stop()
  }
}
