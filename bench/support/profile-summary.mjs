// Summarises a profile that bench/open-cpu.mjs wrote (PROF=... a .cpuprofile, ALLOC=... a .heapprofile), per unit of
// work: the functions by their own time (µs) or allocation (bytes), then dockside's functions by what they and their
// callees take. Native frames (a Map's `set`, a syscall) are charged to the nearest JavaScript caller, named after it.
// Usage: node bench/support/profile-summary.mjs FILE [N=1] [TOP=40]
import fs from 'node:fs'

const [file, n = '1', top = '40'] = process.argv.slice(2)
if (!file) {
  console.error('usage: node bench/support/profile-summary.mjs FILE [N=1] [TOP=40]')
  process.exit(2)
}
const N = Number(n)
const TOP = Number(top)
const profile = JSON.parse(fs.readFileSync(file, 'utf8'))
const name = (frame) => `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}`
const ours = /dist\//
const own = new Map()
const inclusive = new Map()
const add = (map, key, v) => map.set(key, (map.get(key) ?? 0) + v)

/** Charges `amount` to a node, given the names on its stack (outermost first). */
function charge(stack, amount) {
  const leaf = stack[stack.length - 1]
  const caller = [...stack].reverse().find((s) => s.js)
  add(own, leaf.js ? leaf.name : `${caller?.name ?? '(root)'} > ${leaf.name}`, amount)
  for (const s of new Set(stack.filter((s) => ours.test(s.name)).map((s) => s.name))) add(inclusive, s, amount)
}

let total = 0
let unit
if (profile.head) {
  // A sampling heap profile: a tree with each node's own bytes.
  unit = 'bytes'
  const walk = (node, stack) => {
    const here = [...stack, { name: name(node.callFrame), js: node.callFrame.url !== '' }]
    total += node.selfSize
    if (node.selfSize) charge(here, node.selfSize)
    for (const child of node.children) walk(child, here)
  }
  walk(profile.head, [])
} else {
  // A CPU profile: nodes with parents, samples with time deltas.
  unit = 'µs'
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map()
  for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node.id)
  const time = new Map()
  profile.samples.forEach((id, i) => add(time, id, profile.timeDeltas[i] ?? 0))
  for (const [id, t] of time) {
    const stack = []
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at).callFrame
      stack.unshift({ name: name(frame), js: frame.url !== '' })
    }
    total += t
    charge(stack, t)
  }
}
const per = (v) => (v / N).toFixed(1).padStart(8)
console.log(`${file}: ${per(total).trim()} ${unit} per unit (N = ${N})`)
console.log(`\nown ${unit}, top ${TOP}:`)
for (const [k, v] of [...own].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(per(v), k)
console.log(`\ndockside's functions with their callees, top ${TOP}:`)
for (const [k, v] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(per(v), k)
