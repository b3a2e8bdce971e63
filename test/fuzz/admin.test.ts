// Property-based: every admin route's body, and odd refs on the routes that take one, on both ways in.
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Dockside } from '../../src/index'
import { anyJson, checkAnswer, checkUpgrade, expectStillServes, fuzzParams, KNOWN, oddString, SECRETS, seededFake, testTimeout, veryDeepText, WAYS, type FuzzWay } from '../support/fuzz-kit'

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 80 })
const duration = fc.oneof(fc.constantFrom('1s', '250ms', '1h30m', '0', 0, 100, '1d', '5x', '-1s', -1, 1e308, '1e308', Number.MAX_SAFE_INTEGER), printable)

/** Each admin route that takes a body: its path and, per field, values that look right. */
const BODY_ROUTES: Record<string, { path: string; fields: Record<string, fc.Arbitrary<unknown>> }> = {
  containers: {
    path: '/_dockside/containers',
    fields: {
      name: fc.oneof(fc.stringMatching(/^[a-z][a-z0-9_-]{0,12}$/), fc.constant('web')),
      image: fc.constantFrom('nginx:1.27', 'redis:7', 'localhost:5000/fuzz/known:1.0', 'Bad Image'),
      labels: fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 3 }),
      instanceType: fc.constantFrom('s4', 'm1', ''),
      start: fc.boolean(),
      running: fc.boolean(),
    },
  },
  images: {
    path: '/_dockside/images',
    fields: {
      name: fc.constantFrom('localhost:5000/fuzz/new', 'localhost:5000/fuzz/new:2', 'nginx', 'UPPER/case', 'a'.repeat(300)),
      tags: fc.array(fc.constantFrom('1', 'latest', '-bad', 'a'.repeat(129)), { maxLength: 3 }),
      layers: fc.oneof(fc.integer({ min: -5, max: 200 }), fc.array(fc.integer({ min: -5, max: 1e12 }), { maxLength: 4 }), fc.constantFrom(1e308, 0, 1.5, 10_000_000)),
    },
  },
  registries: {
    path: '/_dockside/registries',
    fields: {
      host: fc.constantFrom('localhost:5009', 'registry.example.com', 'localhost:5000', 'bad host', 'localhost:99999'),
      username: fc.constantFrom('bob', ''),
      password: fc.constantFrom('pw', '', SECRETS.password),
      token: fc.constantFrom('tok', '', SECRETS.token),
    },
  },
  faults: {
    path: '/_dockside/faults',
    fields: {
      id: fc.oneof(fc.constantFrom('r1', 'storm', ''), fc.integer()),
      on: fc.constantFrom('events', 'push', 'both', ''),
      match: fc.record({ route: fc.constantFrom('/events/ws', '/images/*', 5), image: fc.constantFrom('nginx', 7), client: fc.string({ maxLength: 4 }), filters: fc.constantFrom({ event: ['start'] }, { event: 'start' }, 5), reconnect: fc.boolean() }, { requiredKeys: [] }),
      reply: fc.constantFrom(400, 404, 429, 500, 503, 200, 999, '429'),
      refuse: fc.constantFrom(1, 2, 0, -1, 1.5),
      retryAfter: fc.constantFrom(0, 5, -1, 1e308),
      message: fc.string({ maxLength: 10 }),
      error: fc.string({ maxLength: 10 }),
      close: fc.record({ code: fc.constantFrom(1000, 1011, 4000, 999, 5000, 1005), reason: fc.string({ maxLength: 130 }) }, { requiredKeys: [] }),
      drop: fc.constantFrom(true, false),
      reset: fc.constantFrom(true, false),
      truncate: fc.constant(true),
      stall: fc.constantFrom(true, false),
      dribble: fc.record({ line: duration, jitter: duration }, { requiredKeys: [] }),
      latency: fc.record({ connect: duration, perEvent: duration, jitter: duration }, { requiredKeys: [] }),
      afterTime: duration,
      afterLayer: fc.constantFrom(0, 1, -1),
      afterBytes: fc.constantFrom(0, 1000, -1),
      afterMessages: fc.constantFrom(0, 1, 3, -1),
      times: fc.constantFrom(1, 2, 'always', 0, 'never'),
      after: fc.constantFrom(0, 1, -1),
      every: fc.constantFrom(1, 2, 0),
      probability: fc.constantFrom(0, 0.5, 1, 2, -1),
      from: duration,
      until: duration,
    },
  },
  'rate-limit': {
    path: '/_dockside/rate-limit',
    fields: {
      route: fc.constantFrom('events', 'push', '*', 'other'),
      limit: fc.constantFrom(1, 5, 0, -1, 1e308, 1.5),
      window: duration,
      burst: fc.constantFrom(0, 2, -1),
      per: fc.constantFrom('client', 'route', 'ip'),
    },
  },
  'sockets/close': { path: '/_dockside/sockets/close', fields: { code: fc.constantFrom(1000, 1011, 4000, 1005, 1006, 999, 5000, 3000), reason: fc.oneof(fc.string({ maxLength: 10 }), fc.constant('x'.repeat(200))) } },
  'clock/advance': { path: '/_dockside/clock/advance', fields: { by: duration } },
  'containers/{ref}/stop': { path: '/_dockside/containers/db/stop', fields: { exitCode: fc.constantFrom(0, 137, 255, 256, -1, 1.5, '1') } },
}

/** A body that looks right but may carry wrong types, unknown fields or anything at all. */
const bodyFor = (fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> => {
  const lookingRight = fc.record(
    Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, fc.oneof({ weight: 3, arbitrary: v }, { weight: 1, arbitrary: anyJson() })])),
    { requiredKeys: [] },
  )
  const withUnknown = fc.tuple(lookingRight, fc.dictionary(fc.oneof(fc.constantFrom('sed', 'Name', 'imagee', '__proto__', 'constructor'), fc.string({ maxLength: 8 })), anyJson(), { minKeys: 1, maxKeys: 2 }))
    .map(([a, b]) => ({ ...(a as object), ...b }))
  return fc.oneof({ weight: 5, arbitrary: lookingRight }, { weight: 1, arbitrary: withUnknown }, { weight: 2, arbitrary: anyJson() })
}

/** The body text: JSON of a generated body, a fault batch, or text that is not JSON (deep, huge, garbage). */
const bodyText = (route: string): fc.Arbitrary<string> => {
  const { fields } = BODY_ROUTES[route]
  const json = bodyFor(fields).map((v) => JSON.stringify(v) ?? '')
  const variants: { weight: number; arbitrary: fc.Arbitrary<string> }[] = [
    { weight: 8, arbitrary: json },
    // Cut short, so not JSON: such a body (a registry password in it) used to be echoed in the 400.
    { weight: 1, arbitrary: json.filter((t) => t.length > 1).map((t) => t.slice(0, -1)) },
    { weight: 1, arbitrary: printable },
    { weight: 1, arbitrary: veryDeepText() },
  ]
  if (route === 'faults') {
    // Rules a schema would nearly accept: "on", exactly one action, and a few other fields (any of them of a wrong type).
    const ACTIONS = ['reply', 'refuse', 'error', 'close', 'drop', 'reset', 'truncate', 'stall', 'dribble', 'latency']
    const others = Object.keys(fields).filter((k) => k !== 'on' && !ACTIONS.includes(k))
    const nearRule = fc
      .tuple(fc.constantFrom(...ACTIONS), fc.subarray(others, { minLength: 1, maxLength: 5 }), fc.constantFrom('events', 'push'))
      .chain(([action, extra, on]) =>
        fc.record(Object.fromEntries([action, ...extra].map((k) => [k, fc.oneof({ weight: 3, arbitrary: fields[k] }, { weight: 1, arbitrary: anyJson() })]))).map((r) => ({ on, ...r })),
      )
    variants.push({ weight: 12, arbitrary: nearRule.map((r) => JSON.stringify(r)) })
    variants.push({ weight: 4, arbitrary: fc.array(fc.oneof(nearRule, bodyFor(fields)), { maxLength: 4 }).map((rules) => JSON.stringify({ rules })) })
  }
  // A seeded host added again: it used to replace the registry (open now, its credentials and tags gone).
  if (route === 'registries') variants.push({ weight: 1, arbitrary: fc.constantFrom({ host: KNOWN.registry }, { host: 'localhost:5001', username: 'bob', password: 'pw' }).map((b) => JSON.stringify(b)) })
  if (route === 'rate-limit') variants.push({ weight: 2, arbitrary: fc.array(bodyFor(fields), { maxLength: 3 }).map((l) => JSON.stringify(l)) })
  return fc.oneof(...variants)
}

const keysOf = (text: string): string[] => {
  try {
    const v = JSON.parse(text) as unknown
    if (v === null || typeof v !== 'object') return []
    if (Array.isArray(v)) return v.flatMap((x) => (x && typeof x === 'object' ? Object.keys(x as object) : []))
    const rules = (v as { rules?: unknown }).rules
    return [...Object.keys(v), ...(Array.isArray(rules) ? rules.flatMap((x) => (x && typeof x === 'object' ? Object.keys(x as object) : [])) : [])]
  } catch {
    return []
  }
}

const READ_ROUTES = ['state', 'faults', 'faults/pending', 'rate-limit']

/** What an admin body can change, read through the admin API (an `auto` clock's time aside, which runs with the wall clock). */
async function adminState(way: FuzzWay) {
  const { clock, ...rest } = JSON.parse((await way.request('/_dockside/state')).body) as { clock: { mode: string; now: string; pending: number }; registries: unknown[] }
  const rateLimit = JSON.parse((await way.request('/_dockside/rate-limit')).body) as unknown
  return { ...rest, clock: clock.mode === 'auto' ? clock.pending : clock, rateLimit }
}

/** `POST /auth` bodies (docker login): right-looking AuthConfigs with the seeded password, other JSON, and text cut short. */
const authBody: fc.Arbitrary<string> = (() => {
  const fields = {
    username: fc.constantFrom(KNOWN.username, 'mallory', ''),
    password: fc.constantFrom(SECRETS.password, `${SECRETS.password}x`, ''),
    serveraddress: fc.constantFrom(KNOWN.registry, 'localhost:5001', 'https://index.docker.io/v1/', '', 'unknown.example:1'),
    auth: fc.constantFrom(Buffer.from(`${KNOWN.username}:${SECRETS.password}`).toString('base64'), 'not base64!'),
  }
  const json = fc.oneof({ weight: 4, arbitrary: bodyFor(fields) }, { weight: 1, arbitrary: fc.constantFrom([SECRETS.password], SECRETS.password, null, 5) }).map((v) => JSON.stringify(v) ?? '')
  return fc.oneof({ weight: 3, arbitrary: json }, { weight: 2, arbitrary: json.filter((t) => t.length > 1).map((t) => t.slice(0, -1)) }, { weight: 1, arbitrary: printable.map((t) => `${SECRETS.password}${t}`) })
})()

/** After an accepted body: every read route still answers 200 JSON, and an events websocket a sane answer. */
async function expectConsequencesSane(fake: Dockside, way: FuzzWay, what: string) {
  for (const r of READ_ROUTES) {
    const a = await way.request(`/_dockside/${r}`)
    checkAnswer(a, { what: `GET /_dockside/${r} after ${what}` })
    expect(a.status, `GET /_dockside/${r} after ${what}: ${a.body.slice(0, 300)}`).toBe(200)
  }
  const rules = fake.faults.list().map((f) => f.rule as unknown as Record<string, unknown>)
  // A stall is an injected hang (the handshake is never answered): nothing to probe then.
  if (rules.some((r) => 'stall' in r)) return
  const p = await way.connect('/events/ws?client=after-admin')
  checkUpgrade(p, {
    what: `an events websocket after ${what}`,
    // An injected reply may be a 5xx; an internal error never is.
    allow5xx: (status, message) => rules.some((r) => r.reply === status || r.refuse !== undefined) && !/^internal error/i.test(message ?? ''),
  })
  if (p.status === 101) {
    // Closed before the next input, so that its socket and timers are gone from the state the next one compares.
    p.close(1000)
    await p.closed
  }
}

for (const w of WAYS) {
  describe(`fuzz: admin bodies (${w.name})`, () => {
    let fake: Dockside
    let way: FuzzWay
    // A fresh fake per property: what one route's batch leaves behind must not fail the next route's.
    beforeEach(async () => {
      fake = seededFake()
      way = await w.start(fake)
    })
    afterEach(async () => {
      await way?.close()
      await fake?.close()
    })

    for (const [route, { path, fields }] of Object.entries(BODY_ROUTES)) {
      const runs = route === 'faults' ? 100 : 30
      it(`POST ${path}: any body gets a JSON answer naming the field, and the fake stays sane`, { timeout: testTimeout(runs) }, async () => {
        await fc.assert(
          fc.asyncProperty(bodyText(route), fc.constantFrom('application/json', 'text/plain', ''), async (body, type) => {
            const what = `POST ${path} ${body.length > 300 ? `${body.slice(0, 150)}…(${body.length} chars)` : body} (${way.name})`
            try {
              const before = await adminState(way)
              const a = await way.request(path, { method: 'POST', body, headers: type ? { 'content-type': type } : {} })
              checkAnswer(a, { what, fields: [...Object.keys(fields), ...keysOf(body), 'body', 'JSON', 'rules', 'list', 'registry'] })
              if (a.status < 300) {
                await expectConsequencesSane(fake, way, what)
                // A registry added never replaces a known one (the seeded basic-auth registry once became open).
                if (route === 'registries') expect((await adminState(way)).registries.slice(0, before.registries.length), `${what} replaced a known registry`).toEqual(before.registries)
              }
              // All or nothing: a refused body (a fault batch with one bad rule, a registry already known) changed nothing.
              else expect(await adminState(way), `${what} was refused but changed the fake`).toEqual(before)
            } finally {
              fake.faults.clear()
              fake.rateLimit.set(undefined)
            }
          }),
          fuzzParams(runs),
        )
        await expectStillServes(fake, way)
      })
    }

    it('POST /auth: any body gets 200, 401, a JSON 400 naming what was wrong or the daemon\'s 500 (Go\'s json error, a basic registry\'s refusal), never the password sent', { timeout: testTimeout(60) }, async () => {
      // The daemon's 500s: what its json.Decoder cannot read into an AuthConfig, and a basic-auth registry's refusal.
      const daemon500 = (status: number, message: string | undefined) => status === 500 && /^(json: cannot unmarshal |invalid character |unexpected EOF$|EOF$|login attempt to )/.test(message ?? '')
      await fc.assert(
        fc.asyncProperty(authBody, async (body) => {
          const what = `POST /auth ${body} (${way.name})`
          const a = await way.request('/auth', { method: 'POST', body, headers: { 'content-type': 'application/json' } })
          checkAnswer(a, { what, fields: ['body', 'JSON', 'AuthConfig'], allow5xx: daemon500 })
          expect([200, 400, 401, 500], what).toContain(a.status)
        }),
        fuzzParams(60),
      )
      await expectStillServes(fake, way)
    })

    it('a body over 1 MiB is refused with a JSON 413', { timeout: testTimeout(4) }, async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...Object.values(BODY_ROUTES).map((r) => r.path), '/_dockside/scenario'), fc.integer({ min: 1, max: 3 }), async (path, mib) => {
          const body = JSON.stringify({ message: 'x'.repeat(mib * 1024 * 1024 + 10) })
          const a = await way.request(path, { method: 'POST', body, headers: { 'content-type': 'application/json' } })
          checkAnswer(a, { what: `POST ${path} with ${mib} MiB (${way.name})` })
          expect(a.status, `POST ${path} with a ${mib} MiB body (${way.name}): ${a.body.slice(0, 200)}`).toBe(413)
        }),
        fuzzParams(4),
      )
    })

    it('odd refs on DELETE/GET/POST routes that take one: 2xx or a JSON 4xx', { timeout: testTimeout(120) }, async () => {
      const ref = fc.oneof(fc.constantFrom('web', 'db', 'pending', 'normal-1', '%', '%zz', '..', '.', '%2F', '%2e%2e', 'a/b', '__proto__', 'constructor', 'toString', ''), oddString())
      const template = fc.constantFrom(
        'DELETE /_dockside/containers/{}',
        'POST /_dockside/containers/{}/start',
        'POST /_dockside/containers/{}/stop',
        'POST /_dockside/containers/{}/pause',
        'GET /_dockside/containers/{}',
        'DELETE /_dockside/faults/{}',
        'GET /_dockside/faults/{}',
        'GET /_dockside/deliveries/{}',
        'GET /_dockside/journal?type={}&after={}',
        'GET /_dockside/{}',
        'PUT /_dockside/{}',
        'DELETE /_dockside/images/{}',
      )
      await fc.assert(
        fc.asyncProperty(template, ref, fc.boolean(), async (t, r, encode) => {
          const [method, p] = t.split(' ')
          const value = encode ? encodeURIComponent(r) : r.replace(/[?#&]/g, (c) => encodeURIComponent(c))
          const path = p.replaceAll('{}', value)
          const a = await way.request(path, { method })
          checkAnswer(a, { what: `${method} ${path} (${way.name})` })
        }),
        fuzzParams(120),
      )
      await expectStillServes(fake, way)
    })
  })
}
