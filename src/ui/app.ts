// The dashboard (served at /_dockside/ui): preact + htm, bundled into dist/ui/app.js at build time.
// State arrives pushed over GET /_dockside/live (server-sent events, read with fetch so the page sees every refusal's
// status and message); every action is a documented admin API call.
import htm from 'htm'
import { h, render } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
// Bundled by esbuild into ui/app.css beside ui/app.js.
import './app.css'
import type { LiveState } from '../protocol/admin/live'
import type { EventFrame } from '../service/events'

const html = htm.bind(h)

// The feed's types come from the server side that writes them (type imports only: nothing of it is bundled).
type State = LiveState
type Clock = State['clock']
type Container = State['containers'][number]
type Push = State['pushes'][number]
type Fault = State['faults'][number]
type TimelineData = State['timeline']

/** A line of the event list: an event, or how many the page did not get because it fell behind. */
type EventLine = EventFrame | { skipped: number }
/** The live feed as the page sees it: `since` is when it left `live` (performance.now()). */
interface Link { kind: 'connecting' | 'live' | 'down'; reason?: string; since: number; retryAt?: number }

const EVENTS_KEPT = 300
const TIMELINE_MS = 120_000
const CONTAINERS_SHOWN = 30
/** Events clients listed before **Show all**: a burst of connections (anonymous ones open at once are a client each) must not grow the page without bound. */
const CLIENTS_SHOWN = 30
/** Delivery counts the feed recounts less often than this (host ms) say when they were counted. */
const RECOUNT_NOTED_MS = 300
/** No message for this long (the feed sends one a second) means the feed is stuck: it is reopened. */
const SILENT_MS = 5000
/** The feed's reconnects back off from 250 ms to this. */
const RETRY_MAX_MS = 5000

/** The JSON of an answer, or its `message`-less text when it is not JSON. */
async function answerOf(res: Response): Promise<{ value: unknown; message: string }> {
  const text = await res.text().catch(() => '')
  let value: unknown
  try {
    value = text ? JSON.parse(text) : undefined
  } catch {
    value = undefined
  }
  const message = (value as { message?: unknown } | undefined)?.message
  return { value, message: typeof message === 'string' ? message : text.slice(0, 200) || `${res.status} ${res.statusText}` }
}

/** Calls the admin API; resolves to the JSON answer or throws with its `message`. */
async function admin(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`/_dockside/${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const { value, message } = await answerOf(res)
  if (!res.ok) throw new Error(message)
  return value
}

/** Why the fake refused the feed, as the page says it. */
const refusal = (status: number, message: string) =>
  status === 401 || status === 403
    ? `${status}: the fake refused this page's access (${message}). If its admin token changed, open the /_dockside/ui?token=… address it printed again.`
    : `${status}: ${message}`

const fmtMs = (ms: number) => {
  const s = Math.max(0, Math.floor(ms / 1000))
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
}
const fmtTime = (ms: number) => new Date(ms).toISOString().slice(11, 19)
/** An event's time: with its date when that is not the clock's day (after an advance of hours, 10:00 could be either day). */
const fmtEventTime = (ms: number, nowMs: number) => {
  const iso = new Date(ms).toISOString()
  return iso.slice(0, 10) === new Date(nowMs).toISOString().slice(0, 10) ? iso.slice(11, 19) : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`
}
const fmtBytes = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : n >= 1e3 ? `${(n / 1e3).toFixed(1)} kB` : `${n} B`)
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`
const faultAction = (f: Fault) => {
  const rule: Record<string, unknown> = f
  return ['reply', 'refuse', 'error', 'close', 'drop', 'reset', 'truncate', 'stall', 'dribble', 'latency', 'unreachable'].filter((k) => rule[k] !== undefined).map((k) => `${k}: ${JSON.stringify(rule[k])}`).join(', ')
}
const isSkip = (e: EventLine): e is { skipped: number } => 'skipped' in e

/** The clock as the page sees it between two snapshots: a running real or auto clock moves on with the page's time while the feed is live. */
function useNow(clock: Clock | undefined, received: number, live: boolean): number {
  const [, tick] = useState(0)
  useEffect(() => {
    const t = setInterval(() => tick((n) => n + 1), 500)
    return () => clearInterval(t)
  }, [])
  if (!clock) return 0
  // Not live: the last reading, frozen (a page cut off from the fake must not look as if time went on there).
  if (!live || clock.mode === 'virtual' || clock.paused) return clock.nowMs
  return clock.nowMs + (performance.now() - received) * (clock.mode === 'real' ? clock.speed : 1)
}

/** Reads a server-sent-events body: each message's event name and data. */
async function* sseMessages(res: Response): AsyncGenerator<{ event: string; data: string }> {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      buffer += decoder.decode(value, { stream: true })
      let end
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        let event = 'message'
        const data: string[] = []
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) event = line.slice(6).trim()
          else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5))
        }
        if (data.length) yield { event, data: data.join('\n') }
      }
    }
  } finally {
    reader.cancel().catch(() => {})
  }
}

function Section(props: { id: string; title: string; children: unknown; wide?: boolean; note?: string }) {
  return html`<section class=${`panel${props.wide ? ' wide' : ''}`} aria-labelledby=${`${props.id}-h`} id=${props.id}>
    <h2 id=${`${props.id}-h`}>${props.title}${props.note && html` <span class="muted small">${props.note}</span>`}</h2>
    ${props.children}
  </section>`
}

type Act = (label: string, fn: () => Promise<unknown>) => void

function ClockBar(p: { state: State; now: number; act: Act }) {
  const c = p.state.clock
  const [by, setBy] = useState('10s')
  // The speed box shows the clock's speed, whoever set it, unless the presenter is typing one (a draft).
  const [speedDraft, setSpeedDraft] = useState<string | undefined>(undefined)
  const speed = speedDraft ?? String(c.speed)
  return html`<div class="clock" role="group" aria-label="Clock">
    <span class="clock-now" data-testid="clock-now" data-ms=${Math.round(p.now)}>${new Date(p.now).toISOString().replace('T', ' ').slice(0, 19)} UTC</span>
    <span class="tag">${c.mode}${c.paused ? (c.pausedBy === 'step' ? ', paused by a story step' : ', paused') : ''}${c.mode === 'real' ? `, ×${c.speed}` : ''}</span>
    ${c.mode !== 'virtual' &&
    html`<button onClick=${() => p.act(c.paused ? 'resume' : 'pause', () => admin('POST', c.paused ? 'clock/resume' : 'clock/pause'))}>${c.paused ? 'Resume' : 'Pause'}</button>`}
    ${c.mode !== 'real' &&
    html`<form class="inline" onSubmit=${(e: Event) => (e.preventDefault(), p.act(`advance ${by}`, () => admin('POST', 'clock/advance', { by })))}>
      <label>Advance by <input name="by" size="5" value=${by} onInput=${(e: Event) => setBy((e.target as HTMLInputElement).value)} /></label>
      <button type="submit">Advance</button>
    </form>`}
    ${c.mode === 'real' &&
    html`<form class="inline" onSubmit=${(e: Event) => {
      e.preventDefault()
      setSpeedDraft(undefined)
      p.act(`speed ×${speed}`, () => admin('POST', 'clock/speed', { speed: Number(speed) }))
    }}>
      <label>Speed <input name="speed" size="4" inputmode="decimal" value=${speed} onInput=${(e: Event) => setSpeedDraft((e.target as HTMLInputElement).value)} onKeyDown=${(e: KeyboardEvent) => e.key === 'Escape' && setSpeedDraft(undefined)} /></label>
      <button type="submit">Set speed</button>
    </form>`}
    <button class="danger" onClick=${() => confirm('Reset the fake to its scenario’s start?') && p.act('reset', () => admin('POST', 'reset'))}>Reset</button>
  </div>`
}

/** Continues a story paused at a step, with the result in the action log. */
const continueStory = (act: Act) => act('continue', () => admin('POST', 'scenario/continue'))

function Captions(p: { state: State; act: Act }) {
  const last = p.state.captions.at(-1)
  return html`<div class="caption" role="status" aria-live="polite" data-testid="caption">
    ${last ? html`<span class="say">${last.text}</span>` : html`<span class="muted">No caption yet: timeline steps with <code>say:</code> show here.</span>`}
    ${p.state.clock.paused &&
    p.state.clock.pausedBy === 'step' &&
    html`<button class="primary" onClick=${() => continueStory(p.act)} aria-keyshortcuts="c">Continue</button>`}
  </div>`
}

function Timeline(p: { containers: Container[]; timeline: TimelineData; now: number }) {
  const from = p.now - TIMELINE_MS
  const x = (t: number) => Math.max(0, Math.min(100, ((t - from) / TIMELINE_MS) * 100))
  // History the event log no longer holds (it keeps `retainEvents`): shaded, and said under the bars.
  const unknownTo = p.timeline.knownFromMs > p.timeline.fromMs ? p.timeline.knownFromMs : undefined
  return html`<div class="timeline" aria-label="Running time of each container over the last two minutes of clock time">
    ${p.containers.map((c) => {
      const spans = (p.timeline.spans[c.id] ?? []).map(([a, b]) => [a, b ?? p.now] as const).filter(([, b]) => b > from)
      return html`<div class="tl-row" data-tl=${c.name}>
        <span class="tl-name" title=${c.name}>${c.name}</span>
        <svg class="tl-bar" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label=${`${c.name}: ${plural(spans.length, 'running span')} in the last two minutes`}>
          ${unknownTo !== undefined && unknownTo > from && html`<rect x="0" y="0" width=${x(unknownTo)} height="10" class="unknown" />`}
          ${spans.map(([a, b]) => html`<rect x=${x(a)} y="1" width=${Math.max(0.4, x(b) - x(a))} height="8" class=${c.state === 'running' && b === p.now ? 'on live' : 'on'} />`)}
        </svg>
      </div>`
    })}
    <div class="tl-axis"><span>-2m</span><span>-1m</span><span>now</span></div>
    <p class="muted small" data-testid="timeline-range">
      Running spans of the clock's last two minutes (from ${fmtTime(Math.max(from, p.timeline.fromMs))} UTC), from every event, whatever the event stream's filter.
      ${unknownTo !== undefined && ` Before ${fmtTime(unknownTo)} UTC (shaded) the fake's event log no longer holds the events.`}
    </p>
  </div>`
}

function Containers(p: { state: State; now: number; act: Act }) {
  const [name, setName] = useState('')
  const [image, setImage] = useState('nginx:1.27')
  const [all, setAll] = useState(false)
  const list = p.state.containers
  const shown = all ? list : list.slice(0, CONTAINERS_SHOWN)
  const count = (state: string) => list.filter((c) => c.state === state).length
  return html`<${Section} id="containers" title="Containers" wide>
    <p class="muted" data-testid="container-count">${plural(list.length, 'container')}: ${count('running')} running, ${count('exited')} exited${count('created') ? `, ${count('created')} created` : ''}${shown.length < list.length ? ` · showing the first ${shown.length}` : ''}</p>
    <table class="cards">
      <thead><tr><th>Name</th><th>Image</th><th>Labels</th><th>Type</th><th>State</th><th>Uptime</th><th>Exit</th><th><span class="sr">Actions</span></th></tr></thead>
      <tbody>
        ${shown.map(
          (c) => html`<tr data-container=${c.name}>
            <td data-label="Name"><strong>${c.name}</strong></td><td data-label="Image" class="mono">${c.image}</td>
            <td data-label="Labels">${Object.entries(c.labels).map(([k, v]) => html`<span class="chip">${k}=${v}</span>`)}</td>
            <td data-label="Type">${c.instanceType}</td>
            <td data-label="State"><span class=${`state ${c.state}`}>${c.state}</span></td>
            <td data-label="Uptime">${c.state === 'running' && c.startedAt !== undefined ? fmtMs(p.now - c.startedAt) : '–'}</td>
            <td data-label="Exit">${c.state === 'running' ? '' : c.state === 'created' || c.startedAt === undefined ? '—' : c.exitCode}</td>
            <td>${c.state === 'running'
              ? html`<button aria-label=${`Stop ${c.name}`} onClick=${() => p.act(`stop ${c.name}`, () => admin('POST', `containers/${encodeURIComponent(c.name)}/stop`))}>Stop</button>`
              : html`<button aria-label=${`Start ${c.name}`} onClick=${() => p.act(`start ${c.name}`, () => admin('POST', `containers/${encodeURIComponent(c.name)}/start`))}>Start</button>`}</td>
          </tr>`,
        )}
      </tbody>
    </table>
    ${list.length > CONTAINERS_SHOWN && html`<button onClick=${() => setAll(!all)}>${all ? `Show the first ${CONTAINERS_SHOWN}` : `Show all ${list.length} containers`}</button>`}
    <${Timeline} containers=${shown} timeline=${p.state.timeline} now=${p.now} />
    <form class="inline" onSubmit=${(e: Event) => (e.preventDefault(), p.act(`create ${name}`, () => admin('POST', 'containers', { name, image, start: true })))}>
      <label>Name <input required value=${name} onInput=${(e: Event) => setName((e.target as HTMLInputElement).value)} /></label>
      <label>Image <input required value=${image} onInput=${(e: Event) => setImage((e.target as HTMLInputElement).value)} /></label>
      <button type="submit">Create and start</button>
    </form>
  </${Section}>`
}

function Events(p: { events: EventLine[]; now: number; filter: string; setFilter: (f: string) => void; error: string }) {
  const [draft, setDraft] = useState(p.filter)
  return html`<${Section} id="events" title="Event stream" note="times in UTC">
    <form class="inline" onSubmit=${(e: Event) => (e.preventDefault(), p.setFilter(draft.trim()))}>
      <label>Filter (as <code>/events/ws?filters=</code>) <input class="mono" size="28" placeholder='{"event":["stop"],"label":["app=web"]}' value=${draft} onInput=${(e: Event) => setDraft((e.target as HTMLInputElement).value)} /></label>
      <button type="submit">Apply</button>
    </form>
    ${p.filter && html`<p class="muted small" data-testid="filter-now">Filtered by <code>${p.filter}</code></p>`}
    ${p.error && html`<p class="error" role="alert" data-testid="filter-error">${p.error}</p>`}
    <ol class="events" aria-label="Events, newest first">
      ${p.events.slice(0, 100).map((e) =>
        isSkip(e)
          ? html`<li class="muted">… ${plural(e.skipped, 'event')} not shown here: the page fell behind …</li>`
          : html`<li><span class="mono muted">${fmtEventTime(Number(e.timeNano) / 1e6, p.now)}</span> <span class=${`state ${e.Action === 'start' ? 'running' : 'exited'}`}>${e.Action}</span> ${e.Actor.Attributes.name} <span class="muted">${e.from}${e.Action === 'stop' ? ` exit ${e.Actor.Attributes.exitCode}` : ''}</span></li>`,
      )}
    </ol>
  </${Section}>`
}

function Pushes(p: { state: State }) {
  return html`<${Section} id="pushes" title="Pushes">
    ${p.state.pushes.length === 0 && html`<p class="muted">No push yet: <code>docker push</code> to this fake, or a timeline step with <code>push:</code>.</p>`}
    ${[...p.state.pushes].reverse().map(
      (push) => html`<div class=${`push ${push.state}`} data-push=${push.id}>
        <div><strong class="mono">${push.repository}${push.tags.length ? `:${push.tags.join(',')}` : ''}</strong> <span class=${`state ${push.state}`}>${push.state}</span></div>
        ${push.layers.map(
          (l) => html`<div class="layer"><label class="mono">${l.id}
            <progress max=${l.size} value=${l.current} aria-label=${`layer ${l.id}`} data-pct=${Math.round((l.current / l.size) * 100)}></progress></label>
            <span class="muted">${l.status === 'exists' ? 'already exists' : `${fmtBytes(l.current)} / ${fmtBytes(l.size)}`}</span></div>`,
        )}
        ${Object.entries(push.digests).map(([tag, d]) => html`<div class="digest mono" data-testid="digest">${tag}: ${d}</div>`)}
        ${push.error && html`<div class="error">${push.error}</div>`}
      </div>`,
    )}
  </${Section}>`
}

function Clients(p: { state: State }) {
  const [all, setAll] = useState(false)
  const ds = p.state.deliveries
  const shown = all ? ds : ds.slice(0, CLIENTS_SHOWN)
  // Counted from the delivery data: every open connection, websocket or GET /events stream, named or anonymous.
  const open = ds.reduce((n, d) => n + d.open, 0)
  const ws = ds.reduce((n, d) => n + d.openVia.ws, 0)
  return html`<${Section} id="clients" title="Events clients">
    <p class="muted" data-testid="connected">${plural(open, 'connection')} open now (${ws} websocket, ${open - ws} <code>GET /events</code>) from ${ds.filter((d) => d.open > 0).length} of ${plural(ds.length, 'client')}${shown.length < ds.length ? ` · showing the first ${shown.length}` : ''}</p>
    <table class="cards">
      <thead><tr><th>Client</th><th>Connections</th><th>Gaps</th><th>Expected</th><th>Delivered</th><th>Missed</th><th>Duplicates</th><th>Refused</th></tr></thead>
      <tbody>${shown.map(
        (d) => html`<tr data-client=${d.client}><td data-label="Client" class="mono">${d.client}${d.open > 0 ? html` <span title=${`${plural(d.open, 'connection')} open now`} aria-label=${`${plural(d.open, 'connection')} open now`}>●${d.open > 1 ? ` ${d.open}` : ''}</span>` : ''}</td><td data-label="Connections">${d.connections}</td><td data-label="Gaps" class=${d.away ? 'bad' : ''}>${d.gaps}${d.away ? ' (away)' : ''}</td><td data-label="Expected">${d.expected}</td><td data-label="Delivered">${d.delivered}</td>
          <td data-label="Missed" class=${d.missed ? 'bad' : ''}>${d.missed}</td><td data-label="Duplicates" class=${d.duplicates ? 'bad' : ''}>${d.duplicates}</td><td data-label="Refused">${d.refusals}</td></tr>`,
      )}</tbody>
    </table>
    ${p.state.deliveriesRecountMs >= RECOUNT_NOTED_MS &&
    html`<p class="muted small" data-testid="clients-counted-at">Counts as of ${fmtEventTime(p.state.deliveriesAt, p.state.clock.nowMs)} UTC: counting this many clients and events takes long enough that the fake recounts them about every ${(p.state.deliveriesRecountMs / 1000).toFixed(1)} s, to stay responsive.</p>`}
    ${p.state.timeline.heldFromMs !== null &&
    html`<p class="muted small" data-testid="clients-window">Expected, delivered, missed and duplicates count the events the fake still holds: its log dropped those up to ${fmtEventTime(p.state.timeline.heldFromMs, p.state.clock.nowMs)} UTC (<code>retainEvents</code>).</p>`}
    ${ds.length > CLIENTS_SHOWN && html`<button onClick=${() => setAll(!all)}>${all ? `Show the first ${CLIENTS_SHOWN}` : `Show all ${ds.length} clients`}</button>`}
  </${Section}>`
}

const INJECT: { label: string; rule: Record<string, unknown> }[] = [
  { label: '429 on events', rule: { on: 'events', reply: 429, retryAfter: 2 } },
  { label: '500 on push', rule: { on: 'push', reply: 500, message: 'internal server error (injected from the dashboard)' } },
  { label: 'Mid-push error', rule: { on: 'push', error: 'blob upload unknown (injected from the dashboard)', afterLayer: 1 } },
  { label: 'Forced socket close', rule: { on: 'events', close: { code: 1011, reason: 'forced close from the dashboard' }, afterMessages: 1 } },
]

function Faults(p: { state: State; act: Act }) {
  return html`<${Section} id="faults" title="Fault plan">
    <div class="buttons" role="group" aria-label="Inject a fault">
      ${INJECT.map((i) => html`<button onClick=${() => p.act(`inject ${i.label}`, () => admin('POST', 'faults', i.rule))}>${i.label}</button>`)}
      <button onClick=${() => p.act('maintenance restart', () => admin('POST', 'restart'))}>Maintenance restart</button>
      <button onClick=${() => p.act('clear faults', () => admin('DELETE', 'faults'))}>Clear all</button>
    </div>
    <table class="cards">
      <thead><tr><th>Id</th><th>On</th><th>Action</th><th>Matched</th><th>Fired</th><th>Left</th><th>State</th></tr></thead>
      <tbody>${p.state.faults.map(
        (f) => html`<tr data-fault=${f.id}><td data-label="Id" class="mono nowrap">${f.id}</td><td data-label="On">${f.on}</td><td data-label="Action" class="mono small">${faultAction(f)}</td><td data-label="Matched">${f.matched}</td><td data-label="Fired">${f.fired}</td><td data-label="Left" title=${`fires ${f.timesTotal === 'always' ? 'every time it matches' : plural(f.timesTotal, 'time')} in all`}>${f.remaining === 'always' ? 'always' : f.remaining}</td><td data-label="State"><span class=${`state ${f.status}`}>${f.status}</span></td></tr>`,
      )}</tbody>
    </table>
  </${Section}>`
}

/** A rule's window as written: a number is milliseconds. */
const windowText = (w: string | number) => (typeof w === 'number' ? `${w} ms` : w)

function RateLimit(p: { state: State }) {
  const { rules, buckets } = p.state.rateLimit
  return html`<${Section} id="ratelimit" title="Rate limiter">
    ${rules.length === 0
      ? html`<p class="muted">No limit set (POST /_dockside/rate-limit, or <code>rateLimit:</code> in a scenario).</p>`
      : html`<ul>${rules.map((r, i) => html`<li>rule ${i}: ${r.limit} per ${windowText(r.window)} on ${r.route && r.route !== '*' ? r.route : 'events and push'}${r.burst ? `, burst ${r.burst}` : ''}${r.per === 'route' ? ', one bucket for every client' : ''}</li>`)}</ul>`}
    ${buckets.map(
      (b) => html`<div class="layer"><label class="mono">${b.route} · ${b.client}<progress max=${b.burst} value=${b.tokens} aria-label=${`tokens left for ${b.client} on ${b.route}`}></progress></label><span class="muted">${b.tokens}/${b.burst}</span></div>`,
    )}
  </${Section}>`
}

const feedUrl = (filter: string) => `/_dockside/live?ack=1${filter ? `&filters=${encodeURIComponent(filter)}` : ''}`

/** The live feed: opened, reopened with backoff, watched for silence; a filter is tried before it replaces the feed. */
function useFeed() {
  const [state, setState] = useState<State | undefined>()
  const [received, setReceived] = useState(0)
  const [events, setEvents] = useState<EventLine[]>([])
  const [filter, setFilter] = useState(new URLSearchParams(location.search).get('filters') ?? '')
  const [filterError, setFilterError] = useState('')
  const [link, setLink] = useState<Link>({ kind: 'connecting', since: performance.now() })
  const apply = useRef<(f: string) => void>(() => {})

  useEffect(() => {
    let stopped = false
    let current: AbortController | undefined
    let currentFilter = filter
    let failures = 0
    let timer: ReturnType<typeof setTimeout> | undefined
    let lastMessage = performance.now()
    let live = false

    const down = (reason: string, retryMs: number) => {
      live = false
      setLink((l) => ({ kind: 'down', reason, since: l.kind === 'live' ? performance.now() : l.since, retryAt: performance.now() + retryMs }))
      clearTimeout(timer)
      timer = setTimeout(() => void connect(), retryMs)
    }
    // 250 ms, 500 ms, 1 s, 2 s, 4 s, then every 5 s: a fake that is down is not asked every second.
    const backoff = () => Math.min(RETRY_MAX_MS, 250 * 2 ** failures++)

    /** Opens the feed for `f`: the response, or why it could not be opened (`status` when the fake answered). */
    async function open(f: string): Promise<{ res: Response; ac: AbortController } | { error: string; status?: number }> {
      const ac = new AbortController()
      try {
        const res = await fetch(feedUrl(f), { signal: ac.signal, cache: 'no-store', headers: { accept: 'text/event-stream' } })
        if (res.ok && res.body) return { res, ac }
        const { message } = await answerOf(res)
        return { error: res.status === 400 ? message : refusal(res.status, message), status: res.status }
      } catch (error) {
        return { error: `the fake does not answer (${(error as Error).message})` }
      }
    }

    /** Acknowledges state `seq` of the feed `ac` reads; when that fails, the feed is reopened (after the backoff). */
    async function ack(feed: string, seq: number, ac: AbortController) {
      let problem: string | undefined
      try {
        const res = await fetch('/_dockside/live/ack', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ feed, seq }) })
        if (res.ok) failures = 0
        else problem = `${res.status}: ${(await answerOf(res)).message}`
      } catch (error) {
        problem = (error as Error).message
      }
      if (problem === undefined || ac.signal.aborted || stopped) return
      ac.abort()
      down(`the fake did not get this page's acknowledgement (${problem}); reconnecting`, backoff())
    }

    async function run(res: Response, ac: AbortController, f: string) {
      current?.abort()
      current = ac
      currentFilter = f
      lastMessage = performance.now()
      setEvents([])
      let states = 0
      let ended = false
      try {
        for await (const m of sseMessages(res)) {
          if (ac.signal.aborted) return
          lastMessage = performance.now()
          if (m.event === 'state') {
            states++
            const s = JSON.parse(m.data) as State
            setState(s)
            setReceived(performance.now())
            if (!live) setLink({ kind: 'live', since: performance.now() })
            live = true
            // The fake sends the next state once this one is acknowledged: never more than one behind. An
            // acknowledgement that did not get through leaves the feed silent: reopened at once, not left to say
            // `live` over a picture that stopped moving until the watchdog notices. Retries back off until one does.
            if (s.feed === undefined) failures = 0
            else void ack(s.feed, s.seq, ac)
          } else if (m.event === 'events') {
            const fresh = (JSON.parse(m.data) as EventFrame[]).reverse()
            setEvents((old) => [...fresh, ...old].slice(0, EVENTS_KEPT))
          } else if (m.event === 'skipped') {
            const n = (JSON.parse(m.data) as { events: number }).events
            setEvents((old) => [{ skipped: n }, ...old].slice(0, EVENTS_KEPT))
          }
        }
        ended = true
      } catch {
        // The connection broke (or was replaced: checked below).
      }
      if (ac.signal.aborted || stopped) return
      // The fake ends the feed cleanly only when it is reset (or closed): the new fake is asked at once. A broken
      // connection, or a feed that ended before its first state, backs off.
      if (ended && states > 0) down('the fake was reset or closed; reconnecting', 0)
      else down('the connection to the fake was lost', backoff())
    }

    async function connect() {
      const f = currentFilter
      const opened = await open(f)
      if (stopped) return 'ac' in opened && opened.ac.abort()
      if ('error' in opened) {
        // A filter the fake refuses (one from the address, or one the fake no longer takes): said, and dropped.
        if (opened.status === 400 && f) {
          setFilterError(opened.error)
          setFilter((currentFilter = ''))
          return void connect()
        }
        return down(opened.error, backoff())
      }
      void run(opened.res, opened.ac, f)
    }

    // A new filter is tried first: a filter the fake refuses leaves the feed (and its filter) as it was.
    apply.current = (f: string) => {
      void open(f).then((opened) => {
        if (stopped) return 'ac' in opened && opened.ac.abort()
        if ('error' in opened) return setFilterError(opened.error)
        setFilterError('')
        setFilter(f)
        const q = new URLSearchParams(location.search)
        if (f) q.set('filters', f)
        else q.delete('filters')
        history.replaceState(null, '', `${location.pathname}${q.toString() ? `?${q}` : ''}`)
        void run(opened.res, opened.ac, f)
      })
    }

    const watchdog = setInterval(() => {
      if (live && performance.now() - lastMessage > SILENT_MS) {
        current?.abort()
        down(`no data from the fake for ${SILENT_MS / 1000} s`, 0)
      }
    }, 1000)
    void connect()
    // Leaving the page ends the feed at once (the server sees the client go, the browser logs no cut stream).
    const leave = () => {
      stopped = true
      current?.abort()
      clearTimeout(timer)
    }
    addEventListener('pagehide', leave)
    return () => (leave(), clearInterval(watchdog), removeEventListener('pagehide', leave))
  }, [])

  return { state, received, events, filter, filterError, link, applyFilter: (f: string) => apply.current(f) }
}

function Banner(p: { link: Link; state: State }) {
  const away = Math.round((performance.now() - p.link.since) / 1000)
  const retry = p.link.retryAt === undefined ? undefined : Math.ceil((p.link.retryAt - performance.now()) / 1000)
  return html`<div class="banner" role="alert" data-testid="offline">
    <strong>Not live${away >= 1 ? ` for ${away} s` : ''}:</strong> ${p.link.reason ?? 'connecting to the fake…'}.
    Everything below is as of ${fmtTime(p.state.clock.nowMs)} UTC on the fake's clock and is not updating${retry !== undefined && retry > 0 ? `; retrying in ${retry} s` : '; reconnecting…'}.
  </div>`
}

function App() {
  const { state, received, events, filter, filterError, link, applyFilter } = useFeed()
  const [log, setLog] = useState<string[]>([])
  const live = link.kind === 'live'
  const now = useNow(state?.clock, received, live)
  const stateRef = useRef(state)
  stateRef.current = state

  const act: Act = (label, fn) => {
    fn().then(
      (value) => {
        const v = value as { paused?: unknown; hint?: unknown; now?: unknown; continued?: unknown } | undefined
        const line =
          // An advance a pause stopped answers `paused: true` with a `hint` (a clock's answer has `paused` alone).
          v?.paused === true && typeof v.hint === 'string'
            ? `⏸ ${label}: ${v.hint}${typeof v.now === 'string' ? ` (clock at ${v.now.slice(11, 19)} UTC)` : ''}`
            : v?.continued === false
              ? `✗ ${label}: nothing was paused`
              : `✓ ${label}`
        setLog((l) => [line, ...l].slice(0, 5))
      },
      (error: Error) => setLog((l) => [`✗ ${label}: ${error.message}`, ...l].slice(0, 5)),
    )
  }
  const actRef = useRef(act)
  actRef.current = act

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const tag = (e.target as HTMLElement).tagName
      if (tag === 'INPUT' || tag === 'TEXTAREA' || e.ctrlKey || e.metaKey || e.altKey) return
      const clock = stateRef.current?.clock
      if (e.key === 'c' && clock?.paused && clock.pausedBy === 'step') continueStory(actRef.current)
    }
    addEventListener('keydown', onKey)
    return () => removeEventListener('keydown', onKey)
  }, [])

  // A short blip (the feed reopening after a reset) freezes the numbers but shows no banner.
  const showBanner = !live && performance.now() - link.since > 500
  useEffect(() => void document.body.classList.toggle('stale', state !== undefined && !live), [live, state === undefined])

  const status = live ? 'live' : link.kind === 'connecting' ? 'connecting…' : 'disconnected'
  if (!state) return html`<main><h1>dockside</h1><p role="status" data-testid="status">${status}${link.reason ? `: ${link.reason}` : ''}</p></main>`
  return html`<header>
      <h1>dockside <span class="muted small">seed ${state.seed} · <span data-testid="status" class=${live ? '' : 'bad'}>${status}</span></span></h1>
      <${ClockBar} state=${state} now=${now} act=${act} />
    </header>
    ${showBanner && html`<${Banner} link=${link} state=${state} />`}
    <${Captions} state=${state} act=${act} />
    <p class="actions-log" role="log" aria-live="polite" aria-label="Results of your actions">${log.map((l) => html`<span>${l}</span>`)}</p>
    <main class="grid">
      <${Containers} state=${state} now=${now} act=${act} />
      <${Events} events=${events} now=${now} filter=${filter} setFilter=${applyFilter} error=${filterError} />
      <${Pushes} state=${state} />
      <${Faults} state=${state} act=${act} />
      <${Clients} state=${state} />
      <${RateLimit} state=${state} />
    </main>`
}

render(html`<${App} />`, document.getElementById('app')!)
