import { goContainerConfig, IMAGE_ENV } from './container-json'
import { goPathSegment } from '../go/url'
import { apiAtLeast } from '../api-version'
import { DocksideError, InvalidFilterError, InvalidInputError, NotFoundError } from '../../service/errors'
import { dockerFilterArgs } from '../filters'
import { parseTimestampNano } from '../timestamps'
import { familiarName, isRepository, missingImageName, splitReference, tagFormatProblem, type Image } from '../../service/images'

export { familiarName }
import { qualifiedName } from '../../service/registries'
import type { Service } from '../../core/service'
import { compileGoRegexp, GO_REGEXP_MAX_STATES } from '../go/regexp'
import { daemonReferenceText, referenceLimitError, referenceLimitHint } from './references'
import { dockerError, invalidParameterStatus, json, queryRefusal, type Target } from '../http'
import type { ProtoRequest, ProtoResponse } from '../types'


const seconds = (ms: number) => Math.floor(ms / 1000)

/**
 * References in the daemon's order: its reference store sorts an image's references by their full name
 * (`docker.io/library/nginx:1.27`, `localhost:5000/app:1.0`: lexicalRefs), then shows them familiar.
 */
const lexical = (refs: string[]) =>
  refs
    .map((r) => [qualifiedName(r), r] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, r]) => r)

/** Every `repo:tag` of one image, as the daemon lists them. */
function tagsOf(svc: Service, image: Image): string[] {
  return lexical(svc.images.list().filter((e) => e.image === image).map((e) => `${e.repository}:${e.tag}`))
}

/** The `repo@sha256:...` references pushes recorded for this image, whatever its tags are now, as the daemon lists them. */
function digestsOf(svc: Service, image: Image): string[] {
  return lexical(svc.images.digests().filter((d) => d.image === image).map((d) => `${d.repository}@${d.digest}`))
}

/**
 * The image a reference names, as the daemon's GetImage finds it: a name or `name:tag` in any spelling Docker
 * normalises (familiarName), an image id or a unique prefix of one, or a `repo@sha256:...` reference the image was
 * pushed as (the daemon records one per push; they are its RepoDigests). A tag beside a digest is ignored, as the
 * daemon's reference store ignores it. Undefined when nothing matches.
 */
export const resolveImage = (svc: Service, raw: string): Image | undefined => lookup(svc, familiarName(raw))

/** {@link resolveImage} of a reference already in its familiar form (familiarName is not idempotent). */
function lookup(svc: Service, ref: string): Image | undefined {
  const at = ref.indexOf('@')
  if (at < 0) return svc.images.resolve(ref)
  const repository = splitReference(ref.slice(0, at)).repository
  const digest = ref.slice(at + 1)
  return svc.images.digests().find((d) => d.repository === repository && d.digest === digest)?.image
}

function resolveOrThrow(svc: Service, raw: string, version: string | undefined): { ref: string; image: Image } {
  const ref = familiarName(raw)
  const image = lookup(svc, ref)
  if (image) return { ref, image }
  const problem = referenceFormatProblem(raw, version)
  if (problem) throw new InvalidInputError(problem.hint).onWire(problem.wire)
  throw new NotFoundError(`No such image: ${missingImageName(ref)}`)
}

const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$/
const FULL_ID = /^(?:sha256:)?[a-f0-9]{64}$/

/**
 * Why `raw` is not a reference the daemon's GetImage parses (reference.ParseAnyReference: its 400, before any
 * lookup), or undefined: an image id, or `[host[:port]/]path[:tag][@digest]` with a lower-case path, a name of at most
 * 255 characters and a digest go-digest takes. An id prefix is a valid name, so only references no image could ever
 * have are refused. `wire` is the daemon's text, `hint` dockside's.
 */
function referenceFormatProblem(raw: string, version: string | undefined): { wire: string; hint: string } | undefined {
  if (FULL_ID.test(raw)) return undefined
  const limit = referenceLimitError(raw)
  if (limit) return { wire: limit, hint: referenceLimitHint(raw, limit) }
  const at = raw.indexOf('@')
  const parts = splitReference(at < 0 ? raw : raw.slice(0, at))
  const tag = parts.tag
  // A first part with a capital is a registry host to the daemon (splitDockerDomain), and hosts may have capitals.
  const slash = parts.repository.indexOf('/')
  const host = slash < 0 ? '' : parts.repository.slice(0, slash)
  const repository = host !== host.toLowerCase() ? host.toLowerCase() + parts.repository.slice(slash) : parts.repository
  const wellFormed = (at < 0 || DIGEST.test(raw.slice(at + 1))) && (tag === undefined || tagFormatProblem(tag) === undefined)
  if (wellFormed && isRepository(repository)) return undefined
  const hint = `invalid reference format: ${JSON.stringify(raw)} is not an image id or [host[:port]/]path[:tag][@sha256:<64 hex>] with a lower-case path, e.g. "localhost:5000/team/app:1.0".`
  return { wire: daemonReferenceText(raw, undefined, version), hint }
}

function summary(svc: Service, image: Image, version: string | undefined) {
  // Field set of Docker's ImageSummary; the CLI's table reads RepoTags, Id, Created, Size. VirtualSize below API 1.44.
  return {
    // The daemon counts containers only for `docker system df` (ContainerCount); otherwise -1, "not computed".
    Containers: -1,
    Created: seconds(image.created),
    Id: image.id,
    // The image config's Labels, a nil map (null) for the fake's unlabelled images, as inspect's Config.Labels shows.
    Labels: null,
    ParentId: '',
    RepoDigests: digestsOf(svc, image),
    RepoTags: tagsOf(svc, image),
    SharedSize: -1,
    Size: image.size,
    ...(apiAtLeast(version, '1.44') ? {} : { VirtualSize: image.size }),
  }
}

/** An image's config as a container.Config: the fake's images are as if pulled (a PATH and `sh`). */
const imageConfig = () => goContainerConfig({ Env: IMAGE_ENV, Cmd: ['sh'], Labels: null })

/** The platform of every image the fake holds: what inspect reports, and what a push's `platform` must match. */
export const IMAGE_PLATFORM = { os: 'linux', architecture: 'amd64' } as const

/**
 * `GET /images/{name}/json` as the daemon of the request's API version writes it: the 20.10 daemon (API 1.41 and
 * older) with Container, ContainerConfig and Config in their place; Engine 28 drops VirtualSize from 1.44 and Container
 * and ContainerConfig from 1.45, and below 1.50 writes its legacy Config last (image_routes.go's imageInspectLegacy).
 */
function inspect(svc: Service, image: Image, version: string | undefined) {
  const old = !apiAtLeast(version, '1.42')
  const head = {
    Id: image.id,
    RepoTags: tagsOf(svc, image),
    RepoDigests: digestsOf(svc, image),
    Parent: '',
    Comment: '',
    Created: new Date(image.created).toISOString(),
    ...(apiAtLeast(version, '1.45') ? {} : { Container: '', ContainerConfig: goContainerConfig({ Env: null, Cmd: null, Labels: null }) }),
    DockerVersion: '',
    Author: '',
    ...(old ? { Config: imageConfig() } : {}),
    Architecture: IMAGE_PLATFORM.architecture,
    Os: IMAGE_PLATFORM.os,
    Size: image.size,
    ...(apiAtLeast(version, '1.44') ? {} : { VirtualSize: image.size }),
    GraphDriver: { Data: null, Name: 'overlay2' },
    RootFS: { Type: 'layers', Layers: image.layers.map((l) => l.digest) },
    Metadata: { LastTagTime: '0001-01-01T00:00:00Z' },
  }
  return old ? head : { ...head, Config: imageConfig() }
}

/** Go's time.ParseDuration: a sign, then numbers each with a unit (`1h30m`, `.5s`, `250ms`), or a bare 0. */
// Each number is `\d+(\.\d*)?` or `\.\d+`, never `\d+\d*`: a long run of digits with no unit fails in linear time.
const GO_DURATION = /^[-+]?(?:0|(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+)$/
const GO_UNITS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 6e10, h: 3.6e12 }
/** The RFC 3339 layouts timetypes.GetTimestamp picks from, in Go's notation; a `.fraction` is allowed after seconds. */
const GO_LAYOUT_PART: Record<string, string> = { '2006': '(?<Y>\\d{4})', '01': '(?<M>\\d{2})', '02': '(?<D>\\d{2})', '15': '(?<h>\\d{1,2})', '04': '(?<m>\\d{2})', '05': '(?<s>\\d{2})(?:[.,](?<f>\\d+))?', '.999999999': '', Z07: '(?<z>Z|[+-]\\d{2}:\\d{2})' }
const UNTIL_FORMS = '"until" takes a Go duration before the fake\'s clock (10m, 1h30m), an RFC 3339 date or time (2026-01-01, 2026-01-01T10:00:00Z; without a zone, UTC: the fake\'s time zone), or Unix seconds[.nanoseconds] (1767225600).'

/** Go's time.ParseDuration in nanoseconds, or undefined where Go refuses the value (no unit, overflow). */
function goDuration(value: string): bigint | undefined {
  if (!GO_DURATION.test(value)) return undefined
  let total = 0n
  for (const [, whole, fraction = '', unit] of value.matchAll(/(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/g)) {
    // Go adds a fraction as float64(f) * (unit / scale), truncated.
    total += BigInt(whole || '0') * BigInt(GO_UNITS[unit]) + BigInt(Math.trunc(Number(fraction || '0') * (GO_UNITS[unit] / 10 ** fraction.length)))
  }
  // int64: down to -2^63, up to 2^63 - 1 (Go refuses 9223372036854775808ns, takes -9223372036854775808ns).
  const negative = value.startsWith('-')
  if (total > (negative ? 2n ** 63n : 2n ** 63n - 1n)) return undefined
  return negative ? -total : total
}

/** Go's time.Parse of `value` with one of GetTimestamp's layouts, in epoch nanoseconds; a string saying why not. */
function goParseTime(value: string, layout: string): bigint | string {
  const source = layout.replace(/2006|01|02|15|04|05|\.999999999|Z07:00|./g, (t) => GO_LAYOUT_PART[t.replace(':00', '')] ?? t)
  const g = new RegExp(`^${source}$`).exec(value)?.groups
  if (!g) return 'cannot parse it as that layout'
  const [Y, M, D, h, m, s] = [g.Y, g.M, g.D, g.h ?? '0', g.m ?? '0', g.s ?? '0'].map(Number)
  const days = new Date(Date.UTC(2000, M, 0)).getUTCDate() - (M === 2 && !(Y % 4 === 0 && (Y % 100 !== 0 || Y % 400 === 0)) ? 1 : 0)
  const zone = g.z && g.z !== 'Z' ? { sign: g.z[0] === '-' ? -1 : 1, h: Number(g.z.slice(1, 3)), m: Number(g.z.slice(4)) } : undefined
  const range = M < 1 || M > 12 ? 'month' : h > 23 ? 'hour' : m > 59 ? 'minute' : s > 59 ? 'second' : zone && zone.h > 24 ? 'time zone offset hour' : zone && zone.m > 60 ? 'time zone offset minute' : D < 1 || D > days ? 'day' : undefined
  if (range) return `${range} out of range`
  const date = new Date(0)
  date.setUTCFullYear(Y, M - 1, D)
  date.setUTCHours(h, m, s, 0)
  const offset = zone ? zone.sign * (zone.h * 3600 + zone.m * 60) : 0
  return (BigInt(date.getTime()) / 1000n - BigInt(offset)) * 1_000_000_000n + BigInt((g.f ?? '').slice(0, 9).padEnd(9, '0'))
}

/**
 * An `until` value as the daemon reads it (timetypes.GetTimestamp, then ParseTimestamps), in epoch ms: a Go duration
 * before the fake's clock (`1h`: cut to the whole second, as the daemon's Unix() cuts it), an RFC 3339 date or time
 * in the layout GetTimestamp picks by its `.`, `T`, colons and zone (a time without a zone is the daemon's local
 * time: the fake's is UTC), else Unix `seconds[.nanoseconds]`.
 */
function untilTimestamp(value: string, nowMs: number): number {
  const duration = value === '0' ? undefined : goDuration(value)
  if (duration !== undefined) {
    const ns = BigInt(Math.floor(nowMs)) * 1_000_000n - duration
    const seconds = ns / 1_000_000_000n - (ns % 1_000_000_000n < 0n ? 1n : 0n)
    return Number(seconds) * 1000
  }
  const local = !/[zZ+]/.test(value) && value.split('-').length !== 4
  const colons = value.split(':').length - 1 - (!local && !/[zZ]/.test(value) && value.includes(':') ? 1 : 0)
  const zone = local ? '' : 'Z07:00'
  const clock = ['15', '15:04', '15:04:05'][Math.min(colons, 2)]
  const layout = value.includes('.') ? `2006-01-02T15:04:05.999999999${zone}` : value.includes('T') ? `2006-01-02T${clock}${zone}` : `2006-01-02${zone}`
  const parsed = goParseTime(value, layout)
  if (typeof parsed === 'bigint') return Number(parsed) / 1e6
  const shown = JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value)
  // A value with a "-" was meant as a date: the daemon answers Go's parse error.
  if (value.includes('-')) throw new InvalidInputError(`parsing time ${shown} as "${layout}": ${parsed}; ${UNTIL_FORMS}`)
  let nano: bigint | undefined
  try {
    nano = parseTimestampNano('until', value)
  } catch {
    // refused below with the daemon's words
  }
  if (nano === undefined) throw new InvalidInputError(`failed to parse value as time or duration: ${shown}: ${UNTIL_FORMS}`)
  return Number(nano) / 1e6
}

/** The filters of `GET /images/json` (Docker's daemon/images list): the same names, refused by name when unknown. */
const IMAGE_FILTER_NAMES = ['before', 'dangling', 'label', 'reference', 'since', 'until']

/** Go's path.ErrBadPattern, which the daemon's reference filter passes on (a 500). */
class BadPattern extends Error {}

/**
 * A Go path.Match pattern as a regexp: `*` any run of non-`/`, `?` one non-`/`, `[...]` and `[^...]` classes of
 * characters and ranges, `\` escapes; a malformed pattern (an unclosed class, an empty one, a bare `-` or `]` in it, a
 * trailing `\`) is Go's ErrBadPattern.
 */
export function goGlobSource(pattern: string): string {
  const literal = (c: string) => c.replace(/[.+*?^${}()|[\]\\/-]/g, '\\$&')
  let out = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '*') out += '[^/]*'
    else if (c === '?') out += '[^/]'
    else if (c === '\\') {
      if (++i >= pattern.length) throw new BadPattern()
      out += literal(pattern[i])
    } else if (c !== '[') out += literal(c)
    else {
      i++
      const negated = pattern[i] === '^'
      if (negated) i++
      let ranges = ''
      let count = 0
      // Go's getEsc: one character of a class, escaped or not; never a bare `-` or `]`, never the pattern's end.
      const one = () => {
        if (i >= pattern.length || pattern[i] === '-' || pattern[i] === ']') throw new BadPattern()
        if (pattern[i] === '\\' && ++i >= pattern.length) throw new BadPattern()
        const ch = pattern[i++]
        if (i >= pattern.length) throw new BadPattern()
        return ch
      }
      for (;;) {
        if (i >= pattern.length) throw new BadPattern()
        if (pattern[i] === ']' && count > 0) break
        const lo = one()
        let hi = lo
        if (pattern[i] === '-') {
          i++
          hi = one()
        }
        ranges += lo === hi ? literal(lo) : `${literal(lo)}-${literal(hi)}`
        count++
      }
      out += `[${negated ? '^' : ''}${ranges}]`
    }
  }
  return out
}

/** A glob of Docker's `reference` filter (Go's path.Match), matched in linear time (protocol/go/regexp.ts). */
function referenceGlob(p: string) {
  let source: string
  try {
    source = goGlobSource(p)
  } catch {
    throw new InvalidInputError(`Invalid "filters" reference ${JSON.stringify(p.slice(0, 120))}: not a pattern Go's path.Match takes (a class left open or empty, a bare "-" or "]" in one, or a trailing "\\"); e.g. {"reference":{"nginx:1.2?":true}}.`).onWire('syntax error in pattern', 500)
  }
  // As a backtracking RegExp, `*a*a*a*a*a*c` took ~0.8 s against 100 characters.
  try {
    return compileGoRegexp(`^${source}$`)
  } catch {
    throw new InvalidInputError(`Invalid "filters" reference ${JSON.stringify(p.slice(0, 120))}: a pattern that compiles to at most ${GO_REGEXP_MAX_STATES} instructions is expected, e.g. {"reference":{"nginx:*":true}}.`)
  }
}

/**
 * Docker's `filters` of `GET /images/json` (`docker images --filter`, daemon/images/image_list.go): `reference`
 * (REPO[:TAG] as a Go path.Match pattern), `dangling`, `label`, `before`/`since` (an image, the last one given) and `until` (a
 * timestamp). `dangling=true` keeps the images with no tag, named by the digests pushes recorded for them alone; the
 * fake's images have no labels, so any `label` matches none.
 * Like Docker's `Args.Get`, an object's keys count whatever their booleans (`{"reference":{"nginx":false}}` is nginx),
 * except for `dangling`, read as Docker's `GetBoolOrDefault` reads it. Unknown names and values Docker refuses are a
 * 400 naming what is allowed. `image` selects images; `reference` selects which of an image's tags and digests match.
 */
function imageFilter(svc: Service, raw: string | undefined, version: string | undefined): { image: (image: Image) => boolean; reference: (ref: string) => boolean; danglingOnly: boolean } {
  // The 20.10 daemon (API 1.41 and older) has no `until` on images.
  const old = !apiAtLeast(version, '1.42')
  const names = old ? IMAGE_FILTER_NAMES.filter((n) => n !== 'until') : IMAGE_FILTER_NAMES
  const args = {
    names,
    unknown: (name: string) => `invalid filter '${name}': GET /images/json takes the filters ${names.join(', ')}.`,
    example: '{"reference":{"nginx:*":true}}',
  }
  // JSON null is no filter at all (Go's json leaves Docker's Args empty).
  if (raw?.trim() === 'null') raw = undefined
  // A name given with no values is kept (`[]`): an empty `reference` selects nothing (Args.Contains), an empty
  // `dangling` is read below, and the rest are no filter when empty.
  const f = dockerFilterArgs(raw, { ...args, keysOfObjects: true, keepEmpty: true }, version)
  let danglingOnly = false
  if (f.dangling?.length === 0) {
    // 20.10: ExactMatch("dangling", "true"), which an empty set passes; Engine 23 on: GetBoolOrDefault's refusal, no value.
    if (!old) throw new InvalidFilterError(`invalid filter 'dangling': expected one of true, false, 1 or 0, e.g. {"dangling":{"true":true}}.`).onWire(`invalid filter 'dangling'`)
    danglingOnly = true
  } else if (f.dangling) {
    // Read again with Docker's booleans (GetBoolOrDefault): defined, since `f.dangling` is.
    const set = dockerFilterArgs(raw, { ...args, keepEmpty: true }, version).dangling!
    // 20.10 took `true` or `false` exactly (ExactMatch); Engine 28 takes 1 and 0 too (GetBoolOrDefault). The daemon
    // names the values as Go prints a []string.
    const yes = set.includes('true') || (!old && set.includes('1'))
    const no = set.includes('false') || (!old && set.includes('0'))
    const refused = () => new InvalidFilterError(`invalid filter 'dangling=${f.dangling!.join(',')}': expected one of true, false${old ? '' : ', 1 or 0'}.`).onWire(`${old ? 'Invalid' : 'invalid'} filter 'dangling=[${f.dangling!.join(' ')}]'`)
    if (old ? !yes && !no : yes === no) throw refused()
    danglingOnly = yes
  }
  const until = (f.until ?? []).map((v) => untilTimestamp(v, svc.clock.now()))
  const bound = (name: 'before' | 'since') => {
    const ref = f[name]?.at(-1)
    return ref === undefined ? undefined : resolveOrThrow(svc, ref, version).image.created
  }
  const before = bound('before')
  const since = bound('since')
  // Never labelled.
  if (f.label?.length) return { image: () => false, reference: () => false, danglingOnly }
  // The daemon matches (and so finds a bad pattern) only against the references it holds: none, no error.
  const held = svc.images.list().length > 0 || svc.images.digests().length > 0
  const patterns = held ? (f.reference ?? []).map((v) => referenceGlob(familiarName(v))) : []
  // Docker's reference.FamiliarMatch: the whole reference (`repo:tag`, `repo@sha256:...`), else its repository.
  const reference = (ref: string) => f.reference === undefined || patterns.some((p) => p.test(ref) || p.test(splitReference(ref).repository))
  const image = (i: Image) => (before === undefined || i.created < before) && (since === undefined || i.created > since) && until.every((u) => i.created < u)
  return { image, reference, danglingOnly }
}

/**
 * `GET /images/json`, as daemon/images/image_list.go lists: every image with a tag or a pushed digest (one whose pushed
 * tag moved on is listed by its digest, with no tags: dangling), when one of its references matches the `reference`
 * filter, with only the matching ones (`docker images REPO` prints a row for each repository they name), newest first.
 * `dangling=true` drops an image with a matching tag, as the daemon does.
 */
function listImages(svc: Service, filters: string | undefined, version: string | undefined): ProtoResponse {
  const filter = imageFilter(svc, filters, version)
  const seen = new Set<Image>()
  const out = []
  for (const { image } of [...svc.images.list(), ...svc.images.digests()]) {
    if (seen.has(image)) continue
    seen.add(image)
    if (!filter.image(image)) continue
    const s = summary(svc, image, version)
    const RepoTags = s.RepoTags.filter(filter.reference)
    const RepoDigests = s.RepoDigests.filter(filter.reference)
    if (RepoTags.length === 0 && RepoDigests.length === 0) continue
    if (filter.danglingOnly && RepoTags.length > 0) continue
    // Go's nil slice is JSON null: below API 1.43 the daemon sends an image's missing tags or digests so (dockerd 20.10
    // checked); from 1.43 getImagesJSON makes them [].
    const none = apiAtLeast(version, '1.43') ? [] : null
    out.push({ ...s, RepoDigests: RepoDigests.length ? RepoDigests : none, RepoTags: RepoTags.length ? RepoTags : none })
  }
  return json(200, out.sort((a, b) => b.Created - a.Created))
}

const IMAGE_JSON = /^\/images\/(.+)\/json$/
const IMAGE_TAG = /^\/images\/(.+)\/tag$/

/** `GET /images/json`, `GET /images/{name}/json`, `POST /images/{name}/tag`. Undefined for other paths. */
export function handleImages(svc: Service, req: ProtoRequest, target: Target): ProtoResponse | undefined {
  const { path } = target
  if (path === '/images/json' && req.method === 'GET') return queryRefusal(target) ?? listImages(svc, target.query.get('filters'), target.version)
  const ij = IMAGE_JSON.exec(path)
  if (ij && req.method === 'GET') {
    // Engine 23 on reads the form first (getImagesByName); the 20.10 daemon did not read it.
    const unreadable = apiAtLeast(target.version, '1.42') ? queryRefusal(target) : undefined
    if (unreadable) return unreadable
    const sent = goPathSegment(ij[1])
    try {
      return json(200, inspect(svc, resolveOrThrow(svc, sent, target.version).image, target.version))
    } catch (error) {
      // The 20.10 daemon's inspect (API 1.41 and older) wraps the lookup's error, whatever it is, keeping its status:
      // `no such image: X: No such image: X:latest`, `no such image: X: invalid checksum digest length`.
      if (error instanceof DocksideError && invalidParameterStatus(target.version) === 500) error.onWire(`no such image: ${sent}: ${error.wire ?? error.message}`, error.wireStatus)
      throw error
    }
  }
  const it = IMAGE_TAG.exec(path)
  if (it && req.method === 'POST') {
    const unreadable = queryRefusal(target)
    if (unreadable) return unreadable
    // As Engine 28's postImagesTag: `repo` is checked (httputils.RepoTagReference) before the image is looked up, and a
    // source it cannot find is a 404 whatever the reason. The 20.10 daemon (API 1.41 and older) looked the image up
    // first (daemon/images/image_tag.go).
    const old = invalidParameterStatus(target.version) === 500
    const source = () => {
      try {
        return resolveOrThrow(svc, goPathSegment(it[1]), target.version)
      } catch (error) {
        // errdefs.NotFound(err): a source that is no reference at all is a 404 too, from API 1.42.
        if (!old && error instanceof DocksideError && !(error instanceof NotFoundError)) throw new NotFoundError(error.message).onWire(error.wire ?? error.message)
        throw error
      }
    }
    const found = old ? source() : undefined
    const sent = target.query.get('repo') ?? ''
    const repo = familiarName(sent)
    const tag = target.query.get('tag') || undefined
    const noRepo = 'POST /images/{name}/tag needs a "repo" query parameter, e.g. ?repo=localhost:5000/team/app&tag=1.0.'
    // No repo and no tag: RepoTagReference has no reference and no error, and Engine 28 answers 200 having tagged
    // nothing (errdefs.InvalidParameter(nil) is nil); the 20.10 daemon parsed the empty name, a 500.
    if (!repo && !tag && !old) return { status: 200, headers: { 'x-dockside-hint': `nothing was tagged: ${noRepo}` } }
    if (!repo) return dockerError(invalidParameterStatus(target.version), 'invalid reference format', noRepo)
    // The daemon's words, with its status for the API version; dockside's help in X-Dockside-Hint.
    const refuse = (daemonText: string, hint: string) => dockerError(invalidParameterStatus(target.version), daemonText, hint)
    // What reference.Parse refuses past its grammar (a name over 255 characters, a malformed digest) comes first.
    const repoLimit = referenceLimitError(repo)
    if (repoLimit) return refuse(repoLimit, referenceLimitHint(sent, repoLimit))
    // The 20.10 daemon (API 1.41 and older) refused it as a 400 of its own words; newer ones as RepoTagReference does.
    if (repo.includes('@') && invalidParameterStatus(target.version) === 500) return dockerError(400, 'refusing to create a tag with a digest reference', `"repo" ${JSON.stringify(sent)} holds a digest; a tag names a repository and a tag, e.g. ?repo=localhost:5000/team/app&tag=1.0.`)
    if (repo.includes('@')) return refuse('cannot import digest reference', `cannot import digest reference: "repo" ${JSON.stringify(sent)} holds a digest; a tag names a repository and a tag, e.g. ?repo=localhost:5000/team/app&tag=1.0.`)
    // reference.WithTag's "invalid tag format", not a repository cut at the tag's colon (`x/app:sha256`).
    const badTag = tag === undefined ? undefined : tagFormatProblem(tag)
    if (badTag) return refuse('invalid tag format', badTag)
    const { repository, tag: inRepo } = splitReference(repo)
    // A 400 on both daemons (20.10's reference store said it as an invalidTagError).
    if (repository === 'sha256') return dockerError(400, 'refusing to create an ambiguous tag using digest algorithm as name', `refusing to create an ambiguous tag using digest algorithm as name: "repo" may not be "sha256" (it reads as an image id); choose another repository name.`)
    // A `repo` that is no repository is the daemon's 400 too, whether or not the image exists.
    if (!isRepository(repository) || inRepo === '') return refuse(daemonReferenceText(sent, undefined, target.version), `invalid reference format: "repo" ${JSON.stringify(sent)} is not a repository name; expected lower-case [host[:port]/]path, e.g. ?repo=localhost:5000/team/app&tag=1.0.`)
    const { ref, image } = found ?? source()
    const wanted = `${repository}:${tag ?? inRepo ?? 'latest'}`
    // Tagged by id: the source may be a digest reference, which only the protocol layer resolves.
    svc.images.tag(image.id, wanted)
    svc.journal.record('image.tag', { source: ref, target: wanted })
    return { status: 201, headers: {} }
  }
  return undefined
}
