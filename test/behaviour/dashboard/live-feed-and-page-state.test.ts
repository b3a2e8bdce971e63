// The dashboard's second review (a false or stale number on a live demo is the worst failure): the live feed says what
// the server knows (fault schedules, container history whatever the filter, open connections), never queues states
// behind a slow reader, and the page shows when it is not live, why, and reconnects. Each test drives the page in
// Chromium or reads GET /_dockside/live as a client, as test/behaviour/dashboard/dashboard.test.ts and admin-live.test.ts do.
// Found by the dashboard's second review (was test/dashboard/dashboard-review-2.test.ts).
import type { Page } from 'playwright-core'
import WebSocket from 'ws'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideOptions } from '../../../src/index'
import { ensureUiBuilt, readSse, noChromium, pageForEachTest } from './support'

const skip = noChromium

interface Snapshot {
  seq: number
  feed?: string
  clock: { nowMs: number; paused: boolean; pausedBy?: string }
  containers: { id: string; name: string; state: string }[]
  timeline: { fromMs: number; knownFromMs: number; spans: Record<string, [number, number | null][]> }
  faults: { id: string; fired: number; timesTotal: number | 'always'; remaining: number | 'always'; status: string }[]
  deliveries: { client: string; open: number; openVia: { ws: number; stream: number } }[]
}

const firstState = async (url: string) => (await readSse(await fetch(`${url}/_dockside/live`), (ms) => ms.some((m) => m.event === 'state'))).find((m) => m.event === 'state')!.data as Snapshot

/** Reads an SSE body message by message, at the test's pace (the rest waits in the connection). */
function sseReader(res: Response) {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let bytes = 0
  return {
    /** Bytes read so far. */
    get bytes() {
      return bytes
    },
    async next(): Promise<{ event: string; data: unknown }> {
      for (;;) {
        const end = buffer.indexOf('\n\n')
        if (end >= 0) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const event = /^event: (.*)$/m.exec(block)?.[1]
          const data = /^data: (.*)$/m.exec(block)?.[1]
          if (event && data !== undefined) return { event, data: JSON.parse(data) }
          continue
        }
        const { value, done } = await reader.read()
        if (done) throw new Error('the feed ended')
        bytes += value.length
        buffer += decoder.decode(value, { stream: true })
      }
    },
    cancel: () => reader.cancel(),
  }
}

let fake: Dockside
beforeAll(() => ensureUiBuilt(), 120_000)

describe('the live feed', () => {
  afterEach(() => fake?.close())

  it('says what each fault rule will still do: its times (defaults included), fires left, and a window that ended', async () => {
    fake = createDockside({ seed: 3 })
    const { url, wsUrl } = await fake.listen()
    // latency fires every time by default, refuse: 3 three times, a reply once; a window that ends at 5s.
    await fetch(`${url}/_dockside/faults`, {
      method: 'POST',
      body: JSON.stringify({
        rules: [
          { id: 'slow', on: 'events', latency: { connect: 0 } },
          { id: 'refuse3', on: 'events', refuse: 3 },
          { id: 'once', on: 'push', reply: 500 },
          { id: 'window', on: 'push', reply: 503, until: '5s', match: { client: 'nobody' } },
          { id: 'later', on: 'push', reply: 503, from: '1h' },
        ],
      }),
    })
    const connect = async () => {
      const ws = new WebSocket(`${wsUrl}/events/ws?client=sdk`)
      const opened = await new Promise<boolean>((resolve) => (ws.once('open', () => resolve(true)), ws.once('unexpected-response', () => resolve(false))))
      if (opened) {
        ws.close()
        await new Promise((r) => ws.once('close', r))
      }
      return opened
    }
    expect(await connect()).toBe(true)
    // A reconnect: refused by refuse3 (its first of three; a reply is all that happens, so no latency).
    expect(await connect()).toBe(false)
    await fetch(`${url}/images/localhost:5000/x/push?tag=1`, { method: 'POST' }).then((r) => r.text())
    await fake.clock.advance('10s')
    const faults = Object.fromEntries((await firstState(url)).faults.map((f) => [f.id, f]))
    expect(faults.slow).toMatchObject({ fired: 1, timesTotal: 'always', remaining: 'always', status: 'fired' })
    expect(faults.refuse3).toMatchObject({ fired: 1, timesTotal: 3, remaining: 2, status: 'fired' })
    expect(faults.once).toMatchObject({ fired: 1, timesTotal: 1, remaining: 0, status: 'spent' })
    expect(faults.window).toMatchObject({ fired: 0, remaining: 1, status: 'ended' })
    expect(faults.later).toMatchObject({ fired: 0, status: 'scheduled' })
  })

  it("carries each container's running spans from the whole event log, whatever the feed's filter", async () => {
    fake = createDockside({ seed: 3 })
    const { url } = await fake.listen()
    const web = fake.containers.create({ name: 'web', image: 'nginx' }).start()
    await fake.clock.advance('10s')
    web.stop()
    await fake.clock.advance('10s')
    web.start()
    // Churn past the page's old 300-event list: web's events are long out of it.
    const noise = fake.containers.create({ name: 'noise', image: 'busybox' })
    for (let i = 0; i < 200; i++) noise.start().stop()
    const t0 = fake.clock.startedAt
    const messages = await readSse(await fetch(`${url}/_dockside/live?filters=${encodeURIComponent('{"container":["nothing"]}')}`), (ms) => ms.some((m) => m.event === 'state'))
    const state = messages.find((m) => m.event === 'state')!.data as Snapshot
    expect(state.timeline.spans[web.id]).toEqual([
      [t0, t0 + 10_000],
      [t0 + 20_000, null],
    ])
    expect(state.timeline.fromMs).toBe(t0)
  })

  it('counts open connections per client from the delivery data: GET /events streams and anonymous websockets too', async () => {
    fake = createDockside({ seed: 3 })
    const { url, wsUrl } = await fake.listen()
    const stream = await fetch(`${url}/events`, { headers: { 'x-dockside-client': 'docker-cli' } })
    const ws = new WebSocket(`${wsUrl}/events/ws`)
    await new Promise((r) => ws.once('open', r))
    const state = await firstState(url)
    expect(state.deliveries.map((d) => ({ open: d.open, openVia: d.openVia }))).toEqual([
      { open: 1, openVia: { ws: 0, stream: 1 } },
      { open: 1, openVia: { ws: 1, stream: 0 } },
    ])
    expect(state.deliveries[0].client).toBe('docker-cli')
    ws.close()
    await stream.body!.cancel()
  })

  it('with ?ack=1, sends the next state only once the last was acknowledged: a reader that stops reading gets the latest state next, not a queue', async () => {
    fake = createDockside({ seed: 3 })
    const { url } = await fake.listen()
    const feed = sseReader(await fetch(`${url}/_dockside/live?ack=1`))
    const first = await feed.next()
    expect(first).toMatchObject({ event: 'state', data: { seq: 1, feed: expect.stringMatching(/^live-/) } })
    const { feed: id } = first.data as Snapshot
    const afterFirst = feed.bytes
    // A plain reader of the feed, as a witness that the server had time to send a state for each change: the ack=1
    // reader reads nothing meanwhile (as a page behind a slow link, a proxy or a tunnel whose buffers hide it).
    const witness = sseReader(await fetch(`${url}/_dockside/live`))
    for (let i = 0; i < 10; i++) {
      fake.containers.create({ name: `c${i}`, image: 'nginx' }).start()
      let seen = false
      while (!seen) {
        const m = await witness.next()
        seen = m.event === 'state' && (m.data as Snapshot).containers.some((c) => c.name === `c${i}`)
      }
    }
    await witness.cancel()
    // 500 more events than the feed holds unsent.
    const noise = fake.containers.create({ name: 'noise', image: 'busybox' })
    for (let i = 0; i < 250; i++) noise.start().stop()
    const ack = (body: unknown) => fetch(`${url}/_dockside/live/ack`, { method: 'POST', body: JSON.stringify(body) })
    expect(await (await ack({ feed: id, seq: 1 })).json()).toEqual({ acked: true })
    // The very next message is the state as it is now (seq 2, every change in it), not one of the states in between.
    const next = await feed.next()
    expect(next.event).toBe('state')
    expect((next.data as Snapshot).seq).toBe(2)
    expect((next.data as Snapshot).containers.map((c) => c.name)).toEqual([...Array.from({ length: 10 }, (_, i) => `c${i}`), 'noise'])
    // Events the reader did not take are bounded: the newest 200, and how many were skipped.
    expect(await feed.next()).toEqual({ event: 'skipped', data: { events: 510 - 200 } })
    const events = await feed.next()
    expect(events.event).toBe('events')
    expect((events.data as unknown[]).length).toBe(200)
    // All the server sent while the reader did not read: one state and 200 events (a state is ~1 kB here, an event ~300 B).
    expect(feed.bytes - afterFirst).toBeLessThan(200 * 400 + 5_000)
    // An ack of a state not sent yet, and a malformed one, are refused; one for a feed that ended is not an error.
    const early = await ack({ feed: id, seq: 9 })
    expect(early.status).toBe(400)
    expect((await early.json()).message).toMatch(/seq/)
    const bad = await ack({ seq: 1 })
    expect(bad.status).toBe(400)
    expect((await bad.json()).message).toMatch(/"feed"/)
    await feed.cancel()
    await expect.poll(async () => (await (await ack({ feed: id, seq: 2 })).json()).acked).toBe(false)
  })
})

describe.skipIf(skip)('the page in Chromium', () => {
  let page: Page
  let url: string
  const chromium = pageForEachTest('dockside-dashboard-review-', () => fake?.close())
  beforeAll(() => void (page = chromium.page))

  const open = async (options: DocksideOptions, query = '') => {
    fake = createDockside(options)
    url = (await fake.listen()).url
    await page.goto(`${url}/_dockside/ui${query}`)
    await page.getByTestId('status').filter({ hasText: /^live$/ }).waitFor()
  }
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/_dockside/${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
    return res.json()
  }
  const status = () => page.getByTestId('status').textContent()
  const clockMs = () => page.getByTestId('clock-now').getAttribute('data-ms').then(Number)

  it("the Fault plan's Left and State come from the server: latency stays fired, refuse: 3 has 2 left, an ended window says ended", async () => {
    await open({ seed: 3 })
    await admin('POST', 'faults', { rules: [{ id: 'slow', on: 'events', latency: { connect: 0 } }, { id: 'window', on: 'push', reply: 503, until: '5s' }] })
    const ws = new WebSocket(`${url.replace('http', 'ws')}/events/ws`)
    await new Promise((r) => ws.once('open', r))
    ws.close()
    await fake.clock.advance('10s')
    const row = (id: string) => page.locator(`[data-fault=${id}]`)
    await row('slow').locator('[data-label=State]').getByText('fired').waitFor()
    expect(await row('slow').locator('[data-label=Left]').textContent()).toBe('always')
    await row('window').getByText('ended').waitFor()
  })

  it('the container timeline keeps its history with a filter applied and past the event list, and says how far back it goes', async () => {
    await open({ seed: 3, scenario: { containers: [{ name: 'web', image: 'nginx', running: true }] } }, `?filters=${encodeURIComponent('{"container":["nothing"]}')}`)
    await fake.clock.advance('10s')
    fake.containers.get('web').stop()
    await fake.clock.advance('10s')
    fake.containers.get('web').start()
    const noise = fake.containers.create({ name: 'noise', image: 'busybox' })
    for (let i = 0; i < 200; i++) noise.start().stop()
    const bars = page.locator('.tl-row:has(.tl-name:text-is("web")) rect.on')
    await expect.poll(() => bars.count()).toBe(2)
    expect(await page.locator('.tl-row .tl-name', { hasText: 'web' }).getAttribute('title')).toBe('web')
    expect(await page.getByTestId('timeline-range').textContent()).toMatch(/last two minutes \(from \d\d:\d\d:\d\d UTC\), from every event, whatever the event stream's filter/)
  })

  it('a filter the fake refuses leaves the feed live with its filter, and says why', async () => {
    chromium.allow(/status of 400/)
    await open({ seed: 3 })
    await page.getByLabel(/Filter/).fill('{"event":["stopp"]}')
    await page.getByLabel(/Filter/).press('Enter')
    expect(await page.getByTestId('filter-error').textContent()).toMatch(/stopp/)
    await admin('POST', 'containers', { name: 'after', image: 'nginx', start: true })
    await page.locator('[data-container=after]').getByText('running').waitFor()
    await page.locator('.events li', { hasText: 'after' }).waitFor()
    expect(await status()).toBe('live')
    expect(await page.getByTestId('filter-now').count()).toBe(0)
    // A refused filter in the address: said, and the page goes live without it.
    await page.goto(`${url}/_dockside/ui?filters=${encodeURIComponent('{"colour":["red"]}')}`)
    await page.getByTestId('status').filter({ hasText: /^live$/ }).waitFor()
    expect(await page.getByTestId('filter-error').textContent()).toMatch(/colour/)
  })

  it('a fake that went away: a banner says so, the clock and uptimes stop, and the page backs off its retries', async () => {
    await open({ seed: 3, clock: 'real', scenario: { containers: [{ name: 'web', image: 'nginx', running: true }] } })
    chromium.allow(/ERR_CONNECTION_REFUSED/, /Failed to load resource/)
    let asks = 0
    page.on('request', (r) => r.url().includes('/_dockside/live?') && asks++)
    await fake.close()
    await page.getByTestId('offline').waitFor()
    expect(await status()).toBe('disconnected')
    expect(await page.getByTestId('offline').textContent()).toMatch(/Not live.*the fake does not answer.*not updating/s)
    const frozen = await clockMs()
    const uptime = await page.locator('[data-container=web] [data-label=Uptime]').textContent()
    // What is checked here is that nothing moves: real time has to pass (the page ticks every 500 ms).
    await page.waitForTimeout(2000)
    expect(await clockMs()).toBe(frozen)
    expect(await page.locator('[data-container=web] [data-label=Uptime]').textContent()).toBe(uptime)
    // 2 s down: the retries back off (250 ms, 500 ms, 1 s...), not one a second or more.
    expect(asks).toBeLessThanOrEqual(5)
  })

  it('a 401 after the admin token changed is shown with its reason, and the page comes back with the new token', async () => {
    fake = createDockside({ seed: 3, adminToken: 'first-t0ken' })
    const { url: first, port } = await fake.listen()
    url = first
    await page.goto(`${url}/_dockside/ui?token=first-t0ken`)
    await page.getByTestId('status').filter({ hasText: /^live$/ }).waitFor()
    chromium.allow(/status of 401/, /ERR_CONNECTION_REFUSED/, /Failed to load resource/)
    await fake.close()
    fake = createDockside({ seed: 3, adminToken: 'second-t0ken' })
    await fake.listen({ port })
    await expect.poll(() => page.getByTestId('offline').textContent(), { timeout: 10_000 }).toMatch(/401: the fake refused this page's access/)
  })

  it('after a reset the page follows the fake at once, not after the 1 s retry', async () => {
    await open({ seed: 3, scenario: { containers: [{ name: 'web', image: 'nginx', running: true }] } })
    await admin('POST', 'containers/web/stop')
    await page.locator('[data-container=web]').getByText('exited').waitFor()
    const asked = Date.now()
    await admin('POST', 'reset')
    await page.locator('[data-container=web]').getByText('running').waitFor()
    expect(Date.now() - asked).toBeLessThan(700)
  })

  it('connected counts and ● come from open connections: a GET /events stream and an anonymous websocket count', async () => {
    await open({ seed: 3 })
    const stream = await fetch(`${url}/events`, { headers: { 'x-dockside-client': 'docker-cli' } })
    const ws = new WebSocket(`${url.replace('http', 'ws')}/events/ws`)
    await new Promise((r) => ws.once('open', r))
    await expect.poll(() => page.getByTestId('connected').textContent()).toBe('2 connections open now (1 websocket, 1 GET /events) from 2 of 2 clients')
    expect(await page.locator('#clients tbody tr', { hasText: '●' }).count()).toBe(2)
    ws.close()
    await stream.body!.cancel()
    await expect.poll(() => page.locator('#clients tbody tr', { hasText: '●' }).count()).toBe(0)
  })

  it('a container that never ran shows no exit code', async () => {
    await open({ seed: 3 })
    await admin('POST', 'containers', { name: 'fresh', image: 'nginx' })
    await page.locator('[data-container=fresh]').getByText('created').waitFor()
    expect(await page.locator('[data-container=fresh] [data-label=Exit]').textContent()).toBe('—')
  })

  it('the speed box follows a speed set elsewhere, and Enter keeps it', async () => {
    await open({ seed: 3, clock: 'real' })
    await admin('POST', 'clock/speed', { speed: 5 })
    await expect.poll(() => page.getByLabel('Speed').inputValue()).toBe('5')
    await page.getByLabel('Speed').press('Enter')
    await page.getByText('✓ speed ×5').waitFor()
    expect((await admin('GET', 'clock')).speed).toBe(5)
  })

  it('an advance a story step paused says so; Continue shows only for a step pause and reports its result', async () => {
    await open({ seed: 3 })
    await admin('POST', 'scenario?from=now', { timeline: [{ at: '3s', say: 'look here', pause: true }] })
    await page.getByLabel('Advance by').press('Enter')
    await page.locator('.actions-log', { hasText: '⏸ advance 10s: the advance stopped at a pause' }).waitFor()
    expect(await page.locator('.actions-log').textContent()).not.toMatch(/✓ advance/)
    // Continue fails: the page says so (no unhandled error).
    await page.route('**/_dockside/scenario/continue', (r) => r.fulfill({ status: 500, contentType: 'application/json', body: '{"message":"boom"}' }))
    chromium.allow(/status of 500/)
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.getByText('✗ continue: boom').waitFor()
    await page.unrouteAll()
    // `c` works outside a text box (focus was left in Advance by).
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
    await page.keyboard.press('c')
    await page.getByText('✓ continue').waitFor()
    expect(fake.clock.paused).toBe(false)
    await page.goto('about:blank')
    await fake.close()

    // A clock paused with Pause (not by a step): Resume, and no Continue, nor `c`.
    await open({ seed: 3, clock: 'real' })
    await page.getByRole('button', { name: 'Pause' }).click()
    await page.getByRole('button', { name: 'Resume' }).waitFor()
    expect(await page.getByRole('button', { name: 'Continue' }).count()).toBe(0)
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
    await page.keyboard.press('c')
    await page.getByText('✓ pause').waitFor()
    expect(await page.locator('.actions-log').textContent()).not.toMatch(/continue/)
    expect(fake.clock.paused).toBe(true)
  })

  it('reads at 390 px and with 200 containers: cards for every table, a capped container list with its count, wording and contrast', async () => {
    await open({ seed: 3, rateLimit: { limit: 5, window: 10_000 } })
    await admin('POST', 'faults', { on: 'events', close: { code: 1011, reason: 'a forced close with a reason long enough to wrap on a phone' }, afterMessages: 1 })
    for (let i = 0; i < 200; i++) fake.containers.create({ name: `c${i}`, image: 'nginx' }).start()
    const stream = await fetch(`${url}/events`, { headers: { 'x-dockside-client': 'docker-cli' } })
    await page.locator('#clients [data-client=docker-cli]').waitFor()
    await expect.poll(() => page.getByTestId('container-count').textContent()).toBe('200 containers: 200 running, 0 exited · showing the first 30')
    expect(await page.locator('tr[data-container]').count()).toBe(30)
    expect(await page.locator('.tl-row').count()).toBe(30)
    await page.getByRole('button', { name: 'Show all 200 containers' }).click()
    expect(await page.locator('tr[data-container]').count()).toBe(200)
    expect(await page.locator('#ratelimit li').textContent()).toBe('rule 0: 5 per 10000 ms on events and push')
    expect(await page.getByTestId('clock-now').textContent()).toMatch(/ UTC$/)
    expect(await page.locator('.tl-row svg').first().getAttribute('aria-label')).toMatch(/: 1 running span in/)
    // Control borders: at least 3:1 against white (WCAG 1.4.11).
    const ratio = await page.evaluate(() => {
      const [r, g, b] = getComputedStyle(document.querySelector('button')!).borderTopColor.match(/\d+/g)!.map(Number)
      const lin = (c: number) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)
      return 1.05 / (0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b) + 0.05)
    })
    expect(ratio).toBeGreaterThanOrEqual(3)
    await page.setViewportSize({ width: 390, height: 844 })
    // Every cell of the fault plan and the clients table is on screen (State and Delivered were past the edge).
    const past = await page.evaluate(() => Array.from(document.querySelectorAll('#faults td, #clients td')).filter((el) => el.getBoundingClientRect().right > innerWidth + 1).map((el) => el.getAttribute('data-label')))
    expect(past).toEqual([])
    await stream.body!.cancel()
  })
})
