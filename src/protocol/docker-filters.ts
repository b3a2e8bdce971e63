import { DocksideError } from '../service/errors'
import { parseFilterArgs, type FilterArgsOptions } from '../service/filters'
import { goJsonError } from './go-json-error'
import { invalidParameterStatus } from './http'

/**
 * A Docker list route's `filters` (`GET /containers/json`, `GET /images/json`), read by {@link parseFilterArgs}, with
 * the daemon's own words on the wire when it refuses them, and dockside's help in the hint: text that is not JSON is
 * Go's json error (filters.FromJSON; 500 below API 1.42, as the 20.10 daemon answers it); an unknown name is
 * `invalid filter 'NAME'` (errdefs' invalidFilter), `Invalid filter 'NAME'` on the 20.10 daemon (API 1.41 and older).
 */
export function dockerFilterArgs(raw: string | undefined, options: FilterArgsOptions, version: string | undefined): Record<string, string[]> {
  let unknown: string | undefined
  try {
    return parseFilterArgs(raw, { ...options, unknown: (name) => ((unknown = name), options.unknown!(name)) })
  } catch (error) {
    if (!(error instanceof DocksideError) || error.wire !== undefined) throw error
    const old = invalidParameterStatus(version) === 500
    if (unknown !== undefined) throw error.onWire(`${old ? 'Invalid' : 'invalid'} filter '${unknown}'`)
    const notJson = raw ? goJsonError(raw) : undefined
    if (notJson !== undefined) throw error.onWire(notJson, invalidParameterStatus(version))
    throw error
  }
}
