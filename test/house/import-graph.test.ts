// The house's layers, checked: the import graph of src/ (type imports included) has no cycle, and every import goes
// down the layers docs/architecture.md draws. A change that breaks either fails here, with the edge that breaks it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = resolve('src')

/** Each part of src/ and its floor: a module may import its own part and the parts on lower floors only. */
const FLOORS: Record<string, number> = {
  time: 0,
  runtime: 2,
  service: 1,
  faults: 2,
  core: 3,
  // The protocol's own floors: Go's behaviours, then what every route shares (types, the error table, fault
  // replies, filters, timestamps, signatures, the guard), then the endpoints, then the router that joins them.
  'protocol/go': 4,
  'protocol/shared': 4.1,
  'protocol/requests': 4.2,
  'protocol/events': 4.2,
  'protocol/docker': 4.3,
  'protocol/admin': 4.4,
  'protocol/router': 4.5,
  scenario: 5,
  ui: 5,
  'transports/shared': 5,
  'transports/server': 6,
  'transports/intercept': 6,
  'transports/msw': 6,
  facade: 7,
  matchers: 8,
  vitest: 9,
  browser: 9,
  verify: 9,
  // record reads a host as verify does (verify/host.ts): a floor above it, below the CLI.
  record: 9.5,
  cli: 10,
}

/** The router: the protocol's top floor, the one file of protocol/ that joins its folders. */
const PROTOCOL_TOP = new Set(['router.ts'])

/**
 * The part of src/ a file belongs to: its folder; a transport's folder; a file in transports/ is shared by them; in
 * protocol/, its folder, its top (the router) or what its endpoints share (the other files at its root).
 */
function partOf(file: string): string {
  const parts = relative(SRC, file).split('/')
  if (parts.length === 1) return 'facade'
  if (parts[0] === 'protocol') return parts.length > 2 ? `protocol/${parts[1]}` : PROTOCOL_TOP.has(parts[1]) ? 'protocol/router' : 'protocol/shared'
  if (parts[0] === 'transports') return parts.length === 2 ? 'transports/shared' : `transports/${parts[1]}`
  return parts[0]
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f)
    return statSync(p).isDirectory() ? sources(p) : f.endsWith('.ts') ? [p] : []
  })
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g

/** Every relative import of every file of src/, resolved to a file. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of sources(SRC)) {
    const deps: string[] = []
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3]
      if (!spec.startsWith('.')) continue
      const base = resolve(dirname(file), spec)
      const target = [`${base}.ts`, join(base, 'index.ts'), base.replace(/\.js$/, '.ts'), base].find((c) => existsSync(c) && statSync(c).isFile())
      if (target?.endsWith('.ts')) deps.push(target)
    }
    graph.set(file, deps)
  }
  return graph
}

/** The strongly connected components of more than one file (Tarjan): each is a cycle. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (v: string) => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        component.push(relative(SRC, w))
      } while (w !== v)
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort())
    }
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return found
}

describe('the import graph of src/', () => {
  const graph = importGraph()

  it('covers the code: every file of src/ is in a part with a floor', () => {
    expect(graph.size).toBeGreaterThan(100)
    expect([...graph.keys()].map(partOf).filter((p) => FLOORS[p] === undefined)).toEqual([])
  })

  it('has no cycle, type imports included', () => {
    expect(cycles(graph)).toEqual([])
  })

  it('goes down the layers: no import of a part on a higher floor, nor of another transport', () => {
    const against: string[] = []
    for (const [file, deps] of graph) {
      const from = partOf(file)
      for (const dep of deps) {
        const to = partOf(dep)
        if (from === to) continue
        const sideways = from.startsWith('transports/') && to.startsWith('transports/') && to !== 'transports/shared'
        if (FLOORS[to] > FLOORS[from] || (FLOORS[to] === FLOORS[from] && from !== 'facade') || sideways) against.push(`${relative(SRC, file)} -> ${relative(SRC, dep)}`)
      }
    }
    expect(against).toEqual([])
  })

  it('catches what it is for: a cycle and an import up the floors', () => {
    const a = join(SRC, 'service/a.ts')
    const b = join(SRC, 'service/b.ts')
    expect(cycles(new Map([[a, [b]], [b, [a]]]))).toEqual([['service/a.ts', 'service/b.ts']])
    expect(FLOORS[partOf(join(SRC, 'service/push.ts'))]).toBeLessThan(FLOORS[partOf(join(SRC, 'faults/plan.ts'))])
    expect(partOf(join(SRC, 'transports/intercept/registry.ts'))).toBe('transports/intercept')
    expect(partOf(join(SRC, 'transports/origins.ts'))).toBe('transports/shared')
    expect(FLOORS[partOf(join(SRC, 'protocol/events/common.ts'))]).toBe(FLOORS[partOf(join(SRC, 'protocol/requests/log.ts'))])
    expect(FLOORS[partOf(join(SRC, 'protocol/http.ts'))]).toBeLessThan(FLOORS[partOf(join(SRC, 'protocol/docker/push.ts'))])
    expect(FLOORS[partOf(join(SRC, 'protocol/router.ts'))]).toBeGreaterThan(FLOORS[partOf(join(SRC, 'protocol/admin/routes.ts'))])
  })
})
