// What every property-based test of test/fuzz shares: the run count and seed (fixed for `npm test`,
// raised and random under `npm run fuzz`), the two ways in with bounded requests, the checks every
// answer must pass (JSON, no 5xx, no hang, no stack trace, no secret) and the "still serves a normal
// client" check run after each batch. See docs/contributing/testing-internals.md, "Property-based tests".
import http from 'node:http'
import fc from 'fast-check'
import { afterAll, beforeAll, expect } from 'vitest'
import { createDockside, type Dockside } from '../../src/index'
import { probeWithGlobalWs } from './global-ws-probe'
import { registryAuth } from './helpers'
import { probeWithWs } from './ws-probe'
import type { WsProbe } from './way-in'

// ---------------------------------------------------------------------------------------------
// Runs and seed

const envRuns = Number(process.env.DOCKSIDE_FUZZ_RUNS ?? '')
/** Under `npm run fuzz`: how many times the default run's inputs each property tries (DOCKSIDE_FUZZ_RUNS). */
export const FUZZ_RUNS = Number.isFinite(envRuns) && envRuns > 0 ? envRuns : undefined
const envSeed = process.env.DOCKSIDE_FUZZ_SEED
/** The seed: DOCKSIDE_FUZZ_SEED (`npm run fuzz` sets a random one and prints it), else fixed for `npm test`. */
export const FUZZ_SEED = envSeed !== undefined && envSeed !== '' ? Number(envSeed) : 8
if (FUZZ_RUNS !== undefined || envSeed) console.log(`dockside fuzz: seed ${FUZZ_SEED}, ${FUZZ_RUNS ?? 1}x the default runs`)

/**
 * fast-check parameters for a property with `runs` inputs in the default run (times DOCKSIDE_FUZZ_RUNS under
 * `npm run fuzz`). On failure fast-check's error carries the seed, the path and the shrunk counterexample; vitest prints it.
 */
export function fuzzParams<T>(runs: number): fc.Parameters<T> {
  return {
    seed: FUZZ_SEED,
    numRuns: Math.max(1, Math.round(runs * (FUZZ_RUNS ?? 1))),
    // A failing input against a live fake shrinks over network calls: keep shrinking bounded in the default run.
    interruptAfterTimeLimit: FUZZ_RUNS === undefined ? 30_000 : undefined,
    markInterruptAsFailure: false,
  }
}

/** How long any single request may take before it counts as a hang. */
export const REQUEST_TIMEOUT_MS = 5_000
/** A vitest timeout for a property of `runs` inputs (fuzz mode runs much longer). */
export const testTimeout = (runs: number) => (FUZZ_RUNS === undefined ? 60_000 : Math.max(60_000, runs * FUZZ_RUNS * 200))

// ---------------------------------------------------------------------------------------------
// The seeded fake and its secrets

/** Secrets the fake is seeded with; no answer may ever contain one. */
export const SECRETS = {
  password: 'pw-FUZZ-s3cret-9f2c',
  token: 'tok-FUZZ-s3cret-77ab',
  accessSecret: 'ak-FUZZ-s3cret-4e1d',
} as const
export const SECRET_VALUES: readonly string[] = Object.values(SECRETS)

/** A known image in a password registry: what the normal push pushes. */
export const KNOWN = { registry: 'localhost:5000', repo: 'localhost:5000/fuzz/known', tag: '1.0', username: 'alice' } as const

/**
 * A fake with a password registry, a token registry and a few images and containers. With
 * `accessKeys: { AKFUZZ: SECRETS.accessSecret }` it also verifies signed events websockets (unsigned ones get 403).
 */
export function seededFake(options: Parameters<typeof createDockside>[0] = {}): Dockside {
  // Seeded through a scenario, so that POST /_dockside/reset comes back to it.
  return createDockside({ seed: 8, clock: 'auto', scenario: SEED_SCENARIO, ...options })
}

export const SEED_SCENARIO = {
  registries: [
    { host: KNOWN.registry, username: KNOWN.username, password: SECRETS.password },
    { host: 'localhost:5001', token: SECRETS.token },
  ],
  images: [
    { name: KNOWN.repo, tags: [KNOWN.tag, 'latest'], layers: [1000, 2000] },
    { name: 'localhost:5001/team/app', tags: ['2'], layers: 1 },
    { name: 'nginx:1.27', layers: 1 },
  ],
  containers: [
    { name: 'web', image: 'nginx:1.27', labels: { app: 'web' }, running: true },
    { name: 'db', image: 'nginx:1.27' },
  ],
}

export { registryAuth }

// ---------------------------------------------------------------------------------------------
// The ways in

/** One answer, read whole (a streamed body until its end). */
export interface Answer {
  status: number
  headers: Record<string, string>
  body: string
}

export interface RequestOptions {
  method?: string
  headers?: Record<string, string>
  body?: string
}

export interface FuzzWay {
  readonly name: 'server' | 'in-process'
  /** Sends one request and reads the whole answer, bounded by {@link REQUEST_TIMEOUT_MS}; `path` as raw as the way allows. */
  request(path: string, options?: RequestOptions): Promise<Answer>
  /** Sends a request and reads only the status and headers (for endless streams such as GET /events), then aborts. */
  head(path: string, options?: RequestOptions): Promise<Answer>
  /** Opens an events websocket, bounded; the probe shows a refusal's status and body. */
  connect(path: string): Promise<WsProbe>
  close(): Promise<void>
}

const withTimeout = <T>(what: string, p: Promise<T>, ms = REQUEST_TIMEOUT_MS): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hang: no answer within ${ms} ms to ${what}`)), ms)
  })
  return Promise.race([p, hang]).finally(() => clearTimeout(timer))
}

/** Node's client refuses control characters, spaces and non-ASCII in a path: encode only those. */
export const rawPath = (path: string) =>
  path.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c))

const headersOf = (h: http.IncomingHttpHeaders) => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v
  return out
}

/** The real server on 127.0.0.1, driven with node:http (raw paths: `..`, raw JSON and all) and `ws`. */
export async function serverWay(fake: Dockside): Promise<FuzzWay> {
  const s = await fake.listen({ port: 0 })
  const { port } = new URL(s.url)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 })
  const send = (path: string, o: RequestOptions, whole: boolean) =>
    withTimeout(
      `${o.method ?? 'GET'} ${path} (server)`,
      new Promise<Answer>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path: rawPath(path), method: o.method ?? 'GET', headers: o.headers, agent }, (res) => {
          const answer = (body: string): Answer => ({ status: res.statusCode ?? 0, headers: headersOf(res.headers), body })
          // A refusal is read whole; an accepted stream (GET /events) only up to its headers.
          if (!whole && (res.statusCode ?? 0) < 300) {
            resolve(answer(''))
            req.destroy()
            return
          }
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => resolve(answer(Buffer.concat(chunks).toString())))
          res.on('error', reject)
        })
        req.on('error', reject)
        req.end(o.body)
      }),
    )
  return {
    name: 'server',
    request: (path, o = {}) => send(path, o, true),
    head: (path, o = {}) => send(path, o, false),
    connect: (path) => withTimeout(`websocket ${path} (server)`, probeWithWs(s.wsUrl + rawPath(path))),
    close: async () => {
      agent.destroy()
      await s.close()
    },
  }
}

/** The in-process hooks: real `fetch` to the hooked base URL, the global (in-process) WebSocket. */
export async function inProcessWay(fake: Dockside): Promise<FuzzWay> {
  // A path the hooks do not route (e.g. `/images//push`) gets the protocol's own JSON 404, which is checked like any answer.
  const hooks = await fake.intercept({ region: 'us-west-1', onUnhandled: () => {} })
  const base = 'https://us-west-1.hyper.test'
  const send = async (path: string, o: RequestOptions, whole: boolean): Promise<Answer> => {
    const ac = new AbortController()
    return withTimeout(
      `${o.method ?? 'GET'} ${path} (in-process)`,
      (async () => {
        const res = await fetch(base + path, { method: o.method ?? 'GET', headers: o.headers, body: o.body, signal: ac.signal })
        const headers: Record<string, string> = {}
        res.headers.forEach((v, k) => (headers[k] = v))
        if (!whole && res.status < 300) {
          ac.abort()
          return { status: res.status, headers, body: '' }
        }
        return { status: res.status, headers, body: await res.text() }
      })(),
    ).finally(() => ac.abort())
  }
  return {
    name: 'in-process',
    request: (path, o = {}) => send(path, o, true),
    head: (path, o = {}) => send(path, o, false),
    connect: (path) => withTimeout(`websocket ${path} (in-process)`, probeWithGlobalWs(`wss://us-west-1.hyper.test:443${path}`)),
    close: async () => hooks.restore(),
  }
}

/**
 * A seeded fake started on `w` for the describe block it is called in (started before its tests, closed after):
 * `started(fake, way)` hands both to the block.
 */
export function useFuzzWay(w: (typeof WAYS)[number], started: (fake: Dockside, way: FuzzWay) => void): void {
  let fake: Dockside | undefined
  let way: FuzzWay | undefined
  beforeAll(async () => {
    fake = seededFake()
    way = await w.start(fake)
    started(fake, way)
  })
  afterAll(async () => {
    await way?.close()
    await fake?.close()
  })
}

export const WAYS = [
  { name: 'server', start: serverWay },
  { name: 'in-process', start: inProcessWay },
] as const

// ---------------------------------------------------------------------------------------------
// What every answer must be

/** Lines that betray a stack trace or the fake's own files. */
const LEAKS = [/\n\s+at /, / {4}at /, /\bsrc\/[\w/-]+\.[tj]s/, /\.ts:\d+/, /node:internal/, /file:\/\//, /node_modules/]

export interface AnswerCheck {
  /** What was sent, for the failure message. */
  what: string
  /** For a 400 about a body: the message must name one of these (fields, or words like "body"). */
  fields?: readonly string[]
  /** Statuses allowed besides 2xx/101/4xx... none by default: a 5xx always fails. */
  allow5xx?: (status: number, message: string | undefined) => boolean
  /** A 200 body that is a stream of JSON lines (a push). */
  ndjson?: boolean
}

/** Asserts the answer is JSON, 2xx/101 or a 4xx naming what was wrong, with no stack trace and no secret. */
export function checkAnswer(a: Answer, c: AnswerCheck): { json: unknown; message: string | undefined } {
  const where = `${c.what} answered ${a.status} ${JSON.stringify(a.body.slice(0, 300))}`
  for (const leak of LEAKS) expect(a.body, `stack trace or source path in the answer: ${where}`).not.toMatch(leak)
  const everything = a.body + JSON.stringify(a.headers)
  for (const s of SECRET_VALUES) expect(everything.includes(s), `secret ${s} in the answer: ${where}`).toBe(false)
  if (a.status === 101) return { json: undefined, message: undefined }
  // A broken escape in the path: Go's HTTP server refuses it before any route with its bare plain-text 400, which the
  // fake sends as the daemon does, naming the escape in dockside's hint.
  if (a.status === 400 && a.body === '400 Bad Request' && (a.headers['x-dockside-hint'] ?? '').startsWith('the request path holds a broken escape')) {
    expect(a.headers['content-type'], `Content-Type of ${where}`).toBe('text/plain; charset=utf-8')
    return { json: undefined, message: a.body }
  }
  // A path with `//`, `.` or `..` segments: the Engine's router (gorilla/mux) redirects it to its clean form.
  if (a.status === 301) {
    expect([a.body, a.headers.location?.startsWith('/')], `a redirect of ${where}`).toEqual(['', true])
    expect(a.headers['x-dockside-hint'], `a redirect of ${where}`).toMatch(/^the Engine's router redirects /)
    return { json: undefined, message: undefined }
  }
  expect(a.headers['content-type'] ?? '', `Content-Type of ${where}`).toMatch(/^application\/json\b/)
  let json: unknown
  if (c.ndjson && a.status === 200) {
    const lines = a.body.split('\n').filter((l) => l !== '')
    for (const l of lines) expect(() => JSON.parse(l), `a line of ${where} is not JSON: ${l}`).not.toThrow()
    json = lines.map((l) => JSON.parse(l) as unknown)
  } else if (a.body !== '') {
    expect(() => JSON.parse(a.body), `body of ${where} is not JSON`).not.toThrow()
    json = JSON.parse(a.body)
  }
  const message = json !== null && typeof json === 'object' && typeof (json as { message?: unknown }).message === 'string' ? (json as { message: string }).message : undefined
  const ok = (a.status >= 200 && a.status < 300) || (a.status >= 400 && a.status < 500) || (a.status >= 500 && c.allow5xx?.(a.status, message) === true)
  expect(ok, `status of ${where}`).toBe(true)
  if (a.status >= 400) {
    expect(message, `a ${a.status} needs a non-empty "message": ${where}`).toBeTypeOf('string')
    expect(message!.trim(), `a ${a.status} needs a non-empty "message": ${where}`).not.toBe('')
    if ((a.status === 400 || a.status === 500) && c.fields) {
      // A field is named by its name or its singular ("tags" by "tag"), in any case: in the message, or, on a Docker
      // route whose body is the daemon's own text, in dockside's X-Dockside-Hint header.
      const lower = `${message!} ${a.headers['x-dockside-hint'] ?? ''}`.toLowerCase()
      // A query Go's url.ParseQuery cannot read is refused in Go's words before any field is read; the hint names the
      // query part at fault instead.
      const goQuery = /^invalid (URL escape "|semicolon separator in query$)/.test(message!) && /the query part "/.test(a.headers['x-dockside-hint'] ?? '')
      const named = goQuery || c.fields.some((f) => f !== '' && (lower.includes(f.toLowerCase()) || (f.length > 3 && f.endsWith('s') && lower.includes(f.slice(0, -1).toLowerCase()))))
      expect(named, `the ${a.status}'s message and hint name none of ${c.fields.join(', ')}: ${where}`).toBe(true)
    }
  }
  return { json, message }
}

/** Asserts a websocket attempt got 101 or a JSON 4xx refusal (server: also visible; in process: via `handshake`). */
export function checkUpgrade(p: WsProbe, c: AnswerCheck): void {
  if (p.status === 101) return
  checkAnswer({ status: p.status, headers: p.headers, body: p.body ?? '' }, c)
}

// ---------------------------------------------------------------------------------------------
// Still serving a normal client

let normalSeq = 0

/**
 * After a batch: a normal events websocket connects and receives a started container's event, and a normal
 * push of a known image with the right credentials completes and lands in the registry.
 */
export async function expectStillServes(fake: Dockside, way: FuzzWay): Promise<void> {
  const n = ++normalSeq
  const ws = await way.connect(`/events/ws?client=normal-${n}`)
  expect(ws.status, `a normal events websocket after the batch (${way.name}): ${ws.body}`).toBe(101)
  try {
    const c = fake.containers.create({ name: `normal-${n}-${way.name.replace(/\W/g, '')}`, image: 'nginx:1.27' }).start()
    let frame: { Action?: string; id?: string } = {}
    const deadline = Date.now() + REQUEST_TIMEOUT_MS
    while (frame.id !== c.id) {
      frame = JSON.parse(await withTimeout(`the start event of ${c.name} on a normal websocket (${way.name})`, ws.nextMessage(), Math.max(1, deadline - Date.now()))) as typeof frame
    }
    expect(frame.Action).toBe('start')
  } finally {
    ws.close()
  }
  const before = fake.registries.get(KNOWN.registry).tags.length
  const auth = registryAuth({ username: KNOWN.username, password: SECRETS.password, serveraddress: KNOWN.registry })
  const push = await way.request(`/images/${KNOWN.repo}/push?tag=${KNOWN.tag}`, { method: 'POST', headers: { 'x-registry-auth': auth } })
  checkAnswer(push, { what: `a normal push (${way.name})`, ndjson: true })
  expect(push.status).toBe(200)
  const last = JSON.parse(push.body.trimEnd().split('\n').at(-1) ?? '{}') as { aux?: { Tag?: string }; error?: string }
  expect(last.error, `a normal push failed (${way.name}): ${push.body.slice(-300)}`).toBeUndefined()
  expect(last.aux?.Tag).toBe(KNOWN.tag)
  expect(fake.registries.get(KNOWN.registry).tags.length).toBeGreaterThanOrEqual(Math.max(1, before))
}

// ---------------------------------------------------------------------------------------------
// Arbitraries shared by several properties

/** Any JSON value, with deep and wide ones now and then (deep enough to matter, shallow enough to stringify here). */
export const anyJson = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
    { weight: 1, arbitrary: fc.integer({ min: 50, max: 1500 }).map((d) => deepArray(d)) },
    { weight: 1, arbitrary: fc.integer({ min: 50, max: 1500 }).map((d) => deepObject(d)) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(1e308, -1e308, Number.MAX_SAFE_INTEGER, -0, 0.5, '', ' ', 'x'.repeat(100_000)) },
  )

export const deepArray = (depth: number): unknown => JSON.parse(deepArrayText(depth))
export const deepObject = (depth: number): unknown => JSON.parse(deepObjectText(depth))
/** Deep JSON as text, for depths no JSON.stringify survives (sent as is). */
export const deepArrayText = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)
export const deepObjectText = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
/** Very deep JSON text: 10,000 to 200,000 levels. */
export const veryDeepText = (): fc.Arbitrary<string> =>
  fc.tuple(fc.boolean(), fc.integer({ min: 10_000, max: 200_000 })).map(([arr, d]) => (arr ? deepArrayText(d) : deepObjectText(d)))

/** Strings that make trouble: huge digit runs, odd numbers, unicode, separators. */
export const oddString = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.constantFrom('', ' ', '0', '-1', '1e308', 'NaN', 'Infinity', '1.5', '..', '../..', '%', '%zz', '%00', '\u0000', 'null', 'true', '[]', '{}', '__proto__', 'constructor'),
    fc.integer({ min: 1, max: 2000 }).map((n) => '9'.repeat(n)),
  )
