// Wall time of pushing a 1 GB image under the virtual clock (and under `auto` through a real server),
// against a raw baseline: streaming the same number of progress lines over node:http.
// Usage: node bench/push-1gb.mjs
import http from 'node:http'
import { createDockside } from '../dist/index.js'

const GB = 1_000_000_000
const layers = [400_000_000, 300_000_000, 200_000_000, 100_000_000]

async function virtualInProcess() {
  const fake = createDockside({ seed: 1 })
  fake.images.add('localhost:5000/big:1', { layers })
  const server = await fake.listen({ port: 0 })
  const t0 = performance.now()
  const res = await fetch(`${server.url}/images/localhost:5000/big/push?tag=1`, { method: 'POST' })
  const reader = res.body.getReader()
  let bytes = 0, done = false
  const reading = (async () => { for (;;) { const r = await reader.read(); if (r.done) break; bytes += r.value.length } done = true })()
  while (!done) { await fake.clock.advance('10s'); await new Promise((r) => setImmediate(r)) }
  await reading
  const ms = performance.now() - t0
  const virtualSeconds = fake.clock.elapsed() / 1000
  await fake.close()
  return { ms, bytes, virtualSeconds }
}

async function autoServer() {
  const fake = createDockside({ seed: 1, clock: 'auto' })
  fake.images.add('localhost:5000/big:1', { layers })
  const server = await fake.listen({ port: 0 })
  const t0 = performance.now()
  const res = await fetch(`${server.url}/images/localhost:5000/big/push?tag=1`, { method: 'POST' })
  const text = await res.text()
  const ms = performance.now() - t0
  await fake.close()
  return { ms, bytes: text.length, lines: text.split('\n').length - 1 }
}

async function rawBaseline(lines, lineBytes) {
  const line = '{"status":"Pushing","progressDetail":{"current":1,"total":2},"progress":"' + 'x'.repeat(Math.max(0, lineBytes - 80)) + '","id":"0123456789ab"}\n'
  const server = http.createServer(async (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    for (let i = 0; i < lines; i += 5) {
      if (!res.write(line.repeat(5))) await new Promise((r) => res.once('drain', r))
      if (i % 25 === 0) await new Promise((r) => setImmediate(r))
    }
    res.end()
  })
  await new Promise((r) => server.listen(0, '127.0.0.1', r))
  const t0 = performance.now()
  const res = await fetch(`http://127.0.0.1:${server.address().port}/`)
  await res.text()
  const ms = performance.now() - t0
  server.close()
  return ms
}

const v = await virtualInProcess()
const a = await autoServer()
const rawMs = await rawBaseline(a.lines, Math.round(a.bytes / a.lines))
console.log(JSON.stringify({
  bench: 'push-1gb', imageBytes: GB, node: process.version,
  virtual: { wallMs: Math.round(v.ms), virtualSeconds: v.virtualSeconds, bodyBytes: v.bytes },
  auto: { wallMs: Math.round(a.ms), lines: a.lines, bodyBytes: a.bytes },
  rawSameLinesMs: Math.round(rawMs),
  autoRatioToRaw: +(a.ms / rawMs).toFixed(2),
}))
