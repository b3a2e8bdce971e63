import { apiAtLeast } from '../api-version'
import { goPathSegment } from '../go/url'
import { goJsonError, goJsonKind } from '../go/json-error'
import { loadGoRegexp } from '../go/regexp'
import { isLoopback } from '../guard'
import { authConfigFrom, authorize } from '../../service/auth'
import type { Service } from '../../core/service'
import { handleContainers } from './containers'
import { handleImages } from './images'
import { dockerError, json, jsonError, targetOf, text, type Target } from '../http'
import type { ProtoRequest, ProtoResponse } from '../types'

/** The API version the fake announces. */
export const API_VERSION = '1.47'

/** The Engine version the fake answers as (`/version`, `/info`, the `Server` header). */
export const ENGINE_VERSION = '28.2.2'

/** What the Engine's version middleware sets on every answer of its routes (api/server/middleware/version.go). */
export const DOCKER_HEADERS: Readonly<Record<string, string>> = { 'api-version': API_VERSION, 'docker-experimental': 'false', ostype: 'linux', server: `Docker/${ENGINE_VERSION} (linux)` }

const versionHeaders = DOCKER_HEADERS

/** The body of the daemon's `page not found` (its mux's NotFoundHandler), sent without the version headers. */
export const PAGE_NOT_FOUND_BODY = '{"message":"page not found"}'

/**
 * The Docker Engine API routes (v1.47) that the fake serves, as `METHOD /path` with `{id}` one path segment and
 * `{name}` an image reference that may hold slashes. docs/docker-compat.md lists the same; a test checks both.
 */
export const SERVED_DOCKER_ROUTES = [
  'HEAD /_ping',
  'GET /_ping',
  'GET /version',
  'GET /info',
  'POST /auth',
  'GET /events',
  'GET /images/json',
  'GET /images/{name}/json',
  'POST /images/{name}/tag',
  'POST /images/{name}/push',
  'GET /containers/json',
  'GET /containers/{id}/json',
  'POST /containers/{id}/start',
  'POST /containers/{id}/stop',
  'GET /networks/{id}',
  'GET /volumes/{name}',
  'GET /plugins/{name}/json',
] as const

/**
 * Docker Engine API routes the fake does not serve: each answers 501 naming itself. Everything the docker CLI,
 * dockerode and the Python Docker SDK call, by area.
 */
export const UNSERVED_DOCKER_ROUTES = [
  // containers
  'POST /containers/create',
  'POST /containers/prune',
  'GET /containers/{id}/top',
  'GET /containers/{id}/logs',
  'GET /containers/{id}/changes',
  'GET /containers/{id}/export',
  'GET /containers/{id}/stats',
  'POST /containers/{id}/resize',
  'POST /containers/{id}/restart',
  'POST /containers/{id}/kill',
  'POST /containers/{id}/update',
  'POST /containers/{id}/rename',
  'POST /containers/{id}/pause',
  'POST /containers/{id}/unpause',
  'POST /containers/{id}/attach',
  'GET /containers/{id}/attach/ws',
  'POST /containers/{id}/wait',
  'DELETE /containers/{id}',
  'HEAD /containers/{id}/archive',
  'GET /containers/{id}/archive',
  'PUT /containers/{id}/archive',
  'POST /containers/{id}/exec',
  'POST /exec/{id}/start',
  'POST /exec/{id}/resize',
  'GET /exec/{id}/json',
  // images
  'POST /images/create',
  'POST /images/load',
  'GET /images/get',
  'GET /images/search',
  'POST /images/prune',
  'GET /images/{name}/history',
  'GET /images/{name}/get',
  'DELETE /images/{name}',
  'POST /build',
  'POST /build/prune',
  'POST /build/cancel',
  'POST /commit',
  'GET /distribution/{name}/json',
  // networks
  'GET /networks',
  'POST /networks/create',
  'POST /networks/prune',
  'DELETE /networks/{id}',
  'POST /networks/{id}/connect',
  'POST /networks/{id}/disconnect',
  // volumes
  'GET /volumes',
  'POST /volumes/create',
  'POST /volumes/prune',
  'PUT /volumes/{name}',
  'DELETE /volumes/{name}',
  // system
  'GET /system/df',
  'POST /session',
  'POST /grpc',
  // swarm, nodes, services, tasks, secrets, configs
  'GET /swarm',
  'POST /swarm/init',
  'POST /swarm/join',
  'POST /swarm/leave',
  'POST /swarm/update',
  'GET /swarm/unlockkey',
  'POST /swarm/unlock',
  'GET /nodes',
  'GET /nodes/{id}',
  'DELETE /nodes/{id}',
  'POST /nodes/{id}/update',
  'GET /services',
  'POST /services/create',
  'GET /services/{id}',
  'DELETE /services/{id}',
  'POST /services/{id}/update',
  'GET /services/{id}/logs',
  'GET /tasks',
  'GET /tasks/{id}',
  'GET /tasks/{id}/logs',
  'GET /secrets',
  'POST /secrets/create',
  'GET /secrets/{id}',
  'DELETE /secrets/{id}',
  'POST /secrets/{id}/update',
  'GET /configs',
  'POST /configs/create',
  'GET /configs/{id}',
  'DELETE /configs/{id}',
  'POST /configs/{id}/update',
  // plugins
  'GET /plugins',
  'GET /plugins/privileges',
  'POST /plugins/pull',
  'POST /plugins/create',
  'DELETE /plugins/{name}',
  'POST /plugins/{name}/enable',
  'POST /plugins/{name}/disable',
  'POST /plugins/{name}/upgrade',
  'POST /plugins/{name}/push',
  'POST /plugins/{name}/set',
] as const

interface RoutePattern {
  route: string
  method: string
  pattern: RegExp
  /** Routes without placeholders are tried first, so `GET /images/search` is not `GET /images/{name}`. */
  literal: boolean
}

const escapeRe = (s: string) => s.replace(/[.*+?^$()|[\]\\]/g, '\\$&')
const compileRoute = (route: string): RoutePattern => {
  const [method, path] = route.split(' ')
  const source = path
    .split(/(\{[a-z]+\})/)
    .map((part) => (part === '{name}' ? '.+' : /^\{[a-z]+\}$/.test(part) ? '[^/]+' : escapeRe(part)))
    .join('')
  return { route, method, pattern: new RegExp(`^${source}$`), literal: !path.includes('{') }
}
const UNSERVED = UNSERVED_DOCKER_ROUTES.map(compileRoute).sort((a, b) => Number(b.literal) - Number(a.literal))

/** The unserved Docker route `method path` is, if it is one. */
export function unservedDockerRoute(method: string, path: string): string | undefined {
  return UNSERVED.find((r) => r.method === method && r.pattern.test(path))?.route
}

const SERVED_SUMMARY = 'ping, version, info, login (POST /auth), events, image list/inspect/tag/push, container list/inspect/start/stop, the events websocket GET /events/ws and the admin API /_dockside/*'

/**
 * The answer for a Docker-looking request nothing serves: 501 naming a Docker Engine route the fake does not
 * implement, else Docker's own 404 `page not found` (an unknown path, or a known path with another method).
 */
export function unservedDocker(method: string, path: string) {
  const route = unservedDockerRoute(method, path)
  if (route) return jsonError(501, `${route} is not served by this fake (dockside serves ${SERVED_SUMMARY}; see docs/docker-compat.md).`)
  // The daemon's mux answers a path no route has with this, and without its version headers.
  return dockerError(404, 'page not found', `${method} ${path} is not a Docker Engine API route this fake knows (dockside serves ${SERVED_SUMMARY}; see docs/docker-compat.md).`)
}

/**
 * Where a registry's `/v2/` endpoint is, as the daemon would reach it (loopback registries are insecure: http). Only a
 * configured registry is refused, and its host is a name or IPv4 address with an optional port (registries.ts).
 */
function endpoint(host: string) {
  const insecure = isLoopback(host.replace(/:\d+$/, ''))
  return `${insecure ? 'http' : 'https'}://${host === 'docker.io' ? 'registry-1.docker.io' : host}/v2/`
}

/** The registry host of a login's `serveraddress` (`https://index.docker.io/v1/` is Docker Hub, as is nothing). */
export function loginHost(serverAddress: string | undefined): string {
  const bare = (serverAddress ?? '').trim().replace(/^[a-z]+:\/\//i, '').replace(/\/.*$/, '').toLowerCase()
  if (bare === '' || bare === 'index.docker.io' || bare === 'registry-1.docker.io') return 'docker.io'
  return bare
}

/**
 * `POST /auth` (`docker login`): checks the credentials against the registry's configured ones. A registry with
 * none, or a host the fake does not know, is open and accepts anything. Wrong credentials are a 401 worded as
 * the daemon words them. A token registry takes its token as the password and answers it as the identity token,
 * which the CLI then stores and sends with every push.
 */
async function login(svc: Service, req: ProtoRequest): Promise<ProtoResponse> {
  const raw = await req.body()
  const version = targetOf(req.url).version
  const example = '{"username":"ci","password":"s3cret","serveraddress":"localhost:5000"}'
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    // The daemon's json.Decoder error, a 500 (postAuth returns it unclassed). Never echoed: the body holds a password.
    const decoder = raw.trim() === '' ? 'EOF' : (goJsonError(raw) ?? 'unexpected EOF').replace('unexpected end of JSON input', 'unexpected EOF')
    return dockerError(500, decoder, `POST /auth needs a JSON AuthConfig body such as ${example}; the body is not valid JSON (${raw.length} bytes, not shown: it may hold a password).`)
  }
  const goType = authConfigTypeError(value, version)
  if (goType !== undefined) return dockerError(500, goType, `The POST /auth body is not an AuthConfig: send one such as ${example}.`)
  const auth = authConfigFrom(value, 'The POST /auth body')
  if ('invalid' in auth) return jsonError(400, `${auth.invalid}: send an AuthConfig such as ${example}.`)
  const host = loginHost(auth.serveraddress)
  const registry = svc.registries.list().find((r) => r.host.toLowerCase() === host)
  const required = registry?.auth ?? { kind: 'open' as const }
  // One rule for login and push (a token registry takes its token as the password too).
  const ok = authorize(required, auth)
  svc.journal.record('auth.login', { registry: host, username: auth.username, status: ok ? 'ok' : 'refused', known: registry !== undefined })
  // A token registry's token is the identity token however it was sent (password, identitytoken or registrytoken).
  // Keys in the order of the daemon's AuthenticateOKBody: IdentityToken, then Status.
  if (ok) return json(200, { IdentityToken: required.kind === 'token' ? required.token : '', Status: 'Login Succeeded' })
  const message =
    required.kind === 'token'
      ? `Get "${endpoint(host)}": unauthorized: incorrect username or password`
      : `login attempt to ${endpoint(host)} failed with status: 401 Unauthorized`
  // A token registry's refusal is errdefs.Unauthorized (translateV2AuthError), a 401; a basic one's is loginV2's
  // unclassed error, a 500, on the 20.10 daemon and on Engine 28 alike (moby registry/auth.go, seen on 20.10).
  return jsonError(required.kind === 'token' ? 401 : 500, message)
}

/** The AuthConfig's string fields, as the daemon's struct names them in Go's json errors. */
const AUTH_STRING_FIELDS = ['username', 'password', 'auth', 'email', 'serveraddress', 'identitytoken', 'registrytoken']

/**
 * Go's json.Decoder error for a POST /auth body that is JSON but no AuthConfig: not an object, or a string field given
 * another kind of value (types.AuthConfig on the 20.10 daemon, registry.AuthConfig from API 1.42). Undefined when Go reads it.
 */
function authConfigTypeError(value: unknown, version: string | undefined): string | undefined {
  if (value === null) return undefined
  if (typeof value !== 'object' || Array.isArray(value)) return `json: cannot unmarshal ${goJsonKind(value)} into Go value of type ${apiAtLeast(version, '1.42') ? 'registry' : 'types'}.AuthConfig`
  for (const [key, v] of Object.entries(value)) {
    const field = AUTH_STRING_FIELDS.find((f) => f === key.toLowerCase())
    if (field !== undefined && v !== null && typeof v !== 'string') return `json: cannot unmarshal ${goJsonKind(v)} into Go struct field AuthConfig.${key} of type string`
  }
  return undefined
}

// One segment, as the routes table's `{id}`: `GET /networks/n1/connect` stays no route (a 404 `page not found`).
const NETWORK = /^\/networks\/([^/]+)$/
const VOLUME = /^\/volumes\/(.+)$/
const PLUGIN = /^\/plugins\/(.+)\/json$/

/**
 * `GET /networks/{id}`, `GET /volumes/{name}`, `GET /plugins/{name}/json`: the fake has no networks, volumes or
 * plugins, so each is the daemon's 404 for a missing one (libnetwork's ErrNoSuchNetwork, the volume store's OpErr,
 * the plugin store's errNotFound). `docker inspect NAME` tries a container, an image, a network, a volume and a plugin
 * and goes on past each 404, so it ends in Docker's own `Error: No such object: NAME`.
 */
function notFoundObject(path: string): ProtoResponse | undefined {
  const network = NETWORK.exec(path)
  const none = (what: string) => `this fake has no ${what} (it serves containers and images; see docs/docker-compat.md).`
  // The daemon's words (libnetwork, the volume service, the plugin store); the fake's in the hint.
  if (network) return dockerError(404, `network ${goPathSegment(network[1])} not found`, `network ${goPathSegment(network[1])} not found: ${none('networks')}`)
  const volume = VOLUME.exec(path)
  if (volume) return dockerError(404, `get ${goPathSegment(volume[1])}: no such volume`, `get ${goPathSegment(volume[1])}: no such volume: ${none('volumes')}`)
  const plugin = PLUGIN.exec(path)
  // Go's %q: the name in double quotes.
  if (plugin) return dockerError(404, `plugin ${JSON.stringify(goPathSegment(plugin[1]))} not found`, `plugin ${JSON.stringify(goPathSegment(plugin[1]))} not found: ${none('plugins')}`)
  return undefined
}


/**
 * Docker-compatible routes the `docker` CLI and dockerode call: ping, version, info, login, images, containers.
 * Returns undefined for paths it does not serve. See docs/docker-compat.md.
 */
export async function handleDocker(svc: Service, req: ProtoRequest, target: Target): Promise<ProtoResponse | undefined> {
  const { path } = target
  // Name and reference filters are Go regexps; their engine is loaded on the first list that has filters.
  if ((path === '/containers/json' || path === '/images/json') && target.query.has('filters')) await loadGoRegexp()
  if (path === '/_ping' && (req.method === 'GET' || req.method === 'HEAD')) {
    // `Swarm` as a standalone daemon sends it (its swarmStatus() without a cluster).
    const res = text(200, 'OK', { ...versionHeaders, 'cache-control': 'no-cache, no-store, must-revalidate', pragma: 'no-cache', swarm: 'inactive' })
    // HEAD: the daemon's pingHandler sets Content-Length 0 itself (not the 2 of GET's `OK`).
    return req.method === 'HEAD' ? { ...res, headers: { ...res.headers, 'content-length': '0' }, body: undefined } : res
  }
  if (path === '/version' && req.method === 'GET') {
    // types.Version in the daemon's order, with its Components (`docker version` prints them): the Engine's Details
    // are a map, keys sorted; then the runtime pieces a default Linux daemon lists.
    const buildTime = new Date(svc.clock.startedAt).toISOString()
    return json(200, {
      Platform: { Name: 'dockside' },
      Components: [
        { Name: 'Engine', Version: ENGINE_VERSION, Details: { ApiVersion: API_VERSION, Arch: 'amd64', BuildTime: buildTime, Experimental: 'false', GitCommit: 'dockside', GoVersion: 'go1.24', KernelVersion: 'dockside', MinAPIVersion: '1.24', Os: 'linux' } },
        { Name: 'containerd', Version: '1.7.27', Details: { GitCommit: 'dockside' } },
        { Name: 'runc', Version: '1.2.5', Details: { GitCommit: 'dockside' } },
        { Name: 'docker-init', Version: '0.19.0', Details: { GitCommit: 'de40ad0' } },
      ],
      Version: ENGINE_VERSION,
      ApiVersion: API_VERSION,
      MinAPIVersion: '1.24',
      GitCommit: 'dockside',
      GoVersion: 'go1.24',
      Os: 'linux',
      Arch: 'amd64',
      KernelVersion: 'dockside',
      BuildTime: buildTime,
    }, versionHeaders)
  }
  if (path === '/info' && req.method === 'GET') {
    const containers = svc.containers.list()
    return json(200, {
      ID: 'dockside',
      Name: 'dockside',
      Containers: containers.length,
      ContainersRunning: containers.filter((c) => c.state === 'running').length,
      ContainersPaused: 0,
      ContainersStopped: containers.filter((c) => c.state !== 'running').length,
      // Docker counts images, not tags: two tags of one image are one, and one whose pushed tag moved on (dangling,
      // named by its digest alone) is one too.
      Images: new Set([...svc.images.list(), ...svc.images.digests()].map((e) => e.image)).size,
      ServerVersion: ENGINE_VERSION,
      OperatingSystem: 'dockside (fake)',
      OSType: 'linux',
      Architecture: 'x86_64',
      NCPU: 2,
      MemTotal: 0,
      Driver: 'dockside',
      SystemTime: new Date(svc.clock.now()).toISOString(),
      // A standalone daemon's swarm.Info: `docker info` prints "Swarm: inactive", and `docker inspect` reads
      // ControlAvailable to skip the swarm object kinds.
      Swarm: { NodeID: '', NodeAddr: '', LocalNodeState: 'inactive', ControlAvailable: false, Error: '', RemoteManagers: null },
    }, versionHeaders)
  }
  if (path === '/auth' && req.method === 'POST') return login(svc, req)
  if (req.method === 'GET') {
    const missing = notFoundObject(path)
    if (missing) return missing
  }
  if (path.startsWith('/images/')) return handleImages(svc, req, target)
  // Undefined for any path that is not a container route.
  return handleContainers(svc, req, target)
}
