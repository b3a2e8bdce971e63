// Go's strconv and net/url as the daemon's error texts show them (src/protocol/go/strconv.ts, url.ts). The expected
// texts are Go's own: strconv.Quote, strconv.Atoi and strconv.ParseUint errors, url.EscapeError and url.ParseQuery,
// as dockerd 20.10 sent them back in the side-by-side runs (docs/docker-compat.md).
import { describe, expect, it } from 'vitest'
import { goAtoiError, goParseUintError, goQuote } from '../../../../src/protocol/go/strconv'
import { badEscape, goCleanPath, goPathSegment, goQueryError } from '../../../../src/protocol/go/url'

describe('goQuote (strconv.Quote)', () => {
  it('escapes quotes, backslashes and controls by name, other controls and DEL as \\xNN, keeps printable text', () => {
    expect(goQuote('a"b\\c')).toBe('"a\\"b\\\\c"')
    expect(goQuote('\x07\b\f\n\r\t\v')).toBe('"\\a\\b\\f\\n\\r\\t\\v"')
    expect(goQuote('\x00\x1f\x7f')).toBe('"\\x00\\x1f\\x7f"')
    expect(goQuote('héllo wörld €')).toBe('"héllo wörld €"')
  })

  it('writes what IsPrint refuses past ASCII as \\uNNNN, and past the BMP as \\UNNNNNNNN', () => {
    expect(goQuote('\u00a0\u200b\u0085')).toBe('"\\u00a0\\u200b\\u0085"')
    expect(goQuote('\u{e0001}')).toBe('"\\U000e0001"')
    expect(goQuote('\uffff')).toBe('"\\uffff"')
    expect(goQuote('😀')).toBe('"😀"')
  })
})

describe('goAtoiError (strconv.Atoi)', () => {
  it('reads a sign and decimal digits within int64', () => {
    for (const ok of ['0', '-1', '+7', '9223372036854775807', '-9223372036854775808', '007']) expect(goAtoiError(ok), ok).toBeUndefined()
  })
  it('is out of range past int64 and invalid syntax for anything else', () => {
    expect(goAtoiError('9223372036854775808')).toBe('strconv.Atoi: parsing "9223372036854775808": value out of range')
    expect(goAtoiError('-9223372036854775809')).toBe('strconv.Atoi: parsing "-9223372036854775809": value out of range')
    for (const bad of ['', '+', '-', ' 1', '1.0', '0x10', '1_000']) expect(goAtoiError(bad), bad).toBe(`strconv.Atoi: parsing ${goQuote(bad)}: invalid syntax`)
  })
})

describe('goParseUintError (strconv.ParseUint(s, 10, bits))', () => {
  it('reads decimal digits up to the bit size', () => {
    for (const ok of ['0', '65535', '00080']) expect(goParseUintError(ok, 16), ok).toBeUndefined()
    expect(goParseUintError('4294967295', 32)).toBeUndefined()
  })
  it('refuses the first fault it reads: past the bit size is out of range even before a bad character', () => {
    expect(goParseUintError('65536', 16)).toBe('strconv.ParseUint: parsing "65536": value out of range')
    expect(goParseUintError('70000x', 16)).toBe('strconv.ParseUint: parsing "70000x": value out of range')
    expect(goParseUintError('7x0000', 16)).toBe('strconv.ParseUint: parsing "7x0000": invalid syntax')
    expect(goParseUintError('4294967296', 32)).toBe('strconv.ParseUint: parsing "4294967296": value out of range')
    for (const bad of ['', '-1', '+1', ' 1', '1_0', 'abc']) expect(goParseUintError(bad, 16), bad).toBe(`strconv.ParseUint: parsing ${goQuote(bad)}: invalid syntax`)
  })
})

describe('badEscape (url.unescape)', () => {
  it('names the first % not followed by two hex digits, cut to three characters as url.EscapeError is', () => {
    expect(badEscape('/a%20b%2F%e2%82%ac')).toBeUndefined()
    expect(badEscape('/a%ZZb')).toBe('%ZZ')
    expect(badEscape('/a%2')).toBe('%2')
    expect(badEscape('/a%')).toBe('%')
    expect(badEscape('/%41%4g/x')).toBe('%4g')
    expect(badEscape('/%20%A/x')).toBe('%A/')
    expect(badEscape('%%41')).toBe('%%4')
  })
})

describe('goQueryError (url.ParseQuery)', () => {
  it('reads whole escapes, + and empty parts', () => {
    expect(goQueryError('a=1&b=%41+c&&d&=e')).toBeUndefined()
  })
  it('names the first broken escape, in a key or a value', () => {
    expect(goQueryError('a=1&b=%ZZ&c=%YY')).toEqual({ text: 'invalid URL escape "%ZZ"', part: 'b=%ZZ' })
    expect(goQueryError('%G1=x')).toEqual({ text: 'invalid URL escape "%G1"', part: '%G1=x' })
    expect(goQueryError('a=%"]')).toEqual({ text: 'invalid URL escape "%\\"]"', part: 'a=%"]' })
    // The key and the value are unescaped apart: an escape cut short by the "=" is named as Go names it.
    expect(goQueryError('a%4=1')).toEqual({ text: 'invalid URL escape "%4"', part: 'a%4=1' })
    expect(goQueryError('a=1%2')).toEqual({ text: 'invalid URL escape "%2"', part: 'a=1%2' })
    expect(goQueryError('%2')).toEqual({ text: 'invalid URL escape "%2"', part: '%2' })
  })
  it('a ";" in a part replaces an escape error before it, and is not replaced by one after it', () => {
    expect(goQueryError('a=1;b=2')).toEqual({ text: 'invalid semicolon separator in query', part: 'a=1;b=2' })
    expect(goQueryError('a=%ZZ&b;c')).toEqual({ text: 'invalid semicolon separator in query', part: 'b;c' })
    expect(goQueryError('b;c&a=%ZZ')).toEqual({ text: 'invalid semicolon separator in query', part: 'b;c' })
  })
})

describe('goCleanPath (gorilla/mux cleanPath: path.Clean, a trailing slash kept)', () => {
  it('drops empty and . segments, each .. with the one before, never above the root', () => {
    expect(goCleanPath('/v1.41/containers/json')).toBe('/v1.41/containers/json')
    expect(goCleanPath('/v1.41//containers/json')).toBe('/v1.41/containers/json')
    expect(goCleanPath('/v1.41/./_ping')).toBe('/v1.41/_ping')
    expect(goCleanPath('/v1.41/a/b/../../_ping')).toBe('/v1.41/_ping')
    expect(goCleanPath('/../../_ping')).toBe('/_ping')
    expect(goCleanPath('_ping')).toBe('/_ping')
    expect(goCleanPath('/')).toBe('/')
    expect(goCleanPath('//')).toBe('/')
    expect(goCleanPath('/..a/.b/')).toBe('/..a/.b/')
  })
  it('keeps a trailing slash, except for the root', () => {
    expect(goCleanPath('/v1.41/_ping/')).toBe('/v1.41/_ping/')
    expect(goCleanPath('/v1.41/x/..//')).toBe('/v1.41/')
    expect(goCleanPath('/./')).toBe('/')
  })
})

describe('goPathSegment (the unescaped path Go hands a route)', () => {
  it('decodes escapes to bytes read as UTF-8, leaving other characters as they came', () => {
    expect(goPathSegment('localhost%3A5000%2Fteam%2Fapp')).toBe('localhost:5000/team/app')
    expect(goPathSegment('caf%C3%A9')).toBe('café')
    expect(goPathSegment('%F0%9F%98%80x')).toBe('😀x')
    expect(goPathSegment('plain+name')).toBe('plain+name')
  })
  it('reads each byte that starts no UTF-8 sequence as U+FFFD, as Go does (dockerd 20.10: %E0%A4 is two)', () => {
    expect(goPathSegment('%E0%A4')).toBe('\ufffd\ufffd')
    expect(goPathSegment('a%FFb%C3')).toBe('a\ufffdb\ufffd')
    expect(goPathSegment('%C0%80')).toBe('\ufffd\ufffd')
    expect(goPathSegment('%E2%82%AC%E2%82')).toBe('€\ufffd\ufffd')
  })
  it('keeps a broken escape as sent (the router refused it before)', () => {
    expect(goPathSegment('a%ZZ')).toBe('a%ZZ')
  })
})
