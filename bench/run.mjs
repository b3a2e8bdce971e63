// `npm run bench`: runs each benchmark script with --json, one after the other, and prints one table of every
// figure (figure, baseline, dockside, ratio, goal, pass). A report, not a gate: the exit code is 0 unless a script
// crashed. Scripts that do not exist (yet) are skipped with a note.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import os from 'node:os'
import { fileURLToPath } from 'node:url'

const here = fileURLToPath(new URL('.', import.meta.url))
const SCRIPTS = [
  ['events-server.mjs', 'server: fan-out, latency, churn, memory, scale'],
  ['startup.mjs', 'server: cold start'],
  ['push-stream.mjs', 'push progress stream'],
  ['inprocess-ws.mjs', 'in process: WebSocket'],
  ['inprocess-fetch.mjs', 'in process: fetch'],
]
const extra = process.argv.slice(2)
const rows = []
const crashed = []
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(', ')
const started = `load average ${load()}`

for (const [file, what] of SCRIPTS) {
  const path = `${here}${file}`
  if (!existsSync(path)) {
    console.error(`(skipped bench/${file}: not there yet — ${what})`)
    continue
  }
  console.error(`running bench/${file} (${what})...`)
  const t0 = performance.now()
  const r = spawnSync(process.execPath, [path, '--json', ...extra], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 })
  for (const line of r.stdout.split('\n')) {
    if (!line.startsWith('{')) continue
    try {
      const row = JSON.parse(line)
      if (typeof row.figure === 'string') rows.push(row)
    } catch {
      // Not a figure line.
    }
  }
  console.error(`  ${((performance.now() - t0) / 1000).toFixed(0)} s`)
  if (r.status !== 0) crashed.push(`bench/${file} exited with ${r.status ?? r.signal}`)
}

const fmt = (x) => (x === null || x === undefined ? '' : typeof x === 'number' ? String(x) : String(x))
const table = [['figure', 'unit', 'baseline', 'value', 'dockside', 'ratio', 'goal', 'pass']]
for (const r of rows) table.push([r.figure, r.unit, r.baselineName, fmt(r.baseline), fmt(r.dockside), fmt(r.ratio), fmt(r.goal), r.pass === null || r.pass === undefined ? '' : r.pass ? 'yes' : '**no**'])
const md = (cells) => `| ${cells.join(' | ')} |`
console.log(`Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${os.platform()} ${os.release()}; ${started} at the start, ${load()} at the end; ${new Date().toISOString()}`)
console.log()
console.log(md(['figure', 'unit', 'baseline', 'baseline value', 'dockside', 'ratio', 'goal', 'pass']))
console.log(md(Array(8).fill('---')))
for (const r of table.slice(1)) console.log(md(r))
const failed = rows.filter((r) => r.pass === false).length
console.log()
console.log(`${rows.length} figures, ${rows.filter((r) => r.pass === true).length} meet their goal, ${failed} do not.`)
for (const c of crashed) console.log(`CRASHED: ${c}`)
process.exit(crashed.length ? 1 : 0)
