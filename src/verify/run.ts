import { createDockside, type Dockside } from '../dockside'
import { catalogue, type Case, type CaseContext, type Need } from './cases'
import { DELIBERATE, type Deliberate } from './deliberate'
import { formatHost, isLocalHost, parseHost } from './host'
import { closedPort, dyingProxy } from './loopback'
import { collapsePushing, normaliser } from './normalise'
import { baseImage, plannedActions, probe, setUpFake, setUpReal, type Side, type VerifyState } from './sides'

const { execFile } = process.getBuiltinModule('node:child_process')
const { mkdtempSync, rmSync, writeFileSync } = process.getBuiltinModule('node:fs')
const { tmpdir } = process.getBuiltinModule('node:os')
const { join } = process.getBuiltinModule('node:path')
const { randomBytes } = process.getBuiltinModule('node:crypto')

/** Options of {@link verify}. */
export interface VerifyOptions {
  /** The real host: `unix:///var/run/docker.sock`, `tcp://HOST:PORT`. */
  against: string
  /** An open registry the host can push to, `HOST:PORT` (on loopback, as the daemon reaches it). */
  registry: string
  /** A registry that asks for credentials, with ones it accepts: the credential cases run only with it. */
  authRegistry?: { host: string; username: string; password: string }
  /** An image the host already has, with `sh` (nothing is pulled). @default 'busybox:latest' */
  image?: string
  /** The docker CLI to compare what it prints; false: leave those cases out. @default 'docker' on PATH */
  docker?: string | false
  /** Run only the cases whose id starts with one of these. */
  only?: string[]
  /** Needed for a host that is neither a unix socket nor on loopback (verify writes to it). @default false */
  yes?: boolean
  /** Called as each case ends. */
  onCase?: (result: CaseResult) => void
  signal?: AbortSignal
}

export type Verdict = 'alike' | 'differs' | 'deliberate' | 'not run'

export interface CaseResult {
  readonly id: string
  readonly title: string
  readonly verdict: Verdict
  /** The real host's and the fake's transcripts, normalised (what was compared). */
  readonly real: readonly string[]
  readonly fake: readonly string[]
  /** The deliberate differences that explain this case's, by id (docs/docker-compat.md#deliberate-differences). */
  readonly deliberate: readonly { id: string; reason: string }[]
  /** Why a case did not run, or what failed while it ran. */
  readonly note?: string
}

export interface VerifyReport {
  readonly against: string
  readonly daemon: { version: string; apiVersion: string }
  readonly results: readonly CaseResult[]
  readonly summary: { alike: number; deliberate: number; differs: number; notRun: number }
  /** What verify created and could not remove (empty when all went). */
  readonly leftBehind: readonly string[]
}

/** What {@link verify} would do to the host, without doing it (`--dry-run`). */
export function verifyPlan(options: Pick<VerifyOptions, 'registry' | 'authRegistry' | 'image'>): string[] {
  return plannedActions(stateFor('RUN', options))
}

function stateFor(run: string, options: Pick<VerifyOptions, 'registry' | 'authRegistry' | 'image'>): VerifyState {
  const prefix = `dockside-verify-${run}`
  return {
    run,
    base: options.image ?? 'busybox:latest',
    repo: `${options.registry}/${prefix}/app`,
    otherRepo: `${options.registry}/${prefix}/other`,
    registry: options.registry,
    authRegistry: options.authRegistry,
    authRepo: options.authRegistry ? `${options.authRegistry.host}/${prefix}/app` : undefined,
    label: `dockside.verify=${run}`,
  }
}

function run(file: string, args: string[], env: Record<string, string>, timeoutMs = 120_000) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(file, args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: env.DOCKER_CONFIG, ...env }, timeout: timeoutMs, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : null
      resolve({ code, stdout: String(stdout), stderr: String(stderr) })
    })
  })
}

async function hasDocker(file: string): Promise<boolean> {
  const r = await run(file, ['--version'], { DOCKER_CONFIG: tmpdir() }, 10_000)
  return r.code === 0
}

/** The fake's events websocket, read until it closes or stays quiet for a second. */
async function readWebsocket(side: Side, path: string): Promise<string[]> {
  const { default: WebSocket } = await import('ws')
  const address = side.client.address
  if (address.kind !== 'tcp') throw new Error('the fake listens on TCP')
  return new Promise((resolve) => {
    const lines: string[] = []
    const ws = new WebSocket(`ws://127.0.0.1:${address.port}${path}`)
    let quiet = setTimeout(() => ws.close(), 2000)
    ws.on('upgrade', (res) => lines.push(`HTTP ${res.statusCode}`))
    ws.on('unexpected-response', (_req, res) => {
      lines.push(`HTTP ${res.statusCode}`)
      res.resume()
      ws.terminate()
    })
    ws.on('message', (data) => {
      lines.push(String(data))
      clearTimeout(quiet)
      quiet = setTimeout(() => ws.close(), 1000)
    })
    ws.on('error', () => {})
    ws.on('close', () => {
      clearTimeout(quiet)
      resolve(lines)
    })
  })
}

const sameLines = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((l, i) => l === b[i])

/**
 * Compares two transcripts as `normalise` leaves them; where they differ, rewrites the raw transcripts by each
 * deliberate difference that applies to the case, and names those whose rewrites make them agree.
 */
/**
 * Key paths whose value is `null` on one side and a list or object on the other (or an empty list against one with
 * elements), as one: Go writes a nil slice or map as `null`, and the objects differ in content, not in shape (an
 * imported image has no `Env`, the fake's images have one). Both sides then read `PATH: null or empty`, without the
 * composite side's children.
 */
export function alignEmpty(real: string[], fake: string[]): [string[], string[]] {
  const KEY = /^(\.?[^:]*?): (null|array|\[\]|\{\})$/
  const kinds = (lines: string[]) => new Map(lines.flatMap((l) => { const m = KEY.exec(l); return m ? [[m[1], m[2]] as const] : [] }))
  const [r, f] = [kinds(real), kinds(fake)]
  // null against a list or an object, and an empty list against a list with elements: the same key, other content.
  const same = (a: string, b: string) => a === b || !((a === 'null') !== (b === 'null') || (a === '[]' && b === 'array') || (a === 'array' && b === '[]'))
  const paths = [...r].filter(([p, k]) => f.has(p) && !same(k, f.get(p)!)).map(([p]) => p)
  if (paths.length === 0) return [real, fake]
  const under = (l: string) => paths.find((p) => l.startsWith(`${p}: `) || l.startsWith(`${p}.`) || l.startsWith(`${p}[]`))
  const rewrite = (lines: string[]) =>
    lines.flatMap((l) => {
      const p = under(l)
      if (p === undefined) return [l]
      return l.startsWith(`${p}: `) ? [`${p}: null or empty`] : []
    })
  return [rewrite(real), rewrite(fake)]
}

export function judge(
  id: string,
  real: string[],
  fake: string[],
  normalise: (lines: string[]) => string[],
  rules: readonly Deliberate[] = DELIBERATE,
): { verdict: Verdict; real: string[]; fake: string[]; deliberate: { id: string; reason: string }[] } {
  ;[real, fake] = alignEmpty(real, fake)
  const [nr, nf] = [normalise(real), normalise(fake)]
  if (sameLines(nr, nf)) return { verdict: 'alike', real: nr, fake: nf, deliberate: [] }
  let [r, f] = [real, fake]
  const used: { id: string; reason: string }[] = []
  for (const rule of rules) {
    if (!rule.cases.test(id)) continue
    const [r2, f2] = rule.apply(r, f)
    if (!sameLines(r2, r) || !sameLines(f2, f)) {
      used.push({ id: rule.id, reason: rule.reason })
      ;[r, f] = [r2, f2]
    }
  }
  return { verdict: sameLines(normalise(r), normalise(f)) ? 'deliberate' : 'differs', real: nr, fake: nf, deliberate: used }
}

/**
 * Runs the catalogue against a real Docker-compatible host and a fresh fake given the same state, and reports every
 * difference. It creates labelled containers and tags on the host and removes them at the end, even on failure or
 * abort; see docs/verify.md.
 */
export async function verify(options: VerifyOptions): Promise<VerifyReport> {
  const address = parseHost(options.against)
  if (!isLocalHost(address) && options.yes !== true) {
    throw new RangeError(`${formatHost(address)} is not a unix socket nor on loopback: verify creates containers and tags there (and removes them); pass --yes (yes: true) to go on.`)
  }
  if (!/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(options.registry)) throw new RangeError(`Invalid registry "${options.registry}": expected HOST:PORT, e.g. 127.0.0.1:5000.`)
  const runId = randomBytes(3).toString('hex')
  const state = stateFor(runId, options)
  const daemon = await probe(options.against)
  const layers = await baseImage(options.against, state.base, daemon.apiVersion)
  const dockerFile = options.docker === false ? undefined : (options.docker ?? 'docker')
  const dockerOk = dockerFile !== undefined && (await hasDocker(dockerFile))
  const config = mkdtempSync(join(tmpdir(), 'dockside-verify-'))
  const proxies: { close(): Promise<void> }[] = []
  let dying: Promise<string> | undefined
  const down = `127.0.0.1:${await closedPort()}`
  let fake: Dockside | undefined
  const real = await setUpReal(options.against, state, daemon.apiVersion)
  const results: CaseResult[] = []
  let leftBehind: string[] = []
  try {
    fake = createDockside({ seed: 1, clock: 'auto' })
    const fakeSide = await setUpFake(fake, state, layers, real.pushLayer, daemon.apiVersion)
    // The fake connects to no registry: what a registry that is down, or dies mid-upload, does to a push is a fault.
    fake.faults.add({ id: 'registry-down', on: 'push', unreachable: true, times: 'always', match: { image: `${down}/dockside-verify-${runId}/app` } })
    const ctx: CaseContext = {
      state,
      downRegistry: down,
      dyingRegistry(side) {
        dying ??= dyingProxy(options.registry).then((p) => {
          proxies.push(p)
          // The proxy dies at the first blob upload (after the daemon's first Pushing line): the same on the fake.
          fake!.faults.add({ id: 'registry-dies', on: 'push', unreachable: true, afterBytes: 0, times: 'always', match: { image: `${p.host}/dockside-verify-${runId}/app` } })
          return p.host
        })
        // The fake is pushed to the same host name (it connects nowhere): what it answers there is the comparison.
        void side
        return dying
      },
      async tag(side, repo) {
        const q = `repo=${encodeURIComponent(repo)}&tag=1.0`
        const a = await side.request('POST', `${side.prefix}/images/${encodeURIComponent(`${state.repo}:1.0`)}/tag?${q}`)
        if (a.status !== 201) throw new Error(`tagging ${state.repo}:1.0 as ${repo}:1.0: ${a.status} ${a.body.toString('utf8').trim()}`)
        if (side.name === 'real') real.tagged(`${repo}:1.0`)
      },
      async freshImage(side, repo) {
        if (side.name === 'real') await real.importImage(`${repo}:1.0`, `${state.run}-dies`)
        else fake!.images.add(`${repo}:1.0`, { layers: [real.pushLayer] })
      },
      websocket: readWebsocket,
      docker(side, args, opts = {}) {
        const dir = join(config, side.name)
        const auths = Object.fromEntries(Object.entries(opts.auths ?? {}).map(([h, c]) => [h, { auth: Buffer.from(`${c.username}:${c.password}`).toString('base64') }]))
        rmSync(dir, { recursive: true, force: true })
        process.getBuiltinModule('node:fs').mkdirSync(dir, { recursive: true })
        writeFileSync(join(dir, 'config.json'), JSON.stringify({ auths }))
        return run(dockerFile!, args, { DOCKER_HOST: side.dockerHost, DOCKER_API_VERSION: daemon.apiVersion, DOCKER_CONFIG: dir })
      },
    }
    const missing = (need: Need): string | undefined =>
      need === 'docker-cli' && !dockerOk ? `no docker CLI (${dockerFile ?? 'docker: false'})` : need === 'auth-registry' && !state.authRegistry ? 'no --auth-registry given' : need === 'local-daemon' && !isLocalHost(address) ? 'the daemon is not on this machine (it cannot reach a loopback registry of ours)' : undefined
    const selected = catalogue().filter((c) => !options.only || options.only.some((p) => c.id.startsWith(p)))
    const runCase = async (c: Case): Promise<CaseResult> => {
      const why = (c.needs ?? []).map(missing).find((m) => m !== undefined)
      if (why) return { id: c.id, title: c.title, verdict: 'not run', real: [], fake: [], deliberate: [], note: why }
      options.signal?.throwIfAborted()
      try {
        const [r, f] = await Promise.all([c.run(real.side, ctx), c.run(fakeSide, ctx)])
        const norm = (lines: string[]) => collapsePushing(lines.map(normaliser(runId)))
        return { id: c.id, title: c.title, ...judge(c.id, r, f, norm) }
      } catch (error) {
        if (options.signal?.aborted) throw error
        return { id: c.id, title: c.title, verdict: 'differs', real: [], fake: [], deliberate: [], note: `the case failed: ${(error as Error).message}` }
      }
    }
    // Slow cases (a daemon's retry countdowns) run beside the rest.
    const slow = selected.filter((c) => c.slow).map((c) => runCase(c))
    for (const c of selected) {
      if (c.slow) continue
      const result = await runCase(c)
      results.push(result)
      options.onCase?.(result)
    }
    for (const result of await Promise.all(slow)) {
      results.push(result)
      options.onCase?.(result)
    }
  } finally {
    await Promise.all(proxies.map((p) => p.close()))
    await fake?.close()
    leftBehind = await real.cleanup()
    rmSync(config, { recursive: true, force: true })
  }
  const count = (v: Verdict) => results.filter((r) => r.verdict === v).length
  return {
    against: formatHost(address),
    daemon: { version: daemon.version, apiVersion: daemon.apiVersion },
    results,
    summary: { alike: count('alike'), deliberate: count('deliberate'), differs: count('differs'), notRun: count('not run') },
    leftBehind,
  }
}
