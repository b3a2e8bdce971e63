// Time from spawn to the first answered request: `dockside serve` (with and without the demo
// scenario) against a raw node:http + ws server started the same way, in the same run; and from spawn to the first
// websocket open (dockside's /events/ws), since dockside loads ws on the first upgrade, not at start.
// Interleaved rounds (raw, dockside, dockside --scenario demo, then the websocket pair), the median of the per-round
// ratios.
// Usage: node bench/startup.mjs [rounds=5] [--json]
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { figure, median, report } from './support/harness.mjs'

const ROUNDS = Number(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 5)
const root = fileURLToPath(new URL('..', import.meta.url))
const RAW = `
const http = require('node:http'); const { WebSocketServer } = require('ws')
const s = http.createServer((q, r) => r.end('OK')); new WebSocketServer({ server: s })
s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port))`

/** Spawn to the first answer: a `GET /_ping` answered, or with `ws`, a websocket on `path` open. */
function firstAnswer(args, ws) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', async (d) => {
      out += d
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(out)
      if (!m || child.answered) return
      child.answered = true
      if (ws) {
        const socket = new WebSocket(`ws://127.0.0.1:${m[1]}${ws}`)
        await new Promise((opened, failed) => {
          socket.onopen = opened
          socket.onerror = () => failed(new Error(`websocket ${ws} did not open`))
        })
        socket.close()
      } else {
        const res = await fetch(`http://127.0.0.1:${m[1]}/_ping`)
        await res.text()
      }
      const ms = performance.now() - t0
      child.kill('SIGTERM')
      child.on('exit', () => resolve(ms))
    })
    child.on('error', reject)
  })
}

const SERVE = ['bin/dockside.js', 'serve', '--port', '0', '--quiet']
const raw = [], bare = [], demo = [], rawWs = [], bareWs = []
// One unmeasured round first: the first spawn pays for cold disk caches, and this process's first fetch and
// WebSocket load their own code.
await firstAnswer(['-e', RAW])
await firstAnswer(SERVE)
await firstAnswer(['-e', RAW], '/')
await firstAnswer(SERVE, '/events/ws')
for (let i = 0; i < ROUNDS; i++) {
  raw.push(await firstAnswer(['-e', RAW]))
  bare.push(await firstAnswer(SERVE))
  demo.push(await firstAnswer([...SERVE, '--scenario', 'demo']))
  rawWs.push(await firstAnswer(['-e', RAW], '/'))
  bareWs.push(await firstAnswer(SERVE, '/events/ws'))
}
const of = (xs, base = raw) => ({ baseline: median(base), dockside: median(xs), ratio: median(xs.map((x, i) => x / base[i])) })
report(figure('`dockside serve` cold start to first answered request', 'ms', 'raw CommonJS http+ws', of(bare), '<= 1.2'))
report(figure('`dockside serve --scenario demo` cold start', 'ms', 'raw CommonJS http+ws', of(demo)))
report(figure('`dockside serve` cold start to first events websocket open', 'ms', 'raw CommonJS http+ws, websocket open', of(bareWs, rawWs)))
