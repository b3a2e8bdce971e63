import type { ServiceEvent } from '../service/events'
import type { JournalEntry, JournalEntryOf } from '../service/journal'

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * A log line with its control characters (C0, DEL, C1) written as escapes (`\n`, `\u001b`): a caption (`say`) or a
 * label holding a newline printed a second line that read as another entry, and a terminal escape cleared the screen.
 */
const oneLine = (line: string) =>
  line.replace(/\p{Cc}/gu, (c) => ({ '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

/** One readable line per journal entry (secrets are already masked in the journal). */
export function formatEntry(e: JournalEntry): string | undefined {
  const line = entryLine(e)
  return line === undefined ? undefined : oneLine(line)
}

function entryLine(e: JournalEntry): string | undefined {
  const t = iso(e.time)
  switch (e.type) {
    case 'request':
      return `${t} request ${e.method} ${e.path} -> ${e.status}${e.client ? ` client=${e.client}` : ''}`
    case 'fault':
      return `${t} fault   ${e.rule} on ${e.site}: ${e.action} ${JSON.stringify(e.detail)}`
    case 'ws.open':
      return `${t} ws      open #${e.socket} filters=${JSON.stringify(e.filters)}${e.client ? ` client=${e.client}` : ''}`
    case 'ws.close':
      return `${t} ws      close #${e.socket} by ${e.by} ${e.code} ${JSON.stringify(e.reason)} after ${e.sent} messages`
    case 'push.start':
      return `${t} push    ${e.repository} tags=${(e.tags as string[]).join(',')} registry=${e.registry}${e.auth ? ` auth=${JSON.stringify(e.auth)}` : ''}`
    case 'push.tag':
      return `${t} push    ${e.repository}:${e.tag} -> ${e.digest}`
    case 'push.failed':
      return `${t} push    ${e.repository} ${pushFailure(e)}`
    case 'push.cancelled':
      return `${t} push    ${e.repository}:${e.tag} ${e.by === 'reset' ? 'interrupted: the fake was reset or closed' : e.by === 'server' ? "interrupted: the fake's server closed" : 'cancelled by the client'}`
    case 'timeline.error':
      return `${t} timeline step skipped: ${e.message}`
    case 'say':
      return `${t} say     ${e.text}`
    case 'scenario.pause':
      return `${t} paused  the scenario waits: press Enter here, Continue on the dashboard, or POST /_dockside/scenario/continue`
    case 'scenario.continue':
      return `${t} continue the scenario goes on`
    case 'maintenance.restart':
      return `${t} restart closed ${e.closed} events socket(s)`
    case 'fleet.create':
      return `${t} fleet   ${e.id} listening on port ${e.port} (seed ${e.seed})`
    case 'fleet.remove':
      return `${t} fleet   ${e.id} ended`
    case 'fleet.expire':
      return `${t} fleet   ${e.id} ended: idle for its ttl (${e.ttl} ms)`
    case 'timeline':
    case 'push.done':
    case 'container.create':
      return undefined
    default:
      return `${t} ${e.type} ${JSON.stringify({ ...e, seq: undefined, time: undefined, type: undefined })}`
  }
}

/**
 * What ended (or stopped) a push: its error line, or the fault that struck it. A fault's entry has `fault` (reset,
 * truncate or stall), `layersDone` and `bytes` and no message; a stall is not a failure yet: the push goes silent and
 * the client decides when to give up.
 */
function pushFailure(e: JournalEntryOf<'push.failed'>): string {
  if (e.message !== undefined) return `failed: ${e.message}`
  const after = typeof e.layersDone === 'number' ? ` after ${e.layersDone} layer${e.layersDone === 1 ? '' : 's'}${typeof e.bytes === 'number' ? ` (${e.bytes} bytes)` : ''}` : ''
  switch (e.fault) {
    case 'reset':
      return `reset by a fault${after}: the connection was cut`
    case 'truncate':
      return `truncated mid-line by a fault${after}, then the connection was cut`
    case 'stall':
      return `stalled by a fault${after}: no more output until the client gives up or the fake is reset`
    default:
      return `failed: ${JSON.stringify({ ...e, seq: undefined, time: undefined, type: undefined, repository: undefined })}`
  }
}

export function formatEvent(e: ServiceEvent): string {
  const attrs = Object.entries(e.attributes).map(([k, v]) => `${k}=${v}`).join(', ')
  return oneLine(`${iso(e.timeMs)} event   container ${e.action} ${e.id.slice(0, 12)} (${attrs})`)
}
