import { DocksideError, InvalidFilterError } from '../service/errors'
import { parseFilterArgs, type FilterArgsOptions } from '../service/filters'
import { apiAtLeast } from './api-version'
import { goJsonError, goJsonKind } from './go/json-error'


/** Every string of JSON text, with the `:` after it when it is a key (strings are matched whole, left to right). */
const JSON_STRING = /"(?:[^"\\]|\\.)*"(\s*:)?/g

/**
 * The JSON text with every object key made non-numeric (an escaped NUL before it), so that parsing keeps its keys in document
 * order: JavaScript lists integer-like keys (`"1"`) first, Go's decoder meets them in order, and its first error is the
 * first in the text (`{"b":"x","1":5}` fails on the string). The values are untouched; the keys are only walked.
 */
function keysInDocumentOrder(raw: string): string {
  return raw.replace(JSON_STRING, (text, colon: string | undefined) => (colon === undefined ? text : `"\\u0000${text.slice(1)}`))
}

/**
 * Why Docker's filters.FromJSON refuses `raw`, in the 20.10 daemon's words, or undefined when it reads it: json.Unmarshal
 * into Args (map[string]map[string]bool), else into the legacy map[string][]string; when both fail, the first attempt's
 * error (Go's first UnmarshalTypeError in document order, or its syntax error). JSON `null`, as a whole or as a name's
 * value, is read as nothing.
 */
export function goFiltersProblem(raw: string): string | undefined {
  let value: unknown
  try {
    value = JSON.parse(keysInDocumentOrder(raw))
  } catch {
    return goJsonError(raw) ?? 'unexpected end of JSON input'
  }
  if (value === null) return undefined
  if (typeof value !== 'object' || Array.isArray(value)) return `json: cannot unmarshal ${goJsonKind(value)} into Go value of type map[string]map[string]bool`
  let first: string | undefined
  for (const v of Object.values(value)) {
    if (first !== undefined) break
    if (v === null) continue
    if (typeof v !== 'object' || Array.isArray(v)) first = `json: cannot unmarshal ${goJsonKind(v)} into Go value of type map[string]bool`
    else for (const b of Object.values(v)) if (first === undefined && b !== null && typeof b !== 'boolean') first = `json: cannot unmarshal ${goJsonKind(b)} into Go value of type bool`
  }
  if (first === undefined) return undefined
  const legacy = Object.values(value).every((v) => v === null || (Array.isArray(v) && v.every((s) => s === null || typeof s === 'string')))
  return legacy ? undefined : first
}

/**
 * A Docker route's `filters` as the daemon reads them (filters.FromJSON), else its refusal on the wire: below API 1.42
 * (the 20.10 daemon) Go's json error with a 500; at 1.42 `invalid filter: <Go's error>`, from 1.43 `invalid filter`,
 * with a 400 (moby's api/types/filters, v23.0.0 and v24.0.0). The
 * help goes in the hint: `fakeReading(raw)` is what the fake's own reading says of it. Returns the text to read on,
 * without the names given as `null` (no values, as Go leaves them).
 */
export function dockerFiltersText(raw: string | undefined, version: string | undefined, fakeReading: (raw: string) => unknown): string | undefined {
  if (raw === undefined || raw === '') return raw
  const problem = goFiltersProblem(raw)
  if (problem !== undefined) {
    let help = 'the filters mix the object form {"name":{"value":true}} and the list form {"name":["value"]}: Docker reads one form for all names'
    try {
      fakeReading(raw)
    } catch (error) {
      if (error instanceof DocksideError) help = error.message
    }
    // 20.10 returned Go's error as it was (a 500); Engine 23 (API 1.42) wrapped it in invalidFilter (400,
    // `invalid filter: <Go's error>`); Engine 24 (1.43) on says `invalid filter` alone.
    const text = !apiAtLeast(version, '1.42') ? problem : !apiAtLeast(version, '1.43') ? `invalid filter: ${problem}` : 'invalid filter'
    throw new InvalidFilterError(help).onWire(text, apiAtLeast(version, '1.42') ? 400 : 500)
  }
  const value = JSON.parse(raw) as Record<string, unknown> | null
  if (value === null) return undefined
  if (!Object.values(value).includes(null)) return raw
  return JSON.stringify(Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null)))
}

/**
 * A Docker list route's `filters` (`GET /containers/json`, `GET /images/json`), read by {@link parseFilterArgs} once
 * the daemon would read them ({@link dockerFiltersText}), with the daemon's own words on the wire when it refuses them
 * and dockside's help in the hint: an unknown name is `invalid filter 'NAME'` (errdefs' invalidFilter), `Invalid filter
 * 'NAME'` on the 20.10 daemon (API 1.41 and older).
 */
export function dockerFilterArgs(raw: string | undefined, options: FilterArgsOptions, version: string | undefined): Record<string, string[]> {
  const text = dockerFiltersText(raw, version, (r) => parseFilterArgs(r, options))
  let unknown: string | undefined
  try {
    return parseFilterArgs(text, { ...options, unknown: (name) => ((unknown = name), options.unknown!(name)) })
  } catch (error) {
    if (!(error instanceof DocksideError) || error.wire !== undefined) throw error
    if (unknown !== undefined) throw error.onWire(`${apiAtLeast(version, '1.42') ? 'invalid' : 'Invalid'} filter '${unknown}'`)
    throw error
  }
}
