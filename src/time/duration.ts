/** A duration: milliseconds as a number, or a string such as `'250ms'`, `'5s'`, `'2m'`, `'1h30m'`, `'24h'`, `'1d'`. */
export type Duration = number | string

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/y

/** The longest duration dockside accepts anywhere (a clock advance, a timeline `at`, a fault window): 100 years of 365 days. */
export const MAX_DURATION_MS = 100 * 365 * 86_400_000

const FORMS = 'a number of milliseconds or a string like "250ms", "5s", "2m", "1h30m", "1d"'
const RANGE = `from 0 to ${MAX_DURATION_MS} ms (100 years)`

/** A value as it appears in an error message: never more than 60 characters of it. */
function shown(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value) : String(value)
  return typeof value === 'string' && value.length > 60 ? `${text} (${value.length} characters)` : text
}

/** Parses a {@link Duration} into milliseconds; throws a RangeError naming the accepted forms and range (0 to 100 years). */
export function toMs(value: Duration, what = 'duration'): number {
  let total: number
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`Invalid ${what} ${shown(value)}: expected a non-negative ${FORMS.slice(2)}, ${RANGE}.`)
    total = value
  } else {
    const text = String(value).trim()
    if (text.length === 0) throw new RangeError(`Invalid ${what} "": expected a duration like "5s".`)
    if (/^\d+(\.\d+)?$/.test(text)) total = Number(text)
    else {
      total = 0
      let at = 0
      while (at < text.length) {
        PART.lastIndex = at
        const m = PART.exec(text)
        if (!m) throw new RangeError(`Invalid ${what} ${shown(value)}: expected ${FORMS}, ${RANGE}.`)
        total += Number(m[1]) * UNITS[m[2]]
        at = PART.lastIndex
      }
    }
  }
  if (!(total <= MAX_DURATION_MS)) throw new RangeError(`Invalid ${what} ${shown(value)}: longer than the 100-year maximum; expected ${RANGE}.`)
  return total
}
