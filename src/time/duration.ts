/** A duration: milliseconds as a number, or a string such as `'250ms'`, `'5s'`, `'2m'`, `'1h30m'`, `'24h'`, `'1d'`. */
export type Duration = number | string

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/y

/** The longest duration dockside accepts anywhere (a clock advance, a timeline `at`, a fault window): 100 years of 365 days. */
export const MAX_DURATION_MS = 100 * 365 * 86_400_000

const FORMS = 'a number of milliseconds or a string like "250ms", "5s", "2m", "1h30m", "1d"'
const RANGE = `from 0 to ${MAX_DURATION_MS} ms (100 years)`

/** A value as it appears in an error message: never more than 60 characters of it. */
export function shownValue(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value) : String(value)
  return typeof value === 'string' && value.length > 60 ? `${text} (${value.length} characters)` : text
}

/** What a value measures, without the range check: milliseconds, or why it is not a duration. */
type Measured = { ms: number } | { problem: 'empty' | 'form' }

function measure(value: unknown): Measured {
  if (typeof value === 'number') {
    // Infinity is a number of milliseconds, just longer than the maximum.
    return Number.isNaN(value) || value < 0 ? { problem: 'form' } : { ms: value }
  }
  if (typeof value !== 'string') return { problem: 'form' }
  const text = value.trim()
  if (text.length === 0) return { problem: 'empty' }
  if (/^\d+(\.\d+)?$/.test(text)) return { ms: Number(text) }
  let total = 0
  let at = 0
  while (at < text.length) {
    PART.lastIndex = at
    const m = PART.exec(text)
    if (!m) return { problem: 'form' }
    total += Number(m[1]) * UNITS[m[2]]
    at = PART.lastIndex
  }
  return { ms: total }
}

/** Parses a {@link Duration} into milliseconds; throws a RangeError naming the accepted forms and range (0 to 100 years). */
export function toMs(value: Duration, what = 'duration'): number {
  if (typeof value === 'number' && !(Number.isFinite(value) && value >= 0)) throw new RangeError(`Invalid ${what} ${shownValue(value)}: expected a non-negative ${FORMS.slice(2)}, ${RANGE}.`)
  const m = measure(value)
  if ('problem' in m) {
    if (m.problem === 'empty') throw new RangeError(`Invalid ${what} "": expected a duration like "5s".`)
    throw new RangeError(`Invalid ${what} ${shownValue(value)}: expected ${FORMS}, ${RANGE}.`)
  }
  if (!(m.ms <= MAX_DURATION_MS)) throw new RangeError(`Invalid ${what} ${shownValue(value)}: longer than the 100-year maximum; expected ${RANGE}.`)
  return m.ms
}

/** What a field that is not a duration is told (the schema's own wording for a duration). */
export const DURATION_EXPECTED = `must be a duration: milliseconds or a string like "250ms", "5s", "2m", "1h30m", ${RANGE}`

/**
 * What is wrong with a value as a duration, as a FieldError's `what was wrong; what is allowed` (the caller names the
 * field), or undefined when it is a duration of 0 to 100 years. Input is checked with it when it is taken, so that
 * nothing later (a request a fault rule matches) meets a duration it cannot use.
 */
export function durationProblem(value: unknown): { kind: 'form' | 'long'; expected: string } | undefined {
  const m = measure(value)
  if ('problem' in m) return { kind: 'form', expected: DURATION_EXPECTED }
  if (!(m.ms <= MAX_DURATION_MS)) return { kind: 'long', expected: `${shownValue(value)} is longer than the 100-year maximum; must be a duration from 0 to ${MAX_DURATION_MS} ms (100 years, "36500d")` }
  return undefined
}
