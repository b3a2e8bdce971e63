/** A duration: milliseconds as a number, or a string such as `'250ms'`, `'5s'`, `'2m'`, `'1h30m'`, `'24h'`, `'1d'`. */
export type Duration = number | string

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/y

/** Parses a {@link Duration} into milliseconds; throws a RangeError naming the accepted forms. */
export function toMs(value: Duration, what = 'duration'): number {
  if (typeof value === 'number') {
    if (Number.isFinite(value) && value >= 0) return value
    throw new RangeError(`Invalid ${what} ${value}: expected a non-negative number of milliseconds or a string like "250ms", "5s", "2m", "1h", "1d".`)
  }
  const text = String(value).trim()
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text)
  let total = 0
  let at = 0
  PART.lastIndex = 0
  while (at < text.length) {
    PART.lastIndex = at
    const m = PART.exec(text)
    if (!m) {
      throw new RangeError(`Invalid ${what} "${value}": expected a number of milliseconds or a string like "250ms", "5s", "2m", "1h30m", "1d".`)
    }
    total += Number(m[1]) * UNITS[m[2]]
    at = PART.lastIndex
  }
  if (text.length === 0) throw new RangeError(`Invalid ${what} "": expected a duration like "5s".`)
  return total
}
