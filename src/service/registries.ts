import type { RegistryAuth } from './auth'
import { ConflictError, InvalidInputError, NotFoundError } from './errors'
import { recordPushedDigest, type Image } from './images'

/** A manifest the registry holds for `repository:tag`. */
export interface PushedTag {
  readonly repository: string
  readonly tag: string
  readonly digest: string
  readonly size: number
  readonly layers: readonly string[]
  /** Username that pushed it (never a secret), when credentials were given. */
  readonly pushedBy: string | undefined
  readonly time: number
}

/** A registry at one `host[:port]`, recording what was pushed. */
export interface Registry {
  readonly host: string
  readonly auth: RegistryAuth
  /** Layer digests the registry holds. */
  readonly blobs: ReadonlySet<string>
  /** The repositories that hold a blob, in the order they got it (a mount source for a push to another one). */
  holders(digest: string): readonly string[]
  /** Every pushed tag. */
  readonly tags: readonly PushedTag[]
  /** The manifest for `repository:tag`, if pushed. */
  get(repository: string, tag: string): PushedTag | undefined
  toJSON(): unknown
}

export interface AddRegistryOptions {
  username?: string
  password?: string
  token?: string
}

export interface Registries {
  /**
   * Adds the registry at `host`: open unless credentials (a non-empty username and password) or a non-empty token
   * are given. A host is added once: a known one (added, or created by a push) is a ConflictError, since
   * replacing it would drop its credentials and pushed tags.
   */
  add(host: string, options?: AddRegistryOptions): Registry
  get(host: string): Registry
  /** The registry for `host`, created open if unknown. */
  ensure(host: string): Registry
  list(): Registry[]
  /**
   * Records one layer's blob as its upload completes. A registry keeps a blob whose upload completed whatever
   * happens to the push after it (a fault, a cancel): only the manifest, the tag, waits for the end (`commit`).
   */
  storeBlob(host: string, digest: string, repository?: string): void
  /**
   * Records a completed push: its manifest (the tag), the image's blobs should any not be stored yet, and the image's
   * `repository@digest` (its RepoDigests), which names it after the tag moves on.
   */
  commit(host: string, entry: Omit<PushedTag, 'layers'> & { image: Image }): void
  clear(): void
}

/** The registry host of an image repository (`docker.io` when the first part is not a host; a bracketed IPv6 one has a `:`). */
export function registryHost(repository: string): string {
  const first = repository.split('/')[0]
  return repository.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost') ? first : 'docker.io'
}

/**
 * A repository as the daemon names it in "The push refers to repository [...]" (reference.Name()): Docker Hub's
 * fully qualified, `docker.io/myuser/app` and `docker.io/library/nginx`; any other registry's as it is. The fake
 * stores Docker Hub repositories as people write them (`nginx`), as RepoTags and RepoDigests show them.
 */
export function qualifiedName(repository: string): string {
  if (registryHost(repository) !== 'docker.io' || repository.startsWith('docker.io/')) return repository
  return `docker.io/${repository.includes('/') ? '' : 'library/'}${repository}`
}

/** What a registry host that `add` refuses is told it should be. */
const HOST_EXPECTED = 'expected host or host:port, e.g. "localhost:5000"'

/**
 * Why `host` is not a registry host `add` takes (a name of [a-zA-Z0-9.-] or an IPv6 address in brackets, as a push's
 * reference names it, with an optional port from 1 to 65535), or undefined.
 */
export function registryHostProblem(host: string): string | undefined {
  const m = /^(?:[a-zA-Z0-9.-]+|\[[a-fA-F0-9:]+\])(?::(\d+))?$/.exec(host)
  if (!m) return `Invalid registry host ${JSON.stringify(host)}: ${HOST_EXPECTED}.`
  // `r1:99999` named no port a registry could listen on (and `r1:0` none a client can dial).
  if (m[1] !== undefined && !(Number(m[1]) >= 1 && Number(m[1]) <= 65535)) return `Invalid registry host ${JSON.stringify(host)}: port ${m[1]} is not from 1 to 65535; ${HOST_EXPECTED}.`
  return undefined
}

const AUTH_NAMES: Record<RegistryAuth['kind'], string> = { open: 'open', basic: 'basic auth', token: 'token auth' }

export function createRegistries(): Registries {
  type Entry = { host: string; auth: RegistryAuth; blobs: Set<string>; tags: PushedTag[]; holders: Map<string, Set<string>> }
  const byHost = new Map<string, Entry>()
  const hold = (r: Entry, digest: string, repository: string | undefined) => {
    r.blobs.add(digest)
    if (repository === undefined) return
    const set = r.holders.get(digest) ?? new Set<string>()
    set.add(repository)
    r.holders.set(digest, set)
  }

  const view = (r: Entry): Registry => ({
    holders: (digest) => [...(r.holders.get(digest) ?? [])],
    host: r.host,
    auth: r.auth,
    blobs: r.blobs,
    get tags() {
      return r.tags
    },
    get: (repository, tag) => r.tags.find((t) => t.repository === repository && t.tag === tag),
    toJSON: () => ({ host: r.host, auth: r.auth.kind, tags: r.tags, blobs: [...r.blobs] }),
  })

  const api: Registries = {
    add(host, options = {}) {
      const problem = registryHostProblem(host)
      if (problem) throw new InvalidInputError(problem)
      return insert(host, options)
    },
    get(host) {
      const r = byHost.get(host)
      if (!r) throw new NotFoundError(`No such registry: ${host}. Known registries: ${[...byHost.keys()].join(', ') || '(none)'}.`)
      return view(r)
    },
    // A push names its registry as its reference does (its own grammar, checked by the push): not refused here.
    ensure: (host) => (byHost.has(host) ? api.get(host) : insert(host, {})),
    list: () => [...byHost.values()].map(view),
    storeBlob(host, digest, repository) {
      api.ensure(host)
      hold(byHost.get(host)!, digest, repository)
    },
    commit(host, entry) {
      api.ensure(host)
      const r = byHost.get(host)!
      for (const l of entry.image.layers) hold(r, l.digest, entry.repository)
      const { image, ...rest } = entry
      const pushed: PushedTag = { ...rest, layers: image.layers.map((l) => l.digest) }
      r.tags = r.tags.filter((t) => !(t.repository === pushed.repository && t.tag === pushed.tag))
      r.tags.push(pushed)
      recordPushedDigest(image, pushed.repository)
    },
    clear: () => byHost.clear(),
  }

  function insert(host: string, options: AddRegistryOptions): Registry {
    const known = byHost.get(host)
    if (known) {
      const n = known.tags.length
      throw new ConflictError(
        `A registry at "${host}" already exists (${AUTH_NAMES[known.auth.kind]}, ${n} pushed tag${n === 1 ? '' : 's'}); each host is added once, since adding it again would drop its credentials and tags. ` +
          'Add every registry before anything pushes to it, or reset the fake (fake.reset(), POST /_dockside/reset) to start over.',
      )
    }
    let auth: RegistryAuth = { kind: 'open' }
    // Empty secrets could never be matched (a login drops empty fields), so they are refused as the schema does.
    if (options.token !== undefined) {
      if (!options.token) throw new InvalidInputError(`Registry "${host}" needs a non-empty "token".`)
      auth = { kind: 'token', token: options.token }
    } else if (options.username !== undefined || options.password !== undefined) {
      if (!options.username || !options.password) throw new InvalidInputError(`Registry "${host}" needs both "username" and "password" (or a "token"), neither empty.`)
      auth = { kind: 'basic', username: options.username, password: options.password }
    }
    const r: Entry = { host, auth, blobs: new Set<string>(), tags: [], holders: new Map() }
    byHost.set(host, r)
    return view(r)
  }
  return api
}
