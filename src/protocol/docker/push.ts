import { findPushStreamFault, type FaultAction, type FaultDecision } from '../../faults/plan'
import type { Service } from '../../core/service'
import { daemonReferenceText, referenceLimitError, referenceLimitHint } from './references'
import { goJsonError, goJsonKind } from '../go/json-error'
import { registryHost } from '../../service/registries'
import { interruptedLine, pushEndedBy, PushReset, pushedByIdProblem, readPushTarget, startPush, type PushTarget } from '../../service/push'
import { apiAtLeast } from '../api-version'
import { IMAGE_PLATFORM } from './images'
import { connectLatency, findAction as find, refusalResponse } from '../faults'
import { dockerError, invalidParameterStatus, jsonError, queryRefusal, targetOf, type Target } from '../http'
import { SERVER_SHUTDOWN, TransportReset, type ProtoRequest, type ProtoResponse } from '../types'

const asTransportReset = (error: unknown): never => {
  if (error instanceof PushReset) throw new TransportReset(error.message)
  throw error
}

/**
 * The model's stream as the transport reads it: its push reset turned into the transport's, and lines dribbled when a
 * fault says so. Without a dribble it forwards each chunk as is, with no generator of its own in between: every promise
 * hop per chunk counts when the clock fires a push's ticks back to back.
 */
function shaped(svc: Service, split: SplitSignal, target: PushTarget, lines: AsyncIterable<string>, dribble: FaultDecision | undefined): AsyncIterable<string> {
  if (dribble?.action.kind === 'dribble') return dribbled(svc, split, target, lines, dribble)
  const iterator = lines[Symbol.asyncIterator]()
  const forward: AsyncIterator<string> = {
    next: () => iterator.next().catch(asTransportReset),
    return: (value?: unknown) => (iterator.return ? iterator.return(value).catch(asTransportReset) : Promise.resolve({ done: true, value: undefined })),
  }
  return { [Symbol.asyncIterator]: () => forward }
}

/**
 * A slow dribble: each line on its own, `line` (+ seeded jitter) of clock time apart. Stopped by a reset, a close or
 * the server closing while its client waits, it ends with the push's error line (it ended clean, which reads as done).
 */
async function* dribbled(svc: Service, split: SplitSignal, target: PushTarget, lines: AsyncIterable<string>, dribble: FaultDecision): AsyncGenerator<string> {
  const d = dribble.action as Extract<FaultAction, { kind: 'dribble' }>
  const wait = split.halt ? AbortSignal.any([split.client, split.halt]) : split.client
  try {
    for await (const chunk of lines) {
      for (const line of chunk.split(/(?<=\n)/)) {
        if (line === '') continue
        const ms = d.lineMs + svc.faults.jitter(dribble.rule.id, d.jitterMs, 'dribble')
        if (!(await svc.clock.sleep(ms, wait, 'wait'))) {
          const by = pushEndedBy(split.client, split.halt)
          svc.journal.record('push.cancelled', { repository: target.repository, tag: target.tag, registry: registryHost(target.repository), by })
          if (by !== 'client') yield interruptedLine(target.ref, by)
          return
        }
        yield line
      }
    }
  } catch (error) {
    asTransportReset(error)
  }
}

/** A request's signal split by why it aborts: its client leaving, or the server shutting down (`halt`). */
interface SplitSignal {
  client: AbortSignal
  halt?: AbortSignal
}

/** The server aborts a request's signal with SERVER_SHUTDOWN when it closes; every other abort is the client leaving. */
function splitShutdown(signal: AbortSignal): SplitSignal {
  if (signal.aborted) return signal.reason === SERVER_SHUTDOWN ? { client: new AbortController().signal, halt: signal } : { client: signal }
  const client = new AbortController()
  const halt = new AbortController()
  // Stryker disable next-line ObjectLiteral,BooleanLiteral: a signal fires 'abort' at most once, so `once` only frees the listener sooner
  signal.addEventListener('abort', () => (signal.reason === SERVER_SHUTDOWN ? halt : client).abort(signal.reason), { once: true })
  return { client: client.signal, halt: halt.signal }
}

/**
 * A push answered with a refusal (a rate limit's 429, a fault's reply) is on the push board too, failed with the answer
 * the client saw: the dashboard showed nothing of it. A reference the daemon would refuse names no push to show.
 */
function refusedOnBoard(svc: Service, target: PushTarget | { problem: string }, status: number, message: string) {
  if ('problem' in target) return
  const tags = target.tag ? [target.tag] : svc.images.tagsOf(target.repository)
  svc.pushes.begin(target.repository, tags, registryHost(target.repository), svc.clock.now()).end('failed', `${status}: ${message}`)
}

/** An OCI platform as a push's `platform` names it. */
interface Platform {
  os: string
  architecture: string
  variant: string
}

const PLATFORM_EXAMPLE = '{"os":"linux","architecture":"amd64"}'

/**
 * A push's `platform` (API 1.46 and later: `docker push --platform`), read as the daemon's decodePlatform reads it: JSON
 * of an OCI platform with both `os` and `architecture`, keys in any case (Go's encoding/json). Undefined when none was
 * sent or the API version is older (the daemon ignores it there); a refusal is the 400's help and the daemon's words
 * (httputils.DecodePlatform: Go's json error behind `failed to parse platform: `, then its two checks).
 */
function pushPlatform(target: Target): Platform | { help: string; wire: string } | undefined {
  const raw = target.query.get('platform')
  if (!raw || !apiAtLeast(target.version, '1.46')) return undefined
  const shown = JSON.stringify(raw.length > 100 ? `${raw.slice(0, 100)}...` : raw)
  const expected = `expected an OCI platform such as ${PLATFORM_EXAMPLE}`
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    return { help: `failed to parse platform: ${shown} is not JSON; ${expected}.`, wire: `failed to parse platform: ${goJsonError(raw) ?? 'unexpected end of JSON input'}` }
  }
  if (json !== null && (typeof json !== 'object' || Array.isArray(json))) {
    return { help: `failed to parse platform: ${shown} is not a JSON object; ${expected}.`, wire: `failed to parse platform: json: cannot unmarshal ${goJsonKind(json)} into Go value of type v1.Platform` }
  }
  const fields = new Map(Object.entries(json ?? {}).map(([k, v]) => [k.toLowerCase(), v]))
  for (const [name, value] of fields) {
    const list = name === 'os.features'
    const ok = list ? Array.isArray(value) && value.every((f) => typeof f === 'string' || f === null) : typeof value === 'string'
    if (value !== null && !ok && ['os', 'architecture', 'variant', 'os.version', 'os.features'].includes(name)) {
      const bad = list && Array.isArray(value) ? value.find((f) => typeof f !== 'string' && f !== null) : value
      const type = list && !Array.isArray(value) ? '[]string' : 'string'
      return { help: `failed to parse platform: "${name}" in ${shown} must be ${list ? 'a list of strings' : 'a string'}; ${expected}.`, wire: `failed to parse platform: json: cannot unmarshal ${goJsonKind(bad)} into Go struct field Platform.${name} of type ${type}` }
    }
  }
  const text = (name: string) => (typeof fields.get(name) === 'string' ? (fields.get(name) as string) : '')
  const p = { os: text('os'), architecture: text('architecture'), variant: text('variant') }
  if (p.os === '' || p.architecture === '') {
    const optional = p.variant !== '' || text('os.version') !== '' || ((fields.get('os.features') as unknown[] | undefined)?.length ?? 0) > 0
    const why = optional && p.os === '' && p.architecture === '' ? 'optional platform fields provided, but OS and Architecture are missing' : 'both OS and Architecture must be provided'
    return { help: `${why}: platform ${shown}; ${expected}.`, wire: why }
  }
  return p
}

/** Architecture spellings containerd's platforms package reads as the same one. */
const ARCHITECTURE_ALIASES: Record<string, string> = { x86_64: 'amd64', 'x86-64': 'amd64', aarch64: 'arm64' }

/**
 * Whether the fake's images (all {@link IMAGE_PLATFORM}) are of `p`, as the daemon's platform matcher reads it: the OS
 * in any case, an architecture's aliases, and any amd64 variant (a request for amd64/v2 falls back to plain amd64).
 */
function ofImagePlatform(p: Platform): boolean {
  const arch = p.architecture.toLowerCase()
  return p.os.toLowerCase() === IMAGE_PLATFORM.os && (ARCHITECTURE_ALIASES[arch] ?? arch) === IMAGE_PLATFORM.architecture
}

/**
 * The daemon's 404 for a push whose `platform` the image is not (its GetImage with a platform, before the stream), or
 * undefined. No such image is left to the push itself, which answers it as it always does.
 */
function platformMismatch(svc: Service, target: PushTarget, platform: Platform): { help: string; wire: string } | undefined {
  if (ofImagePlatform(platform)) return undefined
  const tags = svc.images.tagsOf(target.repository)
  if (target.tag ? !tags.includes(target.tag) : tags.length === 0) return undefined
  const wanted = [platform.os, platform.architecture, platform.variant].filter(Boolean).join('/')
  const actual = `${IMAGE_PLATFORM.os}/${IMAGE_PLATFORM.architecture}`
  // Engine 28's GetImage names the image familiar (`busybox:local`) and each platform as platforms.FormatAll writes it.
  const ref = `${target.repository}${target.tag ? `:${target.tag}` : ''}`
  return {
    help: `image with reference ${ref} was found but its platform (${actual}) does not match the specified platform (${wanted}). The fake's images are all ${actual}: push without --platform, or with --platform ${actual}.`,
    wire: `image with reference ${ref} was found but its platform (${actual}) does not match the specified platform (${wanted})`,
  }
}

/**
 * `POST /images/{name}/push`. `name` is read as image inspect reads it (familiarName: the CLI sends Docker Hub names as
 * `docker.io/library/nginx`). A reference the daemon refuses, or an image id, is answered before fault rules are
 * consulted: it names no image a rule could match, and a refused push changes nothing.
 */
export async function pushRoute(svc: Service, req: ProtoRequest, name: string, tag: string | undefined, clientQuery?: string): Promise<ProtoResponse> {
  // The client id as every route reads it: the header, else the `client` query parameter (docs/faults.md `match.client`).
  const client = req.headers['x-dockside-client'] ?? clientQuery
  // Read once: the board, the checks, the fault rules and the model all take this target.
  const read = readPushTarget(name, tag)
  const verdict = svc.rateLimit.check('push', client ?? req.remoteAddress ?? 'local')
  if (!verdict.allowed) {
    refusedOnBoard(svc, read, 429, verdict.message)
    return refusalResponse(429, verdict.message, verdict.retryAfter)
  }
  // postImagesPush reads its form first: a query Go cannot read is its 400.
  const unreadable = queryRefusal(targetOf(req.url))
  if (unreadable) return unreadable
  // Checked as sent, so the message names what the client wrote; the daemon's own words on the wire, with its status
  // for the API version, and dockside's help in X-Dockside-Hint.
  const version = targetOf(req.url).version
  // What reference.Parse refuses past its grammar (a name over 255 characters, a malformed digest) comes first.
  const limit = referenceLimitError(name)
  if (limit) return dockerError(invalidParameterStatus(version), limit, referenceLimitHint(name, limit))
  if ('problem' in read) return dockerError(invalidParameterStatus(version), daemonReferenceText(name, tag, version), read.problem)
  const target = read
  const byId = pushedByIdProblem(svc.images, target)
  if (byId) return jsonError(404, byId)
  // As the daemon: the platform is read after the reference (400), then the image is looked up by it (404).
  const platform = pushPlatform(targetOf(req.url))
  if (platform && 'wire' in platform) return dockerError(400, platform.wire, platform.help)
  const mismatch = platform && platformMismatch(svc, target, platform)
  if (mismatch) return dockerError(404, mismatch.wire, mismatch.help)
  const decisions = svc.faults.decideAll('push', { route: `/images/${name}/push`, image: target.ref, client })
  const reply = find(decisions, 'reply')?.action
  if (reply) {
    refusedOnBoard(svc, target, reply.status, reply.message)
    return refusalResponse(reply.status, reply.message, reply.retryAfter)
  }
  if (!(await connectLatency(svc, decisions, req.signal))) return jsonError(503, 'the client went away during injected latency')
  const struck = findPushStreamFault(decisions)
  const fault = struck?.action
  const faultMissed = struck && ((why: string) => svc.faults.missed(struck.rule.id, why))
  const split = splitShutdown(req.signal)
  const start = startPush(
    { images: svc.images, registries: svc.registries, clock: svc.clock, journal: svc.journal, bandwidth: svc.options.pushBandwidth, board: svc.pushes },
    { target, authHeader: req.headers['x-registry-auth'], signal: split.client, halt: split.halt, fault, faultMissed },
  )
  if (start.kind === 'not-found') {
    faultMissed?.(`the push of ${target.ref} was refused before it began (404)`)
    return jsonError(404, start.message)
  }
  return { status: 200, headers: { 'content-type': 'application/json' }, body: shaped(svc, split, target, start.lines, find(decisions, 'dribble')) }
}
