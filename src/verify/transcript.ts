import type { Answer } from './host'

/**
 * Headers that differ by construction and say nothing a client reads: when the answer was made, how its body was
 * framed, the connection's fate, and dockside's own hints (a header the fake adds for people, never a client).
 */
const IGNORED_HEADERS = new Set(['date', 'content-length', 'transfer-encoding', 'connection', 'keep-alive'])

/** The lines a client's view of one HTTP answer compares by: status, headers (by name), the body's lines. */
export function answerLines(answer: Answer, options: { body?: 'lines' | 'keys' | 'none' } = {}): string[] {
  const lines = [`HTTP ${answer.status}`]
  const headers = answer.headers
    .map(([n, v]) => [n.toLowerCase(), v] as const)
    .filter(([n]) => !IGNORED_HEADERS.has(n) && !n.startsWith('x-dockside-'))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  for (const [n, v] of headers) lines.push(`${n}: ${v}`)
  const text = answer.body.toString('utf8')
  if (options.body === 'none') return lines
  if (options.body === 'keys') {
    try {
      return [...lines, ...keyPaths(JSON.parse(text))]
    } catch {
      return [...lines, `body (not JSON): ${text}`]
    }
  }
  // A line's end is compared too: Docker's push stream ends lines with CRLF (streamformatter), its events with LF, its
  // JSON answers with LF (json.Encoder); a body whose last line has no end says so.
  for (const line of text.split('\n')) if (line.trim() !== '') lines.push(line.endsWith('\r') ? `${line.slice(0, -1)} [CRLF]` : line)
  if (text.trim() !== '' && !text.endsWith('\n') && lines.length > 0) lines[lines.length - 1] += ' [no final newline]'
  return lines
}

/**
 * A JSON value as its key paths with their JSON types, in the order they came (`.State.Running: boolean`):
 * what a Go template or a typed decoder reads, without the values that must differ. Arrays show their first element.
 */
export function keyPaths(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.length === 0 ? [`${path || '.'}: []`] : [`${path || '.'}: array`, ...keyPaths(value[0], `${path}[]`)]
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
    if (entries.length === 0) return [`${path || '.'}: {}`]
    return entries.flatMap(([k, v]) => keyPaths(v, `${path}.${k}`))
  }
  return [`${path || '.'}: ${value === null ? 'null' : typeof value}`]
}

/** A command's result as lines: exit code, then stdout and stderr line by line. */
export function commandLines(result: { code: number | null; stdout: string; stderr: string }): string[] {
  const out = [`exit ${result.code}`]
  for (const l of result.stdout.split('\n')) if (l.trim()) out.push(`stdout ${l}`)
  for (const l of result.stderr.split('\n')) if (l.trim()) out.push(`stderr ${l}`)
  return out
}
