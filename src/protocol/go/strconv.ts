// Go's strconv, as far as the daemon's error texts show it: the quoting of a value and the errors of the integer parsers.

/** What Go's strconv.IsPrint takes: letters, marks, numbers, punctuation and symbols, and the ASCII space only. */
const GO_PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u

/**
 * Go's strconv.Quote: named escapes, `\xNN` for other control bytes and DEL, `\uNNNN` (`\UNNNNNNNN` past the BMP)
 * for what strconv.IsPrint does not take past ASCII (C1 controls, spaces other than U+0020 such as U+00A0, format
 * characters such as U+200B, unassigned code points), printable characters as they are.
 */
export function goQuote(text: string): string {
  const named: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '\\': '\\\\', '"': '\\"' }
  let out = '"'
  for (const c of text) {
    const code = c.codePointAt(0)!
    const hex = (width: number) => code.toString(16).padStart(width, '0')
    out += named[c] ?? (code < 0x80 ? (code < 0x20 || code === 0x7f ? `\\x${hex(2)}` : c) : GO_PRINTABLE.test(c) ? c : code > 0xffff ? `\\U${hex(8)}` : `\\u${hex(4)}`)
  }
  return `${out}"`
}

/**
 * The error of Go's strconv.Atoi(value), or undefined when it parses: a sign then digits, within an int64. A string
 * of digits too long for one is out of range; anything else (an empty string, a lone sign, a space) is invalid syntax.
 */
export function goAtoiError(value: string): string | undefined {
  if (!/^[+-]?\d+$/.test(value)) return `strconv.Atoi: parsing ${goQuote(value)}: invalid syntax`
  const n = BigInt(value)
  if (n > 9_223_372_036_854_775_807n || n < -9_223_372_036_854_775_808n) return `strconv.Atoi: parsing ${goQuote(value)}: value out of range`
  return undefined
}

/**
 * The error of Go's strconv.ParseUint(value, 10, bitSize), or undefined when it parses. Go reads the digits left to
 * right and stops at the first fault: a character that is not a decimal digit (a sign, a space, `_`) is invalid
 * syntax, and the value passing the bit size is out of range, even when a bad character follows (`70000x` with 16 bits).
 */
export function goParseUintError(value: string, bitSize: number): string | undefined {
  const quoted = goQuote(value)
  if (value === '') return `strconv.ParseUint: parsing ${quoted}: invalid syntax`
  const max = (1n << BigInt(bitSize)) - 1n
  let n = 0n
  for (const c of value) {
    if (c < '0' || c > '9') return `strconv.ParseUint: parsing ${quoted}: invalid syntax`
    n = n * 10n + BigInt(c.charCodeAt(0) - 48)
    if (n > max) return `strconv.ParseUint: parsing ${quoted}: value out of range`
  }
  return undefined
}
