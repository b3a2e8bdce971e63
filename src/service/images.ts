import { checkOptions, InvalidInputError, NotFoundError } from './errors'
import { familiarName, stripTag } from './filters'

export { familiarName }
import type { RandomSource } from './random'

export interface Layer {
  /** `sha256:` + 64 hex. */
  readonly digest: string
  /** The 12-hex id Docker prints in progress lines. */
  readonly shortId: string
  readonly size: number
}

/** An image: layers plus the manifest a push sends. */
export interface Image {
  /** `sha256:` + 64 hex (the image id). */
  readonly id: string
  readonly layers: readonly Layer[]
  readonly size: number
  /** Digest of the image manifest, the same for every tag it is pushed as. */
  readonly manifestDigest: string
  readonly manifestSize: number
  readonly created: number
}

export interface AddImageOptions {
  /** Tags to create. `name:tag` in the name adds that tag too. @default ['latest'] */
  tags?: string[]
  /**
   * A layer count (sizes from the seeded source), a list of layer sizes in bytes, or a list of layers with their
   * digests (`{ digest: 'sha256:<64 hex>', size }`: a recording's, whose first 12 hex digits are the ids push lines
   * show). Listed from the base layer up, as Docker's RootFS lists them. @default 3
   */
  layers?: number | (number | RecordedLayer)[]
  /** The image id, `sha256:` + 64 hex (a recording's). @default from the seeded source */
  id?: string
  /** The manifest a push reports: its digest and size in bytes (a recording's). @default a digest from the seeded source, the size of a schema-2 manifest of the layers */
  manifest?: { digest: string; size: number }
}

/** A layer as a recording saw it: its digest and its size in bytes. */
export interface RecordedLayer {
  digest: string
  size: number
}

/** Every option of add (checkOptions refuses the others). */
const ADD_OPTION_NAMES: Record<keyof AddImageOptions, true> = { tags: true, layers: true, id: true, manifest: true }
const DIGEST = /^sha256:[0-9a-f]{64}$/

export interface Images {
  /** Adds an image under `name` (a repository, optionally `:tag`; a `@digest` is refused); returns it. */
  add(name: string, options?: AddImageOptions): Image
  /** `docker tag`: makes `target` (repo[:tag]; a `@digest` is refused) point at the image `source` resolves to. */
  tag(source: string, target: string): Image
  /**
   * The image a `repo:tag` reference (or image id prefix) points at, or undefined. A `repo@sha256:...` reference is the
   * image with that manifest digest that a push recorded for that repository, whatever its tags are now, or one
   * tagged in that repository (a tag beside the digest is ignored, as the daemon ignores it).
   */
  resolve(ref: string): Image | undefined
  /** Tags of a repository, in the order they were created. */
  tagsOf(repository: string): string[]
  /** Every `repo:tag` with its image. */
  list(): { repository: string; tag: string; image: Image }[]
  /**
   * Every `repo@sha256:...` a push recorded (an image's RepoDigests), with its image: image by image, each in the order
   * pushed. Kept when the pushed tag moves to another image, as the daemon keeps it: that image is then dangling, named
   * by its digest alone.
   */
  digests(): { repository: string; digest: string; image: Image }[]
  /**
   * Removes a `repo:tag` reference (a digest reference is refused). The image's digests in that repository go with
   * its last tag there, as `docker rmi` removes them.
   */
  untag(ref: string): void
  clear(): void
}


/** Splits `repo[:tag]` into its parts (a registry port is not a tag). */
/**
 * A reference as the daemon's "No such image" names it: an untagged name with `:latest` (its reference.TagNameOnly), an
 * image id or a digest reference as given (`docker inspect nope` reports `nope:latest`).
 */
export function missingImageName(ref: string): string {
  if (ref.includes('@') || /^(?:sha256:)?[a-f0-9]{64}$/.test(ref)) return ref
  return splitReference(ref).tag === undefined ? `${ref}:latest` : ref
}

export function splitReference(ref: string): { repository: string; tag: string | undefined } {
  const repository = stripTag(ref)
  if (ref.includes('@')) return { repository, tag: undefined }
  return { repository, tag: repository.length < ref.length ? ref.slice(repository.length + 1) : undefined }
}

const PATH = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*'
/**
 * A repository: path components, the first of which may be a host with a port, or a bracketed IPv6 registry host
 * (`[::1]:5000/app`: hex and colons, no zone, an optional port) before a path, as docker/distribution's reference
 * grammar has it.
 */
const REPO = new RegExp(`^(?:\\[[a-fA-F0-9:]+\\](?::[0-9]+)?\\/${PATH}|[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?)(?:\\/${PATH})*$`)
const TAG = /^[\w][\w.-]{0,127}$/

/** Why `tag` is not a tag (reference.WithTag's "invalid tag format"), naming what a tag may contain; undefined when it is one. */
export function tagFormatProblem(tag: string): string | undefined {
  if (TAG.test(tag)) return undefined
  return `invalid tag format ${JSON.stringify(tag)}: a tag may contain [A-Za-z0-9_][A-Za-z0-9_.-]{0,127} (up to 128 letters, digits, "_", "." and "-", not starting with "." or "-"), e.g. "1.0".`
}

/**
 * The repositories a completed push recorded each image's manifest digest for (recordPushedDigest), in push order:
 * the daemon's reference store, which keeps `repo@sha256:...` whatever becomes of the tag pushed. Keyed by image,
 * since a push reaches the registry with the image, not with the fake's image store.
 */
const pushedAs = new WeakMap<Image, Set<string>>()

/** Records that `image` was pushed as `repository` (registries.commit): from now on `repository@<its manifest digest>` names it. */
export function recordPushedDigest(image: Image, repository: string): void {
  const set = pushedAs.get(image) ?? new Set<string>()
  set.add(repository)
  pushedAs.set(image, set)
}

const EXAMPLE = 'e.g. "localhost:5000/team/app:1.0"'

/** Whether `repository` (no tag) is a repository name the fake takes: lower-case path components, an optional host. */
export const isRepository = (repository: string) => REPO.test(repository)

/**
 * Why `name` (with an optional separate `tag`) is not a reference a push can take, or undefined when it is. As the
 * daemon's reference.ParseNormalizedNamed, which refuses a bare 64-hex id and an empty tag after the colon; an empty
 * `tag` query is no tag.
 */
export function pushReferenceProblem(name: string, tag: string | undefined): string | undefined {
  if (name.includes('@')) return `cannot push a digest reference "${name}": push by repository and tag, ${EXAMPLE}.`
  if (/^[a-f0-9]{64}$/.test(name)) return `invalid repository name (${name}), cannot specify 64-byte hexadecimal strings: push by repository and tag, ${EXAMPLE}.`
  const { repository, tag: nameTag } = splitReference(name)
  if (!REPO.test(repository)) return `invalid reference format "${name}": expected lower-case [host[:port]/]path[:tag], ${EXAMPLE}.`
  if (nameTag === '') return `invalid reference format "${name}": the tag after ":" is empty; expected lower-case [host[:port]/]path[:tag], ${EXAMPLE}.`
  for (const t of [nameTag, tag]) {
    if (t !== undefined && t !== '' && !TAG.test(t)) return `invalid tag format "${t}": expected up to 128 characters of [A-Za-z0-9_.-], not starting with "." or "-".`
  }
  return undefined
}

/** Builds a schema-2 manifest body, so the reported manifest size is that of a real one. */
function manifestSize(layers: readonly Layer[]): number {
  const body = {
    schemaVersion: 2,
    mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
    config: { mediaType: 'application/vnd.docker.container.image.v1+json', size: 1470, digest: `sha256:${'0'.repeat(64)}` },
    layers: layers.map((l) => ({ mediaType: 'application/vnd.docker.image.rootfs.diff.tar.gzip', size: l.size, digest: l.digest })),
  }
  return JSON.stringify(body, null, 3).length
}

export function createImages(deps: { random: RandomSource; now: () => number }): Images {
  const images = new Set<Image>()
  const refs = new Map<string, Image>()

  const checkRepo = (repository: string) => {
    if (!REPO.test(repository)) {
      throw new InvalidInputError(`Invalid image name "${repository}": expected lower-case [host[:port]/]path[:tag], e.g. "localhost:5000/team/app:1.0".`)
    }
  }
  const checkTag = (tag: string) => {
    if (!TAG.test(tag)) throw new InvalidInputError(`Invalid tag "${tag}": expected up to 128 characters of [A-Za-z0-9_.-], not starting with "." or "-".`)
  }

  /**
   * A digest names content a registry holds, not a tag the fake could create: the fake makes up an image's digests and
   * a registry records one per push (its RepoDigests). Refused, as the daemon refuses a tag with a digest reference,
   * rather than dropped (an image added as `app@sha256:...` was `app:latest`).
   */
  const checkNoDigest = (name: string, what: string) => {
    if (name.includes('@')) {
      throw new InvalidInputError(`refusing to create a tag with a digest reference: ${what} ${JSON.stringify(name)} holds a digest; name a repository and tag, e.g. "localhost:5000/team/app:1.0" (a push records the image's digest).`)
    }
  }

  const taggedIn = (image: Image, repository: string) => {
    for (const [key, i] of refs) if (i === image && stripTag(key) === repository) return true
    return false
  }

  const api: Images = {
    add(name, options = {}) {
      checkOptions<AddImageOptions>(options, ADD_OPTION_NAMES, 'images.add')
      checkNoDigest(name, 'the image name')
      // As the daemon names it: `docker.io/library/nginx` and `library/nginx` are `nginx` (three images for one name
      // otherwise, of which docker inspect found one).
      const { repository, tag } = splitReference(familiarName(name))
      checkRepo(repository)
      const tags = [...(options.tags ?? []), ...(tag ? [tag] : [])]
      if (tags.length === 0) tags.push('latest')
      tags.forEach(checkTag)
      const spec = options.layers ?? 3
      let sizes: (number | RecordedLayer)[]
      const isRecorded = (l: unknown): l is RecordedLayer =>
        l !== null && typeof l === 'object' && typeof (l as RecordedLayer).digest === 'string' && DIGEST.test((l as RecordedLayer).digest) && Number.isSafeInteger((l as RecordedLayer).size) && (l as RecordedLayer).size > 0 && Object.keys(l).length === 2
      if (typeof spec === 'number') {
        if (!Number.isInteger(spec) || spec < 1 || spec > 127) throw new InvalidInputError(`Invalid layers ${spec}: expected a count from 1 to 127 or a list of sizes in bytes.`)
        sizes = Array.from({ length: spec }, () => deps.random.int(512 * 1024, 12 * 1024 * 1024))
      } else if (Array.isArray(spec) && spec.length > 0 && spec.every((s) => (Number.isSafeInteger(s) && (s as number) > 0) || isRecorded(s))) {
        sizes = spec
      } else {
        throw new InvalidInputError(`Invalid layers ${JSON.stringify(spec)}: expected a count from 1 to 127 or a non-empty list of positive sizes in bytes (or of { digest: "sha256:<64 hex>", size }).`)
      }
      for (const [what, value] of [['id', options.id], ['manifest digest', options.manifest?.digest]] as const) {
        if (value !== undefined && !(typeof value === 'string' && DIGEST.test(value))) throw new InvalidInputError(`Invalid image ${what} ${JSON.stringify(value)}: expected "sha256:" and 64 lower-case hex digits.`)
      }
      if (options.manifest !== undefined && !(Number.isSafeInteger(options.manifest.size) && options.manifest.size > 0)) throw new InvalidInputError(`Invalid manifest size ${JSON.stringify(options.manifest.size)}: expected a positive number of bytes.`)
      const layers = sizes.map((size) => {
        if (typeof size === 'object') return { digest: size.digest, shortId: size.digest.slice(7, 19), size: size.size }
        const hex = deps.random.hex(64)
        return { digest: `sha256:${hex}`, shortId: hex.slice(0, 12), size }
      })
      const image: Image = {
        id: options.id ?? `sha256:${deps.random.hex(64)}`,
        layers,
        size: layers.reduce((a, b) => a + b.size, 0),
        manifestDigest: options.manifest?.digest ?? `sha256:${deps.random.hex(64)}`,
        manifestSize: options.manifest?.size ?? manifestSize(layers),
        created: deps.now(),
      }
      images.add(image)
      for (const t of tags) refs.set(`${repository}:${t}`, image)
      return image
    },
    tag(source, target) {
      checkNoDigest(target, 'the target')
      const image = api.resolve(source)
      if (!image) throw new NotFoundError(`No such image: ${missingImageName(familiarName(source))}`)
      const { repository, tag } = splitReference(familiarName(target))
      checkRepo(repository)
      checkTag(tag ?? 'latest')
      refs.set(`${repository}:${tag ?? 'latest'}`, image)
      return image
    },
    resolve(ref) {
      const { repository, tag } = splitReference(ref)
      const at = ref.indexOf('@')
      if (at >= 0) {
        // By the digest, never by the tag beside it nor a `latest` it does not name: the image with that manifest digest
        // (what a push of it reports) that a push recorded for that repository, or one tagged there, else none.
        const digest = ref.slice(at + 1)
        for (const image of images) if (image.manifestDigest === digest && (pushedAs.get(image)?.has(repository) || taggedIn(image, repository))) return image
        return undefined
      }
      const hit = refs.get(`${repository}:${tag ?? 'latest'}`)
      if (hit) return hit
      const hex = ref.replace(/^sha256:/, '')
      if (/^[0-9a-f]{4,64}$/.test(hex)) {
        const found = [...images].filter((i) => i.id.slice(7).startsWith(hex))
        if (found.length === 1) return found[0]
      }
      return undefined
    },
    tagsOf(repository) {
      const out: string[] = []
      for (const key of refs.keys()) if (stripTag(key) === repository) out.push(key.slice(repository.length + 1))
      return out
    },
    list: () => [...refs].map(([key, image]) => ({ ...splitReference(key), tag: splitReference(key).tag!, image })),
    digests() {
      const out: { repository: string; digest: string; image: Image }[] = []
      for (const image of images) for (const repository of pushedAs.get(image) ?? []) out.push({ repository, digest: image.manifestDigest, image })
      return out
    },
    untag(ref) {
      if (ref.includes('@')) throw new InvalidInputError(`cannot untag a digest reference ${JSON.stringify(ref)}: untag a repository and tag, e.g. "localhost:5000/team/app:1.0" (its digests in that repository go with its last tag there).`)
      const { repository, tag } = splitReference(ref)
      const key = `${repository}:${tag ?? 'latest'}`
      const image = refs.get(key)
      if (!image) throw new NotFoundError(`No such image: ${ref}`)
      refs.delete(key)
      // As the daemon's image delete: with no tag of this repository left on the image, its digests there go too.
      if (!taggedIn(image, repository)) pushedAs.get(image)?.delete(repository)
    },
    clear() {
      images.clear()
      refs.clear()
    },
  }
  return api
}
