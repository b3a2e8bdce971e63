// What one idle events websocket keeps on the server's heap, by kind of object: two heap snapshots of the server's
// process (after GC), before and after opening N connections from a child process (bench/support/light-client.mjs),
// aggregated by V8 node type and constructor name, divided by N. Finds what to cut for the idle-memory figure of
// `npm run bench` (which reads heapUsed only).
// Usage: node --expose-gc bench/heap-per-connection.mjs [dockside|raw] [N=1000] [rows=30]
import { fork } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import v8 from 'node:v8'

if (process.argv[2] === '--opener') {
  const { openMany } = await import('./support/light-client.mjs')
  const [port, url] = process.argv.slice(3)
  let open = []
  process.on('message', async (m) => {
    if (m.close) {
      for (const c of open) await c.close()
      open = []
    } else open.push(...(await openMany(Number(port), url, m.n)))
    process.send('ok')
  })
} else {
  const [mode = 'dockside', N = '1000', rows = '30'] = process.argv.slice(2)
  const n = Number(N)
  let port
  if (mode === 'raw') {
    const { WebSocketServer } = await import('ws')
    const http = await import('node:http')
    const server = http.createServer((req, res) => res.end('OK'))
    new WebSocketServer({ server, perMessageDeflate: false })
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = server.address().port
  } else {
    const { createDockside } = await import('../dist/index.js')
    const dock = createDockside({ seed: 1, clock: 'real' })
    port = (await dock.listen({ port: 0 })).port
    dock.containers.create({ name: 'web', image: 'nginx', labels: { app: 'web' } })
  }
  const url = mode === 'raw' ? '/' : `/events/ws?filters=${encodeURIComponent(JSON.stringify({ event: ['start', 'stop'], label: ['app=web'] }))}`
  const child = fork(new URL(import.meta.url).pathname, ['--opener', String(port), url])
  const ask = (m) => new Promise((resolve) => (child.once('message', resolve), child.send(m)))
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heap-'))
  const snapshot = (name) => {
    globalThis.gc()
    globalThis.gc()
    const file = path.join(dir, name)
    v8.writeHeapSnapshot(file)
    const s = JSON.parse(fs.readFileSync(file, 'utf8'))
    fs.rmSync(file)
    const f = s.snapshot.meta.node_fields
    const types = s.snapshot.meta.node_types[0]
    const [t, nm, sz] = ['type', 'name', 'self_size'].map((x) => f.indexOf(x))
    const agg = new Map()
    for (let i = 0; i < s.nodes.length; i += f.length) {
      const type = types[s.nodes[i + t]]
      const name = type.includes('string') ? '(string)' : type === 'code' ? '(code)' : String(s.strings[s.nodes[i + nm]]).slice(0, 50)
      const a = agg.get(`${type} ${name}`) ?? [0, 0]
      a[0]++
      a[1] += s.nodes[i + sz]
      agg.set(`${type} ${name}`, a)
    }
    return agg
  }
  // Warm the paths (lazy imports, first compile) before the first snapshot.
  await ask({ n: 10 })
  await ask({ close: true })
  const before = snapshot('a.heapsnapshot')
  await ask({ n })
  const after = snapshot('b.heapsnapshot')
  let total = 0
  const out = []
  for (const [k, [count, size]] of after) {
    const [c0, s0] = before.get(k) ?? [0, 0]
    total += size - s0
    out.push([k, (count - c0) / n, (size - s0) / n])
  }
  out.sort((a, b) => b[2] - a[2])
  console.log(`${mode}: ${Math.round(total / n)} bytes per idle connection (${n} open)`)
  for (const [k, count, size] of out.slice(0, Number(rows))) console.log(`${String(Math.round(size)).padStart(6)} B  ${count.toFixed(2).padStart(6)} ×  ${k}`)
  child.kill()
  fs.rmSync(dir, { recursive: true })
  process.exit(0)
}
