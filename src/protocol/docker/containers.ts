import { apiAtLeast } from '../api-version'
import type { Container } from '../../service/containers'
import { InvalidFilterError, InvalidInputError, NotFoundError } from '../../service/errors'
import type { Service } from '../../core/service'
import { containerInspect, containerSummary, NETWORK_IDS, type ContainerView } from './container-json'
import { dockerFilterArgs } from '../filters'
import { resolveImage } from './images'
import { compileGoRegexp, GoRegexpSyntaxError, GoRegexpTooLargeError, type GoRegexp } from '../go/regexp'
import { goAtoiError, goParseUintError } from '../go/strconv'
import { goPathSegment } from '../go/url'
import { json, queryRefusal, type Target } from '../http'
import type { ProtoRequest, ProtoResponse } from '../types'


/** Docker's units.HumanDuration, as `docker ps` prints it in STATUS. */
export function humanDuration(ms: number): string {
  const s = Math.floor(ms / 1000)
  if (s < 1) return 'Less than a second'
  if (s === 1) return '1 second'
  if (s < 60) return `${s} seconds`
  const m = Math.floor(s / 60)
  if (m === 1) return 'About a minute'
  if (m < 60) return `${m} minutes`
  const h = Math.round(s / 3600)
  if (h === 1) return 'About an hour'
  if (h < 48) return `${h} hours`
  if (h < 24 * 7 * 2) return `${Math.floor(h / 24)} days`
  if (h < 24 * 30 * 2) return `${Math.floor(h / 24 / 7)} weeks`
  if (h < 24 * 365 * 2) return `${Math.floor(h / 24 / 30)} months`
  // Go counts years from the whole hours (int(d.Hours())/24/365), not the rounded ones.
  return `${Math.floor(Math.floor(s / 3600) / 24 / 365)} years`
}

function status(c: Container, now: number): string {
  if (c.state === 'running') return `Up ${humanDuration(now - (c.startedAt ?? now))}`
  if (c.state === 'exited') return `Exited (${c.exitCode}) ${humanDuration(now - (c.finishedAt ?? now))} ago`
  return 'Created'
}

const imageId = (svc: Service, c: Container) => resolveImage(svc, c.image)?.id ?? ''

/**
 * A container's Config.Labels, which Docker's list, inspect and `label` filter all read: its labels and the instance
 * type, which on Hyper.sh is the label `sh_hyper_instancetype` (hypercli's `run --size` sets it). Keys sorted, as Go
 * writes a map.
 */
function configLabels(c: Container): Record<string, string> {
  const labels: Record<string, string> = { ...c.labels, sh_hyper_instancetype: c.instanceType }
  return Object.fromEntries(Object.keys(labels).sort().map((k) => [k, labels[k]]))
}

/** What the container JSON shows beyond the container: `size` (`docker inspect -s`, `docker ps -s`) adds the daemon's SizeRw and SizeRootFs (nothing written, and the image's size). */
function viewOf(svc: Service, c: Container, size: boolean): ContainerView {
  return { labels: configLabels(c), imageId: imageId(svc, c), status: status(c, svc.clock.now()), sizes: size ? { SizeRw: 0, SizeRootFs: resolveImage(svc, c.image)?.size ?? 0 } : undefined }
}

/** The filter names of `GET /containers/json`, as the Engine's daemon/list.go accepts them. */
export const CONTAINER_FILTER_NAMES = ['ancestor', 'before', 'exited', 'expose', 'health', 'id', 'isolation', 'is-task', 'label', 'name', 'network', 'publish', 'since', 'status', 'volume'] as const
/** Docker's container states (`status` filter values); the fake's containers are only ever created, running or exited. */
export const CONTAINER_STATES = ['created', 'restarting', 'running', 'removing', 'paused', 'exited', 'dead'] as const
const HEALTH = ['starting', 'healthy', 'unhealthy', 'none']

/** Go's strconv.Atoi, as the daemon reads `limit` and stop's `t`: an optional sign and decimal digits, in int64. */
const goAtoi = (v: string): number | undefined => (goAtoiError(v) === undefined ? Number(BigInt(v)) : undefined)

/**
 * What the daemon's portOp (daemon/list.go, the same in 20.10 and 28) says of a `publish` or `expose` filter value it
 * cannot read, or undefined: a `:` is refused, then go-connections' nat.SplitProtoPort takes the port before the first
 * `/` and nat.ParsePortRange reads it as `N` or `N-M` (the text after a second `-` is ignored) with
 * strconv.ParseUint(…, 10, 16). go-connections 0.4 (Engine 20.10, API 1.41 and older) words its own two errors with
 * capitals; 0.5 (Engine 28) in lower case. Always a 500: the daemon wraps none of these as invalid input.
 */
function portFilterError(key: 'publish' | 'expose', value: string, old: boolean): string | undefined {
  if (value.includes(':')) return `filter for '${key}' should not contain ':': ${value}`
  // nat.SplitProtoPort: nothing before the first `/` is no port at all.
  const port = value.split('/')[0]
  let problem: string | undefined
  if (port === '') problem = old ? 'Empty string specified for ports.' : 'empty string specified for ports'
  else if (!port.includes('-')) problem = goParseUintError(port, 16)
  else {
    const [start, end] = port.split('-')
    problem = goParseUintError(start, 16) ?? goParseUintError(end, 16)
    if (problem === undefined && Number(end) < Number(start)) problem = old ? `Invalid range specified for the Port: ${port}` : `invalid range specified for port: ${port}`
  }
  return problem === undefined ? undefined : `error while looking up for ${key} ${value}: ${problem}`
}

/** Docker's httputils.BoolValue: anything but "", "0", "no", "false", "none" (any case) is true. */
const boolValue = (v: string | undefined) => v !== undefined && !['', '0', 'no', 'false', 'none'].includes(v.trim().toLowerCase())

/**
 * Docker's `filters.Args.Match`: the value itself, else Go's regexp.MatchString, where a pattern that does not compile
 * matches nothing. Matched by a linear-time engine (protocol/go/regexp.ts), never JavaScript's backtracking RegExp.
 */
function nameMatcher(pattern: string): (name: string) => boolean {
  let re: GoRegexp | undefined
  try {
    re = compileGoRegexp(pattern)
  } catch (error) {
    if (error instanceof GoRegexpTooLargeError) throw invalid('name', pattern, `: the pattern ${error.message}; the fake matches names in linear time and refuses patterns larger than that (shorten the pattern or lower its repeat counts).`)
    if (!(error instanceof GoRegexpSyntaxError)) throw error
  }
  return (name) => pattern === name || re?.test(name) === true
}

/** The filters Docker's list reads with ExactMatch, where a value given as `false` is not selected. */
const EXACT_FILTERS = ['health', 'is-task'] as const

const invalid = (name: string, value: string, why: string) => new InvalidFilterError(`invalid filter '${name}=${value}'${why}`)

/**
 * `GET /containers/json`: Docker's list with its `all`, `limit`, `size` and `filters` (daemon/list.go): ids by
 * unique prefix, names by regexp on `/name` or `name`, labels all must match, `status` by state, `ancestor` by
 * the image it resolves to, `before`/`since` by container, `exited` by exit code; `health`, `is-task`,
 * `network`, `volume`, `publish`, `expose` against what a fake container has (no health check, no task, no
 * networks, volumes or ports); `isolation` is ignored, as on a Linux daemon.
 */
function listContainers(svc: Service, target: Target) {
  const args = {
    names: CONTAINER_FILTER_NAMES,
    unknown: (name: string) => `invalid filter '${name}': GET /containers/json takes the filters ${CONTAINER_FILTER_NAMES.join(', ')}.`,
    example: '{"label":{"app=web":true},"status":{"running":true}}',
  }
  // Docker reads most filters by their keys whatever their booleans (Args.Get, Match, MatchKVList, WalkValues:
  // `{"label":{"app=web":false}}` is app=web; `status` too, through Match's regexp fallback), and `health` and
  // `is-task` with them (ExactMatch: a value given as false is not selected).
  // JSON null is no filter at all (Go's json leaves Docker's Args empty), as on GET /images/json.
  const sent = target.query.get('filters')
  const raw = sent?.trim() === 'null' ? undefined : sent
  // A name given with no values is kept (`[]`): the daemon tests `ancestor`, `volume`, `network` and `is-task` with
  // Args.Contains, so an empty one selects nothing (or, for `is-task`, is read below), and the rest with Match,
  // MatchKVList or ExactMatch, where an empty one is no filter (checked by length below).
  const keys = dockerFilterArgs(raw, { ...args, keysOfObjects: true, keepEmpty: true }, target.version)
  const f = { ...keys }
  if (f.health || f['is-task']) {
    const exact = dockerFilterArgs(raw, { ...args, keepEmpty: true }, target.version)
    // Defined wherever `f` has the name.
    for (const name of EXACT_FILTERS) if (f[name]) f[name] = exact[name]!
  }
  let all = boolValue(target.query.get('all'))
  const limitRaw = target.query.get('limit')
  const limit = limitRaw === undefined || limitRaw === '' ? 0 : goAtoi(limitRaw)
  if (limit === undefined) throw new InvalidInputError(`Invalid "limit" ${JSON.stringify(limitRaw)}: expected an integer, e.g. limit=5.`).onWire(goAtoiError(limitRaw!)!, 500)
  const size = boolValue(target.query.get('size'))

  // The daemon's words by version (daemon/list.go, daemon/errors.go): 20.10 (API 1.41 and older), Engine 23 (1.42),
  // Engine 28 (1.43 on, as the fake models it); dockside's help in the hint.
  const v = target.version
  const old = !apiAtLeast(v, '1.42')
  const modern = apiAtLeast(v, '1.43')
  const filterWord = old ? 'Invalid filter' : 'invalid filter'
  const exited = (f.exited ?? []).map((x) => {
    const code = goAtoi(x)
    if (code === undefined) throw invalid('exited', x, ': expected an integer exit code, e.g. exited=0.').onWire(old ? goAtoiError(x)! : `invalid filter 'exited=${x}': ${goAtoiError(x)}`, old ? 500 : 400)
    return code
  })
  // Values are checked whatever their booleans (Docker's WalkValues).
  for (const x of keys.status ?? []) {
    if (!(CONTAINER_STATES as readonly string[]).includes(x)) {
      const why = modern ? `: invalid value for state (${x}): must be one of created, running, paused, restarting, removing, exited, dead` : ''
      throw invalid('status', x, `: allowed values are ${CONTAINER_STATES.join(', ')}.`).onWire(`${filterWord} 'status=${x}'${why}`)
    }
    all = true
  }
  let isTask: boolean | undefined
  if (f['is-task']) {
    const given = keys['is-task']!
    const refused = () => invalid('is-task', given.join(','), `: expected true or false${old ? '' : ', 1 or 0'}.`)
    if (old) {
      // 20.10: ExactMatch("is-task", "true") first, which an empty set passes (only tasks: none), then "false".
      if (given.length === 0 || f['is-task'].includes('true')) isTask = true
      else if (f['is-task'].includes('false')) isTask = false
      // Go's %s of the []string: [a b].
      else throw refused().onWire(`${filterWord} 'is-task=[${given.join(' ')}]'`)
    } else {
      // Engine 23 on: GetBoolOrDefault, which refuses an empty set (no value in its words) and a set both or neither true and false.
      if (given.length === 0) throw refused().onWire(`invalid filter 'is-task'`)
      const yes = f['is-task'].includes('true') || f['is-task'].includes('1')
      const no = f['is-task'].includes('false') || f['is-task'].includes('0')
      if (yes === no) throw refused().onWire(`invalid filter 'is-task=[${given.join(' ')}]'`)
      isTask = yes
    }
  }
  for (const x of keys.health ?? []) {
    if (!HEALTH.includes(x)) {
      const wire = modern ? `invalid filter 'health=${x}': invalid value for health (${x}): must be one of none, starting, healthy, unhealthy` : `Unrecognised filter value for health: ${x}`
      throw new InvalidFilterError(`Unrecognised filter value for health: ${x}. Allowed values: ${HEALTH.join(', ')}.`).onWire(wire)
    }
  }
  // Newest first, as Docker lists them; among containers created in the same millisecond, the later one first.
  const list = svc.containers.list().map((c, i) => ({ c, i }))
  list.sort((a, b) => b.c.created - a.c.created || b.i - a.i)
  const ordered = list.map(({ c }) => c)
  // `before`/`since` name a container (Docker: 404 when there is none); the last value given wins, as in Docker.
  const before = f.before?.length ? idOrName(svc, 'before', f.before.at(-1)!, target.version) : undefined
  const since = f.since?.length ? idOrName(svc, 'since', f.since.at(-1)!, target.version) : undefined
  // After before/since and ancestor, as the daemon's foldFilter walks them: every value, whatever its boolean.
  for (const key of ['publish', 'expose'] as const) {
    for (const v of keys[key] ?? []) {
      const wire = portFilterError(key, v, old)
      if (wire) throw new InvalidFilterError(`invalid filter '${key}=${v}': expected <port>[/<proto>] or <start>-<end>[/<proto>] with ports from 0 to 65535 and no ":", e.g. ${key}=8080/tcp.`).onWire(wire, 500)
    }
  }

  // The Engine's fast path: ids by unique prefix (an ambiguous prefix matches nothing), then names among those.
  let candidates = ordered
  if (f.id?.length || f.name?.length) {
    const byId = f.id?.length
      ? new Set(f.id.flatMap((v) => {
          const hits = ordered.filter((c) => c.id.startsWith(v))
          return hits.length === 1 ? hits : []
        }))
      : undefined
    const patterns = (f.name ?? []).map(nameMatcher)
    candidates = ordered.filter((c) => {
      if (byId && !byId.has(c)) return false
      if (!f.name?.length) return true
      return patterns.some((match) => match(`/${c.name}`) || match(c.name))
    })
  }
  // An unknown image's undefined id matches no container: imageId() is '' for those.
  const ancestors = f.ancestor ? new Set(f.ancestor.map((a) => resolveImage(svc, a)?.id)) : undefined
  const labels = f.label?.map((l) => {
    const eq = l.indexOf('=')
    return eq < 0 ? { key: l, value: undefined } : { key: l.slice(0, eq), value: l.slice(eq + 1) }
  })

  const out = []
  let skipping = before !== undefined
  for (const c of candidates) {
    if (skipping) {
      if (c === before) skipping = false
      continue
    }
    if (since && c === since) break
    if (c.state !== 'running' && !all && limit <= 0) continue
    if (isTask === true) continue
    if (labels) {
      const own = configLabels(c)
      if (!labels.every(({ key, value }) => Object.hasOwn(own, key) && (value === undefined || own[key] === value))) continue
    }
    if (limit > 0 && out.length === limit) break
    if (exited.length && !(c.state === 'exited' && c.startedAt !== undefined && exited.includes(c.exitCode))) continue
    if (f.status?.length && !f.status.includes(c.state)) continue
    // No fake container has a health check (Docker reports "none"), a volume or a port. `health` given only as false
    // values is empty here and matches nothing (ExactMatch). `network` names its one network by name or id, exactly.
    if (keys.health?.length && !f.health!.includes('none')) continue
    // An empty `publish` or `expose` (`{"publish":{}}`) is no filter (the daemon tests len() of the ports it read);
    // `volume` is (Contains).
    if (f.volume || f.publish?.length || f.expose?.length) continue
    if (f.network && !f.network.some((n) => n === c.networkMode || n === NETWORK_IDS[c.networkMode])) continue
    if (ancestors && !ancestors.has(imageId(svc, c))) continue
    out.push(containerSummary(c, viewOf(svc, c, size), target.version))
  }
  return out
}

/**
 * A `before`/`since` value as the daemon's idOrNameFilter reads it: a full id, else a name (with or without its
 * slash). Unlike every other lookup, an id prefix is not one (docker/for-linux#258): a 404.
 */
function idOrName(svc: Service, filter: string, value: string, version: string | undefined): Container {
  // The 20.10 daemon (API 1.41 and older) says so in its own words, a 500; Engine 28 is the plain 404.
  const wire = apiAtLeast(version, '1.42') ? `No such container: ${value}` : `no such container ${value}`
  const status = apiAtLeast(version, '1.42') ? undefined : 500
  let found: Container
  try {
    found = svc.containers.get(value)
  } catch (error) {
    if (error instanceof NotFoundError) throw error.onWire(wire, status)
    throw error
  }
  if (found.id === value || found.name === value.replace(/^\//, '')) return found
  const prefix = found.id.startsWith(value) ? ` (${value} starts the id of ${found.name})` : ''
  throw new NotFoundError(`No such container: ${value}: the "${filter}" filter takes a container's full id or its name, not an id prefix, as the Engine's does${prefix}.`).onWire(wire, status)
}

// `{name:.*}` in the daemon's routes: a name with a slash is looked up (and not found), not a missing route.
const CONTAINER = /^\/containers\/(.+)\/(json|start|stop)$/


/** The signal names of moby/sys/signal on Linux (ParseSignal takes them with or without SIG, in any case). */
const SIGNALS = new Set([
  'ABRT', 'ALRM', 'BUS', 'CHLD', 'CLD', 'CONT', 'FPE', 'HUP', 'ILL', 'INT', 'IO', 'IOT', 'KILL', 'PIPE', 'POLL', 'PROF', 'PWR', 'QUIT', 'SEGV',
  'STKFLT', 'STOP', 'SYS', 'TERM', 'TRAP', 'TSTP', 'TTIN', 'TTOU', 'URG', 'USR1', 'USR2', 'VTALRM', 'WINCH', 'XCPU', 'XFSZ', 'RTMIN', 'RTMAX',
  ...Array.from({ length: 15 }, (_, i) => `RTMIN+${i + 1}`),
  ...Array.from({ length: 14 }, (_, i) => `RTMAX-${i + 1}`),
])

/** Why `signal` is not one ParseSignal takes (a non-zero integer, or a name), or undefined. */
function signalProblem(signal: string): string | undefined {
  const n = goAtoi(signal)
  if (n !== undefined ? n !== 0 : SIGNALS.has(signal.toUpperCase().replace(/^SIG/, ''))) return undefined
  return `invalid signal: ${signal}: give a signal name such as SIGTERM, TERM or KILL, or its number (15, 9).`
}

/**
 * The container `ref` names, as the daemon's GetContainer finds it: a full id, a name, else a unique id prefix. A
 * prefix several ids share is the daemon's 400 (InvalidParameter), not a 404; nothing at all is `No such container`.
 */
function container(svc: Service, ref: string, version: string | undefined): Container {
  const found = svc.containers.find(ref)
  if (found) return found
  const shared = ref === '' ? [] : svc.containers.list().filter((c) => c.id.startsWith(ref))
  if (shared.length > 1) {
    const names = shared.length > 5 ? `${shared.slice(0, 5).map((c) => c.name).join(', ')} and ${shared.length - 5} more` : shared.map((c) => c.name).join(', ')
    const error = new InvalidInputError(`multiple IDs found with provided prefix: ${ref}. It starts the ids of ${names}: give more of the id, or the container's name.`)
    // The 20.10 daemon's truncindex error, a 500 (errdefs.System); Engine 28's container view, a 400.
    throw apiAtLeast(version, '1.42') ? error.onWire(`multiple IDs found with provided prefix: ${ref}`) : error.onWire(`Multiple IDs found with provided prefix: ${ref}`, 500)
  }
  return svc.containers.get(ref)
}

/** `GET /containers/json`, `GET /containers/{id}/json`, `POST /containers/{id}/start|stop`. Undefined for other paths. */
export function handleContainers(svc: Service, req: ProtoRequest, target: Target): ProtoResponse | undefined {
  if (target.path === '/containers/json' && req.method === 'GET') return queryRefusal(target) ?? json(200, listContainers(svc, target))
  const m = CONTAINER.exec(target.path)
  if (!m) return undefined
  const ref = goPathSegment(m[1])
  const [, , action] = m
  if (action === 'json' && req.method === 'GET') {
    const c = container(svc, ref, target.version)
    return json(200, containerInspect(c, viewOf(svc, c, boolValue(target.query.get('size'))), target.version))
  }
  if (req.method !== 'POST' || action === 'json') return undefined
  // Both checked before the lookup, as the daemon's postContainersStart and postContainersStop check them.
  if (action === 'start' && apiAtLeast(target.version, '1.24')) {
    // Go's ContentLength: -1 for a chunked body. A JSON object that sets anything is over 7 bytes; `{}` is not.
    const length = req.headers['transfer-encoding'] ? -1 : Number(req.headers['content-length'] ?? 0)
    if (length > 7 || length === -1) throw new InvalidInputError(`starting container with non-empty request body was deprecated since API v1.22 and removed in v1.24: send POST /containers/{id}/start with no body (this one has ${length === -1 ? 'a chunked' : `a ${length}-byte`} body); a container's configuration is given when it is created.`).onWire('starting container with non-empty request body was deprecated since API v1.22 and removed in v1.24')
  }
  // Each reads its form (httputils.ParseForm) here: stop first thing, start after the body check above.
  const unreadable = queryRefusal(target)
  if (unreadable) return unreadable
  const t = target.query.get('t')
  if (action === 'stop' && t !== undefined && t !== '' && goAtoi(t) === undefined) {
    throw new InvalidInputError(`Invalid "t" ${JSON.stringify(t)}: the seconds to wait before killing the container, an integer (-1: wait forever), e.g. t=10.`).onWire(goAtoiError(t)!, 500)
  }
  const c = container(svc, ref, target.version)
  // Docker answers 304 when the container is already in the wanted state; the CLI treats it as success.
  if (action === 'start') {
    if (c.state === 'running') return { status: 304, headers: {} }
    c.start()
  } else {
    if (c.state !== 'running') return { status: 304, headers: {} }
    // Read from API 1.42, and only for a running container (after the 304), as the daemon's containerStop reads it.
    const signal = apiAtLeast(target.version, '1.42') ? target.query.get('signal') : undefined
    const badSignal = signal ? signalProblem(signal) : undefined
    if (badSignal) throw new InvalidInputError(badSignal)
    // Exit code 0, the model's default: the fake's containers stop cleanly.
    c.stop()
  }
  svc.journal.record(`container.${action as 'start' | 'stop'}`, { id: c.id, name: c.name, via: 'docker-api' })
  return { status: 204, headers: {} }
}
