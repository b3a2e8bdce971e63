import { readFile } from 'node:fs/promises'
import type { UiAsset } from '../protocol/admin-live'

/** The dashboard's files and their types; nothing else under /_dockside/ui is served. */
const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
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
  if (!Object.hasOwn(FILES, file)) return Promise.resolve(undefined)
  let asset = cache.get(file)
  if (!asset) {
    asset = read(file)
    cache.set(file, asset)
  }
  return asset
}
