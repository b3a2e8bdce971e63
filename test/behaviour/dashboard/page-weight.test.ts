// The dashboard's page weight: everything the page loads (HTML, script, styles), compressed, within 150 KB.
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { beforeAll, expect, it } from 'vitest'
import { INDEX_HTML } from '../../../src/ui/assets'
import { ensureUiBuilt, uiDir } from './support'

const BUDGET = 150 * 1024

beforeAll(() => ensureUiBuilt(), 120_000)

it('the dashboard weighs at most 150 KB gzip-compressed, and the page loads only its own files', () => {
  const files = readdirSync(uiDir)
  expect(files.sort()).toEqual(['app.css', 'app.js'])
  const sizes: Record<string, number> = Object.fromEntries([...files.map((f) => [f, gzipSync(readFileSync(join(uiDir, f)), { level: 9 }).length] as const), ['index.html', gzipSync(INDEX_HTML, { level: 9 }).length] as const])
  const total = Object.values(sizes).reduce((a, b) => a + b, 0)
  expect(total, `gzip sizes: ${JSON.stringify(sizes)}`).toBeLessThanOrEqual(BUDGET)
  const loaded = [...INDEX_HTML.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])
  expect(loaded).toEqual(['data:,', '/_dockside/ui/app.css', '/_dockside/ui/app.js'])
})
