// The dashboard's panels: the clock bar, captions, containers and their timeline, events, pushes, clients, faults,
// rate limits, and the banner of a page that is not live. Each reads the feed's state; each action is an admin call.
import { useState } from 'preact/hooks'
import { admin, faultAction, fmtBytes, fmtEventTime, fmtMs, fmtTime, html, isSkip, plural, Section, type Act, type Container, type EventLine, type Link, type State, type TimelineData } from './shared'

const TIMELINE_MS = 120_000
const CONTAINERS_SHOWN = 30
/** Events clients listed before **Show all**: a burst of connections (anonymous ones open at once are a client each) must not grow the page without bound. */
const CLIENTS_SHOWN = 30
/** Delivery counts the feed recounts less often than this (host ms) say when they were counted. */
const RECOUNT_NOTED_MS = 300

export function ClockBar(p: { state: State; now: number; act: Act }) {
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
export const continueStory = (act: Act) => act('continue', () => admin('POST', 'scenario/continue'))

export function Captions(p: { state: State; act: Act }) {
  const last = p.state.captions.at(-1)
  return html`<div class="caption" role="status" aria-live="polite" data-testid="caption">
    ${last ? html`<span class="say">${last.text}</span>` : html`<span class="muted">No caption yet: timeline steps with <code>say:</code> show here.</span>`}
    ${p.state.clock.paused &&
    p.state.clock.pausedBy === 'step' &&
    html`<button class="primary" onClick=${() => continueStory(p.act)} aria-keyshortcuts="c">Continue</button>`}
  </div>`
}

export function Timeline(p: { containers: Container[]; timeline: TimelineData; now: number }) {
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

export function Containers(p: { state: State; now: number; act: Act }) {
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

export function Events(p: { events: EventLine[]; now: number; filter: string; setFilter: (f: string) => void; error: string }) {
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

export function Pushes(p: { state: State }) {
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

export function Clients(p: { state: State }) {
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

export function Faults(p: { state: State; act: Act }) {
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

export function RateLimit(p: { state: State }) {
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

export function Banner(p: { link: Link; state: State }) {
  const away = Math.round((performance.now() - p.link.since) / 1000)
  const retry = p.link.retryAt === undefined ? undefined : Math.ceil((p.link.retryAt - performance.now()) / 1000)
  return html`<div class="banner" role="alert" data-testid="offline">
    <strong>Not live${away >= 1 ? ` for ${away} s` : ''}:</strong> ${p.link.reason ?? 'connecting to the fake…'}.
    Everything below is as of ${fmtTime(p.state.clock.nowMs)} UTC on the fake's clock and is not updating${retry !== undefined && retry > 0 ? `; retrying in ${retry} s` : '; reconnecting…'}.
  </div>`
}
