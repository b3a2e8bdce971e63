import type { Dockside } from '../dockside'
import { header, hostClient, parseHost, type Answer, type HostClient } from './host'

/** What verify creates on each side, by the same names: the state every case starts from. */
export interface VerifyState {
  /** The run's id: every name verify creates holds `dockside-verify-RUN`. */
  readonly run: string
  /** The image the user named (`--image`), with `sh`, `sleep` and `true`. */
  readonly base: string
  /** `REGISTRY/dockside-verify-RUN/app` (tags 1.0 and 2.0) and `.../other` (tag 1.0), all the base image. */
  readonly repo: string
  readonly otherRepo: string
  readonly registry: string
  /** A registry that asks for credentials, with the ones that pass, when the user named one. */
  readonly authRegistry: { host: string; username: string; password: string } | undefined
  /** `REG/dockside-verify-RUN/app` on the registry that asks for credentials. */
  readonly authRepo: string | undefined
  /** The label every container verify creates carries: `dockside.verify=RUN`. */
  readonly label: string
}

export interface SideContainer {
  readonly name: string
  readonly id: string
}

/** One side of the comparison: the real host or the fake, with the same state under each's own ids. */
export interface Side {
  readonly name: 'real' | 'fake'
  readonly client: HostClient
  /** `DOCKER_HOST` for the docker CLI. */
  readonly dockerHost: string
  /** The API version prefix every request carries (`/v1.41`): the real daemon's. */
  readonly prefix: string
  /** A running container with labels app=web, empty= and eq=a=b that stops with exit code 0. */
  web: SideContainer
  /** A container whose process exits with code 3. */
  job: SideContainer
  /** The window of this side's lifecycle events, as `sec.nanos` (inclusive). */
  since: string
  until: string
  /** The lifecycle's events of this run's containers, as the side's `GET /events` sent them. */
  lifecycle: string[]
  /** Makes `job` run and exit with code 3, as a client sees it (POST start; the process then exits). */
  runJob(): Promise<void>
  request(method: string, path: string, options?: Parameters<HostClient['request']>[2]): Promise<Answer>
}

export const VERIFY_LABEL = 'dockside.verify'

/** `sec.nanos` of a nanosecond time, as `docker events --since` sends it. */
export function secNanos(nano: bigint): string {
  return `${nano / 1_000_000_000n}.${String(nano % 1_000_000_000n).padStart(9, '0')}`
}

function expectStatus(answer: Answer, statuses: number[], what: string): Answer {
  if (!statuses.includes(answer.status)) throw new Error(`${what}: the host answered ${answer.status} ${answer.body.toString('utf8').trim()}`)
  return answer
}

/** The containers' spec on the real daemon: labels as the fake gives them (it adds the instance type). */
function containerLabels(state: VerifyState, extra: Record<string, string>): Record<string, string> {
  return { ...extra, [VERIFY_LABEL]: state.run, sh_hyper_instancetype: 's4' }
}

export const WEB_LABELS = { app: 'web', empty: '', eq: 'a=b' }

export interface RealSetup {
  side: Side
  /** The size of the one layer of the image the pushes send. */
  pushLayer: number
  /** Records a tag a case made, for the cleanup. */
  tagged(ref: string): void
  /** Imports a one-layer image of its own (a file naming `salt` and the run) as `ref`, removed at the end. */
  importImage(ref: string, salt: string): Promise<void>
  /** Removes what verify created on the host (containers, the tags it made); never throws, returns what it could not. */
  cleanup(): Promise<string[]>
}

/** The tags of the image the pushes send, the first the one it is imported as. */
export function pushTags(state: VerifyState): string[] {
  return [`${state.repo}:1.0`, `${state.repo}:2.0`, `${state.otherRepo}:1.0`, ...(state.authRepo ? [`${state.authRepo}:1.0`] : [])]
}

/** A tar of one file, `dockside-verify-RUN`, holding the run's id: `docker import` makes it a layer no registry has. */
export function runLayer(run: string): Buffer {
  const content = Buffer.from(`dockside verify run ${run}\n`)
  const header = Buffer.alloc(512)
  const put = (text: string, offset: number, length: number) => header.write(text.slice(0, length), offset, length, 'latin1')
  put(`dockside-verify-${run}`, 0, 100)
  put('0000644\0', 100, 8)
  put('0000000\0', 108, 8)
  put('0000000\0', 116, 8)
  put(`${content.length.toString(8).padStart(11, '0')}\0`, 124, 12)
  put('00000000000\0', 136, 12)
  put('        ', 148, 8)
  put('0', 156, 1)
  put('ustar\u000000', 257, 8)
  let sum = 0
  for (const b of header) sum += b
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8)
  const pad = Buffer.alloc((512 - (content.length % 512)) % 512)
  return Buffer.concat([header, content, pad, Buffer.alloc(1024)])
}

/** Every action verify takes on the real host, in order: `--dry-run` prints these. */
export function plannedActions(state: VerifyState): string[] {
  const c = (n: string) => `dockside-verify-${state.run}-${n}`
  return [
    `GET /_ping, GET /version, GET /images/${state.base}/json (read only)`,
    `POST /images/create?fromSrc=- (docker import): a one-layer image holding one file that names the run, as ${state.repo}:1.0 (and another, for the push through the proxy that dies)`,
    `POST /images/${state.repo}:1.0/tag: ${pushTags(state).slice(1).join(', ')} (and a few more tags the cases make under dockside-verify-${state.run}/)`,
    `POST /containers/create: ${c('web')} (sh waiting, stops with 0) and ${c('job')} (sh -c 'exit 3'), labelled ${VERIFY_LABEL}=${state.run}, --network none`,
    `POST /containers/{id}/start and /stop on those two; GET /events over their window`,
    `POST /images/{name}/push of ${state.repo} and ${state.otherRepo} to ${state.registry}${state.authRegistry ? ` and ${state.authRepo} to ${state.authRegistry.host}` : ''}; to a closed loopback port; through a loopback proxy to ${state.registry} that stops mid-upload`,
    `POST /auth for ${state.registry}${state.authRegistry ? ` and ${state.authRegistry.host}` : ''}`,
    `at the end, even when interrupted: DELETE /containers/{id}?force=1 for those two, DELETE /images/{tag} for every tag verify made (the base image stays; pushed repositories stay in the registries)`,
  ]
}

async function waitFor(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** Reads a `GET /events` stream until `done(lines)`; the lines of this run's containers only. */
async function lifecycleEvents(side: Pick<Side, 'request' | 'prefix'>, ids: string[], act: () => Promise<void>, done: (lines: string[]) => boolean): Promise<string[]> {
  const ours = (line: string) => ids.some((id) => line.includes(`"id":"${id}"`))
  const lines = () => received.split('\n').filter((l) => l && ours(l))
  let received = ''
  let settled = false
  const stream = side.request('GET', `${side.prefix}/events`, {
    timeoutMs: 30_000,
    until: (body) => {
      received = body.toString('utf8')
      return (settled = done(lines()))
    },
  })
  // The daemon flushes its headers at once; give the stream its subscription before acting.
  await new Promise((r) => setTimeout(r, 200))
  await act()
  await stream
  if (!settled) throw new Error(`the host's GET /events did not show the lifecycle within 30 s: ${lines().join('\n')}`)
  return lines()
}

function windowOf(lines: string[]): { since: string; until: string } {
  const times = lines.map((l) => BigInt(/"timeNano":(\d+)/.exec(l)![1]))
  const min = times.reduce((a, b) => (b < a ? b : a))
  const max = times.reduce((a, b) => (b > a ? b : a))
  return { since: secNanos(min), until: secNanos(max) }
}

const hasAction = (lines: string[], id: string, action: string) => lines.some((l) => l.includes(`"id":"${id}"`) && l.includes(`"Action":"${action}"`))

/**
 * Creates the state on the real host: tags of the base image, two labelled containers; then runs the lifecycle (start
 * web, run job, stop web) and reads its events back. On any failure what was created is removed before it throws.
 */
export async function setUpReal(hostText: string, state: VerifyState, apiVersion: string): Promise<RealSetup> {
  const client = hostClient(parseHost(hostText))
  const prefix = `/v${apiVersion}`
  const request: Side['request'] = (method, path, options) => client.request(method, path, options)
  const containers: string[] = []
  const tags: string[] = []
  const cleanup = async () => {
    const left: string[] = []
    for (const id of containers) {
      const a = await request('DELETE', `${prefix}/containers/${id}?force=1`).catch((e: Error) => ({ status: 0, body: Buffer.from(e.message) }))
      if (a.status !== 204 && a.status !== 404) left.push(`container ${id}: ${a.status} ${a.body.toString().trim()}`)
    }
    // The tags verify made, then any other under this run's name a case made (a tag case's new tag): all of them.
    const listed = await request('GET', `${prefix}/images/json`).catch(() => undefined)
    const ours = (JSON.parse(listed?.status === 200 ? listed.body.toString('utf8') : '[]') as { RepoTags?: string[] | null }[])
      .flatMap((i) => i.RepoTags ?? [])
      .filter((t) => t.includes(`/dockside-verify-${state.run}/`))
    for (const tag of new Set([...tags, ...ours])) {
      const a = await request('DELETE', `${prefix}/images/${encodeURIComponent(tag)}`).catch((e: Error) => ({ status: 0, body: Buffer.from(e.message) }))
      if (a.status !== 200 && a.status !== 404) left.push(`image ${tag}: ${a.status} ${a.body.toString().trim()}`)
    }
    return left
  }
  const importImage = async (ref: string, salt: string) => {
    const colon = ref.lastIndexOf(':')
    const imported = await request('POST', `${prefix}/images/create?fromSrc=-&repo=${encodeURIComponent(ref.slice(0, colon))}&tag=${encodeURIComponent(ref.slice(colon + 1))}`, { body: runLayer(salt), headers: { 'content-type': 'application/x-tar' } })
    expectStatus(imported, [200], `importing a one-layer image as ${ref}`)
    if (/"error"/.test(imported.body.toString('utf8'))) throw new Error(`importing a one-layer image as ${ref}: ${imported.body.toString('utf8').trim()}`)
    tags.push(ref)
  }
  try {
    // The image the pushes send: one layer made for this run (a file naming it), so that its first push uploads it
    // whatever earlier runs left in the registry, as the fake's does.
    await importImage(`${state.repo}:1.0`, state.run)
    for (const ref of pushTags(state).slice(1)) {
      const colon = ref.lastIndexOf(':')
      const q = `repo=${encodeURIComponent(ref.slice(0, colon))}&tag=${encodeURIComponent(ref.slice(colon + 1))}`
      expectStatus(await request('POST', `${prefix}/images/${encodeURIComponent(`${state.repo}:1.0`)}/tag?${q}`), [201], `tagging ${state.repo}:1.0 as ${ref}`)
      tags.push(ref)
    }
    const layer = JSON.parse((await request('GET', `${prefix}/images/${encodeURIComponent(`${state.repo}:1.0`)}/json`)).body.toString('utf8')).Size as number
    const create = async (role: string, cmd: string[], labels: Record<string, string>) => {
      const name = `dockside-verify-${state.run}-${role}`
      const body = JSON.stringify({ Image: state.base, Cmd: cmd, Labels: containerLabels(state, labels), HostConfig: { NetworkMode: 'none' } })
      const a = expectStatus(await request('POST', `${prefix}/containers/create?name=${name}`, { body, headers: { 'content-type': 'application/json' } }), [201], `creating ${name}`)
      const id = JSON.parse(a.body.toString('utf8')).Id as string
      containers.push(id)
      return { name, id }
    }
    // web stops cleanly on SIGTERM (exit 0), as the fake's containers do on POST stop.
    const web = await create('web', ['sh', '-c', 'trap "exit 0" TERM; while true; do sleep 1; done'], WEB_LABELS)
    const job = await create('job', ['sh', '-c', 'exit 3'], {})
    const side: Side = {
      name: 'real',
      client,
      dockerHost: hostText,
      prefix,
      web,
      job,
      since: '',
      until: '',
      lifecycle: [],
      async runJob() {
        expectStatus(await request('POST', `${prefix}/containers/${job.id}/start`), [204], `starting ${job.name}`)
        await waitFor(`${job.name} to exit`, async () => JSON.parse((await request('GET', `${prefix}/containers/${job.id}/json`)).body.toString()).State?.Running === false)
      },
      request,
    }
    await runLifecycle(side)
    return { side, cleanup, pushLayer: layer, tagged: (ref: string) => tags.push(ref), importImage }
  } catch (error) {
    await cleanup()
    throw error
  }
}

/** start web, run job (exits 3), stop web: on either side, read back through the side's own `GET /events`. */
async function runLifecycle(side: Side): Promise<void> {
  const { web, job } = side
  const lines = await lifecycleEvents(
    side,
    [web.id, job.id],
    async () => {
      expectStatus(await side.request('POST', `${side.prefix}/containers/${web.id}/start`), [204], `starting ${web.name}`)
      await side.runJob()
      expectStatus(await side.request('POST', `${side.prefix}/containers/${web.id}/stop?t=5`), [204], `stopping ${web.name}`)
    },
    (l) => hasAction(l, web.id, 'stop') && (hasAction(l, job.id, 'die') || hasAction(l, job.id, 'stop')),
  )
  side.lifecycle = lines
  Object.assign(side, windowOf(lines))
}

/** The fake's side: a fresh fake with the state {@link setUpReal} made, on a loopback port. */
export async function setUpFake(fake: Dockside, state: VerifyState, layerSizes: number[], pushLayer: number, apiVersion: string): Promise<Side> {
  fake.images.add(state.base.includes(':') || state.base.includes('@') ? state.base : `${state.base}:latest`, { layers: layerSizes })
  fake.images.add(`${state.repo}:1.0`, { layers: [pushLayer] })
  for (const ref of pushTags(state).slice(1)) fake.images.tag(`${state.repo}:1.0`, ref)
  fake.registries.add(state.registry)
  if (state.authRegistry) fake.registries.add(state.authRegistry.host, { username: state.authRegistry.username, password: state.authRegistry.password })
  const labels = { [VERIFY_LABEL]: state.run }
  // On the network the real ones are on (--network none: verify sets up no network on the host).
  const web = fake.containers.create({ name: `dockside-verify-${state.run}-web`, image: state.base, labels: { ...WEB_LABELS, ...labels }, networkMode: 'none' })
  const job = fake.containers.create({ name: `dockside-verify-${state.run}-job`, image: state.base, labels, networkMode: 'none' })
  const server = await fake.listen({ port: 0, host: '127.0.0.1' })
  const address = new URL(server.url)
  const client = hostClient({ kind: 'tcp', host: '127.0.0.1', port: Number(address.port) })
  const side: Side = {
    name: 'fake',
    client,
    dockerHost: `tcp://127.0.0.1:${address.port}`,
    prefix: `/v${apiVersion}`,
    web: { name: web.name, id: web.id },
    job: { name: job.name, id: job.id },
    since: '',
    until: '',
    lifecycle: [],
    async runJob() {
      expectStatus(await client.request('POST', `/v${apiVersion}/containers/${job.id}/start`), [204], `starting ${job.name}`)
      // The process exits by itself: in the fake, the model says so.
      fake.containers.get(job.id).stop({ exitCode: 3 })
    },
    request: (method, path, options) => client.request(method, path, options),
  }
  await runLifecycle(side)
  return side
}

/** The real daemon's API version (`/version`'s ApiVersion), and its headers for the record. */
export async function probe(hostText: string): Promise<{ apiVersion: string; version: string; os: string }> {
  const client = hostClient(parseHost(hostText))
  const ping = await client.request('GET', '/_ping', { timeoutMs: 10_000 })
  if (ping.status !== 200) throw new Error(`${hostText} answered GET /_ping with ${ping.status}: is it a Docker Engine API?`)
  const v = JSON.parse((await client.request('GET', '/version', { timeoutMs: 10_000 })).body.toString('utf8'))
  return { apiVersion: String(v.ApiVersion ?? header(ping, 'api-version')), version: String(v.Version), os: String(v.Os) }
}

/** The layer sizes of the base image on the real host (from its history, newest last), for the fake's copy. */
export async function baseImage(hostText: string, image: string, apiVersion: string): Promise<number[]> {
  const client = hostClient(parseHost(hostText))
  const inspect = await client.request('GET', `/v${apiVersion}/images/${encodeURIComponent(image)}/json`)
  if (inspect.status === 404) throw new Error(`${hostText} has no image "${image}": give --image an image it has, with sh (busybox, alpine...). None is pulled.`)
  expectStatus(inspect, [200], `inspecting ${image}`)
  const layers: string[] = JSON.parse(inspect.body.toString('utf8')).RootFS?.Layers ?? []
  const history = JSON.parse((await client.request('GET', `/v${apiVersion}/images/${encodeURIComponent(image)}/history`)).body.toString('utf8')) as { Size: number }[]
  const sizes = history
    .map((h) => h.Size)
    .filter((s) => s > 0)
    .reverse()
  return layers.map((_, i) => sizes[i] ?? 1024)
}
