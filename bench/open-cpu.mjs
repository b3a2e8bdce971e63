// Server CPU per events connection opened: the server's process.cpuUsage() across opening N connections (200 at a
// time, bench/support/light-client.mjs in this process), raw ws and dockside alternated R times; prints each round and
// the ratio of the medians. What the "opening 5000 events connections" figure of `npm run bench` is made of, without
// the client's share of the wall time. PROF=raw|dockside writes that side's CPU profile of the measured window (not the
// start-up or the warm-up) into .tmp/prof. CHURN=1 measures the churn figure's path instead: N connections opened and
// closed, 8 at a time (connect, upgrade, close frame, TCP close), the server's CPU per connection. ALLOC=raw|dockside
// writes that side's allocation profile of the window instead (bytes allocated, live or not: steadier than CPU time).
// `node bench/support/profile-summary.mjs FILE N` lists either kind of profile per connection.
// Usage: npm run build && node bench/open-cpu.mjs [N=3000] [R=3]
import { fork } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

async function profiler() {
  const { Session } = await import('node:inspector/promises')
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.setSamplingInterval', { interval: 50 })
  return {
    start: () => session.post('Profiler.start'),
    async stop() {
      const { profile } = await session.post('Profiler.stop')
      const dir = path.resolve('.tmp/prof')
      fs.mkdirSync(dir, { recursive: true })
      fs.writeFileSync(path.join(dir, `open-${process.pid}.cpuprofile`), JSON.stringify(profile))
    },
  }
}

/** ALLOC=raw|dockside: every allocation of the measured window, sampled (including what the GC collected since). */
async function allocationProfiler() {
  const { Session } = await import('node:inspector/promises')
  const session = new Session()
  session.connect()
  await session.post('HeapProfiler.enable')
  return {
    start: () => session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }),
    async stop() {
      const { profile } = await session.post('HeapProfiler.stopSampling')
      const dir = path.resolve('.tmp/prof')
      fs.mkdirSync(dir, { recursive: true })
      fs.writeFileSync(path.join(dir, `open-${process.pid}.heapprofile`), JSON.stringify(profile))
    },
  }
}

if (process.argv[2] === '--child') {
  const mode = process.argv[3]
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
  let cpu0
  const profile = process.env.PROF === mode ? await profiler() : process.env.ALLOC === mode ? await allocationProfiler() : undefined
  process.on('message', async (m) => {
    if (m === 'exit') process.exit(0)
    if (m === 'start') {
      await profile?.start()
      cpu0 = process.cpuUsage()
      process.send('ok')
    } else {
      const cpu = process.cpuUsage(cpu0)
      await profile?.stop()
      process.send([cpu.user / 1000, cpu.system / 1000])
    }
  })
  process.send(port)
} else {
  const { openMany, LightClient } = await import('./support/light-client.mjs')
  const CHURN = process.env.CHURN === '1'
  /** Opens and closes n connections, 8 at a time, as the churn figure does. */
  const churn = async (port, url, n) => {
    let next = 0
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < n) {
        next++
        const c = new LightClient(port, url)
        await c.opened
        await c.close()
      }
    }))
    return []
  }
  const N = Number(process.argv[2] ?? 3000)
  const R = Number(process.argv[3] ?? 3)
  const WEB = `/events/ws?filters=${encodeURIComponent(JSON.stringify({ event: ['start', 'stop'], label: ['app=web'] }))}`
  const perConnection = { raw: [], dockside: [] }
  const split = { raw: [], dockside: [] }
  for (let r = 0; r < R; r++) {
    for (const mode of ['raw', 'dockside']) {
      const child = fork(new URL(import.meta.url).pathname, ['--child', mode])
      const ask = (m) => new Promise((resolve) => (child.once('message', resolve), m !== undefined && child.send(m)))
      const port = await ask()
      const url = mode === 'raw' ? '/' : WEB
      // Warm the paths (lazy imports, the first filter compile) before measuring.
      for (const c of await openMany(port, url, 50)) await c.close()
      await ask('start')
      const clients = CHURN ? await churn(port, url, N) : await openMany(port, url, N)
      const [user, system] = await ask('stop')
      perConnection[mode].push(((user + system) * 1000) / N)
      split[mode].push(`${((user * 1000) / N).toFixed(0)}+${((system * 1000) / N).toFixed(0)}`)
      for (const c of clients) c.destroy()
      child.send('exit')
    }
  }
  const median = (x) => [...x].sort((a, b) => a - b)[x.length >> 1]
  const show = (x) => x.map((v) => v.toFixed(0)).join(' / ')
  console.log(`server CPU µs per connection ${CHURN ? 'opened and closed, 8 at a time' : 'opened'} (${N}, ${R} alternated rounds): raw ${show(perConnection.raw)}, dockside ${show(perConnection.dockside)}, ratio of medians ${(median(perConnection.dockside) / median(perConnection.raw)).toFixed(2)}`)
  console.log(`  user+system: raw ${split.raw.join(' / ')}, dockside ${split.dockside.join(' / ')}`)
  process.exit(0)
}
