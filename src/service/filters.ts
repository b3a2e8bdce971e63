import { InvalidFilterError } from './errors'

/** The filter names the events endpoints accept. */
export const FILTER_NAMES = ['container', 'event', 'image', 'label'] as const
/**
 * The other filter names Docker's `GET /events` takes (`docker events --filter type=container`). Every
 * event here is a local container event: `type` and `scope` select all or nothing, and the rest match as
 * the Engine matches them (a prefix of the actor's id or name), which in practice selects nothing.
 */
export const DOCKER_EVENT_FILTER_NAMES = ['type', 'scope', 'daemon', 'network', 'volume', 'plugin', 'node', 'service', 'secret', 'config'] as const
export type FilterName = (typeof FILTER_NAMES)[number] | (typeof DOCKER_EVENT_FILTER_NAMES)[number]
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
  /** The event's `exitCode` attribute (events have it; a `label` filter may name it, as any attribute). */
  exitCode?: number
  /** The event's `sh_hyper_instancetype` attribute. */
  instanceType?: string
  /** The id (`sha256:...`) of the container's image when the fake has that image: the service's `image` filter takes it. */
  imageId?: string
}

/**
 * The value of one of an event's `Actor.Attributes`, which is what Docker's `label` filter matches (the daemon's
 * `matchLabels(ev.Actor.Attributes)`): the labels, with the built-in attributes written over them (`name=web` matches
 * the container named web, and a label called `name` is not seen). Undefined when the event has no such attribute.
 */
function attribute(s: FilterSubject, key: string): string | undefined {
  switch (key) {
    case 'name':
      return s.name
    case 'image':
      return s.image
    case 'exitCode':
      return s.exitCode === undefined ? (Object.hasOwn(s.labels, key) ? s.labels[key] : undefined) : String(s.exitCode)
    case 'sh_hyper_instancetype':
      return s.instanceType ?? (Object.hasOwn(s.labels, key) ? s.labels[key] : undefined)
    default:
      return Object.hasOwn(s.labels, key) ? s.labels[key] : undefined
  }
}

/** A filter compiled once at connect. `kinds` lets the event log index subscribers by action. */
export interface CompiledFilter {
  readonly filters: Filters
  readonly kinds: readonly EventKind[] | undefined
  matches(subject: FilterSubject): boolean
}

/** How {@link parseFilterArgs} words its refusals and which names it takes. */
export interface FilterArgsOptions {
  /** Filter names accepted; any other is refused with `unknown(name)`, or ignored without it. */
  names: readonly string[]
  /** The refusal for a name not in `names`; without it such a name is ignored (Docker's GET /events never checks). */
  unknown?(name: string): string
  /** An example of the expected shape, for the refusal of a value that is not a JSON object. */
  example: string
  /**
   * Keep the values of an object given as `false` too: Docker's `Args.Get` and `WalkValues` (the reference, label,
   * before, since and until filters of `GET /images/json`) read an object's keys whatever their booleans.
   */
  keysOfObjects?: boolean
  /** Checks each value given, `false` ones too (throws an InvalidFilterError to refuse it). */
  check?(name: string, value: string): void
  /**
   * Keep a name given with no values (`{"ancestor":{}}`, `{"ancestor":[]}`) as an empty list instead of dropping it:
   * Docker's list routes test some names with `Args.Contains` (an empty `ancestor`, `volume`, `network` or `reference`
   * selects nothing there) and others with `Match` or `ExactMatch` (an empty one is no filter).
   */
  keepEmpty?: boolean
}

/**
 * Parses a Docker `filters` query value (JSON, already percent-decoded) as the Engine's `filters.FromJSON`
 * does: an object of names to an object of booleans (`{"label":{"app=web":true}}`) or, the legacy form,
 * a list of strings (`{"label":["app=web"]}`). Names given as `{}` or `[]` are no filter at all; a name
 * given only with `false` values is kept with no values (it selects nothing: the events filters, PROTOCOL.md, and
 * Docker's ExactMatch filters), unless `keysOfObjects` asks for the keys whatever their booleans.
 */
/** A filter value as a message shows it: short, and never a stack overflow for a deeply nested value. */
function show(value: unknown): string {
  let text: string
  try {
    text = JSON.stringify(value)
  } catch {
    return '(a value nested too deeply to show)'
  }
  return text.length > 200 ? `${text.slice(0, 200)}...` : text
}

export function parseFilterArgs(raw: string | null | undefined, options: FilterArgsOptions): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  if (raw == null || raw === '') return out
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    throw new InvalidFilterError(`Invalid filters: ${JSON.stringify(raw.slice(0, 200))} is not valid JSON. Expected an object like ${options.example}.`)
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new InvalidFilterError(
      `Invalid filters: expected a JSON object mapping filter names to values, got ${Array.isArray(json) ? 'an array' : json === null ? 'null' : typeof json}. Allowed filter names: ${options.names.join(', ')}.`,
    )
  }
  for (const [name, value] of Object.entries(json as Record<string, unknown>)) {
    if (!options.names.includes(name)) {
      if (options.unknown) throw new InvalidFilterError(options.unknown(name))
      continue
    }
    let values: string[]
    if (Array.isArray(value)) {
      if (!value.every((v) => typeof v === 'string')) {
        throw new InvalidFilterError(`Invalid filter "${name}": a list must hold only strings, got ${show(value)}.`)
      }
      values = value as string[]
      if (options.check) for (const v of values) options.check(name, v)
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value as Record<string, unknown>)
      if (!entries.every(([, v]) => typeof v === 'boolean')) {
        throw new InvalidFilterError(`Invalid filter "${name}": an object must map values to true or false, got ${show(value)}.`)
      }
      if (options.check) for (const [k] of entries) options.check(name, k)
      values = options.keysOfObjects ? entries.map(([k]) => k) : entries.filter(([, v]) => v === true).map(([k]) => k)
      // Docker keeps `{"x":false}` in a non-empty set that nothing matches: a name given only with
      // `false` values selects nothing. An empty `{}` is no filter at all.
      if (entries.length === 0 && !options.keepEmpty) continue
    } else {
      throw new InvalidFilterError(`Invalid filter "${name}": expected an object of booleans like {"${name}":{"x":true}} or a list of strings like {"${name}":["x"]}, got ${show(value)}.`)
    }
    // An empty list is no filter at all, as in Docker.
    if (values.length === 0 && Array.isArray(value) && !options.keepEmpty) continue
    out[name] = values
  }
  return out
}

/**
 * An `event` value must be one this service emits, whatever its boolean: `{"event":{"strat":false}}` names a value
 * the service does not allow as much as `{"event":{"strat":true}}` (PROTOCOL.md: a 400 with the allowed list).
 */
function checkEventValue(name: string, value: string) {
  if (name === 'event' && !(EVENT_KINDS as readonly string[]).includes(value)) {
    throw new InvalidFilterError(`Invalid filter "event": "${value}" is not an event this service emits. Allowed values: ${EVENT_KINDS.join(', ')}.`)
  }
}

const EVENTS_NAMES: readonly string[] = FILTER_NAMES
const DOCKER_EVENTS_NAMES: readonly string[] = [...FILTER_NAMES, ...DOCKER_EVENT_FILTER_NAMES]

/**
 * Parses the `filters` query value (JSON, already percent-decoded) into {@link Filters}.
 * Accepts values as an object of booleans (`{"event":{"start":true}}`) or a list (`{"event":["start"]}`).
 * `docker: true` (Docker's `GET /events`) reads them as the daemon does: its other event filter names
 * ({@link DOCKER_EVENT_FILTER_NAMES}) are taken, a name it does not know is ignored and any `event` value is taken (moby's
 * getEvents validates neither; an event the service never emits selects nothing). Without it (the events websocket),
 * an unknown name or an `event` other than start and stop is refused with the allowed list (PROTOCOL.md).
 */
export function parseFilters(raw: string | null | undefined, options: { docker?: boolean } = {}): Filters {
  const names = options.docker ? DOCKER_EVENTS_NAMES : EVENTS_NAMES
  const allowed = `Allowed filter names: ${names.join(', ')}.`
  return parseFilterArgs(raw, {
    names,
    unknown: options.docker ? undefined : (name) => `Invalid filter "${name}". ${allowed}`,
    example: '{"event":{"start":true},"label":["app=web"]}',
    check: options.docker ? undefined : checkEventValue,
  }) as Filters
}

/**
 * A reference as the fake stores it: Docker Hub names by their familiar name, as the daemon's
 * reference.ParseNormalizedNamed then FamiliarString read them. The part before the first `/` names a registry only
 * when it has a `.` or `:` or is `localhost` (else the name is Docker Hub's); `index.docker.io` is `docker.io`; and a
 * Docker Hub name of one component is an official image under `library/`. So `nginx`, `library/nginx`,
 * `docker.io/nginx`, `docker.io/library/nginx` and `index.docker.io/library/nginx` all read `nginx` (with any `:tag` or
 * `@digest` kept), `docker.io/team/app` reads `team/app`, and `library/a/b` stays as it is. `registry-1.docker.io` is
 * not normalised by Docker: it names a registry of its own.
 */
export function familiarName(name: string): string {
  const hub = /^(?:docker\.io|index\.docker\.io)\/(.+)$/.exec(name)
  const rest = hub ? hub[1] : name
  // `library/x` is the official `x` whether or not the CLI spelled out docker.io; `library/x/y` keeps its prefix.
  const official = /^library\/([^/]+)$/.exec(rest)
  return official ? official[1] : rest
}

/** Strips a `:tag` (not a registry port) and a `@digest` from an image reference. */
export function stripTag(image: string): string {
  const at = image.indexOf('@')
  if (at >= 0) image = image.slice(0, at)
  const slash = image.lastIndexOf('/')
  const colon = image.lastIndexOf(':')
  return colon > slash ? image.slice(0, colon) : image
}

let lastImage = ''
let lastName = ''
/**
 * An event's image as the Engine's image filter reads it without the tag (daemon/events/filter.go's stripTag:
 * reference.FamiliarName of ParseNormalizedNamed): `docker.io/library/nginx:1.27` and `library/nginx` are `nginx`. The
 * last one is kept: every subscriber of an event asks for the same.
 */
function imageName(image: string): string {
  if (image !== lastImage) {
    lastImage = image
    lastName = stripTag(familiarName(image))
  }
  return lastName
}

/**
 * Whether an `image` filter value names this image id: the full id, with or without `sha256:`, or a prefix of at least
 * 12 hex digits (as `docker images` shows it). The official client documents the filter as "imageid or name" and its
 * test lists filter by a full id and a 12-digit prefix (hyperhq/websocket-client).
 */
function namesImageId(value: string, imageId: string): boolean {
  const hex = value.startsWith('sha256:') ? value.slice(7) : value
  return hex.length >= 12 && /^[0-9a-f]+$/.test(hex) && imageId.startsWith(`sha256:${hex}`)
}

/**
 * Compiles filters into a predicate (Docker's semantics: names AND, values OR, labels all must match). `imageIds`: the
 * service's events websocket, whose `image` filter also takes the id of the container's image (Docker's `GET /events`
 * does not: the Engine's matchImage compares the actor's id, which is the container's).
 */
export function compileFilters(filters: Filters, options: { imageIds?: boolean } = {}): CompiledFilter {
  const tests: ((s: FilterSubject) => boolean)[] = []
  const { container, event, image, label } = filters
  // A name present with no selected value (e.g. {"event":{"start":false}}) selects nothing, as in Docker;
  // parseFilters drops names given as an empty `{}` or `[]` (no filter).
  if (container) {
    // The Engine's fuzzyMatchName: the value prefixes the id or the name attribute, which has no leading slash (the
    // daemon's events name `web`, where its container list says `/web`): `container=/web` matches no event there.
    tests.push((s) => container.some((c) => s.id.startsWith(c) || s.name.startsWith(c)))
  }
  if (event) tests.push((s) => event.includes(s.action))
  const byId = options.imageIds === true
  if (image) {
    // The Engine's matchImage also takes the event's actor id exactly: for a container event, the container's id.
    tests.push((s) => {
      const name = imageName(s.image)
      return image.some((i) => s.image === i || name === i || s.id === i || (byId && s.imageId !== undefined && namesImageId(i, s.imageId)))
    })
  }
  // Docker's other event filters (GET /events only). Every event here is a container event in the local scope.
  let none = false
  if (filters.type && !filters.type.includes('container')) none = true
  if (filters.scope && !filters.scope.includes('local')) none = true
  for (const name of ['daemon', 'network', 'volume', 'plugin', 'node', 'service', 'secret', 'config'] as const) {
    const values = filters[name]
    // The Engine's fuzzyMatchName: the value equals or prefixes the actor's id or its name attribute.
    if (values) tests.push((s) => values.some((v) => s.id.startsWith(v) || s.name.startsWith(v)))
  }
  if (none) tests.unshift(() => false)
  if (label) {
    const wanted = label.map((l) => {
      const eq = l.indexOf('=')
      return eq < 0 ? { key: l, value: undefined } : { key: l.slice(0, eq), value: l.slice(eq + 1) }
    })
    tests.push((s) =>
      wanted.length > 0 &&
      wanted.every(({ key, value }) => {
        const v = attribute(s, key)
        return v !== undefined && (value === undefined || v === value)
      }),
    )
  }
  return {
    filters,
    // A filter that selects nothing is indexed under no kind: no event ever reaches it.
    kinds: none ? [] : event ? (event as EventKind[]) : undefined,
    matches: (s) => tests.every((t) => t(s)),
  }
}

/** The filter of a subscriber that asked for no filter: every event (the facade's listeners, the live feed's subscription). */
export const EVERY_EVENT: CompiledFilter = compileFilters({})
