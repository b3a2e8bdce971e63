import { InvalidFilterError, InvalidInputError, NotFoundError } from '../service/errors'
import { parseFilterArgs } from '../service/filters'
import { parseTimestamp } from './events-common'
import { familiarName, splitReference, type Image } from '../service/images'

export { familiarName }
import type { Service } from '../service/service'
import { compileGoRegexp, GO_REGEXP_MAX_STATES } from './go-regexp'
import { json, type Target } from './http'
import type { ProtoRequest, ProtoResponse } from './types'

const decode = (segment: string) => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

const seconds = (ms: number) => Math.floor(ms / 1000)

/** Every `repo:tag` of one image, in creation order. */
function tagsOf(svc: Service, image: Image): string[] {
  return svc.images.list().filter((e) => e.image === image).map((e) => `${e.repository}:${e.tag}`)
}

/** Digests the registries hold for this image, as `repo@sha256:...`. */
function digestsOf(svc: Service, image: Image): string[] {
  const out = new Set<string>()
  for (const r of svc.registries.list()) for (const t of r.tags) if (t.digest === image.manifestDigest) out.add(`${t.repository}@${t.digest}`)
  return [...out]
}

function resolveOrThrow(svc: Service, raw: string): { ref: string; image: Image } {
  const ref = familiarName(raw)
  const image = svc.images.resolve(ref)
  if (!image) throw new NotFoundError(`No such image: ${ref}`)
  return { ref, image }
}

function summary(svc: Service, image: Image) {
  // Field set of Docker's ImageSummary (API 1.47); the CLI's table reads RepoTags, Id, Created, Size.
  return {
    Containers: svc.containers.list().filter((c) => svc.images.resolve(familiarName(c.image)) === image).length,
    Created: seconds(image.created),
    Id: image.id,
    Labels: {},
    ParentId: '',
    RepoDigests: digestsOf(svc, image),
    RepoTags: tagsOf(svc, image),
    SharedSize: -1,
    Size: image.size,
  }
}

function inspect(svc: Service, image: Image) {
  return {
    Id: image.id,
    RepoTags: tagsOf(svc, image),
    RepoDigests: digestsOf(svc, image),
    Parent: '',
    Comment: '',
    Created: new Date(image.created).toISOString(),
    DockerVersion: '',
    Author: '',
    Config: { Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'], Cmd: ['sh'], Labels: null },
    Architecture: 'amd64',
    Os: 'linux',
    Size: image.size,
    GraphDriver: { Name: 'overlay2', Data: null },
    RootFS: { Type: 'layers', Layers: image.layers.map((l) => l.digest) },
    Metadata: { LastTagTime: '0001-01-01T00:00:00Z' },
  }
}

/** The filters of `GET /images/json` (Docker's daemon/images list): the same names, refused by name when unknown. */
const IMAGE_FILTER_NAMES = ['before', 'dangling', 'label', 'reference', 'since', 'until']

/** A glob of Docker's `reference` filter, matched in linear time (go-regexp.ts). */
function referenceGlob(p: string) {
  // As a backtracking RegExp, `*a*a*a*a*a*c` took ~0.8 s against 100 characters.
  try {
    return compileGoRegexp(`^${p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`)
  } catch {
    throw new InvalidInputError(`Invalid "filters" reference ${JSON.stringify(p.slice(0, 120))}: a pattern that compiles to at most ${GO_REGEXP_MAX_STATES} instructions is expected, e.g. {"reference":{"nginx:*":true}}.`)
  }
}

/**
 * Docker's `filters` of `GET /images/json` (`docker images --filter`, daemon/images/image_list.go): `reference`
 * (REPO[:TAG] with `*` globs), `dangling`, `label`, `before`/`since` (an image, the last one given) and `until` (a
 * timestamp). Every image of the fake is tagged and has no labels, so `dangling=true` and any `label` match none.
 * Like Docker's `Args.Get`, an object's keys count whatever their booleans (`{"reference":{"nginx":false}}` is nginx),
 * except for `dangling`, read as Docker's `GetBoolOrDefault` reads it. Unknown names and values Docker refuses are a
 * 400 naming what is allowed. `image` selects images; `reference` selects which of an image's tags and digests match.
 */
function imageFilter(svc: Service, raw: string | undefined): { image: (image: Image) => boolean; reference: (ref: string) => boolean } {
  const args = {
    names: IMAGE_FILTER_NAMES,
    unknown: (name: string) => `invalid filter '${name}': GET /images/json takes the filters ${IMAGE_FILTER_NAMES.join(', ')}.`,
    example: '{"reference":{"nginx:*":true}}',
  }
  // JSON null is no filter at all (Go's json leaves Docker's Args empty).
  if (raw?.trim() === 'null') raw = undefined
  const f = parseFilterArgs(raw, { ...args, keysOfObjects: true })
  let danglingOnly = false
  if (f.dangling) {
    // Read again with Docker's booleans (GetBoolOrDefault): defined, since `f.dangling` is (an empty object or list is no filter).
    const set = parseFilterArgs(raw, args).dangling!
    const yes = set.includes('true') || set.includes('1')
    const no = set.includes('false') || set.includes('0')
    if (yes === no) throw new InvalidFilterError(`invalid filter 'dangling=${f.dangling.join(',')}': expected one of true, false, 1 or 0.`)
    danglingOnly = yes
  }
  const until = (f.until ?? []).map((v) => parseTimestamp('until', v)!)
  const bound = (name: 'before' | 'since') => {
    const ref = f[name]?.at(-1)
    return ref === undefined ? undefined : resolveOrThrow(svc, ref).image.created
  }
  const before = bound('before')
  const since = bound('since')
  // Never dangling (an image of the fake always has a tag), never labelled.
  if (danglingOnly || f.label) return { image: () => false, reference: () => false }
  const patterns = (f.reference ?? []).map((v) => referenceGlob(familiarName(v)))
  // Docker's reference.FamiliarMatch: the whole reference (`repo:tag`, `repo@sha256:...`), else its repository.
  const reference = (ref: string) => patterns.length === 0 || patterns.some((p) => p.test(ref) || p.test(splitReference(ref).repository))
  const image = (i: Image) => (before === undefined || i.created < before) && (since === undefined || i.created > since) && until.every((u) => i.created < u)
  return { image, reference }
}

/**
 * `GET /images/json`, as daemon/images/image_list.go lists: an image shows when one of its references, a tag or a
 * digest, matches the `reference` filter, with only the matching ones (`docker images REPO` prints a row for each
 * repository they name), newest first.
 */
function listImages(svc: Service, filters: string | undefined): ProtoResponse {
  const filter = imageFilter(svc, filters)
  const seen = new Set<Image>()
  const out = []
  for (const { image } of svc.images.list()) {
    if (seen.has(image)) continue
    seen.add(image)
    if (!filter.image(image)) continue
    const s = summary(svc, image)
    const RepoTags = s.RepoTags.filter(filter.reference)
    const RepoDigests = s.RepoDigests.filter(filter.reference)
    if (RepoTags.length > 0 || RepoDigests.length > 0) out.push({ ...s, RepoDigests, RepoTags })
  }
  return json(200, out.sort((a, b) => b.Created - a.Created))
}

const IMAGE_JSON = /^\/images\/(.+)\/json$/
const IMAGE_TAG = /^\/images\/(.+)\/tag$/

/** `GET /images/json`, `GET /images/{name}/json`, `POST /images/{name}/tag`. Undefined for other paths. */
export function handleImages(svc: Service, req: ProtoRequest, target: Target): ProtoResponse | undefined {
  const { path } = target
  if (path === '/images/json' && req.method === 'GET') return listImages(svc, target.query.get('filters'))
  const ij = IMAGE_JSON.exec(path)
  if (ij && req.method === 'GET') return json(200, inspect(svc, resolveOrThrow(svc, decode(ij[1])).image))
  const it = IMAGE_TAG.exec(path)
  if (it && req.method === 'POST') {
    const { ref } = resolveOrThrow(svc, decode(it[1]))
    const repo = familiarName(target.query.get('repo') ?? '')
    const tag = target.query.get('tag') || undefined
    if (!repo) return json(400, { message: 'POST /images/{name}/tag needs a "repo" query parameter, e.g. ?repo=localhost:5000/team/app&tag=1.0.' })
    const { repository, tag: inRepo } = splitReference(repo)
    svc.images.tag(ref, `${repository}:${tag ?? inRepo ?? 'latest'}`)
    svc.journal.record('image.tag', { source: ref, target: `${repository}:${tag ?? inRepo ?? 'latest'}` })
    return { status: 201, headers: {} }
  }
  return undefined
}
