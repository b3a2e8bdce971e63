// The link checker of the shipped Markdown (test/packaging/doc-links.test.ts, pack.test.ts): every relative link resolves
// to a file the package ships, and a `#fragment` to a heading of that page (GitHub's anchors).
import { posix } from 'node:path'

/** GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-')
}

/** The anchors of a page's headings (a repeated heading gets -1, -2, ...), code blocks left out. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const [, heading] of text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = anchorOf(heading)
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n === 0 ? base : `${base}-${n}`)
  }
  for (const [, id] of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) out.add(id)
  return out
}

/** Problems of the relative links of `pages` (path → text) against the shipped `files`. */
export function brokenLinks(pages: Map<string, string>, files: Set<string>): string[] {
  const isDir = (p: string) => [...files].some((f) => f.startsWith(`${p.replace(/\/$/, '')}/`))
  const problems: string[] = []
  for (const [page, raw] of pages) {
    // Code blocks and spans hold no links; HTML comments (the docs test's example markers) neither.
    const text = raw.replace(/<!--[\s\S]*?-->/g, '').replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '``')
    const links = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g), ...text.matchAll(/^\[[^\]]+\]:\s+(\S+)/gm), ...text.matchAll(/<(?:a|img)\s[^>]*(?:href|src)="([^"]+)"/g)].map((m) => m[1])
    for (const link of links) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue // https:, mailto:, ...
      const [path, fragment] = link.split('#', 2) as [string, string | undefined]
      const target = path === '' ? page : posix.normalize(posix.join(posix.dirname(page), decodeURIComponent(path)))
      if (target.startsWith('../') || target === '..') {
        problems.push(`${page}: ${link} points outside the package`)
        continue
      }
      if (!files.has(target) && !isDir(target)) {
        problems.push(`${page}: ${link} (${target} is not in the package)`)
        continue
      }
      if (fragment !== undefined && target.endsWith('.md')) {
        const targetText = pages.get(target)
        if (targetText !== undefined && !anchorsOf(targetText).has(fragment.toLowerCase())) problems.push(`${page}: ${link} (no heading #${fragment} in ${target})`)
      }
    }
    // A path in a code span or block under a folder the package ships must be shipped (`dockside serve --scenario examples/x.yaml`).
    for (const [, p] of raw.replace(/<!--[\s\S]*?-->/g, '').matchAll(/(?<![\w./@-])((?:examples|docs|dist|bin|types)\/[\w./-]*[\w/])/g)) {
      if (!p.includes('*') && !files.has(p) && !isDir(p) && !p.startsWith('docs/contributing/') && !p.startsWith('docs/decisions/') && !['docs/architecture.md', 'docs/performance.md'].includes(p)) problems.push(`${page}: names ${p}, which the package does not ship`)
    }
  }
  return [...new Set(problems)]
}
