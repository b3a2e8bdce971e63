/**
 * An outside check of the delivery report against a client's own ground truth. The client here is written as an SDK
 * author would (not test/chaos/clients.ts): exponential backoff on the fake's clock, Retry-After honoured, resume with
 * `since` = last timeNano + 1 ns, an optional id by header or query, filters. It records every frame and every
 * connection; the truth (what it got, twice, when it was away) is computed from those records and the event log, by
 * the rules of docs/chaos.md ("What a client is owed"), and compared with `fake.deliveries.report()` field by field.
 */
// Found by an outside review of the delivery report (was test/chaos/ground-truth-review.test.ts).
import { afterEach, describe, expect, it } from 'vitest'
import WsWebSocket from 'ws'
import { createDockside, type Dockside } from '../../src/index'
import type { DeliveryReport } from '../../src/service/delivery'
import type { ServiceEvent } from '../../src/service/events'
import { installDeliveryMatchers } from '../../src/vitest/delivery-matchers'

installDeliveryMatchers()

type Filters = Record<string, string[]>
type Impl = 'global' | 'ws'

/** What the client itself saw of one connection attempt. */
interface Attempt {
  /** Clock time (ms since the clock's start) and log position (last seq) when the client made the attempt. */
  at: number
  atSeq: number
  since?: bigint
  until?: bigint
  filters: Filters
  opened: boolean
  openedAt?: number
  openedSeq?: number
  status?: number
  retryAfter?: number
  closedAt?: number
  closedSeq?: number
  code?: number
  reason?: string
  /** The client ended it with a close frame. */
  byClient?: boolean
  /** The client ended it without one. */
  crashed?: boolean
}

interface SdkOptions {
  /** ws://HOST:PORT or wss://us-west-1.hyper.test */
  base: string
  impl: Impl
  id?: string
  idVia?: 'query' | 'header'
  filters?: Filters
  /** Resume with since = last timeNano + 1 ns. */
  resume: boolean
  /** `since` of the very first connection. */
  since?: bigint
  until?: bigint
  /** Resume with since = last timeNano (the last event comes again) instead of + 1 ns. */
  inclusive?: boolean
  /** Give up on a handshake not answered in this much clock time. */
  timeoutMs?: number
  /** Backoff: base * 2^failures, at least Retry-After. */
  baseMs?: number
  sleep(ms: number): Promise<void>
  /** For the records only: clock time and log position (an SDK would not have these; the test stamps them). */
  stamp(): { at: number; seq: number }
}

const TIME_NANO = /"timeNano":(\d+)/
const dockerTime = (nano: bigint) => `${nano / 1_000_000_000n}.${String(nano % 1_000_000_000n).padStart(9, '0')}`

/** What a client recorded: every frame, every attempt. */
interface Recorded {
  readonly frames: { timeNano: bigint; attempt: number }[]
  readonly attempts: Attempt[]
  state: 'connecting' | 'open' | 'backoff' | 'stopped'
}

/**
 * A reconnecting client of Docker's `GET /events` (JSON lines over HTTP), the same way: backoff on the fake's clock,
 * resume with since; `stop()` ends the response (the client's goodbye over HTTP). HTTP carries no close code.
 */
class StreamClient implements Recorded {
  readonly frames: { timeNano: bigint; attempt: number }[] = []
  readonly attempts: Attempt[] = []
  state: Recorded['state'] = 'stopped'
  private last: bigint | undefined
  private abort: AbortController | undefined
  private stopped = false
  constructor(private readonly o: { http: string; id: string; sleep(ms: number): Promise<void>; stamp(): { at: number; seq: number } }) {}

  start() {
    void this.connect()
  }

  stop() {
    this.state = 'stopped'
    this.stopped = true
    const a = this.attempts.at(-1)
    const t = this.o.stamp()
    if (a?.opened && a.closedAt === undefined) Object.assign(a, { closedAt: t.at, closedSeq: t.seq, byClient: true, code: 1000 })
    this.abort?.abort()
  }

  private async connect() {
    const since = this.last === undefined ? undefined : this.last + 1n
    const s = this.o.stamp()
    const a: Attempt = { at: s.at, atSeq: s.seq, since, filters: {}, opened: false }
    const n = this.attempts.push(a) - 1
    this.state = 'connecting'
    const abort = (this.abort = new AbortController())
    const res = await fetch(`${this.o.http}/events?client=${this.o.id}${since === undefined ? '' : `&since=${dockerTime(since)}`}`, { signal: abort.signal })
    if (res.status !== 200) {
      Object.assign(a, { status: res.status, retryAfter: res.headers.get('retry-after') === null ? undefined : Number(res.headers.get('retry-after')) })
      await res.body?.cancel()
    } else {
      const t = this.o.stamp()
      Object.assign(a, { opened: true, openedAt: t.at, openedSeq: t.seq })
      this.state = 'open'
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
      let buffered = ''
      try {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) break
          buffered += value
          for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
            const nano = BigInt(TIME_NANO.exec(buffered.slice(0, i))![1])
            buffered = buffered.slice(i + 1)
            this.frames.push({ timeNano: nano, attempt: n })
            this.last = nano
          }
        }
      } catch {
        // a reset (a drop), or our own abort
      }
      if (this.stopped) return
      const e = this.o.stamp()
      Object.assign(a, { closedAt: e.at, closedSeq: e.seq })
    }
    this.state = 'backoff'
    await this.o.sleep(a.opened ? 500 : Math.max(500, (a.retryAfter ?? 0) * 1000))
    if (!this.stopped) void this.connect()
  }
}

/** A reconnecting events client, as an SDK would write one. */
class SdkClient implements Recorded {
  readonly frames: { timeNano: bigint; attempt: number }[] = []
  readonly attempts: Attempt[] = []
  state: 'connecting' | 'open' | 'backoff' | 'stopped' = 'stopped'
  private last: bigint | undefined
  private failures = 0
  private socket: { close(code?: number, reason?: string): void; terminate?(): void } | undefined
  private generation = 0
  constructor(private o: SdkOptions) {}

  get base() {
    return this.o.base
  }
  /** The filters of the next connection (a named client may change them). */
  setFilters(filters: Filters | undefined) {
    this.o = { ...this.o, filters }
  }

  start() {
    this.state = 'connecting'
    this.connect()
  }

  /** Goodbye with a close frame; no reconnect. */
  stop(code = 1000) {
    this.state = 'stopped'
    this.generation++
    const a = this.attempts.at(-1)
    if (a && a.opened && a.closedAt === undefined) {
      const s = this.o.stamp()
      Object.assign(a, { closedAt: s.at, closedSeq: s.seq, code, byClient: true })
    }
    this.socket?.close(code, 'client done')
  }

  /** Ends the connection with no close frame (a crash: the fake sees 1006 from the client), and reconnects. */
  crash() {
    this.attempts.at(-1)!.crashed = true
    this.socket!.terminate!()
  }

  private url(since: bigint | undefined) {
    const q = new URLSearchParams()
    // WHATWG WebSocket sends no custom headers: the query it is.
    if (this.o.id !== undefined && (this.o.idVia !== 'header' || this.o.impl === 'global')) q.set('client', this.o.id)
    if (this.o.filters) q.set('filters', JSON.stringify(this.o.filters))
    if (since !== undefined) q.set('since', dockerTime(since))
    if (this.o.until !== undefined) q.set('until', dockerTime(this.o.until))
    const qs = q.toString()
    return `${this.o.base}/events/ws${qs ? `?${qs}` : ''}`
  }

  private connect() {
    const gen = this.generation
    const since = this.o.resume && this.last !== undefined ? this.last + (this.o.inclusive ? 0n : 1n) : this.last === undefined ? this.o.since : undefined
    const s = this.o.stamp()
    const a: Attempt = { at: s.at, atSeq: s.seq, since, until: this.o.until, filters: this.o.filters ?? {}, opened: false }
    const n = this.attempts.push(a) - 1
    this.state = 'connecting'
    const url = this.url(since)
    const onOpen = () => {
      const t = this.o.stamp()
      Object.assign(a, { opened: true, openedAt: t.at, openedSeq: t.seq })
      this.failures = 0
      if (this.state === 'connecting') this.state = 'open'
    }
    const onMessage = (text: string) => {
      const nano = BigInt(TIME_NANO.exec(text)![1])
      this.frames.push({ timeNano: nano, attempt: n })
      this.last = nano
    }
    const onClose = (code: number, reason: string) => {
      if (a.closedAt === undefined && a.opened) {
        const t = this.o.stamp()
        Object.assign(a, { closedAt: t.at, closedSeq: t.seq, code, reason })
      }
      if (gen !== this.generation || this.state === 'stopped') return
      // since older than retention: start over live (and know it).
      if (code === 4410) this.last = undefined
      const backoff = a.opened ? (this.o.baseMs ?? 500) : Math.max((a.retryAfter ?? 0) * 1000, (this.o.baseMs ?? 500) * 2 ** this.failures++)
      this.state = 'backoff'
      void this.o.sleep(backoff).then(() => {
        if (gen === this.generation && this.state === 'backoff') this.connect()
      })
    }
    if (this.o.timeoutMs !== undefined) {
      void this.o.sleep(this.o.timeoutMs).then(() => {
        if (a.opened || a.status !== undefined || gen !== this.generation || this.attempts.at(-1) !== a) return
        Object.assign(a, { closedAt: this.o.stamp().at })
        if (this.socket?.terminate) this.socket.terminate()
        else this.socket?.close()
      })
    }
    if (this.o.impl === 'ws') {
      const headers = this.o.id !== undefined && this.o.idVia === 'header' ? { 'X-Dockside-Client': this.o.id } : undefined
      const ws = new WsWebSocket(url, { headers })
      this.socket = ws
      ws.on('open', onOpen)
      ws.on('message', (d) => onMessage(d.toString()))
      ws.on('unexpected-response', (_req, res) => {
        a.status = res.statusCode
        a.retryAfter = res.headers['retry-after'] === undefined ? undefined : Number(res.headers['retry-after'])
        res.resume()
        ws.terminate()
      })
      ws.on('error', () => {})
      ws.on('close', (code, reason) => onClose(code, reason.toString()))
    } else {
      const ws = new WebSocket(url)
      this.socket = ws
      ws.onopen = onOpen
      ws.onmessage = (m) => onMessage(String(m.data))
      ws.onerror = () => {}
      ws.onclose = (e) => onClose(e.code, e.reason)
    }
  }
}

/** Waits (host turns only, no clock time) until every client is open, backing off or stopped, and has read every frame the fake sent. */
async function settle(fake: Dockside, clients: Recorded[], pendingOk = false) {
  const sent = () => fake.deliveries.clients().reduce((n, k) => n + fake.deliveries.report(k).connections.reduce((m, c) => m + c.sent, 0), 0)
  const read = () => clients.reduce((n, c) => n + c.frames.length, 0)
  // A woken client's reconnect runs in a promise continuation: let it start before looking.
  await new Promise(setImmediate)
  for (let i = 0; i < 5000; i++) {
    const open = (stream: boolean) => clients.filter((c) => c.state === 'open' && c instanceof StreamClient === stream).length
    const hub = fake.protocol.hub
    if ((pendingOk || clients.every((c) => c.state !== 'connecting')) && hub.sockets.size === open(false) && hub.streams.size === open(true) && sent() === read()) return
    await new Promise((r) => (i < 200 ? setImmediate(r) : setTimeout(r, 1)))
  }
  throw new Error(`clients never settled: states ${clients.map((c) => c.state)}, sockets ${fake.protocol.hub.sockets.size}, sent ${sent()}, read ${read()}`)
}

/** Ground truth from the client's records, by docs/chaos.md's rules ("What a client is owed"). */
function truth(fake: Dockside, c: Recorded) {
  const log = fake.events.events
  const bySeq = new Map<bigint, ServiceEvent>(log.map((e) => [e.timeNano, e]))
  const times = new Map<number, number>()
  for (const f of c.frames) {
    const e = bySeq.get(f.timeNano)
    // Sends of events the log dropped are outside the report's window.
    if (e) times.set(e.seq, (times.get(e.seq) ?? 0) + 1)
  }
  const match = (f: Filters, e: ServiceEvent) =>
    Object.entries(f).every(([k, vs]) => (k === 'event' ? vs.includes(e.action) : k === 'container' ? vs.includes(e.name) || vs.includes(e.id) : true))
  const as = c.attempts
  const first = as[0]
  const opened = as.filter((a) => a.opened)
  const owed = (e: ServiceEvent) => {
    if (!first) return false
    // Plus what its first `since` asks to replay: the first connection's (after refusals, the one that got in).
    const replay = opened[0] ?? first
    // `until` without `since` replays everything kept up to `until`.
    const from = replay.since ?? (replay.until !== undefined ? 0n : undefined)
    const fromFirst = e.seq > first.atSeq || (from !== undefined && e.timeNano >= from && (replay.until === undefined || e.timeNano <= replay.until))
    if (!fromFirst) return false
    // Away by choice: from the client's own close (or its `until` completing) to its next attempt. Owed again only
    // what the returning connection's `since` asks to replay: with its filters, up to its `until`.
    for (let i = 0; i < as.length; i++) {
      const a = as[i]
      if (!a.opened) continue
      const completed = a.until !== undefined && a.code === 1000 && !a.byClient
      if (!a.byClient && !completed) continue
      const from = completed ? Math.max(...log.filter((x) => x.timeNano <= a.until!).map((x) => x.seq), 0) : a.closedSeq!
      const to = as[i + 1] ? as[i + 1].atSeq : Infinity
      const back = as.slice(i + 1).find((x) => x.opened)
      if (e.seq > from && e.seq <= to) return !!back && back.since !== undefined && e.timeNano >= back.since && (back.until === undefined || e.timeNano <= back.until) && match(back.filters, e)
    }
    // Filters: of the connection open when it happened, else of the last opened before it, else the first.
    const during = opened.filter((a) => a.openedSeq! < e.seq && (a.closedSeq === undefined || a.closedSeq >= e.seq))
    const before = opened.filter((a) => a.openedSeq! < e.seq).at(-1) ?? opened[0] ?? first
    return during.length ? during.some((a) => match(a.filters, e)) : match(before.filters, e)
  }
  const expected = log.filter(owed)
  const missed = expected.filter((e) => !times.has(e.seq)).map((e) => e.seq)
  // Stretches without a connection: from a server close, drop or first refusal (after the client's own close: from
  // its next attempt) to the next opening; the last one ongoing.
  const gaps: { from: number; to: number; missed: number; ongoing?: true }[] = []
  let away: { at: number; seq: number } | 'clean' | undefined
  const gap = (from: { at: number; seq: number }, to: { at: number; seq: number }, ongoing: boolean) => {
    if (ongoing || to.at > from.at || to.seq > from.seq) gaps.push({ from: from.at, to: to.at, missed: missed.filter((m) => m > from.seq && m <= to.seq).length, ...(ongoing ? { ongoing: true as const } : {}) })
  }
  for (const a of as) {
    if (away === 'clean') away = { at: a.at, seq: a.atSeq }
    if (!a.opened) {
      away ??= { at: a.at, seq: a.atSeq }
      continue
    }
    if (away) gap(away, { at: a.openedAt!, seq: a.openedSeq! }, false)
    away = undefined
    if (a.closedAt === undefined) continue
    const completed = a.until !== undefined && a.code === 1000 && !a.byClient
    away = a.byClient || completed ? 'clean' : { at: a.closedAt, seq: a.closedSeq! }
  }
  if (away && away !== 'clean' && first) gap(away, { at: fake.clock.elapsed(), seq: Infinity }, true)
  return {
    expected: expected.length,
    delivered: times.size,
    missed,
    gaps,
    duplicates: [...times].filter(([, n]) => n > 1).map(([seq, times]) => ({ seq, times })),
    connections: opened.length,
    codes: opened.map((a) => (a.byClient || a.crashed ? { by: 'client', code: a.code } : a.code === undefined ? { by: undefined, code: undefined } : { by: a.code === 1006 ? 'drop' : 'server', code: a.code })),
    refusals: as.filter((a) => !a.opened && a.status !== undefined).map((a) => ({ status: a.status, retryAfter: a.retryAfter })),
    /** Clock time between each end of service (a close or refusal) and the next attempt. */
    backoffMs: as.slice(1).map((a, i) => a.at - (as[i].closedAt ?? as[i].at)),
  }
}

/** Compares the report with the truth, field by field, naming the field that disagrees. */
function compare(fake: Dockside, c: Recorded, key: string, options: { refusalStatus?: boolean; codes?: boolean } = {}) {
  const t = truth(fake, c)
  const r: DeliveryReport = fake.deliveries.report(key)
  const summary = fake.deliveries.summary(key)
  const got = {
    expected: r.expected,
    delivered: r.delivered,
    missed: r.missed.map((e) => e.seq),
    duplicates: r.duplicates.map((d) => ({ seq: d.seq, times: d.times })),
    connections: r.connections.length,
    codes: r.connections.map((x) => ({ by: x.closedBy, code: x.code })),
    refusals: r.refusals.map((x) => ({ status: x.status, retryAfter: x.retryAfter })),
    backoffMs: r.backoffMs,
    gaps: r.gaps.map((g) => ({ from: Date.parse(g.from) - fake.clock.startedAt, to: Date.parse(g.to) - fake.clock.startedAt, missed: g.missed, ...(g.ongoing ? { ongoing: true as const } : {}) })),
  }
  const want = { ...t, ...(options.refusalStatus === false ? { refusals: got.refusals } : {}), ...(options.codes === false ? { codes: got.codes } : {}) }
  expect(got, `report of ${key} against the client's own records`).toEqual(want)
  expect(summary).toMatchObject({ expected: r.expected, delivered: r.delivered, missed: r.missed.length, duplicates: r.duplicates.length, connections: r.connections.length, refusals: r.refusals.length })
  return { r, t }
}

/** A fake, a way in (the real server with `ws` or the global WebSocket, or in process) and helpers. */
async function setup(way: 'server-ws' | 'server-global' | 'in-process', options: Parameters<typeof createDockside>[0] = {}) {
  const fake = createDockside({ seed: 11, ...options })
  let base: string
  let impl: Impl
  if (way === 'in-process') {
    await fake.intercept()
    base = 'wss://us-west-1.hyper.test'
    impl = 'global'
  } else {
    const server = await fake.listen({ port: 0 })
    base = server.wsUrl
    impl = way === 'server-ws' ? 'ws' : 'global'
  }
  const all: Recorded[] = []
  /**
   * The clients' backoff timers, on the fake's clock. `step` moves the clock to each wake in turn and lets the woken
   * client's attempt reach the fake before moving on, as a user's fake timers would (an attempt still in flight when
   * an advance moved on would reach the fake later than the client made it).
   */
  const wakes: { at: number; go: () => void }[] = []
  const sleep = (ms: number) => new Promise<void>((go) => wakes.push({ at: fake.clock.elapsed() + ms, go }))
  const client = (o: Partial<SdkOptions> & { resume: boolean }) => {
    const c = new SdkClient({ base, impl, sleep, stamp: () => ({ at: fake.clock.elapsed(), seq: fake.events.lastSeq }), ...o })
    all.push(c)
    clients.push(c)
    return c
  }
  const stream = (id: string) => {
    const c = new StreamClient({ http: base.replace(/^ws/, 'http'), id, sleep, stamp: () => ({ at: fake.clock.elapsed(), seq: fake.events.lastSeq }) })
    all.push(c)
    clients.push(c)
    return c
  }
  const web = fake.containers.create({ name: 'web', image: 'nginx' })
  const db = fake.containers.create({ name: 'db', image: 'postgres' })
  /** Restarts a container: a stop and a start event. */
  const bounce = (c = web) => {
    c.start()
    c.stop()
  }
  /** Moves the clock by `ms` in pieces of at most `grain` ms, stopping at each client's wake. */
  const step = async (ms: number, pendingOk = false, grain = 500) => {
    const target = fake.clock.elapsed() + ms
    await settle(fake, all, pendingOk)
    for (;;) {
      const now = fake.clock.elapsed()
      for (const w of wakes.filter((x) => x.at <= now)) {
        wakes.splice(wakes.indexOf(w), 1)
        w.go()
      }
      await settle(fake, all, pendingOk)
      if (now >= target) return
      const next = Math.min(target, now + grain, ...wakes.map((w) => w.at))
      await fake.clock.advance(next - now)
    }
  }
  fakes.push(fake)
  return { fake, client, stream, web, db, bounce, step, settle: (pendingOk = false) => settle(fake, all, pendingOk), all, impl }
}

const fakes: Dockside[] = []
const clients: (SdkClient | StreamClient)[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) c.stop()
  for (const f of fakes.splice(0)) await f.close()
})

const ways = ['server-ws', 'server-global', 'in-process'] as const

describe.each(ways)('the delivery report against the client\'s own records (%s)', (way) => {
  it('forced closes with and without a close frame, a restart, 429s with Retry-After: with and without since', async () => {
    for (const resume of [true, false]) {
      const s = await setup(way)
      const { fake } = s
      fake.faults.add({ on: 'events', close: { code: 4000, reason: 'chaos' }, afterMessages: 3, match: { client: 'sdk' } })
      fake.faults.add({ on: 'events', drop: true, afterMessages: 2, after: 2, match: { client: 'sdk' } })
      const c = s.client({ id: 'sdk', idVia: s.impl === 'ws' ? 'header' : 'query', resume })
      c.start()
      await s.settle()
      s.bounce()
      s.db.start()
      // (The client stamps where its close fell in the log when it sees it: let it see it before the next event.)
      await s.settle()
      s.db.stop()
      await s.settle()
      // Closed after 3 messages: one event comes in the gap before the reconnect 500 ms later.
      await s.step(100)
      s.bounce()
      await s.step(400)
      s.bounce()
      await s.step(1000)
      fake.restart()
      await s.settle()
      s.bounce(s.db)
      await s.step(500)
      fake.faults.add({ on: 'events', reply: 429, retryAfter: 2, times: 2 })
      fake.closeSockets(1011, 'storm')
      await s.settle()
      s.bounce()
      await s.step(500)
      await s.step(1000)
      s.bounce()
      await s.step(1000)
      await s.step(2000)
      await s.step(2000)
      s.bounce()
      await s.settle()
      const { r, t } = compare(fake, c, 'sdk', { refusalStatus: s.impl === 'ws' })
      expect(r.refusals.length).toBe(2)
      if (resume) expect(t.missed).toEqual([])
      else expect(t.missed.length).toBeGreaterThan(0)
      c.stop()
      await s.settle()
      compare(fake, c, 'sdk', { refusalStatus: s.impl === 'ws' })
      c.stop()
      await fake.close()
    }
  })
})

describe.each(ways)('more chaos against the client\'s own records (%s)', (way) => {
  it('a client that closes by itself and comes back later, with and without since', async () => {
    for (const resume of [true, false]) {
      const s = await setup(way)
      const { fake } = s
      const c = s.client({ id: 'polite', resume })
      c.start()
      await s.settle()
      s.bounce()
      await s.settle()
      c.stop()
      await s.settle()
      // Away by choice: not owed (unless its since asks for them).
      s.bounce()
      await s.step(3_600_000, false, 3_600_000)
      s.bounce(s.db)
      compare(fake, c, 'polite')
      c.start()
      await s.settle()
      s.bounce()
      await s.settle()
      fake.closeSockets(4001, 'kick')
      await s.settle()
      s.bounce()
      await s.step(500)
      const { r } = compare(fake, c, 'polite')
      expect(r.backoffMs).toEqual([3_600_000, 500])
      c.stop()
      await s.settle()
      compare(fake, c, 'polite')
      c.stop()
      await fake.close()
    }
  })

  it('anonymous clients: two from one address with the same filters, reconnecting after closes', async () => {
    const s = await setup(way)
    const { fake } = s
    const filters = { event: ['start'] }
    const a = s.client({ resume: true, filters, baseMs: 500 })
    a.start()
    await s.settle()
    const b = s.client({ resume: true, filters, baseMs: 500 })
    b.start()
    await s.settle()
    s.bounce()
    await s.settle()
    fake.restart()
    await s.settle()
    s.bounce(s.db)
    await s.step(500)
    s.bounce()
    await s.settle()
    const keys = fake.deliveries.clients()
    expect(keys).toHaveLength(2)
    compare(fake, a, keys[0])
    compare(fake, b, keys[1])
    // A single anonymous client reconnecting without since.
    const solo = s.client({ resume: false, filters: { event: ['stop'] } })
    solo.start()
    await s.settle()
    fake.closeSockets(4000, 'kick')
    await s.settle()
    s.bounce()
    await s.step(1000)
    s.bounce()
    await s.settle()
    const soloKey = fake.deliveries.clients().find((k) => k.includes('stop'))!
    const { r } = compare(fake, solo, soloKey)
    expect(r.missed).toHaveLength(1)
  })

  it('a named client that changes its filters between connections', async () => {
    const s = await setup(way)
    const { fake } = s
    const c = s.client({ id: 'shifty', resume: true, filters: { event: ['start'] } })
    c.start()
    await s.settle()
    s.bounce()
    await s.settle()
    c.setFilters({ event: ['stop'] })
    fake.closeSockets(4000, 'kick')
    await s.settle()
    // In the gap: judged by the filters of the connection before it (start only).
    s.bounce()
    await s.step(500)
    s.bounce()
    await s.settle()
    c.setFilters({ container: ['db'] })
    c.stop()
    await s.settle()
    s.bounce(s.db)
    c.start()
    await s.settle()
    s.bounce(s.db)
    s.bounce()
    fake.dropSockets()
    await s.settle()
    s.bounce(s.db)
    await s.step(500)
    compare(fake, c, 'shifty')
  })

  it('retention: events evicted, a since older than retention (4410), and the maximum age on the virtual clock', async () => {
    const s = await setup(way, { retainEvents: 4, maxConnectionAge: '24h' })
    const { fake } = s
    const c = s.client({ id: 'slow', resume: true, baseMs: 1000 })
    c.start()
    await s.settle()
    s.bounce()
    await s.settle()
    fake.closeSockets(4000, 'kick')
    await s.settle()
    // Six events while away: the since it resumes with is no longer retained.
    s.bounce()
    s.bounce()
    s.bounce(s.db)
    await s.step(1000)
    // 4410, then live without since after another second.
    await s.step(1000)
    s.bounce()
    await s.step(86_400_000 - 2000, false, 86_400_000)
    await s.step(3000)
    s.bounce(s.db)
    await s.settle()
    const { r } = compare(fake, c, 'slow')
    expect(r.connections.map((x) => x.code)).toEqual([4000, 4410, 1000, undefined])
  })

  it('a first since older than retention: 4410, then live; what it asked to replay and never got is missed', async () => {
    const s = await setup(way, { retainEvents: 3 })
    const { fake } = s
    const since = fake.clock.now() * 1_000_000
    s.bounce()
    s.bounce(s.db) // #1-#4: #1 evicted
    await s.step(1000)
    const c = s.client({ id: 'too-old', resume: true, since: BigInt(since), baseMs: 1000 })
    c.start()
    await s.step(1000) // 4410, then back live without since
    s.bounce()
    await s.settle()
    const { r } = compare(fake, c, 'too-old')
    expect(r.connections[0].code).toBe(4410)
  })

  it('until streams: replay then complete, and a resume after a server close before until', async () => {
    const s = await setup(way)
    const { fake } = s
    s.bounce()
    await s.step(1000)
    const start = fake.events.events[0].timeNano
    const until = start + 5_000_000_000n
    const c = s.client({ id: 'bounded', resume: true, since: start, until })
    c.start()
    await s.settle()
    s.bounce(s.db)
    await s.step(1000)
    fake.closeSockets(4000, 'kick')
    await s.settle()
    s.bounce()
    await s.step(500)
    await s.step(3000)
    // Completed at until: nothing after it is owed.
    s.bounce()
    await s.step(1000)
    s.bounce()
    await s.settle()
    const { r } = compare(fake, c, 'bounded')
    expect(r.connections.at(-1)?.reason).toBe('until reached; stream complete')
  })

  it('until without since: everything kept up to until, then complete; events after it are not owed', async () => {
    const s = await setup(way, { retainEvents: 3 })
    const { fake } = s
    s.bounce()
    s.bounce(s.db) // #1-#4, #1 evicted
    await s.step(2000)
    const until = fake.events.events[0].timeNano + 3_000_000_000n
    const c = s.client({ id: 'until-only', resume: false, until, baseMs: 5000 })
    c.start()
    await s.settle()
    s.bounce() // #5, #6 at 2 s: live, up to until
    await s.step(1500)
    s.bounce() // #7, #8 at 3.5 s: after until
    await s.settle()
    const { r } = compare(fake, c, 'until-only')
    expect(r.connections[0]).toMatchObject({ since: '0', reason: 'until reached; stream complete' })
    expect(r.expected).toBe(1) // #6: #2-#5 were evicted by the time of the report (3 kept)
  })

  it('connect latency and per-event latency: events in flight when the server closes are missed', async () => {
    const s = await setup(way)
    const { fake } = s
    fake.faults.add({ on: 'events', latency: { perEvent: '100ms' }, times: 1 })
    fake.faults.add({ on: 'events', latency: { connect: '300ms' }, match: { reconnect: true }, times: 1 })
    const c = s.client({ id: 'laggy', resume: false })
    c.start()
    await s.settle()
    s.bounce()
    await s.step(100)
    s.bounce()
    fake.closeSockets(4000, 'kick')
    await s.settle()
    await s.step(500, true)
    s.bounce()
    await s.step(300, true)
    await s.settle()
    s.bounce()
    await s.settle()
    const { r } = compare(fake, c, 'laggy')
    expect(r.missed.length).toBeGreaterThan(0)
  })
})

describe.each(ways)('cases where the report disagreed with the client (%s)', (way) => {
  it('a client that closed by itself and came back with other filters and since is owed, of the stretch it was away, what its new filters ask to replay', async () => {
    const s = await setup(way)
    const { fake } = s
    const c = s.client({ id: 'turncoat', resume: true, filters: { event: ['start'] } })
    c.start()
    await s.settle()
    s.bounce() // #1 start (sent), #2 stop (not asked for)
    await s.settle()
    c.stop()
    await s.settle()
    s.bounce() // #3 start, #4 stop: away by choice
    await s.step(1000)
    // Back with since = #1 + 1 ns, asking for stops now: the replay sends #2 and #4, and #3 was never asked for again.
    c.setFilters({ event: ['stop'] })
    c.start()
    await s.settle()
    s.bounce() // #5 start, #6 stop (sent)
    await s.settle()
    const { r } = compare(fake, c, 'turncoat')
    // It said #3 was missed: a start of the stretch the client chose to be away, which the returning since did not ask for.
    expect(r.missed).toEqual([])
    expect(fake).toHaveDeliveredAllEventsTo('turncoat')
    expect(r.expected).toBe(3) // #1, #4, #6
  })
})

describe.each(ways)('cases where the report disagreed with the client, continued (%s)', (way) => {
  it('a client refused at its first attempt is owed what its first connection\'s since asks to replay', async () => {
    const s = await setup(way)
    const { fake } = s
    s.bounce()
    s.bounce(s.db) // #1-#4, before the client's first attempt
    await s.step(1000)
    const checkpoint = fake.events.events[0].timeNano
    fake.faults.add({ on: 'events', reply: 429, retryAfter: 1, times: 1 })
    fake.faults.add({ on: 'events', close: { code: 4000, reason: 'cut' }, afterMessages: 1, after: 1, times: 1 })
    // Starts from a checkpoint; a buggy resume: after a close it reconnects live, without since.
    const c = s.client({ id: 'checkpointed', resume: false, since: checkpoint, baseMs: 1000 })
    c.start()
    await s.step(1000) // refused, then back with since = #1: cut after #1
    await s.step(1000) // live, without since: #2-#4 never came
    s.bounce()
    await s.settle()
    const { r } = compare(fake, c, 'checkpointed', { refusalStatus: s.impl === 'ws' })
    // It said nothing was missed: the replay its first connection asked for was not owed.
    expect(r.missed.map((e) => e.seq)).toEqual([2, 3, 4])
  })
})

describe.each(ways)('chaos the report got right (%s)', (way) => {
  it('inclusive resumes: each resume repeats the last event once; a stall the client gives up on; a crash', async () => {
    const s = await setup(way)
    const { fake } = s
    const c = s.client({ id: 'dup', resume: true, inclusive: true, timeoutMs: 2000 })
    c.start()
    await s.settle()
    s.bounce()
    await s.settle()
    fake.closeSockets(4000, 'kick')
    await s.settle()
    s.bounce(s.db)
    await s.step(500)
    s.bounce()
    await s.settle()
    // The next attempt stalls: the client gives up after 2 s, then gets in.
    fake.faults.add({ on: 'events', stall: true, times: 1 })
    fake.restart()
    await s.settle()
    s.bounce(s.db)
    await s.step(500, true)
    s.bounce()
    await s.step(2000, true)
    await s.step(1000)
    s.bounce()
    await s.settle()
    if (s.impl === 'ws') {
      c.crash()
      await s.settle()
      s.bounce(s.db)
      await s.step(500)
    }
    const { r, t } = compare(fake, c, 'dup', { refusalStatus: false })
    expect(t.missed).toEqual([])
    expect(r.duplicates.length).toBe(r.connections.length - 1)
    expect(r.timeline.some((l) => l.kind === 'abandoned')).toBe(true)
  })
})

describe.each(['server-ws', 'server-global'] as const)('storyboards and admin faults (%s)', (way) => {
  it('the admin API serves the same report and summary', async () => {
    const s = await setup(way)
    const { fake } = s
    const c = s.client({ id: 'via-admin', resume: false })
    c.start()
    await s.settle()
    fake.closeSockets(4000, 'kick')
    await s.settle()
    s.bounce()
    await s.step(500)
    const base = c.base.replace(/^ws/, 'http')
    const one = await (await fetch(`${base}/_dockside/deliveries/via-admin`)).json()
    const all = await (await fetch(`${base}/_dockside/deliveries`)).json()
    expect(one).toEqual(JSON.parse(JSON.stringify(fake.deliveries.report('via-admin'))))
    expect(all).toEqual([fake.deliveries.summary('via-admin')])
    compare(fake, c, 'via-admin')
  })

  it('a storyboard applied from now, and a fault posted to the admin API, against two named clients and one anonymous', async () => {
    const s = await setup(way)
    const { fake } = s
    await fake.apply(
      {
        timeline: [
          { at: '1s', every: '2s', stop: 'web' },
          { at: '1s', every: '2s', start: 'web' },
          { at: '3500ms', close: { code: 1012, reason: 'service restart' } },
          { at: '6500ms', drop: true },
          { at: '8500ms', restart: true },
        ],
        faults: [{ id: 'storm', on: 'events', reply: 503, retryAfter: 1, from: '8500ms', until: '10s', times: 'always' }],
      },
      { from: 'now' },
    )
    s.web.start()
    const a = s.client({ id: 'alpha', resume: true, baseMs: 500 })
    const b = s.client({ id: 'beta', idVia: 'header', resume: false, baseMs: 250, filters: { event: ['start'] } })
    const anon = s.client({ resume: true, baseMs: 1000, filters: { container: ['web'] } })
    for (const c of [a, b, anon]) c.start()
    await s.settle()
    const http = `http://${new URL(a.base).host}`
    const posted = await fetch(`${http}/_dockside/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ on: 'events', close: { code: 4000, reason: 'posted' }, afterMessages: 2, match: { client: 'alpha' }, times: 2 }) })
    expect(posted.status).toBeLessThan(300)
    for (let i = 0; i < 24; i++) await s.step(500, false, 250)
    const anonKey = fake.deliveries.clients().find((k) => k !== 'alpha' && k !== 'beta')!
    compare(fake, a, 'alpha', { refusalStatus: s.impl === 'ws' })
    compare(fake, b, 'beta', { refusalStatus: s.impl === 'ws' })
    compare(fake, anon, anonKey, { refusalStatus: s.impl === 'ws' })
  })
})

describe.each(ways)('Docker\'s GET /events against the client\'s own records (%s)', (way) => {
  it('a close fault, a restart, a drop, a 503 and the client\'s own end of the response', async () => {
    const s = await setup(way)
    const { fake } = s
    fake.faults.add({ on: 'events', close: { code: 4000, reason: 'cut' }, afterMessages: 2, times: 1 })
    const c = s.stream('streamer')
    c.start()
    await s.settle()
    s.bounce()
    s.bounce(s.db) // cut after 2 lines: #3 and #4 come with the since resume
    await s.step(500)
    s.bounce()
    await s.settle()
    fake.faults.add({ on: 'events', reply: 503, retryAfter: 1, times: 1 })
    fake.restart()
    await s.settle()
    s.bounce(s.db)
    await s.step(500)
    await s.step(1000)
    s.bounce()
    await s.settle()
    fake.dropSockets()
    await s.settle()
    s.bounce(s.db)
    await s.step(500)
    c.stop()
    await s.settle()
    s.bounce()
    await s.settle()
    const { r } = compare(fake, c, 'streamer', { codes: false })
    expect(r.connections.map((x) => [x.via, x.closedBy, x.code])).toEqual([
      ['stream', 'server', 4000],
      ['stream', 'server', 1001],
      ['stream', 'drop', 1006],
      ['stream', 'client', 1000],
    ])
    expect(r.refusals.map((x) => x.status)).toEqual([503])
  })
})

describe('what the docs say a report means', () => {
  it('events in flight under per-event latency when the client closes were owed: reported missed, as the client saw', async () => {
    const s = await setup('in-process')
    const { fake } = s
    fake.faults.add({ on: 'events', latency: { perEvent: '100ms' } })
    const c = s.client({ id: 'quitter', resume: true })
    c.start()
    await s.settle()
    s.bounce()
    await s.step(100)
    s.bounce() // #3 and #4 leave at 200 ms
    await s.step(50)
    c.stop()
    await s.settle()
    const { r } = compare(fake, c, 'quitter')
    expect(r.missed.map((e) => e.seq)).toEqual([3, 4])
  })

  it('two identical anonymous clients away at once cannot be told apart: their records swap, the sum stays true', async () => {
    const s = await setup('server-ws')
    const { fake } = s
    const a = s.client({ resume: true, baseMs: 1000 })
    const b = s.client({ resume: false, baseMs: 500 })
    a.start()
    await s.settle()
    b.start()
    await s.settle()
    s.bounce()
    await s.settle()
    fake.restart()
    await s.settle()
    s.bounce(s.db)
    await s.step(1000) // b comes back first, and takes the record a opened
    s.bounce()
    await s.settle()
    const [first, second] = fake.deliveries.clients().map((k) => fake.deliveries.report(k).missed.map((e) => e.seq))
    expect({ a: truth(fake, a).missed, b: truth(fake, b).missed }).toEqual({ a: [], b: [3, 4] })
    expect({ first, second }).toEqual({ first: [3, 4], second: [] })
  })
})

describe('backoff is measured from an end of service', () => {
  it('a client that opens its new socket before closing the old one (make before break) had no backoff then', async () => {
    const fake = createDockside({ seed: 1 })
    fakes.push(fake)
    const server = await fake.listen({ port: 0 })
    const url = `${server.wsUrl}/events/ws?client=overlap`
    const open = async () => {
      const ws = new WsWebSocket(url)
      await new Promise((r) => ws.once('open', r))
      return ws
    }
    const sockets = [await open()]
    await fake.clock.advance(1000)
    // The replacement is open before the old socket closes: service never stopped.
    sockets.push(await open())
    const replaced = new Promise((r) => sockets[0].once('close', r))
    sockets[0].close(1000, 'replaced')
    await replaced
    while (fake.protocol.hub.sockets.size !== 1) await new Promise(setImmediate)
    await fake.clock.advance(1000)
    const kicked = new Promise((r) => sockets[1].once('close', r))
    fake.closeSockets(4000, 'kick')
    await kicked
    await fake.clock.advance(500)
    sockets.push(await open())
    // It said [1500, 500]: 1.5 s from the replaced socket's close, while the client was connected all along.
    expect(fake.deliveries.report('overlap').backoffMs).toEqual([500])
    expect(fake.deliveries.report('overlap').gaps).toEqual([{ from: '2026-01-01T00:00:02.000Z', to: '2026-01-01T00:00:02.500Z', ms: 500, missed: 0 }])
    for (const ws of sockets) ws.close()
  })
})
