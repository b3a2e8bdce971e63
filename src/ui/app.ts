// The dashboard (served at /_dockside/ui): preact + htm, bundled into dist/ui/app.js at build time.
// State arrives pushed over GET /_dockside/live (server-sent events); every action is a documented admin API call.
import htm from 'htm'
import { h, render } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
// Bundled by esbuild into ui/app.css beside ui/app.js.
import './app.css'

const html = htm.bind(h)

interface Clock { mode: string; now: string; nowMs: number; elapsedMs: number; pending: number; paused: boolean; speed: number }
interface Container { id: string; name: string; image: string; labels: Record<string, string>; instanceType: string; state: string; exitCode: number; startedAt?: number }
interface Layer { id: string; size: number; current: number; status: string }
interface Push { id: number; repository: string; tags: string[]; registry: string; startedAt: number; state: string; layers: Layer[]; digests: Record<string, string>; error?: string }
interface Fault { id: string; on: string; fired: number; matched: number; times?: number | 'always'; [k: string]: unknown }
interface Delivery { client: string; expected: number; delivered: number; missed: number; duplicates: number; connections: number; refusals: number; gaps: number; away: boolean }
interface Bucket { rule: number; route: string; client: string; tokens: number; burst: number }
interface State {
  clock: Clock
  seed: number
  containers: Container[]
  pushes: Push[]
  sockets: { id: number; client?: string; filters: Record<string, string[]>; sent: number }[]
  deliveries: Delivery[]
  faults: Fault[]
  rateLimit: { rules: { route?: string; limit: number; window: string | number; burst?: number }[]; buckets: Bucket[] }
  captions: { seq: number; time: number; text: string }[]
}
interface EventFrame { Action: string; id: string; from: string; time: number; timeNano: number | string; Actor: { Attributes: Record<string, string> } }

const EVENTS_KEPT = 300
const TIMELINE_MS = 120_000

/** Calls the admin API; resolves to the JSON answer or throws with its `message`. */
async function admin(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`/_dockside/${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  const value = text ? JSON.parse(text) : undefined
  if (!res.ok) throw new Error((value as { message?: string })?.message ?? `${res.status}`)
  return value
}

const fmtMs = (ms: number) => {
  const s = Math.max(0, Math.floor(ms / 1000))
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
}
const fmtBytes = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : n >= 1e3 ? `${(n / 1e3).toFixed(1)} kB` : `${n} B`)
const faultState = (f: Fault) => (f.fired === 0 ? 'pending' : f.times !== 'always' && f.fired >= (f.times ?? 1) ? 'spent' : 'fired')
const faultAction = (f: Fault) => ['reply', 'refuse', 'error', 'close', 'drop', 'reset', 'truncate', 'stall', 'dribble', 'latency'].filter((k) => f[k] !== undefined).map((k) => `${k}: ${JSON.stringify(f[k])}`).join(', ')

/** The clock as the page sees it between two snapshots: a running real or auto clock moves on with the page's time. */
function useNow(clock: Clock | undefined, received: number): number {
  const [, tick] = useState(0)
  useEffect(() => {
    const t = setInterval(() => tick((n) => n + 1), 500)
    return () => clearInterval(t)
  }, [])
  if (!clock) return 0
  if (clock.mode === 'virtual' || clock.paused) return clock.nowMs
  return clock.nowMs + (performance.now() - received) * (clock.mode === 'real' ? clock.speed : 1)
}

function Section(props: { id: string; title: string; children: unknown; wide?: boolean }) {
  return html`<section class=${`panel${props.wide ? ' wide' : ''}`} aria-labelledby=${`${props.id}-h`} id=${props.id}>
    <h2 id=${`${props.id}-h`}>${props.title}</h2>
    ${props.children}
  </section>`
}

function ClockBar(p: { state: State; now: number; act: (label: string, fn: () => Promise<unknown>) => void }) {
  const c = p.state.clock
  const [by, setBy] = useState('10s')
  const [speed, setSpeed] = useState(String(c.speed))
  return html`<div class="clock" role="group" aria-label="Clock">
    <span class="clock-now" data-testid="clock-now" data-ms=${Math.round(p.now)}>${new Date(p.now).toISOString().replace('T', ' ').slice(0, 19)}</span>
    <span class="tag">${c.mode}${c.paused ? ', paused' : ''}${c.mode === 'real' ? `, ×${c.speed}` : ''}</span>
    ${c.mode !== 'virtual' &&
    html`<button onClick=${() => p.act(c.paused ? 'resume' : 'pause', () => admin('POST', c.paused ? 'clock/resume' : 'clock/pause'))}>${c.paused ? 'Resume' : 'Pause'}</button>`}
    ${c.mode !== 'real' &&
    html`<form class="inline" onSubmit=${(e: Event) => (e.preventDefault(), p.act(`advance ${by}`, () => admin('POST', 'clock/advance', { by })))}>
      <label>Advance by <input name="by" size="5" value=${by} onInput=${(e: Event) => setBy((e.target as HTMLInputElement).value)} /></label>
      <button type="submit">Advance</button>
    </form>`}
    ${c.mode === 'real' &&
    html`<form class="inline" onSubmit=${(e: Event) => (e.preventDefault(), p.act(`speed ×${speed}`, () => admin('POST', 'clock/speed', { speed: Number(speed) })))}>
      <label>Speed <input name="speed" size="4" inputmode="decimal" value=${speed} onInput=${(e: Event) => setSpeed((e.target as HTMLInputElement).value)} /></label>
      <button type="submit">Set speed</button>
    </form>`}
    <button class="danger" onClick=${() => confirm('Reset the fake to its scenario’s start?') && p.act('reset', () => admin('POST', 'reset'))}>Reset</button>
  </div>`
}

function Captions(p: { state: State }) {
  const last = p.state.captions.at(-1)
  return html`<div class="caption" role="status" aria-live="polite" data-testid="caption">
    ${last ? html`<span class="say">${last.text}</span>` : html`<span class="muted">No caption yet: timeline steps with <code>say:</code> show here.</span>`}
    ${p.state.clock.paused &&
    html`<button class="primary" onClick=${() => admin('POST', 'scenario/continue')} aria-keyshortcuts="c">Continue</button>`}
  </div>`
}

function Timeline(p: { containers: Container[]; events: EventFrame[]; now: number }) {
  const from = p.now - TIMELINE_MS
  const rows = p.containers.map((c) => {
    const spans: [number, number][] = []
    let open: number | undefined
    // Events come newest first; walk them oldest first.
    for (let i = p.events.length - 1; i >= 0; i--) {
      const e = p.events[i]
      if (e.id !== c.id) continue
      const t = Number(e.timeNano) / 1e6
      if (e.Action === 'start') open ??= t
      else if (open !== undefined) {
        spans.push([open, t])
        open = undefined
      }
    }
    if (c.state === 'running') spans.push([open ?? c.startedAt ?? from, p.now])
    return { c, spans }
  })
  const x = (t: number) => Math.max(0, Math.min(100, ((t - from) / TIMELINE_MS) * 100))
  return html`<div class="timeline" aria-label="Running time of each container over the last two minutes of clock time">
    ${rows.map(
      ({ c, spans }) => html`<div class="tl-row">
        <span class="tl-name">${c.name}</span>
        <svg class="tl-bar" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label=${`${c.name}: ${spans.length} running spans`}>
          ${spans.filter(([, b]) => b > from).map(([a, b]) => html`<rect x=${x(a)} y="1" width=${Math.max(0.4, x(b) - x(a))} height="8" class=${c.state === 'running' && b === p.now ? 'on live' : 'on'} />`)}
        </svg>
      </div>`,
    )}
    <div class="tl-axis"><span>-2m</span><span>-1m</span><span>now</span></div>
  </div>`
}

function Containers(p: { state: State; events: EventFrame[]; now: number; act: (label: string, fn: () => Promise<unknown>) => void }) {
  const [name, setName] = useState('')
  const [image, setImage] = useState('nginx:1.27')
  return html`<${Section} id="containers" title="Containers" wide>
    <table class="cards">
      <thead><tr><th>Name</th><th>Image</th><th>Labels</th><th>Type</th><th>State</th><th>Uptime</th><th>Exit</th><th><span class="sr">Actions</span></th></tr></thead>
      <tbody>
        ${p.state.containers.map(
          (c) => html`<tr data-container=${c.name}>
            <td data-label="Name"><strong>${c.name}</strong></td><td data-label="Image" class="mono">${c.image}</td>
            <td data-label="Labels">${Object.entries(c.labels).map(([k, v]) => html`<span class="chip">${k}=${v}</span>`)}</td>
            <td data-label="Type">${c.instanceType}</td>
            <td data-label="State"><span class=${`state ${c.state}`}>${c.state}</span></td>
            <td data-label="Uptime">${c.state === 'running' && c.startedAt !== undefined ? fmtMs(p.now - c.startedAt) : '–'}</td>
            <td data-label="Exit">${c.state === 'running' ? '' : c.exitCode}</td>
            <td>${c.state === 'running'
              ? html`<button aria-label=${`Stop ${c.name}`} onClick=${() => p.act(`stop ${c.name}`, () => admin('POST', `containers/${encodeURIComponent(c.name)}/stop`))}>Stop</button>`
              : html`<button aria-label=${`Start ${c.name}`} onClick=${() => p.act(`start ${c.name}`, () => admin('POST', `containers/${encodeURIComponent(c.name)}/start`))}>Start</button>`}</td>
          </tr>`,
        )}
      </tbody>
    </table>
    <${Timeline} containers=${p.state.containers} events=${p.events} now=${p.now} />
    <form class="inline" onSubmit=${(e: Event) => (e.preventDefault(), p.act(`create ${name}`, () => admin('POST', 'containers', { name, image, start: true })))}>
      <label>Name <input required value=${name} onInput=${(e: Event) => setName((e.target as HTMLInputElement).value)} /></label>
      <label>Image <input required value=${image} onInput=${(e: Event) => setImage((e.target as HTMLInputElement).value)} /></label>
      <button type="submit">Create and start</button>
    </form>
  </${Section}>`
}

function Events(p: { events: EventFrame[]; filter: string; setFilter: (f: string) => void; error: string }) {
  const [draft, setDraft] = useState(p.filter)
  return html`<${Section} id="events" title="Event stream">
    <form class="inline" onSubmit=${(e: Event) => (e.preventDefault(), p.setFilter(draft.trim()))}>
      <label>Filter (as <code>/events/ws?filters=</code>) <input class="mono" size="28" placeholder='{"event":["stop"],"label":["app=web"]}' value=${draft} onInput=${(e: Event) => setDraft((e.target as HTMLInputElement).value)} /></label>
      <button type="submit">Apply</button>
    </form>
    ${p.error && html`<p class="error" role="alert">${p.error}</p>`}
    <ol class="events" aria-label="Events, newest first">
      ${p.events.slice(0, 100).map(
        (e) => html`<li><span class="mono muted">${new Date(Number(e.timeNano) / 1e6).toISOString().slice(11, 19)}</span> <span class=${`state ${e.Action === 'start' ? 'running' : 'exited'}`}>${e.Action}</span> ${e.Actor.Attributes.name} <span class="muted">${e.from}${e.Action === 'stop' ? ` exit ${e.Actor.Attributes.exitCode}` : ''}</span></li>`,
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
  return html`<${Section} id="clients" title="Events clients">
    <p class="muted">${p.state.sockets.length} connected</p>
    <table>
      <thead><tr><th>Client</th><th>Connections</th><th>Gaps</th><th>Expected</th><th>Delivered</th><th>Missed</th><th>Duplicates</th><th>Refused</th></tr></thead>
      <tbody>${p.state.deliveries.map(
        (d) => html`<tr><td class="mono">${d.client}${p.state.sockets.some((s) => (s.client ?? '') === d.client) ? ' ●' : ''}</td><td>${d.connections}</td><td class=${d.away ? 'bad' : ''}>${d.gaps}${d.away ? ' (away)' : ''}</td><td>${d.expected}</td><td>${d.delivered}</td>
          <td class=${d.missed ? 'bad' : ''}>${d.missed}</td><td class=${d.duplicates ? 'bad' : ''}>${d.duplicates}</td><td>${d.refusals}</td></tr>`,
      )}</tbody>
    </table>
  </${Section}>`
}

const INJECT: { label: string; rule: Record<string, unknown> }[] = [
  { label: '429 on events', rule: { on: 'events', reply: 429, retryAfter: 2 } },
  { label: '500 on push', rule: { on: 'push', reply: 500, message: 'internal server error (injected from the dashboard)' } },
  { label: 'Mid-push error', rule: { on: 'push', error: 'blob upload unknown (injected from the dashboard)', afterLayer: 1 } },
  { label: 'Forced socket close', rule: { on: 'events', close: { code: 1011, reason: 'forced close from the dashboard' }, afterMessages: 1 } },
]

function Faults(p: { state: State; act: (label: string, fn: () => Promise<unknown>) => void }) {
  return html`<${Section} id="faults" title="Fault plan">
    <div class="buttons" role="group" aria-label="Inject a fault">
      ${INJECT.map((i) => html`<button onClick=${() => p.act(`inject ${i.label}`, () => admin('POST', 'faults', i.rule))}>${i.label}</button>`)}
      <button onClick=${() => p.act('maintenance restart', () => admin('POST', 'restart'))}>Maintenance restart</button>
      <button onClick=${() => p.act('clear faults', () => admin('DELETE', 'faults'))}>Clear all</button>
    </div>
    <table>
      <thead><tr><th>Id</th><th>On</th><th>Action</th><th>Matched</th><th>Fired</th><th>State</th></tr></thead>
      <tbody>${p.state.faults.map(
        (f) => html`<tr data-fault=${f.id}><td class="mono nowrap">${f.id}</td><td>${f.on}</td><td class="mono small">${faultAction(f)}</td><td>${f.matched}</td><td>${f.fired}</td><td><span class=${`state ${faultState(f)}`}>${faultState(f)}</span></td></tr>`,
      )}</tbody>
    </table>
  </${Section}>`
}

function RateLimit(p: { state: State }) {
  const { rules, buckets } = p.state.rateLimit
  return html`<${Section} id="ratelimit" title="Rate limiter">
    ${rules.length === 0 ? html`<p class="muted">No limit set (POST /_dockside/rate-limit, or <code>rateLimit:</code> in a scenario).</p>` : html`<ul>${rules.map((r, i) => html`<li>rule ${i}: ${r.limit} per ${r.window} on ${r.route ?? 'every route'}${r.burst ? `, burst ${r.burst}` : ''}</li>`)}</ul>`}
    ${buckets.map(
      (b) => html`<div class="layer"><label class="mono">${b.route} · ${b.client}<progress max=${b.burst} value=${b.tokens} aria-label=${`tokens left for ${b.client} on ${b.route}`}></progress></label><span class="muted">${b.tokens}/${b.burst}</span></div>`,
    )}
  </${Section}>`
}

function App() {
  const [state, setState] = useState<State | undefined>()
  const [received, setReceived] = useState(0)
  const [events, setEvents] = useState<EventFrame[]>([])
  const [filter, setFilter] = useState(new URLSearchParams(location.search).get('filters') ?? '')
  const [filterError, setFilterError] = useState('')
  const [status, setStatus] = useState('connecting…')
  const [log, setLog] = useState<string[]>([])
  const now = useNow(state?.clock, received)
  const stateRef = useRef(state)
  stateRef.current = state

  useEffect(() => {
    setEvents([])
    setFilterError('')
    const url = `/_dockside/live${filter ? `?filters=${encodeURIComponent(filter)}` : ''}`
    const source = new EventSource(url)
    // Each connection (the first, or after a reset) starts with the latest events again.
    source.onopen = () => setEvents([])
    source.addEventListener('state', (e) => {
      setState(JSON.parse((e as MessageEvent).data))
      setReceived(performance.now())
      setStatus('live')
    })
    source.addEventListener('events', (e) => {
      const fresh = (JSON.parse((e as MessageEvent).data) as EventFrame[]).reverse()
      setEvents((old) => [...fresh, ...old].slice(0, EVENTS_KEPT))
    })
    source.onerror = () => {
      setStatus('reconnecting…')
      // A refused filter answers 400 and EventSource gives up: say why.
      if (source.readyState === EventSource.CLOSED && filter) {
        fetch(url).then(async (r) => !r.ok && setFilterError((await r.json()).message)).catch(() => {})
      }
    }
    // Leaving the page ends the feed at once (the server sees the client go, the browser logs no cut stream).
    const leave = () => source.close()
    addEventListener('pagehide', leave)
    return () => (source.close(), removeEventListener('pagehide', leave))
  }, [filter])

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const tag = (e.target as HTMLElement).tagName
      if (tag === 'INPUT' || tag === 'TEXTAREA' || e.ctrlKey || e.metaKey || e.altKey) return
      if (e.key === 'c' && stateRef.current?.clock.paused) void admin('POST', 'scenario/continue')
    }
    addEventListener('keydown', onKey)
    return () => removeEventListener('keydown', onKey)
  }, [])

  const act = (label: string, fn: () => Promise<unknown>) => {
    fn().then(
      () => setLog((l) => [`✓ ${label}`, ...l].slice(0, 5)),
      (error: Error) => setLog((l) => [`✗ ${label}: ${error.message}`, ...l].slice(0, 5)),
    )
  }

  if (!state) return html`<main><h1>dockside</h1><p role="status">${status}</p></main>`
  return html`<header>
      <h1>dockside <span class="muted small">seed ${state.seed} · <span data-testid="status">${status}</span></span></h1>
      <${ClockBar} state=${state} now=${now} act=${act} />
    </header>
    <${Captions} state=${state} />
    <p class="actions-log" role="log" aria-live="polite" aria-label="Results of your actions">${log.map((l) => html`<span>${l}</span>`)}</p>
    <main class="grid">
      <${Containers} state=${state} events=${events} now=${now} act=${act} />
      <${Events} events=${events} filter=${filter} setFilter=${setFilter} error=${filterError} />
      <${Pushes} state=${state} />
      <${Faults} state=${state} act=${act} />
      <${Clients} state=${state} />
      <${RateLimit} state=${state} />
    </main>`
}

render(html`<${App} />`, document.getElementById('app')!)
