// Go's regexp (RE2 syntax) for Docker's `name` and `reference` filters, matched in linear time by re2js (a port of
// RE2/J): no pattern can backtrack, as JavaScript's RegExp can (`^(a+)+$` against 28 characters blocked the loop 1 s).
// re2js is loaded on the first pattern only, so start-up never pays for it.
import type { RE2JS } from 're2js'

/** The largest compiled program one pattern may have (matching costs text length × program size). */
export const GO_REGEXP_MAX_STATES = 1000

/** The pattern is not valid Go regexp syntax (Docker skips it: it matches nothing). */
export class GoRegexpSyntaxError extends Error {}
/** The pattern is valid but compiles to more than {@link GO_REGEXP_MAX_STATES} instructions. */
export class GoRegexpTooLargeError extends Error {}

/** A compiled Go regexp: `test(text)` is `regexp.MatchString` (unanchored), in time linear in the text. */
export interface GoRegexp {
  test(text: string): boolean
}

let engine: typeof RE2JS | undefined

/** Loads the engine; call (and await) before {@link compileGoRegexp}. */
export async function loadGoRegexp(): Promise<void> {
  engine ??= (await import('re2js')).RE2JS
}

/**
 * Compiles `pattern` with Go's regexp syntax. Throws {@link GoRegexpSyntaxError} where Go's `regexp.Compile` fails
 * (backreferences, lookaround, bad escapes, repeat counts over 1000...) and {@link GoRegexpTooLargeError} past the budget.
 */
export function compileGoRegexp(pattern: string): GoRegexp {
  if (!engine) throw new Error('dockside: loadGoRegexp() must be awaited before compileGoRegexp().')
  let re: RE2JS
  try {
    re = engine.compile(pattern)
  } catch (error) {
    throw new GoRegexpSyntaxError((error as Error).message)
  }
  const size = re.programSize()
  if (size > GO_REGEXP_MAX_STATES) throw new GoRegexpTooLargeError(`compiles to ${size} instructions, more than ${GO_REGEXP_MAX_STATES}`)
  return { test: (text) => re.matcher(text).find() }
}
