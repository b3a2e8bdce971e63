import { readFile } from 'node:fs/promises'
import type { UiAsset } from '../protocol/admin/live'

/** The dashboard's page: its script and stylesheet come from the package (dist/ui), nothing from elsewhere. */
export const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>dockside dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/_dockside/ui/app.css">
<script type="module" src="/_dockside/ui/app.js"></script>
</head>
<body>
<div id="app"><main><h1>dockside</h1><p>Loading the dashboard…</p><noscript>The dashboard needs JavaScript; the admin API (/_dockside/state) works without it.</noscript></main></div>
</body>
</html>
`

/** The dashboard's built files and their types; nothing else under /_dockside/ui is served. */
const FILES: Record<string, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
}

// dist/ui beside the bundled chunk that holds this module (the package), else the build output seen from src/ui.
const DIRS = [new URL('./ui/', import.meta.url), new URL('../../dist/ui/', import.meta.url)]

const cache = new Map<string, Promise<UiAsset | undefined>>()

async function read(file: string): Promise<UiAsset | undefined> {
  for (const dir of DIRS) {
    try {
      return { contentType: FILES[file], body: await readFile(new URL(file, dir), 'utf8') }
    } catch {
      // Not in this folder: try the next.
    }
  }
  return undefined
}

/** A file of the dashboard, read from disk on its first request and kept. */
export function readUiAsset(file: string): Promise<UiAsset | undefined> {
  if (file === 'index.html') return Promise.resolve({ contentType: 'text/html; charset=utf-8', body: INDEX_HTML })
  if (!Object.hasOwn(FILES, file)) return Promise.resolve(undefined)
  let asset = cache.get(file)
  if (!asset) {
    asset = read(file)
    cache.set(file, asset)
  }
  return asset
}
