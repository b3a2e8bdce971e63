import { goJson } from './normalise'

/**
 * The daemon's container events as the service reports them (deliberate `events-start-stop-only`): only `start` and
 * `stop`; a `die` followed by its container's `stop` gives the stop its exit code; a `die` alone is the `stop` of a
 * process that exited; a `start` carries `exitCode` "0", as the service's did (PROTOCOL.md). Lines are rewritten only
 * where these apply, with Go's escapes.
 */
export function serviceEvents(lines: string[]): string[] {
  const parsed = lines.map((l) => ({ raw: l, value: JSON.parse(l) as DockerEvent }))
  const out: string[] = []
  parsed.forEach(({ raw, value }, i) => {
    if (value.Type !== 'container') return
    const id = value.id
    if (value.Action === 'die') {
      if (parsed.slice(i + 1).some((p) => p.value.id === id && p.value.Action === 'stop')) return
      out.push(goJson(withAction(value, 'stop')))
    } else if (value.Action === 'stop') {
      const die = parsed
        .slice(0, i)
        .reverse()
        .find((p) => p.value.id === id && p.value.Action === 'die')
      out.push(die ? goJson(withExitCode(value, die.value.Actor.Attributes.exitCode)) : raw)
    } else if (value.Action === 'start') {
      out.push(value.Actor.Attributes.exitCode === undefined ? goJson(withExitCode(value, '0')) : raw)
    }
  })
  return out
}

interface DockerEvent {
  status?: string
  id: string
  from?: string
  Type: string
  Action: string
  Actor: { ID: string; Attributes: Record<string, string> }
  scope?: string
  time: number
  timeNano: number
}

function withAction(e: DockerEvent, action: string): DockerEvent {
  return { ...e, status: action, Action: action }
}

function withExitCode(e: DockerEvent, exitCode: string): DockerEvent {
  const attributes = Object.fromEntries(Object.entries({ ...e.Actor.Attributes, exitCode }).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  return { ...e, Actor: { ...e.Actor, Attributes: attributes } }
}

/** Docker's `GET /events` lines as the events websocket's frames: no `scope`, the service's key order (PROTOCOL.md). */
export function framesOfDockerEvents(lines: string[]): string[] {
  return lines.map((l) => {
    const e = JSON.parse(l) as DockerEvent
    return goJson({ status: e.status, id: e.id, from: e.from, Type: e.Type, Action: e.Action, Actor: e.Actor, time: e.time, timeNano: e.timeNano })
  })
}
