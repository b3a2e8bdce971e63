// What the dashboard's modules share: the htm binding, the live feed's types (from the server side that writes them:
// type imports only, nothing of it is bundled), the admin API call and the formatting of what the page shows.
import htm from 'htm'
import { h } from 'preact'
import type { LiveState } from '../protocol/admin/live'
import type { EventFrame } from '../service/events'

export const html = htm.bind(h)

export type State = LiveState
export type Clock = State['clock']
export type Container = State['containers'][number]
export type Push = State['pushes'][number]
export type Fault = State['faults'][number]
export type TimelineData = State['timeline']

/** A line of the event list: an event, or how many the page did not get because it fell behind. */
export type EventLine = EventFrame | { skipped: number }
/** The live feed as the page sees it: `since` is when it left `live` (performance.now()). */
export interface Link { kind: 'connecting' | 'live' | 'down'; reason?: string; since: number; retryAt?: number }

export type Act = (label: string, fn: () => Promise<unknown>) => void

/** The JSON of an answer, or its `message`-less text when it is not JSON. */
export async function answerOf(res: Response): Promise<{ value: unknown; message: string }> {
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
export async function admin(method: string, path: string, body?: unknown): Promise<unknown> {
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
export const refusal = (status: number, message: string) =>
  status === 401 || status === 403
    ? `${status}: the fake refused this page's access (${message}). If its admin token changed, open the /_dockside/ui?token=… address it printed again.`
    : `${status}: ${message}`

export const fmtMs = (ms: number) => {
  const s = Math.max(0, Math.floor(ms / 1000))
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
}
export const fmtTime = (ms: number) => new Date(ms).toISOString().slice(11, 19)
/** An event's time: with its date when that is not the clock's day (after an advance of hours, 10:00 could be either day). */
export const fmtEventTime = (ms: number, nowMs: number) => {
  const iso = new Date(ms).toISOString()
  return iso.slice(0, 10) === new Date(nowMs).toISOString().slice(0, 10) ? iso.slice(11, 19) : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`
}
export const fmtBytes = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : n >= 1e3 ? `${(n / 1e3).toFixed(1)} kB` : `${n} B`)
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`
export const faultAction = (f: Fault) => {
  const rule: Record<string, unknown> = f
  return ['reply', 'refuse', 'error', 'close', 'drop', 'reset', 'truncate', 'stall', 'dribble', 'latency', 'unreachable'].filter((k) => rule[k] !== undefined).map((k) => `${k}: ${JSON.stringify(rule[k])}`).join(', ')
}
export const isSkip = (e: EventLine): e is { skipped: number } => 'skipped' in e

export function Section(props: { id: string; title: string; children: unknown; wide?: boolean; note?: string }) {
  return html`<section class=${`panel${props.wide ? ' wide' : ''}`} aria-labelledby=${`${props.id}-h`} id=${props.id}>
    <h2 id=${`${props.id}-h`}>${props.title}${props.note && html` <span class="muted small">${props.note}</span>`}</h2>
    ${props.children}
  </section>`
}
