// Docker's `sec[.nanos]` timestamps (src/protocol/timestamps.ts) where the other tests left them open: the daemon's own
// strconv errors for a `since`/`until` its parseTimestamp cannot read (goTimestampError, Go's strconv.Quote of the part
// it names: checked against Go 1.x's strconv), the int64 bounds of its ParseInt, and a fraction of 19 digits at the
// int64 edge. Found by mutation testing. The common cases are in test/unit/protocol/events/common.test.ts.
import { describe, expect, it } from 'vitest'
import { createDockside } from '../../../src/index'
import { fractionNano, goTimestampError, MIN_TIMESTAMP_SECONDS, parseTimestampNano } from '../../../src/protocol/timestamps'

const invalid = (quoted: string) => `strconv.ParseInt: parsing ${quoted}: invalid syntax`
const outOfRange = (quoted: string) => `strconv.ParseInt: parsing ${quoted}: value out of range`

describe('goTimestampError: the Engine parseTimestamp error (ParseInt of the seconds, then of the fraction)', () => {
  it('is undefined for what both ParseInts read, a sign included', () => {
    for (const value of ['0', '1767225600', '+5', '-5', '1.5', '-1.000000001', '1.9223372036854775807', '00012']) expect([value, goTimestampError(value)]).toEqual([value, undefined])
  })

  it('names the part that is not an integer: the seconds, else the fraction after the first dot', () => {
    expect(goTimestampError('abc')).toBe(invalid('"abc"'))
    expect(goTimestampError('1e9')).toBe(invalid('"1e9"'))
    expect(goTimestampError('.5')).toBe(invalid('""'))
    expect(goTimestampError('5.')).toBe(invalid('""'))
    expect(goTimestampError('5.x')).toBe(invalid('"x"'))
    expect(goTimestampError('5.1.2')).toBe(invalid('"1.2"'))
    expect(goTimestampError(' 5')).toBe(invalid('" 5"'))
  })

  it("refuses an int64 overflow of either part, and reads its bounds themselves (Go's ParseInt, bitSize 64)", () => {
    expect(goTimestampError('9223372036854775807')).toBeUndefined()
    expect(goTimestampError('-9223372036854775808')).toBeUndefined()
    expect(goTimestampError('9223372036854775808')).toBe(outOfRange('"9223372036854775808"'))
    expect(goTimestampError('-9223372036854775809')).toBe(outOfRange('"-9223372036854775809"'))
    expect(goTimestampError('1.9223372036854775808')).toBe(outOfRange('"9223372036854775808"'))
    expect(goTimestampError('1.-9223372036854775808')).toBeUndefined()
    expect(goTimestampError('1.-9223372036854775809')).toBe(outOfRange('"-9223372036854775809"'))
  })

  it("quotes the part as Go's strconv.Quote: named escapes, \\xNN for control bytes and DEL, \\u00NN for C1 controls", () => {
    expect(goTimestampError('a\x07\b\f\n\r\t\v\\"')).toBe(invalid('"a\\a\\b\\f\\n\\r\\t\\v\\\\\\""'))
    expect(goTimestampError('\x00\x01\x1b\x1f')).toBe(invalid('"\\x00\\x01\\x1b\\x1f"'))
    expect(goTimestampError(' ~\x7f')).toBe(invalid('" ~\\x7f"'))
    expect(goTimestampError('\x80\x85\x9f')).toBe(invalid('"\\u0080\\u0085\\u009f"'))
    // Printable characters past ASCII as they are (one code point each, astral ones too).
    expect(goTimestampError('é€😀')).toBe(invalid('"é€😀"'))
    // What strconv.IsPrint does not take past ASCII: spaces other than U+0020, format characters, separators; \U
    // past the BMP (Go quotes "1\u00a0" so: a no-break space pasted into a --since).
    expect(goTimestampError('\u00a0\u200b\u2028\u3000')).toBe(invalid('"\\u00a0\\u200b\\u2028\\u3000"'))
    expect(goTimestampError('\u{e0001}')).toBe(invalid('"\\U000e0001"'))
  })

  it("is what GET /events answers for such a since/until: a 500 in the daemon's words, dockside's range in the hint", async () => {
    await using fake = createDockside({ seed: 1 })
    const get = async (query: string) => {
      const res = await fake.protocol.handle({ method: 'GET', url: `/v1.47/events?${query}`, headers: {}, signal: new AbortController().signal, body: async () => '' })
      return [res.status, (JSON.parse(res.body as string) as { message: string }).message] as const
    }
    expect(await get('since=1.x%0A')).toEqual([500, invalid('"x\\n"')])
    expect(await get('until=9223372036854775808')).toEqual([500, outOfRange('"9223372036854775808"')])
  })
})

describe('parseTimestampNano at its bounds', () => {
  it('takes a 19-digit fraction up to the int64 maximum (cut to nanoseconds in float64), refuses one more', () => {
    expect(parseTimestampNano('since', '1.9223372036854775807')).toBe(1_922337203n)
    expect(() => parseTimestampNano('since', '1.9223372036854775808')).toThrow('Invalid "since" "1.9223372036854775808"')
  })

  it('takes MIN_TIMESTAMP_SECONDS (1677, int64 nanoseconds) with a fraction, and nothing a second earlier', () => {
    expect(MIN_TIMESTAMP_SECONDS).toBe(-9_223_372_036n)
    expect(parseTimestampNano('since', '-9223372036.854775807')).toBe(-9_223_372_036_000_000_000n + 854_775_807n)
    expect(() => parseTimestampNano('since', '-9223372037')).toThrow('from -9223372036 (year 1677) to 253402300799 (year 9999)')
  })

  it('fractionNano: up to 9 digits exact, more scaled down and cut as the Engine does', () => {
    expect(fractionNano('')).toBe(0n)
    expect(fractionNano('5')).toBe(500_000_000n)
    expect(fractionNano('000000001')).toBe(1n)
    expect(fractionNano('999999999')).toBe(999_999_999n)
    expect(fractionNano('9999999999')).toBe(999_999_999n)
    expect(fractionNano('1234567891')).toBe(123_456_789n)
  })
})
