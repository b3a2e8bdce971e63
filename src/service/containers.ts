import { checkOptions, ConflictError, InvalidInputError, NotFoundError } from './errors'
import type { EventLog } from './events'
import type { Journal } from './journal'
import type { RandomSource } from './random'

export type ContainerState = 'created' | 'running' | 'exited'
/** The network a container is on, as `docker create --network` names it. */
export type NetworkMode = 'bridge' | 'host' | 'none'
export const NETWORK_MODES: readonly NetworkMode[] = ['bridge', 'host', 'none']

/** A container as the fake holds it. */
export interface ContainerInfo {
  readonly id: string
  readonly name: string
  readonly image: string
  readonly labels: Readonly<Record<string, string>>
  readonly instanceType: string
  /** Its network: Docker's HostConfig.NetworkMode and NetworkSettings.Networks. */
  readonly networkMode: NetworkMode
  readonly state: ContainerState
  readonly exitCode: number
  /** Clock time of creation, epoch ms. */
  readonly created: number
  readonly startedAt: number | undefined
  readonly finishedAt: number | undefined
}

export interface CreateContainerOptions {
  /**
   * Its id, 64 lower-case hex digits: a recorded container keeps the id the real daemon gave it (docs/recording.md).
   * @default 64 hex digits from the seeded source
   */
  id?: string
  /** @default a Docker-style name from the seeded source */
  name?: string
  image: string
  /** @default {} */
  labels?: Record<string, string>
  /**
   * The instance type: the `sh_hyper_instancetype` label, as Hyper.sh's clients set it (a label of that name given
   * here is the same thing; the two must agree). @default the label's value, else 's4'
   */
  instanceType?: string
  /**
   * The network it is on, as `docker create --network` sets it: what Docker's inspect and list show as
   * HostConfig.NetworkMode and NetworkSettings.Networks (the fake gives it no address). @default 'bridge'
   */
  networkMode?: NetworkMode
}

/** Every option of create and of a container's stop (checkOptions refuses the others). */
const CREATE_OPTION_NAMES: Record<keyof CreateContainerOptions, true> = { id: true, name: true, image: true, labels: true, instanceType: true, networkMode: true }
const STOP_OPTION_NAMES: Record<'exitCode' | 'timeNano', true> = { exitCode: true, timeNano: true }
const START_OPTION_NAMES: Record<'timeNano', true> = { timeNano: true }

/** What a start or stop may say of when it happened: a recorded time, epoch nanoseconds (its event carries it). */
export interface RecordedTime {
  /** The time of the event, epoch nanoseconds, as a recording saw it. @default the clock's time */
  timeNano?: bigint
}

/** A handle on one container. */
export interface Container extends ContainerInfo {
  /** Starts the container and emits a `start` event (at `timeNano` when given: a replayed recording). */
  start(options?: RecordedTime): Container
  /** Stops the container and emits a `stop` event. @param exitCode @default 0 */
  stop(options?: { exitCode?: number } & RecordedTime): Container
  /** Removes the container (stopping it first if it runs). */
  remove(): void
}

export interface Containers {
  create(options: CreateContainerOptions): Container
  /** Finds a container by name, full id or unique id prefix; throws NotFoundError otherwise. */
  get(ref: string): Container
  find(ref: string): Container | undefined
  list(): Container[]
  clear(): void
}

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/

/** Why `name` is not a container name `create` takes, or undefined. */
export const containerNameProblem = (name: string): string | undefined =>
  NAME.test(name) ? undefined : `Invalid container name "${name}": allowed characters are [a-zA-Z0-9][a-zA-Z0-9_.-].`
/** How many names a `No such container` message lists. */
const KNOWN_SHOWN = 10
/** The label that holds a container's instance type on Hyper.sh (and in its events' Actor.Attributes). */
const INSTANCE_TYPE_LABEL = 'sh_hyper_instancetype'

export function createContainers(deps: { random: RandomSource; log: EventLog; now: () => number; journal: Journal; imageId?: (image: string) => string | undefined }): Containers {
  const byId = new Map<string, Container>()
  /** The same containers by name (names are unique): a create or a lookup is not a walk over thousands of them. */
  const byName = new Map<string, Container>()

  const emit = (c: Pick<ContainerInfo, 'id' | 'name' | 'image' | 'labels' | 'instanceType' | 'exitCode'>, action: 'start' | 'stop', timeNano: bigint | undefined) =>
    deps.log.append({ action, id: c.id, name: c.name, image: c.image, imageId: deps.imageId?.(c.image), labels: c.labels as Record<string, string>, instanceType: c.instanceType, exitCode: c.exitCode, ...(timeNano === undefined ? {} : { timeNano }) })
  const checkTime = (timeNano: unknown) => {
    if (timeNano !== undefined && !(typeof timeNano === 'bigint' && timeNano >= 0n)) throw new InvalidInputError(`Invalid timeNano ${String(timeNano)}: expected epoch nanoseconds as a bigint >= 0, e.g. 1700000000123456789n.`)
  }
  /** Epoch ms of a recorded time, else the clock's. */
  const whenOf = (timeNano: bigint | undefined) => (timeNano === undefined ? deps.now() : Number(timeNano / 1_000_000n) + Number(timeNano % 1_000_000n) / 1e6)

  const find = (ref: string): Container | undefined => {
    const r = ref.replace(/^\//, '')
    // A full id before a name, as the daemon's GetContainer tries them (a name may be another container's id).
    const exact = byId.get(r) ?? byName.get(r)
    if (exact) return exact
    if (r.length === 0) return undefined
    // An id prefix names a container when it names only one.
    let match: Container | undefined
    for (const c of byId.values()) {
      if (!c.id.startsWith(r)) continue
      if (match) return undefined
      match = c
    }
    return match
  }

  const api: Containers = {
    create(options) {
      if (!options || typeof options.image !== 'string' || options.image === '') {
        throw new InvalidInputError('A container needs an "image" (a non-empty string).')
      }
      checkOptions<CreateContainerOptions>(options, CREATE_OPTION_NAMES, 'containers.create')
      const name = options.name ?? deps.random.containerName()
      const bad = containerNameProblem(name)
      if (bad) throw new InvalidInputError(bad)
      if (byName.has(name)) {
        throw new ConflictError(`A container named "${name}" already exists. Remove it first or choose another name.`)
      }
      if (options.id !== undefined && !(typeof options.id === 'string' && /^[0-9a-f]{64}$/.test(options.id))) {
        throw new InvalidInputError(`Invalid container id ${JSON.stringify(options.id)}: expected 64 lower-case hex digits, as Docker's ids are.`)
      }
      if (options.id !== undefined && byId.has(options.id)) throw new ConflictError(`A container with id ${options.id} already exists (${byId.get(options.id)!.name}); ids are unique.`)
      const labels = { ...options.labels }
      for (const [k, v] of Object.entries(labels)) {
        if (typeof v !== 'string') throw new InvalidInputError(`Label "${k}" must have a string value, got ${JSON.stringify(v)}.`)
      }
      // On Hyper.sh the instance type is this label (hypercli's `run --size` sets it, SDK users pass it as a label):
      // given as a label only, it is the instance type; given both ways, the two must agree.
      const labelled = Object.hasOwn(labels, INSTANCE_TYPE_LABEL) ? labels[INSTANCE_TYPE_LABEL] : undefined
      if (labelled !== undefined && options.instanceType !== undefined && labelled !== options.instanceType) {
        throw new InvalidInputError(`Label "${INSTANCE_TYPE_LABEL}" is ${JSON.stringify(labelled)} but instanceType is ${JSON.stringify(options.instanceType)}: the instance type is that label (hypercli sets it from --size); give one of them, or the same value in both.`)
      }
      const networkMode = options.networkMode ?? 'bridge'
      if (!NETWORK_MODES.includes(networkMode)) throw new InvalidInputError(`Invalid networkMode ${JSON.stringify(networkMode)}: expected one of ${NETWORK_MODES.join(', ')}.`)
      const state = {
        id: options.id ?? deps.random.hex(64),
        name,
        image: options.image,
        labels,
        instanceType: options.instanceType ?? labelled ?? 's4',
        state: 'created' as ContainerState,
        exitCode: 0,
        created: deps.now(),
        startedAt: undefined as number | undefined,
        finishedAt: undefined as number | undefined,
      }
      const c: Container = {
        get id() { return state.id },
        get name() { return state.name },
        get image() { return state.image },
        get labels() { return state.labels },
        get instanceType() { return state.instanceType },
        get networkMode() { return networkMode },
        get state() { return state.state },
        get exitCode() { return state.exitCode },
        get created() { return state.created },
        get startedAt() { return state.startedAt },
        get finishedAt() { return state.finishedAt },
        start(opts = {}) {
          checkOptions<RecordedTime>(opts, START_OPTION_NAMES, 'start')
          checkTime(opts.timeNano)
          if (!byId.has(state.id)) throw new NotFoundError(`No such container: ${state.name} (it was removed).`)
          if (state.state === 'running') return c
          state.state = 'running'
          state.exitCode = 0
          state.startedAt = whenOf(opts.timeNano)
          emit(state, 'start', opts.timeNano)
          return c
        },
        stop(opts = {}) {
          checkOptions<{ exitCode?: number } & RecordedTime>(opts, STOP_OPTION_NAMES, 'stop')
          checkTime(opts.timeNano)
          if (!byId.has(state.id)) throw new NotFoundError(`No such container: ${state.name} (it was removed).`)
          const exitCode = opts.exitCode ?? 0
          if (!Number.isInteger(exitCode) || exitCode < 0 || exitCode > 255) {
            throw new InvalidInputError(`Invalid exitCode ${exitCode}: expected an integer from 0 to 255.`)
          }
          if (state.state !== 'running') return c
          state.state = 'exited'
          state.exitCode = exitCode
          state.finishedAt = whenOf(opts.timeNano)
          emit(state, 'stop', opts.timeNano)
          return c
        },
        remove() {
          if (state.state === 'running') c.stop()
          if (byId.delete(state.id)) byName.delete(state.name)
        },
        toJSON() {
          // The network only when it is not the default bridge, so that the JSON of every other container stays as it was.
          return networkMode === 'bridge' ? { ...state } : { ...state, networkMode }
        },
      } as Container
      byId.set(state.id, c)
      byName.set(name, c)
      deps.journal.record('container.create', { id: state.id, name, image: state.image })
      return c
    },
    find,
    get(ref) {
      const c = find(ref)
      if (!c) {
        // A few names and a count: the message of a fake with thousands of containers stays short.
        const known: string[] = []
        for (const x of byId.values()) {
          if (known.length === KNOWN_SHOWN) break
          known.push(x.name)
        }
        const more = byId.size > KNOWN_SHOWN ? ` and ${byId.size - KNOWN_SHOWN} more` : ''
        throw new NotFoundError(`No such container: ${ref}. Known containers: ${known.length ? known.join(', ') : '(none)'}${more}.`).onWire(`No such container: ${ref}`)
      }
      return c
    },
    list: () => [...byId.values()],
    clear: () => {
      byId.clear()
      byName.clear()
    },
  }
  return api
}
