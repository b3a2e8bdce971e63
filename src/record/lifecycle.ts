import { createEventLog, type ServiceEvent } from '../service/events'
import type { Clock } from '../time/clock'

/** A line of Docker's `GET /events`, as the daemon writes it. */
export interface DockerEvent {
  status?: string
  id?: string
  from?: string
  Type?: string
  Action?: string
  Actor?: { ID?: string; Attributes?: Record<string, string> }
  scope?: string
  time?: number
  timeNano?: number
}

/** A container's lifecycle step as the service reports it: a start, a stop with its exit code, or its removal. */
export type Lifecycle =
  | { action: 'start' | 'stop'; id: string; name: string; image: string; labels: Record<string, string>; exitCode: number; timeNano: bigint }
  | { action: 'remove'; id: string; name: string; timeNano: bigint }

/** Attributes Docker adds to a container event beside its labels. */
const DAEMON_ATTRIBUTES = new Set(['image', 'name', 'exitCode', 'execDuration', 'signal'])

/** The labels of a container event: its attributes without those the daemon adds (name, image, exit code...). */
export function labelsOf(attributes: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(attributes).filter(([k]) => !DAEMON_ATTRIBUTES.has(k)))
}

/**
 * Docker's container events read as the service's two (deliberate `events-start-stop-only`, docs/verify.md): a
 * `start` is a start; a `die` is the stop, at the time the process died, with its exit code; the `stop` the daemon
 * sends after a `die` (a `docker stop`) is the same stop and is dropped; a `destroy` is the container's removal
 * (no frame: the service reports none). One reader per stream: it remembers which containers died.
 */
export function lifecycleReader(): (line: string) => Lifecycle | undefined {
  const died = new Set<string>()
  return (line) => {
    let e: DockerEvent
    try {
      e = JSON.parse(line) as DockerEvent
    } catch {
      return undefined
    }
    const id = e.Actor?.ID ?? e.id
    if (e.Type !== 'container' || typeof id !== 'string' || typeof e.timeNano !== 'number') return undefined
    // timeNano passes 2^53: its digits as the daemon wrote them, not the float JSON.parse made of them.
    const timeNano = exactTimeNano(line) ?? BigInt(Math.round(e.timeNano))
    const attributes = e.Actor?.Attributes ?? {}
    const name = attributes.name ?? ''
    const base = { id, name, image: attributes.image ?? e.from ?? '', labels: labelsOf(attributes), timeNano }
    switch (e.Action) {
      case 'start':
        died.delete(id)
        return { action: 'start', ...base, exitCode: 0 }
      case 'die':
        died.add(id)
        return { action: 'stop', ...base, exitCode: Number(attributes.exitCode ?? 0) }
      case 'stop':
        if (died.delete(id)) return undefined
        return { action: 'stop', ...base, exitCode: 0 }
      case 'destroy':
        died.delete(id)
        return { action: 'remove', id, name, timeNano }
      default:
        return undefined
    }
  }
}

/** The `timeNano` of a Docker event line, read from its digits (a float loses the last ones). */
function exactTimeNano(line: string): bigint | undefined {
  const m = /"timeNano":(\d+)(?=[,}])/.exec(line)
  return m ? BigInt(m[1]) : undefined
}

/** The instance type the service would give a container with these labels (the fake's default: s4). */
export const instanceTypeOf = (labels: Record<string, string>) => labels.sh_hyper_instancetype ?? 's4'

/**
 * A start or stop as the service's event: its frame is built by the model's own event code, so the recorder's
 * `/events/ws` frames and a replay's are the same bytes, and the service's filters read it as the fake's would.
 */
export function serviceEventOf(step: Extract<Lifecycle, { action: 'start' | 'stop' }>): ServiceEvent {
  // A log that keeps nothing: only its framing and its nanosecond stamps are used.
  const log = createEventLog({ now: () => 0 } as unknown as Clock, { retain: 0 })
  return log.append({ action: step.action, id: step.id, name: step.name, image: step.image, labels: step.labels, instanceType: instanceTypeOf(step.labels), exitCode: step.exitCode, timeNano: step.timeNano })
}
