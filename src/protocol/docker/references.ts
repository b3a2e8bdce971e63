import { apiAtLeast } from '../api-version'
import { isRepository, pushReferenceProblem, splitReference, tagFormatProblem } from '../../service/images'

/**
 * What the daemon says of a push reference it refuses (reference.ParseNormalizedNamed, reference.WithTag). Engines
 * before 25.0 (API 1.43 and older; dockerd 20.10 is 1.41) vendor docker/distribution 2.8, whose lowercase error names
 * no repository and whose splitDockerDomain reads an upper-case first element as a path; distribution/reference
 * (Engine 25.0, API 1.44, on) names the repository and reads it as a domain.
 */
export function daemonReferenceText(name: string, tag: string | undefined, version: string | undefined): string {
  if (/^[a-f0-9]{64}$/.test(name)) return `invalid repository name (${name}), cannot specify 64-byte hexadecimal strings`
  // distribution/reference (Engine 25.0, API 1.44, on).
  const modern = apiAtLeast(version, '1.44')
  const slash = name.indexOf('/')
  const first = slash < 0 ? '' : name.slice(0, slash)
  const domain = first !== '' && (/[.:]/.test(first) || first === 'localhost' || (modern && first !== first.toLowerCase()))
  const remainder = domain ? name.slice(slash + 1) : name
  const colon = remainder.indexOf(':')
  const remote = colon < 0 ? remainder : remainder.slice(0, colon)
  if (remote !== remote.toLowerCase()) {
    return !modern ? 'invalid reference format: repository name must be lowercase' : `invalid reference format: repository name (${domain ? remote : remote.includes('/') ? remote : `library/${remote}`}) must be lowercase`
  }
  const nameTag = colon < 0 ? undefined : remainder.slice(colon + 1)
  if (pushReferenceProblem(name, undefined) === undefined && nameTag !== '' && tag !== undefined && tagFormatProblem(tag) !== undefined) return 'invalid tag format'
  return 'invalid reference format'
}

/** distribution's NameTotalLengthMax: the most characters a repository name has, counted normalized. */
const NAME_TOTAL_LENGTH_MAX = 255
/** The reference grammar's digest (distribution's DigestRegexp): an algorithm, then at least 32 hex digits. */
const DIGEST_GRAMMAR = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/
/** The algorithms go-digest has registered in the daemon, with their hex length. */
const DIGEST_HEX_LENGTH: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 }

/**
 * A name as distribution's reference.ParseNormalizedNamed hands it to Parse (splitDockerDomain): a first component with
 * a `.` or `:`, or `localhost`, is the registry; anything else is on `docker.io`, an official image's one part under
 * `library/`. `index.docker.io` is `docker.io`.
 */
function normalizedName(name: string): string {
  const slash = name.indexOf('/')
  const first = slash < 0 ? '' : name.slice(0, slash)
  const hasDomain = slash >= 0 && (/[.:]/.test(first) || first === 'localhost')
  const domain = !hasDomain || first === 'index.docker.io' ? 'docker.io' : first
  const remainder = hasDomain ? name.slice(slash + 1) : name
  return `${domain}/${domain === 'docker.io' && !remainder.includes('/') ? 'library/' : ''}${remainder}`
}

/**
 * What distribution's reference.Parse refuses in a reference its grammar takes: a name over 255 characters counted
 * normalized (`docker.io/library/` counts: 237 characters of a one-part name is the most), then a digest go-digest's
 * Validate refuses (an algorithm it does not have, a length other than the algorithm's, upper-case hex). The same
 * texts in Engine 20.10 (docker/distribution 2.8) and 28 (distribution/reference). Undefined when the grammar does not
 * take `ref` (the callers answer that as the daemon does) or when it parses.
 */
export function referenceLimitError(ref: string): string | undefined {
  const at = ref.indexOf('@')
  const named = at < 0 ? ref : ref.slice(0, at)
  const digest = at < 0 ? undefined : ref.slice(at + 1)
  const { repository, tag } = splitReference(named)
  if (!isRepository(repository) || tag === '' || (tag !== undefined && tagFormatProblem(tag) !== undefined)) return undefined
  if (digest !== undefined && !DIGEST_GRAMMAR.test(digest)) return undefined
  if (normalizedName(repository).length > NAME_TOTAL_LENGTH_MAX) return `repository name must not be more than ${NAME_TOTAL_LENGTH_MAX} characters`
  if (digest === undefined) return undefined
  const colon = digest.indexOf(':')
  const length = DIGEST_HEX_LENGTH[digest.slice(0, colon)]
  if (length === undefined) return 'unsupported digest algorithm'
  if (digest.length - colon - 1 !== length) return 'invalid checksum digest length'
  return /^[a-f0-9]+$/.test(digest.slice(colon + 1)) ? undefined : 'invalid checksum digest format'
}

/** dockside's help beside {@link referenceLimitError}'s text, naming what was too long or wrong and what is allowed. */
export function referenceLimitHint(ref: string, error: string): string {
  if (error.startsWith('repository name')) {
    const at = ref.indexOf('@')
    const name = normalizedName(splitReference(at < 0 ? ref : ref.slice(0, at)).repository)
    return `${error}: ${JSON.stringify(ref.length > 80 ? `${ref.slice(0, 77)}...` : ref)} names the repository ${JSON.stringify(name.length > 80 ? `${name.slice(0, 77)}...` : name)}, ${name.length} characters as the daemon counts it (with docker.io/ and library/ before a Docker Hub name).`
  }
  const digest = ref.slice(ref.indexOf('@') + 1)
  return `${error}: the digest ${JSON.stringify(digest)} after "@" must be sha256:<64 hex digits> (or sha384:<96>, sha512:<128>), in lower case.`
}
