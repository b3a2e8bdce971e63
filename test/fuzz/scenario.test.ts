// Property-based: the scenario format, through validateScenario + createDockside (what `serve` does), fake.apply,
// POST /_dockside/scenario on both ways in, and `dockside validate` on a temp file for a smaller sample.
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../src/index'
import { DocksideError } from '../../src/service/errors'
import { validateScenario } from '../../src/scenario/load'
import { anyJson, checkAnswer, expectStillServes, fuzzParams, oddString, REQUEST_TIMEOUT_MS, SECRET_VALUES, SECRETS, seededFake, testTimeout, useFuzzWay, WAYS, type FuzzWay } from '../support/fuzz-kit'
import { ensureBuilt } from '../support/cli'

const duration = fc.oneof(fc.constantFrom('1s', '250ms', '1h30m', '0', 0, 100, '1d', '5x', '-1s', -1, 1e308, '1e308', 0.5, '10ms'), fc.string({ maxLength: 6 }))
/** Right-looking value or anything. */
const or = <T>(a: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: a as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: anyJson() })
const rec = (fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc.record(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, or(v)])), { requiredKeys: [] })

const fault = rec({
  id: fc.constantFrom('f1', 'f2', 'f1'),
  on: fc.constantFrom('events', 'push', 'x'),
  match: rec({ route: fc.constantFrom('/events/ws', '/images/*'), image: fc.constant('nginx'), client: fc.constant('c'), filters: fc.constant({ event: ['start'] }), reconnect: fc.boolean() }),
  reply: fc.constantFrom(429, 500, 503, 200),
  refuse: fc.constantFrom(1, 0),
  retryAfter: fc.constantFrom(0, 5),
  close: rec({ code: fc.constantFrom(1000, 4000, 999), reason: fc.string({ maxLength: 5 }) }),
  drop: fc.constant(true),
  stall: fc.constant(true),
  error: fc.string({ maxLength: 5 }),
  afterMessages: fc.constantFrom(0, 2),
  times: fc.constantFrom(1, 'always', 0),
  from: duration,
  until: duration,
  latency: rec({ connect: duration, perEvent: duration }),
})
const step = rec({
  at: duration,
  every: duration,
  start: fc.constantFrom('web', 'db', 'ghost'),
  stop: fc.constantFrom('web', 'db', 'ghost'),
  create: fc.constantFrom('new1', 'web', 'bad name'),
  image: fc.constantFrom('nginx:1.27', ''),
  remove: fc.constantFrom('db', 'ghost'),
  restart: fc.boolean(),
  close: rec({ code: fc.constantFrom(1000, 4000, 1005), reason: fc.string({ maxLength: 5 }) }),
  drop: fc.boolean(),
  faults: fc.array(fault, { maxLength: 2 }),
  exitCode: fc.constantFrom(0, 137, 256),
})
/** A scenario: right-looking sections with wrong types, duplicates, unknown fields and serve-only fields now and then. */
const scenario = fc.oneof(
  {
    weight: 8,
    arbitrary: rec({
      // localhost:5000 is in the seeded fake (a run-time scenario may not add it again); empty secrets are refused; the seeded secrets may appear (never in an answer).
      registries: fc.array(
        rec({ host: fc.constantFrom('localhost:5000', 'localhost:5009', 'localhost:5010', 'bad host'), username: fc.constantFrom('u', ''), password: fc.constantFrom('p', '', SECRETS.password), token: fc.constantFrom('t', '', SECRETS.token) }),
        { maxLength: 3 },
      ),
      images: fc.array(rec({ name: fc.constantFrom('nginx:1.27', 'localhost:5009/a', 'UPPER'), tags: fc.array(fc.constantFrom('1', '-x'), { maxLength: 2 }), layers: fc.oneof(fc.integer({ min: -1, max: 200 }), fc.array(fc.integer({ min: -1, max: 1e9 }), { maxLength: 3 })) }), { maxLength: 3 }),
      containers: fc.array(rec({ name: fc.constantFrom('web', 'c1', 'c1', 'bad name'), image: fc.constantFrom('nginx:1.27', ''), labels: fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }), running: fc.boolean() }), { maxLength: 3 }),
      faults: fc.array(fault, { maxLength: 3 }),
      rateLimit: fc.oneof(rec({ route: fc.constantFrom('events', 'push', '*', 'x'), limit: fc.constantFrom(1, 0, -1), window: duration }), fc.array(rec({ route: fc.constant('events'), limit: fc.constant(1), window: duration }), { maxLength: 2 })),
      timeline: fc.array(step, { maxLength: 4 }),
    }),
  },
  {
    weight: 1,
    arbitrary: rec({
      seed: fc.integer(),
      clock: fc.oneof(fc.constantFrom('virtual', 'auto', 'real', 'x'), rec({ mode: fc.constantFrom('virtual', 'auto'), start: fc.constantFrom('2026-01-01T00:00:00Z', 'not a date', 8.64e15 + 1, -1), speed: fc.constantFrom(1, 0, -1, 1e308) })),
      maxConnectionAge: duration,
      pushBandwidth: fc.constantFrom(1, 0, 1e308, 1e-308),
      timeFormat: fc.constantFrom('integer', 'float', 'x'),
      retainEvents: fc.constantFrom(0, 10, -1),
      retainEventsFor: duration,
      sed: fc.constant(5),
    }),
  },
  // Lists with a repeated key: the second registry used to replace the first silently.
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom('localhost:5000', 'localhost:5009'), fc.constantFrom('c1', 'web'), fc.boolean()).map(([host, name, regs]) =>
      regs ? { registries: [{ host }, { host, username: 'u', password: 'p' }] } : { containers: [{ name, image: 'nginx:1.27' }, { name, image: 'redis:7' }] },
    ),
  },
  // A registry the schema passes but the model refused (an empty secret) after sections that apply: all of it used to stay.
  {
    weight: 1,
    arbitrary: fc.constantFrom<Record<string, string>>({ username: '', password: SECRETS.password }, { username: 'u', password: '' }, { token: '' }).map((bad) => ({
      containers: [{ name: 'c1', image: 'nginx:1.27' }],
      registries: [{ host: 'localhost:5009' }, { host: 'localhost:5010', ...bad }],
      rateLimit: { route: 'events', limit: 1, window: '1s' },
    })),
  },
  { weight: 1, arbitrary: anyJson() },
)
/** The serve-only fields, which POST /_dockside/scenario and fake.apply refuse: dropped for those. */
const SERVE_ONLY = ['seed', 'clock', 'maxConnectionAge', 'pushBandwidth', 'timeFormat', 'retainEvents', 'retainEventsFor', 'accessKeys']
const runtimePart = (s: unknown) =>
  s !== null && typeof s === 'object' && !Array.isArray(s) ? Object.fromEntries(Object.entries(s).filter(([k]) => !SERVE_ONLY.includes(k))) : s

const bounded = <T>(what: string, p: Promise<T>) =>
  Promise.race([p, new Promise<never>((_, r) => setTimeout(() => r(new Error(`hang: ${what} took over ${REQUEST_TIMEOUT_MS} ms`)), REQUEST_TIMEOUT_MS))])

const STACK = /\n\s+at |\bsrc\/[\w/-]+\.[tj]s|node:internal/

/** A refusal must be a DocksideError (ScenarioError, InvalidInputError...) with a message, never a TypeError or a crash, and no secret. */
function expectCleanRefusal(error: unknown, what: string) {
  expect(error, `${what} threw ${String(error)}`).toBeInstanceOf(DocksideError)
  const message = (error as Error).message
  expect(message.trim(), `${what}: empty message`).not.toBe('')
  expect(message, `${what}: stack trace in the message`).not.toMatch(STACK)
  for (const secret of SECRET_VALUES) expect(message.includes(secret), `${what}: secret ${secret} in the message`).toBe(false)
}

/** Everything a scenario can change in a fake, read through the library: a refused one must leave it exactly as it was. */
const snapshot = (fake: Dockside) =>
  JSON.stringify({
    containers: fake.containers.list().map((c) => [c.id, c.name, c.image, c.labels, c.state, c.exitCode]),
    images: fake.images.list().map((i) => [i.repository, i.tag, i.image.id]),
    registries: fake.registries.list().map((r) => [r.host, r.auth, r.tags, [...r.blobs]]),
    faults: fake.faults.list().map((f) => f.rule),
    rateLimit: fake.rateLimit.get(),
    // An `auto` clock runs with the wall clock: only its pending timers are compared.
    clock: [fake.clock.mode === 'auto' ? 'auto' : fake.clock.now(), fake.clock.pending],
    events: fake.events.events.length,
  })

describe('fuzz: scenario format (library)', () => {
  it('validate accepts only what serve accepts: validateScenario then createDockside, both clean', { timeout: testTimeout(150) }, async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const what = `scenario ${JSON.stringify(s)?.slice(0, 400)}`
        let valid: Awaited<ReturnType<typeof validateScenario>>
        try {
          valid = await bounded(`validateScenario(${what})`, validateScenario(structuredClone(s)))
        } catch (error) {
          expectCleanRefusal(error, `validateScenario(${what})`)
          return
        }
        // Duplicates are refused by validate (a second registry host silently replaced the first and its credentials).
        const dupes = (list: unknown, key: string) => {
          const seen = Array.isArray(list) ? list.map((x) => (x as Record<string, unknown>)[key]) : []
          return seen.filter((v, i) => seen.indexOf(v) !== i)
        }
        const o = s as Record<string, unknown>
        expect(dupes(o.registries, 'host'), `validate accepted a registry host listed twice: ${what}`).toEqual([])
        expect(dupes(o.containers, 'name'), `validate accepted a container name listed twice: ${what}`).toEqual([])
        // What validate accepted, serve must start with (`dockside serve` = loadScenario + createDockside).
        let fake: Dockside | undefined
        try {
          fake = createDockside({ scenario: valid, clock: 'virtual' })
          await bounded(`advancing the clock 1 min after ${what}`, fake.clock.advance('1m'))
        } catch (error) {
          throw new Error(`validate accepted, but serve refused or failed: ${String(error)} for ${what}`)
        } finally {
          await fake?.close()
        }
      }),
      fuzzParams(150),
    )
  })

  it('fake.apply of any scenario: applied, or refused with a DocksideError naming the path', { timeout: testTimeout(150) }, async () => {
    await fc.assert(
      fc.asyncProperty(scenario, fc.constantFrom('start', 'now') as fc.Arbitrary<'start' | 'now'>, async (s, from) => {
        const fake = seededFake({ clock: 'virtual' })
        const what = `fake.apply(${JSON.stringify(runtimePart(s))?.slice(0, 400)}, { from: '${from}' })`
        try {
          const before = snapshot(fake)
          try {
            await bounded(what, fake.apply(runtimePart(s), { from }))
          } catch (error) {
            expectCleanRefusal(error, what)
            // All or nothing: a refused scenario changed nothing (registries, rate limits and timers included).
            expect(snapshot(fake), `${what} was refused but changed the fake`).toBe(before)
            return
          }
          await bounded(`advancing the clock 1 min after ${what}`, fake.clock.advance('1m'))
        } finally {
          await fake.close()
        }
      }),
      fuzzParams(150),
    )
  })
})

for (const w of WAYS) {
  describe(`fuzz: POST /_dockside/scenario (${w.name})`, () => {
    let fake: Dockside
    let way: FuzzWay
    useFuzzWay(w, (f, started) => {
      fake = f
      way = started
    })

    it('any scenario body: applied, or a JSON 4xx naming the field; reset brings the fake back', { timeout: testTimeout(60) }, async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof({ weight: 4, arbitrary: scenario.map(runtimePart) }, { weight: 1, arbitrary: scenario }), fc.constantFrom('', '?from=now', '?from=start', '?from=x'), fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }), async (s, query, cut) => {
          // Now and then cut short: a body that is not JSON (and may hold a registry password) is never echoed.
          const json = JSON.stringify(s) ?? ''
          const body = cut ? json.slice(0, -1) : json
          const path = `/_dockside/scenario${query}`
          const what = `POST ${path} ${body.slice(0, 400)} (${way.name})`
          const state = async () => {
            const { clock, ...rest } = JSON.parse((await way.request('/_dockside/state')).body) as { clock: { pending: number } }
            return { ...rest, pending: clock.pending, rateLimit: JSON.parse((await way.request('/_dockside/rate-limit')).body) as unknown }
          }
          const before = [await state(), snapshot(fake)]
          const a = await way.request(path, { method: 'POST', body, headers: { 'content-type': 'application/json' } })
          const keys = s !== null && typeof s === 'object' ? Object.keys(s) : []
          checkAnswer(a, { what, fields: [...keys, 'scenario', 'body', 'JSON', 'from', '/'] })
          // All or nothing: after a refusal, GET /_dockside/state, the rate limits and the pending timers are as they were.
          if (a.status >= 400) expect([await state(), snapshot(fake)], `${what} was refused but changed the fake`).toEqual(before)
          const reset = await way.request('/_dockside/reset', { method: 'POST' })
          checkAnswer(reset, { what: `POST /_dockside/reset after ${what}` })
          expect(reset.status).toBe(200)
        }),
        fuzzParams(60),
      )
      await expectStillServes(fake, way)
    })
  })
}

describe('fuzz: dockside validate (CLI, a smaller sample)', () => {
  const root = resolve(import.meta.dirname, '../..')
  const entry = process.env.DOCKSIDE_CLI ?? join(root, 'bin/dockside.js')
  let dir: string
  beforeAll(async () => {
    ensureBuilt()
    dir = await mkdtemp(join(tmpdir(), 'dockside-fuzz-'))
  }, 120_000)
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  const validate = (file: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      const child = spawn(process.execPath, [entry, 'validate', file], { stdio: 'pipe' })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      child.on('close', (code) => {
        clearTimeout(timer)
        done({ code, stdout, stderr })
      })
    })

  let n = 0
  it('exit 0 exactly when the library accepts the file, else exit 2 with a one-line reason', { timeout: testTimeout(6) * 2 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 3, arbitrary: scenario.map((s) => JSON.stringify(s) ?? 'null') }, { weight: 1, arbitrary: oddString() }), async (text) => {
        const file = join(dir, `s${++n}.json`)
        await writeFile(file, text)
        let accepted = true
        try {
          await validateScenario(JSON.parse(text) as unknown)
        } catch {
          accepted = false
        }
        const run = await validate(file)
        const what = `dockside validate of ${text.slice(0, 300)}: exit ${run.code}, stderr ${run.stderr.slice(0, 300)}`
        expect(run.code, what).toBe(accepted ? 0 : 2)
        expect(run.stderr, what).not.toMatch(STACK)
        if (!accepted) expect(run.stderr, what).toMatch(/^dockside: /)
      }),
      fuzzParams(6),
    )
  })
})
