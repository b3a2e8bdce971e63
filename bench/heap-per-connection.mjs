// What one idle events websocket keeps on the server's heap, by kind of object: two heap snapshots of the server's
// process (after GC), before and after opening N connections from a child process (bench/support/light-client.mjs),
// aggregated by V8 node type and constructor name, divided by N. Finds what to cut for the idle-memory figure of
// `npm run bench` (which reads heapUsed only).
// Usage: node --expose-gc bench/heap-per-connection.mjs [dockside|raw] [N=1000] [rows=30]
// With --spaces (no snapshots, which would grow the heap's spaces themselves): process.memoryUsage() and V8's heap
// space sizes after GC, before and after opening N, per connection: where the RSS figure's bytes are (new_space is the
// young generation, which V8 grows with what survives).
// With --owners: the objects new since the first snapshot, by the part of the server that holds them (the first
// retainers up to ten levels, matched against the rules below, or RULES="name=regexp;..." to set others): how
// decision 0020 splits an idle connection's bytes. DETAIL=part (with --owners) lists that part's objects by their
// first five retainers (DEPTH=n to set how many); SHAPES=1 lists the new objects by their properties.
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
  const spaces = process.argv.includes('--spaces')
  const owners = process.argv.includes('--owners')
  const [mode = 'dockside', N = '1000', rows = '30'] = process.argv.slice(2).filter((a) => !a.startsWith('--'))
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
  if (spaces) {
    const reading = () => {
      globalThis.gc()
      globalThis.gc()
      const m = process.memoryUsage()
      return { rss: m.rss, heapTotal: m.heapTotal, heapUsed: m.heapUsed, ...Object.fromEntries(v8.getHeapSpaceStatistics().map((x) => [x.space_name, x.space_size])) }
    }
    const a = reading()
    await ask({ n })
    const b = reading()
    console.log(`${mode}: bytes per idle connection (${n} open), after GC`)
    for (const k of Object.keys(b)) if (b[k] !== a[k]) console.log(`${String(Math.round((b[k] - a[k]) / n)).padStart(8)}  ${k}`)
    child.kill()
    fs.rmSync(dir, { recursive: true })
    process.exit(0)
  }
  if (owners) {
    const read = (name) => {
      globalThis.gc()
      globalThis.gc()
      const file = path.join(dir, name)
      v8.writeHeapSnapshot(file)
      const snap = JSON.parse(fs.readFileSync(file, 'utf8'))
      fs.rmSync(file)
      return snap
    }
    const a = read('a.heapsnapshot')
    const af = a.snapshot.meta.node_fields
    const oldIds = new Set()
    for (let i = af.indexOf('id'); i < a.nodes.length; i += af.length) oldIds.add(a.nodes[i])
    await ask({ n })
    const b = read('b.heapsnapshot')
    const F = b.snapshot.meta.node_fields
    const E = b.snapshot.meta.edge_fields
    const types = b.snapshot.meta.node_types[0]
    const etypes = b.snapshot.meta.edge_types[0]
    const [t, nm, sz, idf, ec] = ['type', 'name', 'self_size', 'id', 'edge_count'].map((x) => F.indexOf(x))
    const [et, en, eto] = ['type', 'name_or_index', 'to_node'].map((x) => E.indexOf(x))
    const count = b.nodes.length / F.length
    const label = (i) => {
      const type = types[b.nodes[i * F.length + t]]
      return type.includes('string') ? '(string)' : `${type} ${String(b.strings[b.nodes[i * F.length + nm]]).slice(0, 40)}`
    }
    // The first non-weak retainer of each node.
    const retainer = new Map()
    const edgeStart = new Uint32Array(count)
    for (let i = 0, e = 0; i < count; i++) {
      edgeStart[i] = e
      for (let k = 0; k < b.nodes[i * F.length + ec]; k++, e += E.length) {
        const type = etypes[b.edges[e + et]]
        const to = b.edges[e + eto] / F.length
        if (type === 'weak' || retainer.has(to)) continue
        retainer.set(to, [i, type === 'element' || type === 'hidden' ? `[${type}]` : String(b.strings[b.edges[e + en]])])
      }
    }
    // The Set of old ids is new itself, held by this function's stack: left out of the total.
    const rules = (process.env.RULES ?? 'this script (its set of old ids)=Stack roots;request log=closure compile|\\.ring .*closure get omitted;journal=\\.journal ;delivery tracker=\\.tracked |\\.idle ;events socket and subscription=EventsSocket|WsSink|\\.records |byKind|\\.any ;ws=WebSocket|Receiver|Sender;net (socket, TCP)=TCP|Socket')
      .split(';')
      .map((r) => [r.slice(0, r.indexOf('=')), new RegExp(r.slice(r.indexOf('=') + 1))])
    const parts = new Map()
    const detail = new Map()
    let total = 0
    for (let i = 0; i < count; i++) {
      if (oldIds.has(b.nodes[i * F.length + idf])) continue
      const size = b.nodes[i * F.length + sz]
      total += size
      let chain = label(i)
      for (let d = 0, cur = i; d < 10; d++) {
        const r = retainer.get(cur)
        if (!r) break
        chain += ` <- .${r[1]} ${label(r[0])}`
        cur = r[0]
      }
      const part = rules.find(([, re]) => re.test(chain))?.[0] ?? 'other'
      if (part.startsWith('this script')) total -= size
      else parts.set(part, (parts.get(part) ?? 0) + size)
      if (process.env.SHAPES && types[b.nodes[i * F.length + t]] === 'object') {
        const names = []
        for (let k = 0, e = edgeStart[i]; k < b.nodes[i * F.length + ec]; k++, e += E.length) if (etypes[b.edges[e + et]] === 'property') names.push(String(b.strings[b.edges[e + en]]))
        const key = `${label(i)} {${names.slice(0, 12).join(',')}}`
        detail.set(key, (detail.get(key) ?? 0) + size)
      } else if (part === process.env.DETAIL) {
        const key = chain.split(' <- ').slice(0, Number(process.env.DEPTH ?? 5)).join(' <- ').replace(/\.\d+ /g, '.N ')
        detail.set(key, (detail.get(key) ?? 0) + size)
      }
    }
    console.log(`${mode}: ${Math.round(total / n)} bytes per idle connection (${n} open), by who holds them`)
    for (const [part, size] of [...parts].sort((x, y) => y[1] - x[1])) console.log(`${String(Math.round(size / n)).padStart(6)} B  ${part}`)
    if (process.env.DETAIL || process.env.SHAPES) {
      console.log(process.env.SHAPES ? '\nnew objects by their properties:' : `\n${process.env.DETAIL}, by the first retainers:`)
      for (const [k, size] of [...detail].sort((x, y) => y[1] - x[1]).slice(0, Number(rows))) console.log(`${String(Math.round(size / n)).padStart(6)} B  ${k}`)
    }
    child.kill()
    fs.rmSync(dir, { recursive: true })
    process.exit(0)
  }
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
