// Docker's `sec[.nanos]` timestamps, as the Engine reads and writes them: the `since`/`until` of both events endpoints
// and the `until` filter of `GET /images/json`.
import { InvalidInputError } from '../service/errors'
import { goQuote } from './go/strconv'

const TIMESTAMP = /^(-?)0*(\d{1,12})(?:\.(\d{1,19}))?$/
/** 9999-12-31T23:59:59Z, the last second Docker's timestamps (Go's RFC 3339) can show; later is refused. */
export const MAX_TIMESTAMP_SECONDS = 253_402_300_799n
/**
 * 1677-09-21, the first second whose nanoseconds fit the int64 the Engine compares event times in; earlier is refused.
 * Times before 1970 are what the docker CLI sends for an older date (`--since 1969-12-31` is `-86400.000000000`).
 */
export const MIN_TIMESTAMP_SECONDS = -9_223_372_036n

/**
 * Parses Docker's `sec[.nanos]` timestamps into exact epoch nanoseconds. As the Engine's parseTimestamp, the fraction
 * adds to the seconds whatever their sign: `-1.5` is -0.5 s, as `time.Unix(-1, 500000000)`.
 */
export function parseTimestampNano(name: string, value: string | undefined): bigint | undefined {
  if (value === undefined || value === '') return undefined
  const m = TIMESTAMP.exec(value)
  const shown = value.length > 40 ? `${JSON.stringify(value.slice(0, 40))}... (${value.length} characters)` : JSON.stringify(value)
  const seconds = m ? BigInt(`${m[1]}${m[2]}`) : 0n
  if (!m || seconds > MAX_TIMESTAMP_SECONDS || seconds < MIN_TIMESTAMP_SECONDS || (m[3] !== undefined && BigInt(m[3]) > 9_223_372_036_854_775_807n)) {
    throw new InvalidInputError(
      `Invalid "${name}" ${shown}: expected Unix time as seconds[.nanoseconds] from ${MIN_TIMESTAMP_SECONDS} (year 1677) to ${MAX_TIMESTAMP_SECONDS} (year 9999), e.g. 1767225600 or 1767225600.000000001.`,
    )
  }
  return seconds * 1_000_000_000n + fractionNano(m[3] ?? '')
}

/**
 * The nanoseconds of a timestamp's fraction, as the Engine's parseTimestamp reads them: up to 9 digits exactly; more
 * (up to 19, what its ParseInt takes) scaled down in float64 and cut, as `int64(float64(n) * 10^(9-len))` does.
 */
export function fractionNano(digits: string): bigint {
  if (digits.length <= 9) return BigInt(digits.padEnd(9, '0'))
  return BigInt(Math.trunc(Number(digits) * 10 ** (9 - digits.length)))
}

/** Formats epoch nanoseconds as Docker's `sec.nanos`: whole seconds down, nanoseconds up (-0.5 s is `-1.500000000`). */
export function formatTimestamp(nano: bigint): string {
  const ns = ((nano % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n
  return `${(nano - ns) / 1_000_000_000n}.${String(ns).padStart(9, '0')}`
}

/**
 * The error of the Engine's parseTimestamp (api/types/time): strconv.ParseInt of the seconds, then of the fraction
 * after the first `.`; undefined when both parse (the value may still be out of what the fake can hold).
 */
export function goTimestampError(value: string): string | undefined {
  const dot = value.indexOf('.')
  for (const part of dot < 0 ? [value] : [value.slice(0, dot), value.slice(dot + 1)]) {
    if (!/^[+-]?\d+$/.test(part)) return `strconv.ParseInt: parsing ${goQuote(part)}: invalid syntax`
    const n = BigInt(part)
    if (n > 9_223_372_036_854_775_807n || n < -9_223_372_036_854_775_808n) return `strconv.ParseInt: parsing ${goQuote(part)}: value out of range`
  }
  return undefined
}
