import { InvalidFilterError } from './errors'

/** The filter names the events endpoints accept. */
export const FILTER_NAMES = ['container', 'event', 'image', 'label'] as const
export type FilterName = (typeof FILTER_NAMES)[number]
/** The only event kinds the service emits. */
export const EVENT_KINDS = ['start', 'stop'] as const
export type EventKind = (typeof EVENT_KINDS)[number]

/** Parsed filters: each name to the list of wanted values. */
export type Filters = Partial<Record<FilterName, string[]>>

/** The fields of an event a filter looks at. */
export interface FilterSubject {
  action: string
  id: string
  name: string
  image: string
  labels: Readonly<Record<string, string>>
}

/** A filter compiled once at connect. `kinds` lets the event log index subscribers by action. */
export interface CompiledFilter {
  readonly filters: Filters
  readonly kinds: readonly EventKind[] | undefined
  matches(subject: FilterSubject): boolean
}

const allowed = `Allowed filter names: ${FILTER_NAMES.join(', ')}.`

/**
 * Parses the `filters` query value (JSON, already percent-decoded) into {@link Filters}.
 * Accepts values as an object of booleans (`{"event":{"start":true}}`) or a list (`{"event":["start"]}`).
 */
export function parseFilters(raw: string | null | undefined): Filters {
  if (raw == null || raw === '') return {}
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    throw new InvalidFilterError(`Invalid filters: ${JSON.stringify(raw.slice(0, 200))} is not valid JSON. Expected an object like {"event":{"start":true},"label":["app=web"]}.`)
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new InvalidFilterError(`Invalid filters: expected a JSON object mapping filter names to values, got ${Array.isArray(json) ? 'an array' : json === null ? 'null' : typeof json}. ${allowed}`)
  }
  const out: Filters = {}
  for (const [name, value] of Object.entries(json as Record<string, unknown>)) {
    if (!(FILTER_NAMES as readonly string[]).includes(name)) {
      throw new InvalidFilterError(`Invalid filter "${name}". ${allowed}`)
    }
    let values: string[]
    if (Array.isArray(value)) {
      if (!value.every((v) => typeof v === 'string')) {
        throw new InvalidFilterError(`Invalid filter "${name}": a list must hold only strings, got ${JSON.stringify(value)}.`)
      }
      values = value as string[]
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value as Record<string, unknown>)
      if (!entries.every(([, v]) => typeof v === 'boolean')) {
        throw new InvalidFilterError(`Invalid filter "${name}": an object must map values to true or false, got ${JSON.stringify(value)}.`)
      }
      values = entries.filter(([, v]) => v === true).map(([k]) => k)
      // Docker keeps `{"x":false}` in a non-empty set that nothing matches: a name given only with
      // `false` values selects nothing. An empty `{}` is no filter at all.
      if (entries.length === 0) continue
    } else {
      throw new InvalidFilterError(`Invalid filter "${name}": expected an object of booleans like {"${name}":{"x":true}} or a list of strings like {"${name}":["x"]}, got ${JSON.stringify(value)}.`)
    }
    if (name === 'event') {
      for (const v of values) {
        if (!(EVENT_KINDS as readonly string[]).includes(v)) {
          throw new InvalidFilterError(`Invalid filter "event": "${v}" is not an event this service emits. Allowed values: ${EVENT_KINDS.join(', ')}.`)
        }
      }
    }
    // An empty list is no filter at all, as in Docker.
    if (values.length === 0 && Array.isArray(value)) continue
    out[name as FilterName] = values
  }
  return out
}

/** Strips a `:tag` (not a registry port) and a `@digest` from an image reference. */
export function stripTag(image: string): string {
  const at = image.indexOf('@')
  if (at >= 0) image = image.slice(0, at)
  const slash = image.lastIndexOf('/')
  const colon = image.lastIndexOf(':')
  return colon > slash ? image.slice(0, colon) : image
}

/** Compiles filters into a predicate (Docker's semantics: names AND, values OR, labels all must match). */
export function compileFilters(filters: Filters): CompiledFilter {
  const tests: ((s: FilterSubject) => boolean)[] = []
  const { container, event, image, label } = filters
  // A name present with no selected value (e.g. {"event":{"start":false}}) selects nothing, as in Docker;
  // parseFilters drops names given as an empty `{}` or `[]` (no filter).
  if (container) {
    tests.push((s) => container.some((c) => s.id.startsWith(c) || s.name.startsWith(c) || s.name === c.replace(/^\//, '')))
  }
  if (event) tests.push((s) => event.includes(s.action))
  if (image) {
    tests.push((s) => image.some((i) => s.image === i || stripTag(s.image) === i))
  }
  if (label) {
    const wanted = label.map((l) => {
      const eq = l.indexOf('=')
      return eq < 0 ? { key: l, value: undefined } : { key: l.slice(0, eq), value: l.slice(eq + 1) }
    })
    tests.push((s) =>
      wanted.length > 0 && wanted.every(({ key, value }) => Object.hasOwn(s.labels, key) && (value === undefined || s.labels[key] === value)),
    )
  }
  return {
    filters,
    kinds: event ? (event as EventKind[]) : undefined,
    matches: (s) => tests.every((t) => t(s)),
  }
}
