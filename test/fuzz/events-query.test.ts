// Property-based: the events `filters`, `since` and `until` query, on /events/ws and GET /events, both ways in.
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Dockside } from '../../src/index'
import { signHyperRequest } from '../../src/protocol/signing'
import { probeWithWs } from '../support/ws-probe'
import { veryDeepText, anyJson, SECRETS, serverWay, REQUEST_TIMEOUT_MS, checkAnswer, checkUpgrade, expectStillServes, fuzzParams, oddString, seededFake, testTimeout, useFuzzWay, WAYS, type FuzzWay } from '../support/fuzz-kit'

const FILTER_NAMES = ['container', 'event', 'image', 'label']

/** A filter name: a known one, a near miss or anything. */
const filterName = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...FILTER_NAMES) },
  { weight: 1, arbitrary: fc.constantFrom('type', 'Event', 'labels', 'status', 'since', '', '__proto__', 'constructor') },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
)
/** A filter value: what filters usually carry, or something odd. */
const filterValue = fc.oneof(fc.constantFrom('start', 'stop', 'die', 'web', 'db', 'nginx:1.27', 'app=web', 'app', '=', ''), oddString())

/** The `filters` JSON in every shape: object-of-true, list, mixed, wrong types, unknown keys, huge and deep. */
const filtersValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.dictionary(filterName, fc.dictionary(filterValue, fc.oneof({ weight: 4, arbitrary: fc.boolean() }, { weight: 1, arbitrary: anyJson() }), { maxKeys: 4 }), { maxKeys: 4 }) },
  { weight: 3, arbitrary: fc.dictionary(filterName, fc.array(fc.oneof({ weight: 4, arbitrary: filterValue }, { weight: 1, arbitrary: anyJson() }), { maxLength: 4 }), { maxKeys: 4 }) },
  { weight: 2, arbitrary: fc.dictionary(filterName, anyJson(), { maxKeys: 3 }) },
  { weight: 1, arbitrary: anyJson() },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 20_000 }).map((n) => ({ label: Array.from({ length: n }, (_, i) => `k${i}=v`) })) },
)

/** The query text: percent-encoded JSON, raw JSON, or not JSON at all. */
const filtersQuery = fc.oneof(
  { weight: 4, arbitrary: filtersValue.map((v) => encodeURIComponent(JSON.stringify(v) ?? 'undefined')) },
  // Raw: as docker clients and curl users send it. `#` would end the URL on the client, so only it is encoded.
  { weight: 3, arbitrary: filtersValue.map((v) => (JSON.stringify(v) ?? 'undefined').replace(/#/g, '%23')) },
  { weight: 1, arbitrary: oddString().map((s) => encodeURIComponent(s)) },
  { weight: 1, arbitrary: veryDeepText().map((t) => encodeURIComponent(`{"label":${t}}`)) },
  { weight: 1, arbitrary: oddString().map((s) => s.replace(/[#&\s]/g, (c) => encodeURIComponent(c))) },
)

/** A `since`/`until` value: valid Docker timestamps near the fake's clock, or anything. */
const NOW_S = 1767225600
const timestamp = fc.oneof(
  fc.integer({ min: NOW_S - 100, max: NOW_S + 100 }).map(String),
  fc.tuple(fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 0, max: 999_999_999 })).map(([s, n]) => `${s}.${String(n).padStart(9, '0')}`),
  fc.integer({ min: 1, max: 2000 }).map((n) => '1' + '0'.repeat(n)),
  fc.integer({ min: 1, max: 2000 }).map((n) => '9'.repeat(n)),
  fc.integer({ min: 1, max: 30 }).map((n) => `${NOW_S}.${'1'.repeat(n)}`),
  fc.double().map(String),
  fc.integer().map(String),
  fc.constantFrom('-1', '-0', '1.', '.5', '1e3', '0x10', '2026-01-01T00:00:00Z', '1767225600.000000001', '+1', ' 1', '1 '),
  oddString(),
)
const timeQuery = fc.record({ since: fc.option(timestamp, { nil: undefined }), until: fc.option(timestamp, { nil: undefined }) }, { requiredKeys: [] })
const qs = (q: Record<string, string | undefined>) =>
  Object.entries(q)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(v!)}`)
    .join('&')

/** Opens the events websocket with `query`; a 101 is then closed by the client, and must close cleanly. */
async function upgradeOnce(way: FuzzWay, query: string, fields: string[]) {
  const path = `/events/ws?${query}`
  const p = await way.connect(path)
  checkUpgrade(p, { what: `GET ${path} (websocket, ${way.name})`, fields })
  if (p.status !== 101) return
  // After a 101 the socket must be a websocket: a clean close, not HTTP bytes inside it (a ghost socket).
  p.close(1000, 'fuzz done')
  const closed = await Promise.race([p.closed, new Promise<{ code: number; reason: string }>((r) => setTimeout(() => r({ code: -1, reason: 'no close within 2 s' }), 2000))])
  expect([1000, 1005, 4410], `the websocket of ${path} (${way.name}) ended with ${closed.code} ${closed.reason}`).toContain(closed.code)
}

async function streamOnce(way: FuzzWay, query: string, fields: string[], allow5xx?: (status: number, message: string | undefined) => boolean) {
  const path = `/events?${query}`
  const a = await way.head(path)
  checkAnswer(a, { what: `GET ${path} (${way.name})`, fields, allow5xx })
}

/** No socket outlives its client: after the batch the fake tracks none (a ghost socket is a leak). */
async function expectNoGhosts(fake: Dockside) {
  const open = () => [...fake.protocol.hub.sockets].map((s) => ({ id: s.id, client: s.client, filters: s.filters }))
  await expect.poll(open, { message: 'events sockets still open on the fake after every client closed', timeout: 2000 }).toEqual([])
}

for (const w of WAYS) {
  describe(`fuzz: events query (${w.name})`, () => {
    let fake: Dockside
    let way: FuzzWay
    useFuzzWay(w, (f, started) => {
      fake = f
      way = started
    })

    it('any filters on /events/ws: 101 or a JSON 4xx naming the filter', { timeout: testTimeout(150) }, async () => {
      await fc.assert(fc.asyncProperty(filtersQuery, (q) => upgradeOnce(way, `filters=${q}`, ['filter'])), fuzzParams(150))
      await expectNoGhosts(fake)
      await expectStillServes(fake, way)
    })

    it('any filters on GET /events: 200 or a JSON 4xx naming the filter', { timeout: testTimeout(100) }, async () => {
      await fc.assert(fc.asyncProperty(filtersQuery, (q) => streamOnce(way, `filters=${q}`, ['filter'])), fuzzParams(100))
      await expectStillServes(fake, way)
    })

    it('any since/until on /events/ws: refused before the upgrade or a clean websocket', { timeout: testTimeout(150) }, async () => {
      await fc.assert(fc.asyncProperty(timeQuery, (q) => upgradeOnce(way, qs(q), ['since', 'until'])), fuzzParams(150))
      await expectNoGhosts(fake)
      await expectStillServes(fake, way)
    })

    it('any since/until on GET /events: 200 or a JSON 4xx naming the parameter', { timeout: testTimeout(100) }, async () => {
      // What Docker's parseTimestamp cannot read is its strconv error, a 500 as the daemon answers it (its help in the hint).
      await fc.assert(fc.asyncProperty(timeQuery, (q) => streamOnce(way, qs(q), ['since', 'until'], (status, message) => status === 500 && (message ?? '').startsWith('strconv.ParseInt: '))), fuzzParams(100))
      await expectStillServes(fake, way)
    })
  })
}

// Signed upgrades: a fake with an access key verifies HYPER-HMAC-SHA256. Only the server way can send the
// headers (the WHATWG WebSocket in process takes none). Any Authorization / X-Hyper-Date, and correctly signed
// requests with any filters: 101 or a JSON 4xx, and the access key's secret never appears in an answer.
const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 200 })
const authHeader = fc.oneof(
  printable,
  fc.tuple(fc.constantFrom('AKFUZZ', 'AKOTHER', ''), fc.constantFrom('20260101', '19700101', 'x'), fc.constantFrom('us-west-1', ''), fc.stringMatching(/^[0-9a-f]{64}$/), fc.constantFrom('host;x-hyper-date', 'x-hyper-date', ';;', 'A'))
    .map(([k, d, r, sig, signed]) => `HYPER-HMAC-SHA256 Credential=${k}/${d}/${r}/hyper/hyper_request, SignedHeaders=${signed}, Signature=${sig}`),
)
const hyperDate = fc.oneof(fc.constantFrom('20260101T000000Z', '20260101T000400Z', '20251231T000000Z', '99999999T999999Z', ''), printable)

describe('fuzz: signed events websocket (server)', () => {
  let fake: Dockside
  let way: Awaited<ReturnType<typeof serverWay>>
  let wsUrl: string
  beforeAll(async () => {
    fake = seededFake({ accessKeys: { AKFUZZ: SECRETS.accessSecret } })
    way = await serverWay(fake)
    wsUrl = (await fake.listen({ port: 0 })).wsUrl
  })
  afterAll(async () => {
    await way?.close()
    await fake?.close()
  })

  const once = async (path: string, headers: Record<string, string>) => {
    const p = await Promise.race([probeWithWs(wsUrl + path, headers), new Promise<never>((_, r) => setTimeout(() => r(new Error(`hang: websocket ${path}`)), REQUEST_TIMEOUT_MS))])
    checkUpgrade(p, { what: `GET ${path} with ${JSON.stringify(headers)} (signed websocket, server)` })
    if (p.status === 101) p.close(1000)
  }

  it('any Authorization and X-Hyper-Date: a JSON refusal that never shows the secret', { timeout: testTimeout(100) }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.option(authHeader, { nil: undefined }), fc.option(hyperDate, { nil: undefined }), async (authorization, date) => {
        const headers: Record<string, string> = {}
        if (authorization !== undefined) headers.authorization = authorization
        if (date !== undefined) headers['x-hyper-date'] = date
        await once('/events/ws', headers)
      }),
      fuzzParams(100),
    )
  })

  it('correctly signed upgrades with any filters: 101 or a JSON 4xx naming the filter', { timeout: testTimeout(30) }, async () => {
    await fc.assert(
      fc.asyncProperty(filtersQuery, async (q) => {
        const path = `/events/ws?filters=${q}`
        const host = new URL(wsUrl).host
        const signed = await signHyperRequest({ method: 'GET', url: path, headers: { host } }, { accessKey: 'AKFUZZ', secretKey: SECRETS.accessSecret, date: fake.clock.now() })
        await once(path, { ...signed })
      }),
      fuzzParams(30),
    )
  })
})
