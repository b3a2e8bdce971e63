// Time from spawn to the first answered request: `dockside serve` (with and without the demo
// scenario) against a raw node:http + ws server started the same way, in the same run.
// Usage: node bench/startup.mjs [rounds=5]
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ROUNDS = Number(process.argv[2] ?? 5)
const root = fileURLToPath(new URL('..', import.meta.url))
const RAW = `
const http = require('node:http'); const { WebSocketServer } = require('ws')
const s = http.createServer((q, r) => r.end('OK')); new WebSocketServer({ server: s })
s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port))`

function firstAnswer(args) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', async (d) => {
      out += d
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(out)
      if (!m || child.answered) return
      child.answered = true
      const res = await fetch(`http://127.0.0.1:${m[1]}/_ping`)
      await res.text()
      const ms = performance.now() - t0
      child.kill('SIGTERM')
      child.on('exit', () => resolve(ms))
    })
    child.on('error', reject)
  })
}

const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const raw = [], bare = [], demo = []
for (let i = 0; i < ROUNDS; i++) {
  raw.push(await firstAnswer(['-e', RAW]))
  bare.push(await firstAnswer(['bin/dockside.js', 'serve', '--port', '0', '--quiet']))
  demo.push(await firstAnswer(['bin/dockside.js', 'serve', '--port', '0', '--quiet', '--scenario', 'demo']))
}
console.log(JSON.stringify({
  bench: 'startup', node: process.version, rounds: ROUNDS,
  rawMs: Math.round(median(raw)), docksideMs: Math.round(median(bare)), docksideDemoMs: Math.round(median(demo)),
  ratio: +(median(bare) / median(raw)).toFixed(2), demoRatio: +(median(demo) / median(raw)).toFixed(2),
}))
