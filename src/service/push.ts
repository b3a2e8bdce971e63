import { untilAborted } from './abort'
import type { Clock } from '../time/clock'
import { authorize, decodeRegistryAuth, maskAuth, type AuthConfig } from './auth'
import type { Image, Images, Layer } from './images'
import { familiarName, pushReferenceProblem, splitReference } from './images'
import type { Journal } from './journal'
import { qualifiedName, registryHost, type Registries } from './registries'
import type { PushBoard, PushTrack } from './push-board'

/**
 * What strikes a push mid-stream, as the model runs it: an error line, a reset, a truncated line, a stall, or a registry
 * out of reach (`dies`: mid-upload, with the daemon's retry countdowns; else from the start), each after `afterLayer`
 * layers or once `afterBytes` were pushed. The fault plan's push actions are these (faults/rule.ts).
 */
export type PushFault =
  | { kind: 'error'; message: string; afterLayer: number; afterBytes?: number }
  | { kind: 'reset' | 'truncate' | 'stall'; afterLayer: number; afterBytes?: number }
  | { kind: 'unreachable'; afterLayer: number; afterBytes?: number; dies: boolean }

export interface PushDeps {
  images: Images
  registries: Registries
  clock: Clock
  journal: Journal
  /** Bytes per second of (clock) time a push moves. */
  bandwidth: number
  /** Where the dashboard sees pushes in flight, layer by layer. */
  board?: PushBoard
}

export interface PushRequest {
  /** What is pushed, read once from the request ({@link readPushTarget}). */
  target: PushTarget
  /** The raw `X-Registry-Auth` header. */
  authHeader?: string
  /** Aborts (cancels) the push when the client goes away. */
  signal: AbortSignal
  /**
   * Aborts when the way in stops serving the push while its client is still there (the server closing): the push
   * ends as when the fake is reset or closed, with an error line that says so, never a clean end that reads as done.
   */
  halt?: AbortSignal
  /** A fault decided for this push: an error line, a reset, a truncated line, a stall or a registry out of reach, mid-stream. */
  fault?: PushFault
  /**
   * Called once when the push ends without the fault striking (it finished short of `afterLayer`/`afterBytes`, its
   * credentials were refused, its client left first): the rule did nothing, so it must not count as fired.
   */
  faultMissed?(why: string): void
}

/** Thrown by the push stream when a fault resets the connection; the protocol turns it into a transport reset. */
export class PushReset extends Error {}

/** Half of the last line of a chunk (every chunk ends with its last line's CRLF): a truncated JSON line. */
function truncateLast(chunk: string): string {
  const body = chunk.slice(0, -2)
  const start = body.lastIndexOf('\n') + 1
  const last = body.slice(start)
  return body.slice(0, start) + last.slice(0, Math.max(1, Math.floor(last.length / 2)))
}

export type PushStart =
  | { kind: 'not-found'; message: string }
  | { kind: 'stream'; repository: string; tags: string[]; lines: AsyncIterable<string> }

/** go-units' decimal abbreviations (decimapAbbrs), B to YB. */
const UNITS = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB']

/** Docker's units.HumanSize: 4 significant digits, decimal units. */
export function humanSize(bytes: number): string {
  let i = 0
  let n = bytes
  while (n >= 1000 && i < UNITS.length - 1) {
    n /= 1000
    i++
  }
  // 4 significant digits is n.toPrecision(4) read back as a number. Rounding the scaled value gives the same number
  // (in a third of the time: this runs for every progress line) except within a hair of a tie, where toPrecision's
  // exact rounding decides.
  if (n >= 1 && n < 1000) {
    const scale = n >= 100 ? 10 : n >= 10 ? 100 : 1000
    const x = n * scale
    if (Math.abs(x - Math.floor(x) - 0.5) > 1e-6) return `${Math.round(x) / scale}${UNITS[i]}`
  }
  return `${goPrecision4(n)}${UNITS[i]}`
}

/**
 * `n` to 4 significant digits as Go's `%.4g` rounds it: the exact binary value, and an exact tie to even (10125 bytes
 * is 10.12kB on the daemon), where toPrecision rounds a tie up (10.13kB).
 */
function goPrecision4(n: number): number {
  // 21 digits in fixed notation: finer than a double's spacing in [1, 1e4), so only an exact tie reads `...5000...`.
  // Past 1e4 (10^28 bytes) Go writes an exponent anyway.
  const exact = n >= 1 && n < 1e4 ? n.toPrecision(21) : ''
  const digits = exact.replace('.', '')
  if (digits[4] !== '5' || /[1-9]/.test(digits.slice(5)) || Number(digits[3]) % 2 === 1) return Number.parseFloat(n.toPrecision(4))
  // A tie after an even digit: the first 4 digits, truncated.
  let end = 0
  for (let count = 0; count < 4; end++) if (exact[end] !== '.') count++
  return Number.parseFloat(exact.slice(0, end))
}

/** The 51 progress bars, `[>   ...]` to `[=====...>]`. */
const BARS = Array.from({ length: 51 }, (_, pct) => `[${'='.repeat(pct)}>${' '.repeat(50 - pct)}] `)
const barIndex = (current: number, total: number) => Math.min(50, Math.floor((current / total) * 50))
const barOf = (current: number, total: number) => BARS[barIndex(current, total)]
/** The bars as the daemon's JSON carries them: Go's encoder writes `>` as `\u003e`. */
const JSON_BARS = BARS.map((bar) => bar.replace('>', '\\u003e'))

/** Docker's progress text: a 50-wide bar and `current/total`. */
export function progressText(current: number, total: number): string {
  return `${barOf(current, total)}${humanSize(current).padStart(8)}/${humanSize(total)}`
}

/** A string as Go's encoding/json writes it: `<`, `>`, `&`, U+2028 and U+2029 escaped, which JSON.stringify leaves. */
const goString = (s: string) => JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
const status = (s: string) => `{"status":${goString(s)}}\r\n`
const layerLine = (s: string, id: string) => `{"status":${JSON.stringify(s)},"progressDetail":{},"id":"${id}"}\r\n`
/** What a layer's progress lines share: the parts after `current` and after the current size. */
const lineParts = new WeakMap<Layer, readonly [string, string]>()
/**
 * A layer's `Pushing` line. The progress text needs no JSON escaping (brackets, `=`, spaces, digits, units and a
 * slash) but the bar's head, which Go writes `\u003e` (JSON_BARS); the parts that only depend on the layer are built
 * once per layer.
 */
function pushingLine(layer: Layer, current: number): string {
  let parts = lineParts.get(layer)
  if (!parts) {
    parts = [`,"total":${layer.size}},"progress":"`, `/${humanSize(layer.size)}","id":"${layer.shortId}"}\r\n`]
    lineParts.set(layer, parts)
  }
  return `{"status":"Pushing","progressDetail":{"current":${current}${parts[0]}${JSON_BARS[barIndex(current, layer.size)]}${humanSize(current).padStart(8)}${parts[1]}`
}
/** An error line after the stream started: both fields, or real clients miss it. */
/** Who ended a push that stopped before its tag: its client leaving (`signal`), its server closing (`halt`), else a reset or close of the fake. */
export const pushEndedBy = (signal: AbortSignal, halt: AbortSignal | undefined): 'client' | 'reset' | 'server' =>
  signal.aborted ? 'client' : halt?.aborted ? 'server' : 'reset'

/** The error line of a push the fake stopped serving while its client still read: a reset or close, or its server closing. */
export const interruptedLine = (ref: string, by: 'reset' | 'server') =>
  errorLine(`push of ${ref} interrupted: ${by === 'server' ? "the fake's server closed" : 'the fake was reset or closed'}; this tag was not pushed`)

export const errorLine = (message: string) => `{"errorDetail":{"message":${goString(message)}},"error":${goString(message)}}\r\n`

/**
 * How the daemon reaches a registry it cannot reach: over plain HTTP for a loopback registry (insecure by default, the
 * address its last try dialled), else HTTPS; the address with the scheme's port when the host names none.
 */
function registryAddress(host: string): { scheme: 'http' | 'https'; dial: string } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host)
  // Stryker disable next-line OptionalChaining: never null: every host of a reference readPushTarget took matches (a name or a bracketed IPv6 address, then an optional port of digits)
  const name = m?.[1] ?? host
  const loopback = name === 'localhost' || name.startsWith('127.') || name === '[::1]'
  const scheme = loopback ? 'http' : 'https'
  // Stryker disable next-line OptionalChaining: never null, as above
  return { scheme, dial: `${name === 'localhost' ? '127.0.0.1' : name}:${m?.[2] ?? (loopback ? '80' : '443')}` }
}

/** The daemon's upload retries (distribution/xfer: five attempts, `retries * 5` seconds before each next one). */
const RETRY_DELAYS_S = [5, 10, 15, 20]

const CONCURRENCY = 5
const TICK_MS = 100
/** Characters of progress lines a push gathers from ticks skipped to at once before it hands them on. */
const CHUNK_BYTES = 64 * 1024

/** What a push names: a repository and the tag to push, or none for every tag. */
export interface PushTarget {
  repository: string
  tag: string | undefined
  /** `repository:tag`, or the repository alone: what the push reports and fault rules match as `image`. */
  ref: string
}

/**
 * A push's `{name}` and `tag` query, read once into what the model pushes, or why the daemon refuses them (400): the
 * reference checked as sent (pushReferenceProblem, so the message names what the client wrote), then read as the
 * daemon stores it (Docker Hub names by their familiar name). The `tag` query wins over a tag in the name, as the
 * daemon's reference.WithTag replaces it; an empty query is no tag. A registry port is not a tag.
 */
export function readPushTarget(name: string, tag: string | undefined): PushTarget | { problem: string } {
  const problem = pushReferenceProblem(name, tag)
  if (problem) return { problem }
  const { repository, tag: nameTag } = splitReference(familiarName(name))
  const wanted = tag || nameTag
  return { repository, tag: wanted, ref: wanted ? `${repository}:${wanted}` : repository }
}

/**
 * The 404 message when a push names an image by its id (`sha256:<hex>`), else undefined. A push reads tags only: the
 * daemon parses `sha256:<hex>` as repository docker.io/library/sha256 with tag `<hex>`, which no image has, and
 * answers not found ("tag does not exist: sha256:<hex>"), not a 400: the reference itself is well formed.
 */
export function pushedByIdProblem(images: Images, target: PushTarget): string | undefined {
  // Only `sha256:<hex>` is a repository and tag that images.resolve() also reads as an id: other pushes look nothing up.
  if (target.repository !== 'sha256' || !target.tag) return undefined
  if (images.tagsOf(target.repository).includes(target.tag) || !images.resolve(target.ref)) return undefined
  return `No such image: ${target.ref}: a push takes a repository and tag, not an image id; tag the image first, e.g. docker tag ${target.ref} localhost:5000/team/app:1.0, then push that.`
}

/**
 * Starts a push of a target read by {@link readPushTarget}: resolves the image and tags (by tag only: a push by id
 * is refused by the route first, {@link pushedByIdProblem}), then returns the progress stream.
 * The stream is paced by the clock. A layer's blob reaches the registry as its `Pushed` line goes out, and stays there
 * whatever happens next, as a real registry keeps every blob whose upload completed; a tag (its manifest) only when the
 * push of that tag completes.
 */
export function startPush(deps: PushDeps, req: PushRequest): PushStart {
  const { target } = req
  const { repository } = target
  const known = deps.images.tagsOf(repository)
  // Every tag in the order the daemon pushes them: its reference store lists a repository's references sorted by
  // name (`repo:1.0` before `repo:latest`), whatever order they were created in.
  const tags = target.tag ? [target.tag] : [...known].sort()
  // By tag only, never by id (pushedByIdProblem).
  const resolved = tags.map((t) => ({ tag: t, image: known.includes(t) ? deps.images.resolve(`${repository}:${t}`) : undefined }))
  if (resolved.length === 0 || resolved.some((r) => !r.image)) return { kind: 'not-found', message: `No such image: ${target.ref}` }
  const host = registryHost(repository)
  const decoded = decodeRegistryAuth(req.authHeader)
  const auth: AuthConfig | undefined = decoded && !('invalid' in decoded) ? decoded : undefined
  deps.journal.record('push.start', { repository, tags, registry: host, auth: maskAuth(decoded) })

  let track: PushTrack | undefined
  /** Whether the fault struck: a push that ends without it tells the plan (faultMissed). */
  let struck = false
  async function* lines(): AsyncGenerator<string> {
    track = deps.board?.begin(repository, tags, host, deps.clock.now())
    try {
      yield* run()
    } finally {
      // Idempotent: a push that ended on its own said how; one whose reader went away was cancelled.
      track?.end('cancelled')
      const f = req.fault
      if (f && !struck) {
        const at = f.afterBytes !== undefined ? `afterBytes ${f.afterBytes}` : `afterLayer ${f.afterLayer}`
        req.faultMissed?.(`the push of ${repository} ended (${req.signal.aborted ? 'its client left' : 'done or refused'}) before the fault's ${at}`)
      }
    }
  }

  /** What a step waits on besides the fake's lifetime: the client leaving, and the way in halting the push. */
  const waitSignal = req.halt ? AbortSignal.any([req.signal, req.halt]) : req.signal
  /** Who ended a push that stopped before its tag: its client leaving, a reset or close of the fake, or its server closing. */
  const endedBy = () => pushEndedBy(req.signal, req.halt)
  /** The error line of a push the fake stopped serving (a reset, a close, its server closing) while its client waited. */
  const interrupted = (tag: string) => interruptedLine(`${repository}:${tag}`, req.halt?.aborted ? 'server' : 'reset')

  async function* run(): AsyncGenerator<string> {
    // A port no registry can listen on (`r1:99999/app` parses as a reference): the daemon fails to dial it, after the
    // stream's first line. No registry is made for it.
    const port = /:(\d+)$/.exec(host)?.[1]
    if (port !== undefined && !(Number(port) >= 1 && Number(port) <= 65535)) {
      const message = `Get "https://${host}/v2/": dial tcp: address ${port}: invalid port`
      deps.journal.record('push.failed', { repository, registry: host, message })
      track?.end('failed', message)
      return yield status(`The push refers to repository [${qualifiedName(repository)}]`) + errorLine(message)
    }
    const registry = deps.registries.ensure(host)
    const fault = req.fault
    let layersDone = 0
    let bytes = 0
    /**
     * Layers whose `Pushed` line is in the chunk being built. Their blobs land as that chunk is handed on, so that what
     * the registry holds agrees with what the stream said: a retry after a failure or a cancel reports them `Layer
     * already exists`, and a layer whose `Pushed` line never went out (cut by `truncate`, not reached before
     * `afterBytes`, or held back by a client already gone) is pushed again.
     */
    let landing: Layer[] = []
    const handOn = (text: string): string => {
      // A client already gone never gets the chunk (the way in drops it), nor does it see those lines.
      if (!req.signal.aborted) for (const l of landing) deps.registries.storeBlob(host, l.digest, repository)
      landing = []
      return text
    }
    const fail = (message: string) => {
      deps.journal.record('push.failed', { repository, registry: host, message })
      track?.end('failed', message)
      return errorLine(message)
    }
    /**
     * The fault strikes after `chunk`: an error line, a reset, half a line then a reset, silence, or a registry gone
     * (`uploading`: the layers whose uploads then fail and count down to their retries).
     */
    async function* strike(chunk: string, tag: string, uploading: readonly Layer[] = []): AsyncGenerator<string> {
      const f = fault!
      struck = true
      if (f.kind === 'error') return yield handOn(chunk) + fail(f.message)
      if (f.kind === 'unreachable') return yield* unreachable(chunk, tag, uploading)
      deps.journal.record('push.failed', { repository, registry: host, fault: f.kind, layersDone, bytes })
      if (f.kind === 'stall') {
        // Not over while the client still waits on the open stream: the board shows it stalled, then how it ended.
        const stalled = `stalled by an injected fault after ${layersDone} layer${layersDone === 1 ? '' : 's'}`
        track?.stall(`${stalled}: no more output until the client gives up`)
        yield handOn(chunk)
        // Silence until the client leaves, or the fake is reset or closed (or its server closes): then, to a client still
        // there, the push's error line (a clean end reads as a push that went through: docker push exits 0).
        await untilAborted(waitSignal, deps.clock.lifetime)
        if (req.signal.aborted) return void track?.end('cancelled', `${stalled}; the client gave up`)
        track?.end('cancelled', `${stalled}; ${req.halt?.aborted ? "the fake's server closed" : 'the fake was reset or closed'}`)
        return yield interrupted(tag)
      }
      track?.end('failed', `${f.kind === 'truncate' ? 'truncated mid-line' : 'connection reset'} by an injected fault after ${layersDone} layer${layersDone === 1 ? '' : 's'}`)
      if (f.kind === 'truncate') {
        // Half of the last line goes out: when that is a layer's `Pushed` line, the layer was never reported pushed.
        const last = landing.at(-1)
        if (last && chunk.endsWith(layerLine('Pushed', last.shortId))) landing.pop()
        yield handOn(truncateLast(chunk))
      } else yield handOn(chunk)
      throw new PushReset(`push ${f.kind === 'truncate' ? 'truncated mid-line' : 'reset'} by an injected fault`)
    }
    /**
     * The registry died mid-push: each upload still under way fails, and the daemon counts down to its next attempt
     * (a line a second of clock time per layer: 5 seconds, then 10, 15, 20), then gives up with the dial error. With no
     * upload left, the manifest's PUT is what fails, at once.
     */
    async function* unreachable(chunk: string, tag: string, uploading: readonly Layer[]): AsyncGenerator<string> {
      const { scheme, dial } = registryAddress(host)
      const refused = `dial tcp ${dial}: connect: connection refused`
      if (uploading.length === 0) return yield handOn(chunk) + fail(`Put "${scheme}://${host}/v2/${qualifiedName(repository).replace(/^[^/]+\//, '')}/manifests/${tag}": ${refused}`)
      let out = handOn(chunk)
      for (const [attempt, delay] of RETRY_DELAYS_S.entries()) {
        track?.stall(`registry ${host} out of reach (injected fault): retrying, attempt ${attempt + 2} of 5`)
        for (let left = delay; left > 0; left--) {
          out += uploading.map((l) => layerLine(`Retrying in ${left} second${left === 1 ? '' : 's'}`, l.shortId)).join('')
          if (deps.clock.skipWait(1000, waitSignal)) continue
          yield out
          out = ''
          if (!(await deps.clock.sleep(1000, waitSignal))) {
            deps.journal.record('push.cancelled', { repository, tag, registry: host, layersDone, bytes, by: endedBy() })
            track?.end('cancelled', `registry ${host} out of reach (injected fault); ${req.signal.aborted ? 'the client gave up' : 'the push was interrupted'}`)
            if (!req.signal.aborted) yield interrupted(tag)
            return
          }
        }
      }
      yield out + fail(refused)
    }
    const faultDue = () =>
      fault !== undefined && (fault.afterBytes !== undefined ? bytes >= fault.afterBytes : layersDone >= fault.afterLayer)

    if (fault?.kind === 'unreachable' && !fault.dies) {
      // Down from the start: the daemon's first request, its ping of /v2/, fails to dial, before any layer or credential.
      struck = true
      const { scheme, dial } = registryAddress(host)
      return yield status(`The push refers to repository [${qualifiedName(repository)}]`) + fail(`Get "${scheme}://${host}/v2/": dial tcp ${dial}: connect: connection refused`)
    }
    yield status(`The push refers to repository [${qualifiedName(repository)}]`)
    for (const { tag, image } of resolved as { tag: string; image: Image }[]) {
      const layers = [...image.layers].reverse()
      let chunk = layers.map((l) => layerLine('Preparing', l.shortId)).join('')
      for (const l of layers) track?.layer(l.shortId, l.size, 0, 'waiting')
      if (!authorize(registry.auth, auth)) {
        // Without a username and password the daemon's basic-auth handler refuses before asking the registry
        // (distribution's ErrNoBasicAuthCredentials); wrong ones get the registry's 401.
        // A token (registrytoken, identitytoken) is sent as the registry's bearer token, which a basic-auth registry refuses.
        const basicWithout = registry.auth.kind === 'basic' && !(auth?.username && auth.password) && !auth?.registrytoken && !auth?.identitytoken
        yield chunk + fail(basicWithout ? 'no basic auth credentials' : 'unauthorized: authentication required')
        return
      }
      const todo: Layer[] = []
      const exists: { layer: Layer; from: string | undefined }[] = []
      for (const l of layers) {
        // As the daemon: a layer this repository holds already exists; one another repository of the registry holds is
        // mounted from it (a cross-repository blob mount, no upload); a blob whose repository was never recorded (a
        // registry given blobs by hand) exists.
        const holders = registry.holders(l.digest)
        if (!registry.blobs.has(l.digest)) todo.push(l)
        else exists.push({ layer: l, from: holders.length === 0 || holders.includes(repository) ? undefined : holders[0] })
      }
      todo.slice(CONCURRENCY).forEach((l) => (chunk += layerLine('Waiting', l.shortId)))
      for (const { layer: l, from } of exists) {
        // The daemon names the source by its path in the registry, without the host.
        chunk += layerLine(from === undefined ? 'Layer already exists' : `Mounted from ${from.startsWith(`${host}/`) ? from.slice(host.length + 1) : qualifiedName(from).replace(/^docker\.io\//, '')}`, l.shortId)
        if (from !== undefined) deps.registries.storeBlob(host, l.digest, repository)
        track?.layer(l.shortId, l.size, l.size, 'exists')
        layersDone++
      }
      if (faultDue() && fault!.afterBytes === undefined) return yield* strike(chunk, tag, todo.slice(0, CONCURRENCY))
      yield chunk
      const progress = new Map<Layer, number>()
      /** Bytes a tick of clock time moves; bytes due but not yet moved (under one per active layer). */
      const perTick = (deps.bandwidth * TICK_MS) / 1000
      let due = 0
      const queue = [...todo]
      const active: Layer[] = queue.splice(0, CONCURRENCY)
      chunk = ''
      while (active.length) {
        // Every active layer moves at least a byte a step: while a tick's bytes (with what earlier ticks left over)
        // are fewer than the active layers, the step waits as many ticks as that takes, so a push never outruns the
        // bandwidth (a share rounded up to a byte pushed 10 B/s per layer whatever the bandwidth below that).
        // (Capped, so that a bandwidth too small for a float to count its ticks waits past any date, never Infinity.)
        const ticks = due + perTick >= active.length ? 1 : Math.min(Math.ceil((active.length - due) / perTick), 1e15)
        const wait = ticks * TICK_MS
        // One step of clock time. Under the auto clock a step it skips to at once adds its lines to the chunk of the
        // steps before it (up to CHUNK_BYTES): what is due in one turn goes out as one chunk.
        if (!deps.clock.skipWait(wait, waitSignal)) {
          if (chunk) yield handOn(chunk)
          chunk = ''
          if (!(await deps.clock.sleep(wait, waitSignal))) {
            deps.journal.record('push.cancelled', { repository, tag, registry: host, layersDone, bytes, by: endedBy() })
            // Not the client going away: the fake was reset or closed under the push (or its server closed). Say so,
            // rather than hang or end silently (a clean end reads as a push that went through: docker push exits 0).
            if (!req.signal.aborted) yield interrupted(tag)
            return
          }
        }
        // The bytes due by now, shared by the active layers; what does not divide evenly is kept for the next step,
        // so that over any stretch of time the push moves what the bandwidth allows, no more and (but for a last
        // layer's partial share) no less.
        due += ticks * perTick
        const share = Math.floor(due / active.length + 1e-9)
        due = Math.max(0, due - share * active.length)
        for (const l of active.slice()) {
          const before = progress.get(l) ?? 0
          const now = Math.min(l.size, before + share)
          progress.set(l, now)
          bytes += now - before
          chunk += pushingLine(l, now)
          track?.layer(l.shortId, l.size, now, now >= l.size ? 'pushed' : 'pushing')
          if (fault?.afterBytes !== undefined && faultDue()) return yield* strike(chunk, tag, [...active, ...queue].slice(0, CONCURRENCY))
          if (now >= l.size) {
            chunk += layerLine('Pushed', l.shortId)
            landing.push(l)
            active.splice(active.indexOf(l), 1)
            layersDone++
            if (faultDue()) return yield* strike(chunk, tag, [...active, ...queue].slice(0, CONCURRENCY))
            const nextLayer = queue.shift()
            if (nextLayer) active.push(nextLayer)
          }
        }
        if (chunk.length >= CHUNK_BYTES) {
          yield handOn(chunk)
          chunk = ''
        }
      }
      if (chunk) yield handOn(chunk)
      // The client may have left while the last chunk was on its way: a push whose client has left is cancelled,
      // whatever comes next (a clock advance ordered after the disconnect included), and never commits its tag.
      if (req.signal.aborted) {
        deps.journal.record('push.cancelled', { repository, tag, registry: host, layersDone, bytes, by: 'client' })
        return
      }
      deps.registries.commit(host, { repository, tag, digest: image.manifestDigest, size: image.manifestSize, image, pushedBy: auth?.username, time: deps.clock.now() })
      deps.journal.record('push.tag', { repository, tag, registry: host, digest: image.manifestDigest, user: auth?.username })
      track?.digest(tag, image.manifestDigest)
      yield status(`${tag}: digest: ${image.manifestDigest} size: ${image.manifestSize}`) +
        `{"progressDetail":{},"aux":{"Tag":${JSON.stringify(tag)},"Digest":"${image.manifestDigest}","Size":${image.manifestSize}}}\r\n`
    }
    deps.journal.record('push.done', { repository, tags, registry: host, user: auth?.username })
    track?.end('done')
  }

  return { kind: 'stream', repository, tags, lines: lines() }
}
