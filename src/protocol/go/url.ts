// Go's net/url, as far as the daemon's answers show it: what its HTTP server refuses in a request path before any
// route, and what url.ParseQuery (through the routes' ParseForm) refuses in a query.
import { goQuote } from './strconv'

const HEX = /^[0-9a-fA-F]$/

/**
 * Go's unescape: the first `%` not followed by two hex digits, as url.EscapeError names it (`%ZZ`, or `%Z` at the
 * end); undefined when every escape is whole.
 */
export function badEscape(text: string): string | undefined {
  for (let i = text.indexOf('%'); i >= 0; i = text.indexOf('%', i + 3)) {
    if (i + 2 >= text.length || !HEX.test(text[i + 1]) || !HEX.test(text[i + 2])) return text.slice(i, i + 3)
  }
  return undefined
}

/**
 * What Go's url.ParseQuery returns for a raw query, or undefined when it reads it: `invalid semicolon separator in
 * query` for a part holding `;` (that error replaces any before it, as Go's loop assigns it), else the first part
 * whose key or value holds a broken escape (`invalid URL escape "%ZZ"`).
 */
export function goQueryError(query: string): { text: string; part: string } | undefined {
  let error: { text: string; part: string } | undefined
  for (const part of query.split('&')) {
    if (part.includes(';')) {
      error = { text: 'invalid semicolon separator in query', part }
      continue
    }
    if (part === '' || error !== undefined) continue
    const eq = part.indexOf('=')
    const bad = badEscape(eq < 0 ? part : part.slice(0, eq)) ?? (eq < 0 ? undefined : badEscape(part.slice(eq + 1)))
    if (bad !== undefined) error = { text: `invalid URL escape ${goQuote(bad)}`, part }
  }
  return error
}

/**
 * The path gorilla/mux redirects to (its cleanPath: Go's path.Clean, keeping a trailing slash): `//` and `.` segments
 * gone, each `..` with the segment before it. The Engine's router answers a path that differs with a 301 to it.
 */
export function goCleanPath(path: string): string {
  const rooted = path.startsWith('/') ? path : `/${path}`
  const kept: string[] = []
  for (const segment of rooted.split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') kept.pop()
    else kept.push(segment)
  }
  const clean = `/${kept.join('/')}`
  return rooted.endsWith('/') && clean !== '/' ? `${clean}/` : clean
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * A path segment as Go's router hands it to a route (its unescaped URL.Path): `%XX` escapes are bytes, and bytes that
 * are not UTF-8 read as U+FFFD each, as Go's JSON writes a name holding them (`No such container: \ufffd\ufffd` for
 * `%E0%A4`). A broken escape never gets here: {@link badEscape} refused it before any route; one that does is kept as sent.
 */
export function goPathSegment(segment: string): string {
  if (!segment.includes('%') || badEscape(segment) !== undefined) return segment
  // Each run of escapes is bytes; the characters between them stay as they came, as decodeURIComponent leaves them.
  return segment.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => goUtf8(Uint8Array.from(run.slice(1).split('%'), (h) => Number.parseInt(h, 16))))
}

/** Bytes as Go's utf8.DecodeRune walks them: each byte that starts no valid sequence is one U+FFFD. */
function goUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes)
  } catch {
    let out = ''
    for (let i = 0; i < bytes.length; ) {
      const b = bytes[i]
      const size = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0
      let rune: string | undefined
      if (size > 0 && i + size <= bytes.length) {
        try {
          rune = utf8.decode(bytes.subarray(i, i + size))
        } catch {
          rune = undefined
        }
      }
      out += rune ?? '\ufffd'
      i += rune === undefined ? 1 : size
    }
    return out
  }
}
