/**
 * What must differ between a real daemon and the fake, and nothing else: ids, digests, times, sizes, byte counts and
 * how many intermediate `Pushing` lines a layer gets. Everything else (line kinds and order, keys and their order,
 * Go's escapes, statuses, headers, error texts) is compared as it came.
 */

/** Numbers each distinct value of a kind by first appearance, so that "the same id twice" still compares. */
class Numbering {
  readonly #seen = new Map<string, number>()
  constructor(readonly label: string) {}
  name(value: string): string {
    let n = this.#seen.get(value)
    if (n === undefined) this.#seen.set(value, (n = this.#seen.size + 1))
    return `<${this.label}${n}>`
  }
}

/** One side's normaliser: numbering is per transcript, so `<id1>` on both sides is each side's first id. */
export function normaliser(run: string): (line: string) => string {
  const ids = new Numbering('id')
  const digests = new Numbering('digest')
  const shorts = new Numbering('layer')
  return (line) =>
    line
      .replaceAll(run, '<run>')
      .replace(/sha256:[0-9a-f]{64}/g, (d) => `sha256:${digests.name(d)}`)
      .replace(/(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])/g, (id) => ids.name(id))
      .replace(/(?<![0-9a-fA-F<])[0-9a-f]{12}(?![0-9a-f>])/g, (id) => shorts.name(id))
      // Times: Unix seconds and nanoseconds in JSON, RFC 3339 dates, Go durations in Docker's "Up 5 seconds".
      .replace(/"(time|Created|created)":\d{9,11}(?=[,}])/g, '"$1":<time>')
      .replace(/"timeNano":\d{18,20}(?=[,}])/g, '"timeNano":<timeNano>')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)/g, '<date>')
      .replace(/\b(?:\d+|About an?|Less than a) (?:second|minute|hour|day|week|month|year)s?\b/g, '<duration>')
      // Sizes and byte counts.
      .replace(/"(size|Size|VirtualSize|SharedSize|SizeRootFs|current|total)":\d+/g, '"$1":<n>')
      .replace(/\bsize: \d+/g, 'size: <n>')
      .replace(/"progress":"(?:[^"\\]|\\.)*"/g, '"progress":"<progress>"')
      .replace(/\b\d+(?:\.\d+)?\s?[kMG]?B\b/g, '<bytes>')
}

/** A transcript line's kind for collapsing: consecutive `Pushing` lines of one layer count once. */
export function collapsePushing(lines: string[]): string[] {
  const out: string[] = []
  for (const line of lines) {
    if (line.includes('"status":"Pushing"') && out.at(-1) === line) continue
    out.push(line)
  }
  return out
}

/** Go's encoding/json escapes for a value the comparison rewrote (`<`, `>`, `&`, U+2028 and U+2029). */
export function goJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
