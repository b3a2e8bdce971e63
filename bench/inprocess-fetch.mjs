// In-process fetch against the mocks a user would pick instead, each measurement in its own child process (nock
// patches globals on import; a child each keeps the measurements apart), interleaved (nock, dockside, nock,
// dockside...), the ratio per rep, the median of the reps.
//  1. Per test: create a fake + hook + one `fetch` of /_ping (+ restore and close), in ms per test; baselines nock
//     (a scope + one reply + cleanAll) and a real loopback request (listen on port 0 + fetch + close).
//  2. Push progress lines/s in process: the `auto` clock, one `fetch` of a 10 GB push read to its end; baseline
//     nock replying with a stream of the same lines.
// Usage: node bench/inprocess-fetch.mjs [--json] [--reps 3] [--tests 2000] [--gb 10]
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const { values: opts } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    reps: { type: 'string', default: '3' },
    tests: { type: 'string', default: '2000' },
    gb: { type: 'string', default: '10' },
    child: { type: 'string' },
    lines: { type: 'string' },
  },
})
const ORIGIN = 'https://us-west-1.hyper.test'
const LAYERS = 5
const layerSize = Math.round((Number(opts.gb) * 1e9) / LAYERS)
const PUSH = '/images/localhost:5000/big/push?tag=1'

/** Reads a fetch body to its end without decoding it. */
async function drain(res) {
  const reader = res.body.getReader()
  let bytes = 0
  let chunks = 0
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    bytes += r.value.byteLength
    chunks++
  }
  return { bytes, chunks }
}

async function perTest(kind, n) {
  const warm = Math.min(300, n)
  let run
  if (kind === 'dockside') {
    const { createDockside } = await import('../dist/index.js')
    run = async () => {
      const fake = createDockside({ seed: 1 })
      const hooks = await fake.intercept()
      const res = await fetch(`${ORIGIN}/_ping`)
      if ((await res.text()) !== 'OK') throw new Error('bad answer')
      hooks.restore()
      await fake.close()
    }
  } else if (kind === 'nock') {
    const { default: nock } = await import('nock')
    run = async () => {
      nock(ORIGIN).get('/_ping').reply(200, 'OK')
      const res = await fetch(`${ORIGIN}/_ping`)
      if ((await res.text()) !== 'OK') throw new Error('bad answer')
      nock.cleanAll()
    }
  } else {
    const http = await import('node:http')
    run = async () => {
      const server = http.createServer((req, res) => res.end('OK'))
      await new Promise((r) => server.listen(0, '127.0.0.1', r))
      const res = await fetch(`http://127.0.0.1:${server.address().port}/_ping`)
      if ((await res.text()) !== 'OK') throw new Error('bad answer')
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    }
  }
  for (let i = 0; i < warm; i++) await run()
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  for (let i = 0; i < n; i++) await run()
  const c = process.cpuUsage(c0)
  return { msPerTest: (performance.now() - t0) / n, cpuMsPerTest: (c.user + c.system) / 1000 / n }
}

async function pushStream(kind) {
  const { createDockside } = await import('../dist/index.js')
  if (kind === 'dockside') {
    const fake = createDockside({ seed: 1, clock: 'auto' })
    for (let i = 0; i < 3; i++) fake.images.add(`localhost:${5000 + i}/big:1`, { layers: Array(LAYERS).fill(layerSize) })
    const hooks = await fake.intercept()
    // One warm-up push, then the timed one (another registry: one that has the blobs answers "already exists").
    await drain(await fetch(`${ORIGIN}${PUSH}`, { method: 'POST' }))
    const t0 = performance.now()
    const { bytes, chunks } = await drain(await fetch(`${ORIGIN}${PUSH.replace('5000', '5001')}`, { method: 'POST' }))
    const ms = performance.now() - t0
    const text = await (await fetch(`${ORIGIN}${PUSH.replace('5000', '5002')}`, { method: 'POST' })).text()
    hooks.restore()
    await fake.close()
    return { ms, bytes, chunks, lines: text.split('\n').length - 1 }
  }
  const { default: nock } = await import('nock')
  const { Readable } = await import('node:stream')
  const { readFileSync } = await import('node:fs')
  const lines = readFileSync(opts.lines, 'utf8').split(/(?<=\n)/)
  // What a user would write: the same lines, one chunk each, as a stream.
  const reply = () => nock(ORIGIN).post(PUSH).reply(200, () => Readable.from(lines, { objectMode: false }), { 'content-type': 'application/json' })
  reply()
  await drain(await fetch(`${ORIGIN}${PUSH}`, { method: 'POST' }))
  reply()
  const t0 = performance.now()
  const { bytes, chunks } = await drain(await fetch(`${ORIGIN}${PUSH}`, { method: 'POST' }))
  const ms = performance.now() - t0
  return { ms, bytes, chunks, lines: lines.length }
}

if (opts.child) {
  const [figure, kind] = opts.child.split(':')
  const result = figure === 'test' ? await perTest(kind, Number(opts.tests)) : await pushStream(kind)
  console.log(JSON.stringify(result))
  process.exit(0)
} else await main()

function child(spec, extra = []) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', spec, '--tests', opts.tests, '--gb', opts.gb, ...extra], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    proc.stdout.on('data', (d) => (out += d))
    proc.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1))) : reject(new Error(`${spec} exited ${code}`))))
    proc.on('error', reject)
  })
}

async function main() {
  const reps = Number(opts.reps)
  const { mkdtempSync, writeFileSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  // The lines nock streams: the dockside push's own, captured once through the real server.
  const { createDockside } = await import('../dist/index.js')
  const fake = createDockside({ seed: 1, clock: 'auto' })
  fake.images.add('localhost:5000/big:1', { layers: Array(LAYERS).fill(layerSize) })
  const server = await fake.listen({ port: 0 })
  const reference = await (await fetch(`${server.url}${PUSH}`, { method: 'POST' })).text()
  await fake.close()
  const file = join(mkdtempSync(join(tmpdir(), 'dockside-bench-')), 'lines.ndjson')
  writeFileSync(file, reference)

  const tests = []
  const pushes = []
  for (let rep = 0; rep < reps; rep++) {
    const nock = await child('test:nock')
    const dockside = await child('test:dockside')
    const loopback = await child('test:loopback')
    tests.push({ nock: nock.msPerTest, dockside: dockside.msPerTest, loopback: loopback.msPerTest, ratio: dockside.msPerTest / nock.msPerTest, cpu: { nock: nock.cpuMsPerTest, dockside: dockside.cpuMsPerTest, loopback: loopback.cpuMsPerTest } })
    const n = await child('push:nock', ['--lines', file])
    const d = await child('push:dockside')
    pushes.push({ nock: n, dockside: d, ratio: n.ms / d.ms })
  }
  const median = (rows) => [...rows].sort((a, b) => a.ratio - b.ratio)[Math.floor(rows.length / 2)]
  const t = median(tests)
  const p = median(pushes)
  const lps = (r) => Math.round(r.lines / (r.ms / 1000))
  const figures = [
    { figure: 'in-process: create a fake + hook + one fetch', unit: 'ms per test', baseline: +t.nock.toFixed(3), baselineName: 'nock (scope + reply + cleanAll)', dockside: +t.dockside.toFixed(3), ratio: +t.ratio.toFixed(3), goal: '<= 1.0 ms', pass: t.dockside <= 1.0, loopback: +t.loopback.toFixed(3), cpuMsPerTest: { nock: +t.cpu.nock.toFixed(3), dockside: +t.cpu.dockside.toFixed(3), loopback: +t.cpu.loopback.toFixed(3) } },
    { figure: 'in-process: push progress lines/s (fetch, auto clock)', unit: 'lines/s', baseline: lps(p.nock), baselineName: 'nock streaming the same lines', dockside: lps(p.dockside), ratio: +p.ratio.toFixed(3), goal: '>= 1.2', pass: p.ratio >= 1.2, chunks: { nock: p.nock.chunks, dockside: p.dockside.chunks } },
  ]
  if (opts.json) for (const f of figures) console.log(JSON.stringify(f))
  else {
    for (const r of tests) console.log(`  per test: nock ${r.nock.toFixed(3)} ms, dockside ${r.dockside.toFixed(3)} ms, loopback ${r.loopback.toFixed(3)} ms (CPU: ${r.cpu.nock.toFixed(3)}, ${r.cpu.dockside.toFixed(3)}, ${r.cpu.loopback.toFixed(3)} ms)`)
    for (const r of pushes) console.log(`  push: nock ${r.nock.ms.toFixed(1)} ms (${r.nock.chunks} chunks), dockside ${r.dockside.ms.toFixed(1)} ms (${r.dockside.chunks} chunks), ratio ${r.ratio.toFixed(3)}`)
    for (const f of figures) console.log(`${f.figure}: ${f.baselineName} ${f.baseline}, dockside ${f.dockside} ${f.unit}, ratio ${f.ratio} (goal ${f.goal}) ${f.pass ? 'pass' : 'FAIL'}`)
  }
}
