import type { Side, VerifyState } from './sides'
import { answerLines, commandLines } from './transcript'
import { framesOfDockerEvents, serviceEvents } from './service-events'

/** What a case may use beyond its side. */
export interface CaseContext {
  readonly state: VerifyState
  /** Runs the `docker` CLI against a side (DOCKER_HOST and DOCKER_API_VERSION set, a private DOCKER_CONFIG). */
  docker(side: Side, args: string[], options?: { auths?: Record<string, { username: string; password: string }> }): Promise<{ code: number | null; stdout: string; stderr: string }>
  /** The fake's events websocket, read until it closes or goes quiet (the real daemon has none: see {@link framesOfDockerEvents}). */
  websocket(side: Side, path: string): Promise<string[]>
  /** A loopback port where nothing listens: a registry that is down. */
  readonly downRegistry: string
  /** A loopback proxy to the open registry that dies during the first blob upload and stays down (on the fake, a fault). */
  dyingRegistry(side: Side): Promise<string>
  /** Tags the image the pushes send (`REPO:1.0`) as `repo:1.0` on a side, removed at the end. */
  tag(side: Side, repo: string): Promise<void>
  /**
   * Makes `repo:1.0` a one-layer image of its own on a side (on the real host, imported; removed at the end): a layer
   * no registry holds, whatever the other cases pushed meanwhile.
   */
  freshImage(side: Side, repo: string): Promise<void>
}

/** Why a case may not run here, or undefined. */
export type Need = 'docker-cli' | 'auth-registry' | 'local-daemon'

export interface Case {
  readonly id: string
  readonly title: string
  readonly needs?: readonly Need[]
  /** Takes long on a real daemon (its retry countdowns): run beside the others. */
  readonly slow?: boolean
  /** The transcript this side's client saw. */
  run(side: Side, ctx: CaseContext): Promise<string[]>
}

// As the docker CLI encodes it: base64url with its padding (the 20.10 daemon refuses it unpadded).
const auth = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64').replace(/\+/g, '-').replace(/\//g, '_')

function push(name: string, query: string, headers: Record<string, string> = { 'x-registry-auth': 'e30=' }) {
  return async (side: Side) => answerLines(await side.request('POST', `${side.prefix}/images/${name}/push${query}`, { headers, timeoutMs: 120_000 }))
}

const filtersQuery = (filters: Record<string, string[]>) => `filters=${encodeURIComponent(JSON.stringify(filters))}`

/**
 * The service reports two container events, `start` and `stop` (spec: Events); a container whose process exits is
 * `stop` with its exit code, which Docker reports as `die`. So the real side asks for `die` beside `stop` and reads
 * its events as the service's: see {@link serviceEvents}, deliberate `events-start-stop-only`.
 */
function dockerFiltersFor(side: Side, filters: Record<string, string[]>): Record<string, string[]> {
  if (side.name !== 'real' || filters.event === undefined) return filters
  return { ...filters, event: filters.event.flatMap((e) => (e === 'stop' ? ['die', 'stop'] : [e])) }
}

/** `GET /events` over the side's lifecycle window with filters: the lines this run's containers produced. */
async function events(side: Side, filters: Record<string, string[]> | undefined, ctx: CaseContext, window = `since=${side.since}&until=${side.until}`): Promise<string[]> {
  const q = [window, ...(filters ? [filtersQuery(dockerFiltersFor(side, filters))] : [])].join('&')
  const answer = await side.request('GET', `${side.prefix}/events?${q}`, { timeoutMs: 20_000 })
  const lines = answerLines(answer)
  const ours = (l: string) => !l.startsWith('{') || l.includes(`"name":"dockside-verify-${ctx.state.run}-`)
  return lines.filter(ours)
}

/** `GET /events/ws` on the fake; on the real daemon, its `GET /events` read as the service's frames. */
async function eventsWs(side: Side, filters: Record<string, string[]> | undefined, ctx: CaseContext): Promise<string[]> {
  if (side.name === 'real') {
    const lines = await events(side, filters, ctx)
    if (lines[0] !== 'HTTP 200') return lines
    return ['HTTP 101', ...framesOfDockerEvents(serviceEvents(lines.filter((l) => l.startsWith('{'))))]
  }
  const q = [`since=${side.since}`, `until=${side.until}`, ...(filters ? [filtersQuery(filters)] : [])].join('&')
  return ctx.websocket(side, `/events/ws?${q}`)
}

const EVENT_FILTERS: [string, string, (s: Side, st: VerifyState) => Record<string, string[]> | undefined][] = [
  ['none', 'no filters', () => undefined],
  ['container-name', 'container by name', (s) => ({ container: [s.web.name] })],
  ['container-id', 'container by id prefix', (s) => ({ container: [s.web.id.slice(0, 12)] })],
  ['container-two', 'two containers (values OR)', (s) => ({ container: [s.web.name, s.job.id] })],
  ['event-start', 'event=start', () => ({ event: ['start'] })],
  ['event-stop', 'event=stop (a stop, and an exit with a code)', () => ({ event: ['stop'] })],
  ['image-name', 'image by name:tag', (_s, st) => ({ image: [st.base] })],
  ['image-untagged', 'image by name without its tag', (_s, st) => ({ image: [st.base.replace(/:[^:/]+$/, '')] })],
  ['label-key', 'label key', () => ({ label: ['app'] })],
  ['label-value', 'label key=value', () => ({ label: ['app=web'] })],
  ['label-empty-key', 'label with an empty value, by key', () => ({ label: ['empty'] })],
  ['label-empty-value', 'label with an empty value, key=', () => ({ label: ['empty='] })],
  ['label-equals', 'label whose value holds =', () => ({ label: ['eq=a=b'] })],
  ['label-all', 'two labels (every one must match)', () => ({ label: ['app=web', 'eq=a=b'] })],
  ['label-instance-type', 'the instance type label', () => ({ label: ['sh_hyper_instancetype=s4'] })],
  ['compound', 'event and label together', () => ({ event: ['stop'], label: ['app=web'] })],
]

const EVENT_CASES: Case[] = [
  // An `until` at 1970 is past, so the stream ends after its replay, which the daemon does not cut at that `until`;
  // the fake stops its replay there (deliberate: events-until-epoch).
  { id: 'events/until-zero', title: 'GET /events?since=0&until=0, event=start: every retained start, then the end', run: (s: Side, ctx: CaseContext) => events(s, { event: ['start'] }, ctx, 'since=0&until=0') },
  ...EVENT_FILTERS.flatMap(([id, title, filters]) => [
  { id: `events/${id}`, title: `GET /events, ${title}`, run: (s: Side, ctx: CaseContext) => events(s, filters(s, ctx.state), ctx) },
  { id: `events-ws/${id}`, title: `GET /events/ws, ${title}`, run: (s: Side, ctx: CaseContext) => eventsWs(s, filters(s, ctx.state), ctx) },
  ]),
]

const PUSH_CASES: Case[] = [
  { id: 'push/tag-query', title: 'push with ?tag=, first to the registry', run: (s, { state }) => push(state.repo, '?tag=1.0')(s) },
  { id: 'push/again', title: 'the same push again (layers exist)', run: (s, { state }) => push(state.repo, '?tag=1.0')(s) },
  { id: 'push/mounted', title: 'the same layers to another repository of the registry', run: (s, { state }) => push(state.otherRepo, '?tag=1.0')(s) },
  { id: 'push/all-tags', title: 'push with no tag: every tag of the repository', run: (s, { state }) => push(state.repo, '')(s) },
  { id: 'push/empty-tag', title: 'push with an empty ?tag=', run: (s, { state }) => push(state.repo, '?tag=')(s) },
  { id: 'push/tag-in-name', title: 'push with the tag in the name', run: (s, { state }) => push(`${state.repo}:2.0`, '')(s) },
  { id: 'push/unknown-image', title: 'push of an unknown image', run: (s, { state }) => push(`${state.registry}/dockside-verify-${state.run}/nope`, '?tag=1.0')(s) },
  { id: 'push/unknown-tag', title: 'push of an unknown tag', run: (s, { state }) => push(state.repo, '?tag=9.9')(s) },
  { id: 'push/bad-name', title: 'push of a name that is no reference (upper case)', run: (s, { state }) => push(`${state.registry}/Dockside/App`, '?tag=1.0')(s) },
  { id: 'push/bad-tag', title: 'push with a tag that is no tag', run: (s, { state }) => push(state.repo, '?tag=bad!tag')(s) },
  { id: 'push/no-auth-header', title: 'push with no X-Registry-Auth', run: (s, { state }) => push(state.repo, '?tag=1.0', {})(s) },
  {
    id: 'push/registry-down',
    title: 'push to a registry that is down',
    needs: ['local-daemon'],
    async run(s, ctx) {
      const repo = ctx.state.repo.replace(ctx.state.registry, ctx.downRegistry)
      await ctx.tag(s, repo)
      return push(repo, '?tag=1.0')(s)
    },
  },
  {
    id: 'push/registry-dies',
    title: 'push to a registry that dies mid-upload',
    needs: ['local-daemon'],
    slow: true,
    async run(s, ctx) {
      const host = await ctx.dyingRegistry(s)
      const repo = `${host}/dockside-verify-${ctx.state.run}/app`
      // Its own layer: the push it dies in must upload, not find the layer the other cases pushed to the registry.
      await ctx.freshImage(s, repo)
      return answerLines(await s.request('POST', `${s.prefix}/images/${repo}/push?tag=1.0`, { headers: { 'x-registry-auth': 'e30=' }, timeoutMs: 180_000 }))
    },
  },
]

function authCases(): Case[] {
  const needs: Need[] = ['auth-registry']
  const reg = (st: VerifyState) => st.authRegistry!
  return [
    { id: 'push-auth/none', title: 'push to a registry that wants credentials, with none', needs, run: (s, { state }) => push(state.authRepo!, '?tag=1.0')(s) },
    { id: 'push-auth/wrong', title: 'push with wrong credentials', needs, run: (s, { state }) => push(state.authRepo!, '?tag=1.0', { 'x-registry-auth': auth({ username: reg(state).username, password: 'wrong', serveraddress: reg(state).host }) })(s) },
    { id: 'push-auth/right', title: 'push with the right credentials', needs, run: (s, { state }) => push(state.authRepo!, '?tag=1.0', { 'x-registry-auth': auth({ username: reg(state).username, password: reg(state).password, email: 'ci@example.com', serveraddress: reg(state).host }) })(s) },
    { id: 'push-auth/token', title: 'push with the token form (registrytoken)', needs, run: (s, { state }) => push(state.authRepo!, '?tag=1.0', { 'x-registry-auth': auth({ registrytoken: 'not-a-token' }) })(s) },
    { id: 'auth/open', title: 'POST /auth to the open registry', run: async (s, { state }) => answerLines(await s.request('POST', `${s.prefix}/auth`, { body: JSON.stringify({ username: 'u', password: 'p', serveraddress: state.registry }), headers: { 'content-type': 'application/json' } })) },
    { id: 'auth/right', title: 'POST /auth with the right password', needs, run: async (s, { state }) => answerLines(await s.request('POST', `${s.prefix}/auth`, { body: JSON.stringify({ username: reg(state).username, password: reg(state).password, serveraddress: reg(state).host }), headers: { 'content-type': 'application/json' } })) },
    { id: 'auth/wrong', title: 'POST /auth with a wrong password', needs, run: async (s, { state }) => answerLines(await s.request('POST', `${s.prefix}/auth`, { body: JSON.stringify({ username: reg(state).username, password: 'wrong', serveraddress: reg(state).host }), headers: { 'content-type': 'application/json' } })) },
  ]
}

const get = (path: (s: Side, st: VerifyState) => string, body: 'lines' | 'keys' = 'lines') => async (s: Side, ctx: CaseContext) => answerLines(await s.request('GET', `${s.prefix}${path(s, ctx.state)}`), { body })

const ROUTE_CASES: Case[] = [
  { id: 'tag/new', title: 'POST /images/{name}/tag to a new tag', run: async (s, { state }) => answerLines(await s.request('POST', `${s.prefix}/images/${state.repo}:1.0/tag?repo=${state.repo}&tag=3.0`)) },
  { id: 'tag/bad-tag', title: 'tag with a tag that is no tag', run: async (s, { state }) => answerLines(await s.request('POST', `${s.prefix}/images/${state.repo}:1.0/tag?repo=${state.repo}&tag=bad!`)) },
  { id: 'tag/digest-repo', title: 'tag to a digest reference', run: async (s, { state }) => answerLines(await s.request('POST', `${s.prefix}/images/${state.repo}:1.0/tag?repo=${state.repo}@sha256:${'0'.repeat(64)}`)) },
  { id: 'tag/unknown-source', title: 'tag of an unknown image', run: async (s, { state }) => answerLines(await s.request('POST', `${s.prefix}/images/${state.repo}:9.9/tag?repo=${state.repo}&tag=4.0`)) },
  { id: 'ping', title: 'GET /_ping', run: get(() => '/_ping') },
  { id: 'options', title: 'OPTIONS on a Docker route (a browser\'s CORS preflight)', run: async (s) => answerLines(await s.request('OPTIONS', `${s.prefix}/containers/json`)) },
  { id: 'version', title: 'GET /version (keys)', run: get(() => '/version', 'keys') },
  { id: 'containers/list', title: 'GET /containers/json?all=1 filtered by label (keys)', run: get((_s, st) => `/containers/json?all=1&${filtersQuery({ label: [`dockside.verify=${st.run}`] })}`, 'keys') },
  { id: 'containers/inspect', title: 'GET /containers/{id}/json (keys)', run: get((s) => `/containers/${s.web.id}/json`, 'keys') },
  { id: 'containers/empty-filters', title: 'GET /containers/json with an empty ancestor (selects none) and an empty status (no filter)', run: async (s, { state }) => [
    ...answerLines(await s.request('GET', `${s.prefix}/containers/json?all=1&${filtersQuery({ ancestor: [] })}`)),
    ...answerLines(await s.request('GET', `${s.prefix}/containers/json?all=1&filters=${encodeURIComponent(JSON.stringify({ status: {}, label: { [`dockside.verify=${state.run}`]: true } }))}`), { body: 'keys' }),
  ] },
  { id: 'images/empty-reference', title: 'GET /images/json with an empty reference filter (selects none)', run: get(() => `/images/json?filters=${encodeURIComponent('{"reference":{}}')}`) },
  { id: 'images/list', title: 'GET /images/json?filters=reference (keys)', run: get((_s, st) => `/images/json?${filtersQuery({ reference: [`${st.repo}:1.0`] })}`, 'keys') },
  { id: 'images/inspect', title: 'GET /images/{name}/json (keys)', run: get((_s, st) => `/images/${st.repo}:1.0/json`, 'keys') },
  { id: 'images/list-nulls', title: 'GET /images/json: Labels and RepoDigests null or a list', run: async (s, { state }) => {
    const list = JSON.parse((await s.request('GET', `${s.prefix}/images/json?${filtersQuery({ reference: [`${state.repo}:1.0`] })}`)).body.toString()) as { Labels: unknown; RepoDigests: unknown }[]
    return list.map((i) => JSON.stringify({ Labels: i.Labels, RepoDigests: i.RepoDigests === null ? null : Array.isArray(i.RepoDigests) ? 'a list' : typeof i.RepoDigests }))
  } },
  { id: 'images/repo-tags', title: 'RepoTags of an image tagged several times', run: async (s, { state }) => [JSON.stringify(JSON.parse((await s.request('GET', `${s.prefix}/images/${state.repo}:1.0/json`)).body.toString()).RepoTags.filter((t: string) => t.includes(state.run)))] },
  { id: 'errors/unknown-route', title: 'an unknown route', run: get(() => '/nope') },
  { id: 'errors/unknown-container', title: 'inspect of an unknown container', run: get(() => '/containers/dockside-verify-nope/json') },
  { id: 'errors/unknown-image', title: 'inspect of an unknown image', run: get(() => '/images/dockside-verify-nope/json') },
  { id: 'errors/start-unknown', title: 'start of an unknown container', run: async (s) => answerLines(await s.request('POST', `${s.prefix}/containers/dockside-verify-nope/start`)) },
  { id: 'errors/bad-filters-json', title: 'GET /events with filters that are not JSON', run: get((s) => `/events?since=${s.since}&until=${s.until}&filters=%7Bbad`) },
  { id: 'errors/unknown-filter', title: 'GET /events with an unknown filter name', run: get((s) => `/events?since=${s.since}&until=${s.until}&${filtersQuery({ colour: ['red'] })}`) },
  { id: 'errors/list-unknown-filter', title: 'GET /containers/json with an unknown filter name', run: get(() => `/containers/json?${filtersQuery({ colour: ['red'] })}`) },
  { id: 'errors/since-after-until', title: 'GET /events with since after until', run: get(() => '/events?since=10&until=5') },
  { id: 'errors/path-escape', title: 'a broken escape in the request path', run: get(() => '/containers/dockside-verify-%ZZ/json') },
  { id: 'errors/api-1.23', title: 'an error to API 1.23 (plain text before JSON errors)', run: async (s) => answerLines(await s.request('GET', '/v1.23/containers/dockside-verify-nope/json')) },
  { id: 'errors/api-too-old', title: 'an API version older than the daemon serves', run: async (s) => answerLines(await s.request('GET', '/v1.11/_ping')) },
  { id: 'errors/unclean-path', title: 'a path with // (the router redirects it)', run: get(() => '//containers/json?all=1') },
  { id: 'errors/query-escape', title: 'a broken escape in a query a route reads', run: get(() => '/containers/json?all=%ZZ') },
  { id: 'errors/query-semicolon', title: 'a ";" between query parameters', run: get(() => '/containers/json?all=1;size=1') },
  { id: 'errors/upper-case-image', title: 'inspect of an upper-case image name', run: get(() => '/images/Dockside-Verify-Nope/json') },
  { id: 'errors/long-image-name', title: 'inspect of a 238-character name (256 with docker.io/library/)', run: get(() => `/images/${'d'.repeat(238)}/json`) },
  { id: 'errors/short-digest', title: 'inspect of a reference with a 32-digit sha256 digest', run: get(() => `/images/dockside-verify-nope@sha256:${'0'.repeat(32)}/json`) },
  { id: 'errors/publish-filter', title: 'GET /containers/json with a publish range the daemon cannot read', run: get(() => `/containers/json?${filtersQuery({ publish: ['5-3'] })}`) },
  { id: 'errors/expose-filter', title: 'GET /containers/json with an expose port out of range', run: get(() => `/containers/json?${filtersQuery({ expose: ['70000/udp'] })}`) },
  { id: 'tag/long-repo', title: 'tag to a 238-character repository name', run: async (s, { state }) => answerLines(await s.request('POST', `${s.prefix}/images/${state.repo}:1.0/tag?repo=${'d'.repeat(238)}&tag=1`)) },
  { id: 'push/short-digest', title: 'push of a reference with a 32-digit sha256 digest', run: (s, { state }) => push(`${state.repo}@sha256:${'0'.repeat(32)}`, '')(s) },
]

const CLI_CASES: Case[] = [
  { id: 'cli/push', title: 'docker push', needs: ['docker-cli'], run: async (s, ctx) => commandLines(await ctx.docker(s, ['push', `${ctx.state.repo}:2.0`])) },
  { id: 'cli/push-unknown', title: 'docker push of an unknown image', needs: ['docker-cli'], run: async (s, ctx) => commandLines(await ctx.docker(s, ['push', `${ctx.state.repo}:9.9`])) },
  { id: 'cli/events', title: 'docker events --since --until --filter', needs: ['docker-cli'], run: async (s, ctx) => commandLines(await ctx.docker(s, ['events', '--since', s.since, '--until', s.until, '--filter', `label=dockside.verify=${ctx.state.run}`, '--filter', 'event=start'])) },
  { id: 'cli/ps', title: 'docker ps -a --filter label', needs: ['docker-cli'], run: async (s, ctx) => commandLines(await ctx.docker(s, ['ps', '-a', '--filter', `label=dockside.verify=${ctx.state.run}`, '--format', '{{.Names}} {{.Image}} {{.Status}} {{.Labels}}'])) },
  { id: 'cli/inspect-template', title: 'docker inspect -f with HostConfig and State fields', needs: ['docker-cli'], run: async (s, ctx) => commandLines(await ctx.docker(s, ['inspect', '-f', '{{.HostConfig.Memory}} {{.HostConfig.NetworkMode}} {{.State.Status}} {{.State.ExitCode}} {{.Config.Image}} {{.Name}}', s.web.name])) },
  { id: 'cli/inspect-unknown', title: 'docker inspect of an unknown object', needs: ['docker-cli'], run: async (s, ctx) => commandLines(await ctx.docker(s, ['inspect', 'dockside-verify-nope'])) },
  { id: 'cli/start-unknown', title: 'docker start of an unknown container', needs: ['docker-cli'], run: async (s, ctx) => commandLines(await ctx.docker(s, ['start', 'dockside-verify-nope'])) },
  { id: 'cli/tag-bad', title: 'docker tag to a bad tag', needs: ['docker-cli'], run: async (s, ctx) => commandLines(await ctx.docker(s, ['tag', `${ctx.state.repo}:1.0`, `${ctx.state.repo}:bad!`])) },
  { id: 'cli/login-wrong', title: 'docker login with a wrong password', needs: ['docker-cli', 'auth-registry'], run: async (s, ctx) => commandLines(await ctx.docker(s, ['login', '-u', ctx.state.authRegistry!.username, '-p', 'wrong', ctx.state.authRegistry!.host])) },
]

/** The catalogue, in the order it runs (pushes before the cases that read what they left). */
export function catalogue(): Case[] {
  return [...PUSH_CASES, ...authCases(), ...EVENT_CASES, ...ROUTE_CASES, ...CLI_CASES]
}
