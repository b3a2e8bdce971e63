// Every relative link in every Markdown page the package ships resolves inside the package: a file it ships, and for
// a `#fragment`, a heading of that page (GitHub's anchors). The package's own file list comes from
// `npm pack --dry-run --json` (the `files` of package.json; no build needed: dist/ holds no Markdown).
// Paths in code spans that name a shipped folder (`examples/chaos.yaml`) must exist too; the repository's own folders
// (src/, test/, bench/) may be named in text, never linked.
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'
import { brokenLinks } from '../support/doc-links'

const repo = new URL('../..', import.meta.url).pathname

it('the link checker finds a missing file, a link out of the package, a missing heading, and takes a good link', () => {
  const pages = new Map([
    ['README.md', '# Top\n\n## A heading, with `code`!\n\n[ok](docs/a.md#the-part) [self](#a-heading-with-code) [bad](docs/nope.md) [src](src/index.ts)'],
    ['docs/a.md', '# A\n\n## The part\n\n[up](../README.md#top) [out](../../shared/PROTOCOL.md) [frag](#nothing) [dir](../examples/)\n\n```sh\n[not a link](nowhere.md)\n```'],
  ])
  const files = new Set(['README.md', 'docs/a.md', 'examples/basic.yaml'])
  expect(brokenLinks(pages, files)).toEqual([
    'README.md: docs/nope.md (docs/nope.md is not in the package)',
    'README.md: src/index.ts (src/index.ts is not in the package)',
    'README.md: names docs/nope.md, which the package does not ship',
    'docs/a.md: ../../shared/PROTOCOL.md points outside the package',
    'docs/a.md: #nothing (no heading #nothing in docs/a.md)',
  ])
})

it('every relative link in the shipped Markdown resolves inside the package', async () => {
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repo })
  const [{ files }] = JSON.parse(stdout) as [{ files: { path: string }[] }]
  const shipped = new Set(files.map((f) => f.path))
  const pages = new Map([...shipped].filter((p) => p.endsWith('.md')).map((p) => [p, readFileSync(join(repo, p), 'utf8')]))
  expect(pages.size).toBeGreaterThan(10)
  expect(pages.has('README.md') && pages.has('docs/wire.md')).toBe(true)
  // What is for building dockside stays in the repository.
  expect([...shipped].filter((p) => /^docs\/(architecture|performance)\.md$|^docs\/(decisions|contributing)\//.test(p))).toEqual([])
  expect(brokenLinks(pages, shipped)).toEqual([])
}, 60_000)
