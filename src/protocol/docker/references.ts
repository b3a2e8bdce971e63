import { apiAtLeast } from '../api-version'
import { pushReferenceProblem, tagFormatProblem } from '../../service/images'

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
