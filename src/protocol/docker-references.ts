import { pushReferenceProblem, tagFormatProblem } from '../service/images'
import { invalidParameterStatus } from './http'

/**
 * What the daemon says of a push reference it refuses (reference.ParseNormalizedNamed, reference.WithTag): the 20.10
 * daemon's docker/distribution (API 1.41 and older) names no repository in its lowercase error; the newer
 * distribution/reference does.
 */
export function daemonReferenceText(name: string, tag: string | undefined, version: string | undefined): string {
  if (/^[a-f0-9]{64}$/.test(name)) return `invalid repository name (${name}), cannot specify 64-byte hexadecimal strings`
  const slash = name.indexOf('/')
  const first = slash < 0 ? '' : name.slice(0, slash)
  const domain = first !== '' && (/[.:]/.test(first) || first === 'localhost' || first !== first.toLowerCase())
  const remainder = domain ? name.slice(slash + 1) : name
  const colon = remainder.indexOf(':')
  const remote = colon < 0 ? remainder : remainder.slice(0, colon)
  if (remote !== remote.toLowerCase()) {
    return invalidParameterStatus(version) === 500 ? 'invalid reference format: repository name must be lowercase' : `invalid reference format: repository name (${domain ? remote : remote.includes('/') ? remote : `library/${remote}`}) must be lowercase`
  }
  const nameTag = colon < 0 ? undefined : remainder.slice(colon + 1)
  if (pushReferenceProblem(name, undefined) === undefined && nameTag !== '' && tag !== undefined && tagFormatProblem(tag) !== undefined) return 'invalid tag format'
  return 'invalid reference format'
}
