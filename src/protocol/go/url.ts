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
