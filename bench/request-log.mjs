// What request recording and overrides cost per request, through the protocol as every way in calls it.
// Interleaved rounds (A B C A B C ...), median of per-round values. Usage: node bench/request-log.mjs [rounds=9] [requests=5000]
// Needs a build (npx tsup). Compare a request's cost with and without 5 overrides in place that do not match, and the
// recording hook alone (one ring push) against the whole request.
import { createDockside } from '../dist/index.js'

const ROUNDS = Number(process.argv[2] ?? 9)
const N = Number(process.argv[3] ?? 5000)
const headers = { host: '127.0.0.1:2375', 'user-agent': 'Docker-Client/28.0.1 (linux)', accept: '*/*', 'accept-encoding': 'gzip', 'x-dockside-client': 'ci' }
const signal = new AbortController().signal
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]

async function perRequest(overrides) {
  const fake = createDockside({ seed: 1 })
  fake.containers.create({ name: 'web', image: 'nginx' }).start()
  for (let i = 0; i < overrides; i++) fake.use({ method: 'GET', path: `/nothing/${i}` }, { status: 500 })
  const send = () => fake.protocol.handle({ method: 'GET', url: '/v1.47/containers/json?all=1', headers: { ...headers }, signal, body: async () => '' })
  for (let i = 0; i < 500; i++) await send()
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < N; i++) await send()
  const ns = Number(process.hrtime.bigint() - t0) / N
  await fake.close()
  return ns
}

function recordOnly() {
  const fake = createDockside({ seed: 1 })
  const query = new Map([['all', '1']])
  const M = N * 20
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < M; i++) fake.protocol.requests.record({ seq: 0, time: i, method: 'GET', url: '/containers/json?all=1', path: '/containers/json', query, headers, body: undefined, client: 'ci', status: 200, override: undefined, websocket: false })
  return Number(process.hrtime.bigint() - t0) / M
}

const r = { none: [], five: [], record: [] }
for (let round = 0; round < ROUNDS; round++) {
  r.none.push(await perRequest(0))
  r.five.push(await perRequest(5))
  r.record.push(recordOnly())
}
const ratio = median(r.five.map((f, i) => f / r.none[i]))
console.log(`request (GET /containers/json through protocol.handle): ${median(r.none).toFixed(0)} ns; with 5 non-matching overrides: ${median(r.five).toFixed(0)} ns (x${ratio.toFixed(3)}, median of per-round ratios)`)
console.log(`recording hook alone (one ring push): ${median(r.record).toFixed(0)} ns = ${((median(r.record) / median(r.none)) * 100).toFixed(2)}% of a request`)
