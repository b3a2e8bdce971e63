// Shared by the benchmarks: server children over IPC, interleaved reps, the median of per-rep ratios, and the one
// output contract `bench/run.mjs` reads (`--json`: one JSON line per figure).
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const CHILD = fileURLToPath(new URL('./server-child.mjs', import.meta.url))

/** A server child (`raw` or `dockside`) and a `call(cmd, args)` that answers over IPC. */
export async function startServer(mode) {
  const child = fork(CHILD, [mode], { execArgv: ['--expose-gc', ...(process.env.BENCH_PROF === mode ? ['--cpu-prof', '--cpu-prof-dir=.tmp/prof'] : []), ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [])], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const waiting = new Map()
  let next = 0
  const port = await new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)))
    child.on('message', (m) => {
      if (m.ready) return resolve(m.ready)
      const w = waiting.get(m.id)
      waiting.delete(m.id)
      if (m.error) w.reject(new Error(m.error))
      else w.resolve(m.result)
    })
  })
  return {
    mode,
    port,
    call: (cmd, args = {}) =>
      new Promise((resolve, reject) => {
        const id = next++
        waiting.set(id, { resolve, reject })
        child.send({ id, cmd, ...args })
      }),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', resolve)
        // A normal exit, so that --cpu-prof writes its profile.
        child.send({ id: -1, cmd: 'exit' })
      }),
  }
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
export const quantile = (arr, n, q) => {
  const s = Float64Array.from(arr.subarray(0, n)).sort()
  return s[Math.min(n - 1, Math.floor(q * n))]
}

/**
 * Interleaved reps: `measure('raw')`, `measure('dockside')`, `reps` times (A B A B A B). `ratio(raw, dockside)` per
 * rep; the figure is the median of those ratios, its values the medians of each side.
 */
export async function interleaved(reps, measure, ratio) {
  const raw = []
  const dock = []
  const ratios = []
  for (let r = 0; r < reps; r++) {
    const a = await measure('raw', r)
    const b = await measure('dockside', r)
    raw.push(a)
    dock.push(b)
    ratios.push(ratio(a, b))
  }
  return { baseline: median(raw), dockside: median(dock), ratio: median(ratios), ratios }
}

/** A figure line of the `--json` contract. `goal` is like ">= 0.90" or "<= 1.2"; `pass` follows from it. */
export function figure(name, unit, baselineName, m, goal) {
  const [op, bar] = goal ? goal.split(' ') : []
  const pass = goal ? (op === '>=' ? m.ratio >= Number(bar) : m.ratio <= Number(bar)) : null
  const round = (x) => (Math.abs(x) >= 100 ? Math.round(x) : +x.toPrecision(3))
  return { figure: name, unit, baseline: round(m.baseline), baselineName, dockside: round(m.dockside), ratio: +m.ratio.toFixed(3), goal: goal ?? null, pass }
}

/** Prints a figure: one JSON line with `--json`, else a readable line. */
export function report(row) {
  if (process.argv.includes('--json')) console.log(JSON.stringify(row))
  else console.log(`${row.figure}: ${row.baselineName} ${row.baseline} ${row.unit}, dockside ${row.dockside} ${row.unit}, ratio ${row.ratio}${row.goal ? ` (goal ${row.goal}: ${row.pass ? 'pass' : 'FAIL'})` : ''}`)
}

/** The value of `--name=value` (or the default). */
export const arg = (name, fallback) => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`))
  return a ? a.slice(name.length + 3) : fallback
}
