import type { Scenario, TimelineStep } from '../scenario/scenario'
import type { FaultRule } from '../faults/plan'
import { registryHost } from '../service/registries'
import { familiarName, splitReference } from '../service/images'
import { instanceTypeOf, type Lifecycle } from './lifecycle'

/** A container as the client saw it. */
interface SeenContainer {
  id: string
  name: string
  image: string
  labels: Record<string, string>
  /** Running, as the last answer or event said. */
  running: boolean
  /** Whether a recorded start of it is in the timeline. */
  started: boolean
}

/** An image as a push or an inspect showed it: layers (base first), the manifest a push reported, its tags. */
interface SeenImage {
  id?: string
  /** Layer digests, base layer first, with their sizes when a push showed them. */
  layers: { digest: string; size?: number }[]
  manifest?: { digest: string; size: number }
  tags: Set<string>
}

/** How one push ended, as its client saw it. */
export type PushOutcome =
  | { kind: 'pushed'; ref: string; digest: string; size: number }
  | { kind: 'error'; ref: string; message: string; afterLayer: number }
  | { kind: 'refused'; ref: string; status: number; message: string }

/** The lines of an in-stream error the registry's credentials explain: a replay gives them from the registry itself. */
const AUTH_ERROR = /no basic auth credentials|unauthorized: authentication required|authentication required/

/** Placeholders for a registry that needed credentials: the user fills in their own (docs/recording.md). */
export const USERNAME_PLACEHOLDER = '<USERNAME>'
export const PASSWORD_PLACEHOLDER = '<PASSWORD>'

export interface RecordingOptions {
  /** Start/stop events kept; later ones are dropped, and the file says how many. @default 100000 */
  maxEvents?: number
}

/**
 * What a recording holds while it runs: the containers, images, registries and pushes the client's traffic showed, and
 * the upstream's container events. Never a secret (no header, credential or token is kept) and never layer bytes:
 * digests and sizes only, so memory grows with what was seen, not with what passed through.
 */
export class Recording {
  readonly containers = new Map<string, SeenContainer>()
  /** Container ids the client's traffic named (only these reach the file). */
  readonly seen = new Set<string>()
  /** Names a client used for a container, to its id. */
  readonly names = new Map<string, string>()
  readonly images = new Map<string, SeenImage>()
  readonly registries = new Map<string, { needsCredentials: boolean }>()
  readonly pushes: PushOutcome[] = []
  readonly events: Lifecycle[] = []
  readonly notes: string[] = []
  droppedEvents = 0
  readonly maxEvents: number
  /** Epoch ms the recording began at (the replay's clock starts there). */
  readonly startedMs: number
  stoppedMs: number | undefined

  constructor(options: RecordingOptions & { now: number }) {
    this.maxEvents = options.maxEvents ?? 100_000
    this.startedMs = Math.floor(options.now)
  }

  /** A container the client's traffic showed (a create, a list, an inspect): what it said of it. */
  container(info: { id: string; name?: string; image?: string; labels?: Record<string, string>; running?: boolean }): void {
    if (!/^[0-9a-f]{64}$/.test(info.id)) return
    const known = this.containers.get(info.id)
    const name = info.name?.replace(/^\//, '')
    const c: SeenContainer = known ?? { id: info.id, name: name ?? '', image: info.image ?? '', labels: {}, running: false, started: false }
    if (name) c.name = name
    if (info.image) c.image = info.image
    if (info.labels) c.labels = { ...info.labels }
    if (info.running !== undefined) c.running = info.running
    this.containers.set(info.id, c)
    if (c.name) this.names.set(c.name, c.id)
    this.seen.add(info.id)
  }

  /** A container the client named in a path (an id, an id prefix or a name). */
  named(ref: string): void {
    const r = ref.replace(/^\//, '')
    const id = this.names.get(r) ?? (r.length >= 12 ? [...this.containers.keys()].find((k) => k.startsWith(r)) : undefined)
    if (id) this.seen.add(id)
    else this.pendingRefs.add(r)
  }

  /** Names or id prefixes a client used before the recorder knew the container (a `docker stop` of one it never listed). */
  private readonly pendingRefs = new Set<string>()

  /** A container event of the upstream, in order. Kept up to `maxEvents`; the rest are counted. */
  event(step: Lifecycle): void {
    const known = this.containers.get(step.id)
    if (step.action !== 'remove') {
      const c = known ?? { id: step.id, name: step.name, image: step.image, labels: step.labels, running: false, started: false }
      if (!known) this.containers.set(step.id, c)
      if (!c.name) c.name = step.name
      if (!c.image) c.image = step.image
      c.running = step.action === 'start'
      if (step.action === 'start') c.started = true
    }
    if (this.pendingRefs.has(step.name) || [...this.pendingRefs].some((r) => r.length >= 12 && step.id.startsWith(r))) this.seen.add(step.id)
    if (step.name) this.names.set(step.name, step.id)
    if (this.events.length >= this.maxEvents) {
      this.droppedEvents++
      return
    }
    this.events.push(step)
  }

  /** A registry a push went to; `credentials` when the client sent some or the registry asked for them. */
  registry(host: string, needsCredentials: boolean): void {
    const r = this.registries.get(host) ?? { needsCredentials: false }
    r.needsCredentials ||= needsCredentials
    this.registries.set(host, r)
  }

  /** An image (by id, else by its first ref) and what a push or inspect said of it. */
  image(ref: string, info: { id?: string; layers?: { digest: string; size?: number }[]; manifest?: { digest: string; size: number } }): void {
    const name = familiarName(ref)
    let key = info.id ?? [...this.images.entries()].find(([, i]) => i.tags.has(name))?.[0] ?? `ref:${name}`
    // An image first seen by its ref, then by its id: one entry.
    const byRef = this.images.get(`ref:${name}`)
    if (info.id && byRef && !this.images.has(info.id)) {
      this.images.delete(`ref:${name}`)
      this.images.set(info.id, byRef)
    }
    const img = this.images.get(key) ?? { layers: [], tags: new Set<string>() }
    if (info.id) img.id = info.id
    if (info.layers?.length) {
      // Sizes a push showed are kept when an inspect brings the full digests.
      const sizes = new Map(img.layers.map((l) => [l.digest.slice(7, 19), l.size]))
      img.layers = info.layers.map((l) => ({ digest: l.digest, size: l.size ?? sizes.get(l.digest.slice(7, 19)) }))
    }
    if (info.manifest) img.manifest = info.manifest
    img.tags.add(name)
    this.images.set(key, img)
    key = ''
  }

  push(outcome: PushOutcome): void {
    this.pushes.push(outcome)
  }

  /** The scenario a replay runs: what was seen, in a stable order, with nothing secret. */
  toScenario(): Scenario {
    const start = this.startedMs
    const kept = [...this.containers.values()].filter((c) => this.seen.has(c.id) && c.name && c.image)
    const keptIds = new Set(kept.map((c) => c.id))
    // The names of containers used once each: a name a later container took again is named by its id.
    const timeline: TimelineStep[] = []
    for (const e of this.events) {
      if (!keptIds.has(e.id)) continue
      const at = Math.max(0, Number(e.timeNano / 1_000_000n) - start)
      const ref = this.containers.get(e.id)!.name
      if (e.action === 'start') timeline.push({ at, start: ref, timeNano: String(e.timeNano) })
      else if (e.action === 'stop') timeline.push({ at, stop: ref, ...(e.exitCode ? { exitCode: e.exitCode } : {}), timeNano: String(e.timeNano) })
      else timeline.push({ at, remove: ref })
    }
    const containers = kept.map((c) => ({
      id: c.id,
      name: c.name,
      image: c.image,
      ...(Object.keys(c.labels).length ? { labels: sortedObject(c.labels) } : {}),
      ...(c.labels.sh_hyper_instancetype === undefined ? {} : { instanceType: instanceTypeOf(c.labels) }),
      // Running before the recording began (no start of it recorded): it starts as the replay starts.
      ...(c.running && !c.started ? { running: true } : {}),
    }))
    const images: NonNullable<Scenario['images']> = []
    const listed = new Set<string>()
    for (const img of this.images.values()) {
      const tags = [...img.tags].filter((t) => !listed.has(t) && splitReference(t).tag !== undefined)
      if (tags.length === 0 || img.layers.length === 0) continue
      for (const t of tags) listed.add(t)
      // Sizes a push did not show (a layer the registry had): the mean of those it did, else 1 KiB.
      const shown = img.layers.filter((l) => l.size !== undefined)
      const fallback = shown.length ? Math.max(1, Math.round(shown.reduce((a, l) => a + l.size!, 0) / shown.length)) : 1024
      // One entry per repository (an entry's tags are tags of its name's repository), each the same image.
      const byRepo = new Map<string, string[]>()
      for (const t of tags) {
        const { repository, tag } = splitReference(t)
        byRepo.set(repository, [...(byRepo.get(repository) ?? []), tag!])
      }
      for (const [repository, [first, ...more]] of byRepo) {
        images.push({
          name: `${repository}:${first}`,
          ...(more.length ? { tags: more } : {}),
          ...(img.id ? { id: img.id } : {}),
          layers: img.layers.map((l) => ({ digest: l.digest, size: l.size ?? fallback })),
          ...(img.manifest ? { manifest: img.manifest } : {}),
        })
      }
    }
    const registries = [...this.registries.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([host, r]) => (r.needsCredentials ? { host, username: USERNAME_PLACEHOLDER, password: PASSWORD_PLACEHOLDER } : { host }))
    const faults: FaultRule[] = []
    const counts = new Map<string, number>()
    for (const p of this.pushes) {
      const n = counts.get(p.ref) ?? 0
      counts.set(p.ref, n + 1)
      if (p.kind === 'pushed') continue
      // The n-th push of this ref (from 0): the rule lets the n before it through, and answers this one.
      const when = { ...(n ? { after: n } : {}), times: 1 } as const
      if (p.kind === 'error') {
        if (AUTH_ERROR.test(p.message) && this.registries.get(registryHost(splitReference(p.ref).repository))?.needsCredentials) continue
        faults.push({ on: 'push', match: { image: p.ref }, error: p.message, afterLayer: p.afterLayer, ...when } as FaultRule)
      } else faults.push({ on: 'push', match: { image: p.ref }, reply: p.status, message: p.message, ...when } as FaultRule)
    }
    return {
      clock: { start: new Date(start).toISOString() },
      ...(registries.length ? { registries } : {}),
      ...(images.length ? { images } : {}),
      ...(containers.length ? { containers } : {}),
      ...(timeline.length ? { timeline } : {}),
      ...(faults.length ? { faults } : {}),
      retainEvents: Math.max(10_000, timeline.length),
    }
  }
}

function sortedObject(o: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

/** Whether a push error line is one a registry's credentials explain. */
export const isAuthError = (message: string) => AUTH_ERROR.test(message)
