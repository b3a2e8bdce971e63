import type { Nock } from './nock-loader'

// The CommonJS build's nock-loader.ts (tsup.config.ts swaps it in). It require()s the process's own nock, the copy the
// user's `require('nock')` gets: Node 22.12+ loads nock's ES modules with require(), and returns the instance that
// `import` returns too. Where require() cannot load them (jest's module system, Node 22.3 to 22.11), it takes the copy
// bundled into dockside's CommonJS build (nock-bundled.ts); the user cannot require() nock there either. Two copies
// in one process would send a request round between their interceptors forever (docs/decisions/0024-one-nock-per-process.md).
export async function loadNock(): Promise<Nock> {
  let own: { default?: Nock } | undefined
  try {
    own = require('nock') as { default?: Nock }
  } catch {
    // ERR_REQUIRE_ESM, or jest's "Cannot use import statement outside a module": the bundled copy below.
  }
  if (typeof own?.default === 'function') return own.default
  bundled = true
  return (await import('./nock-bundled')).default
}

let bundled = false
/** Whether the copy of nock in use is the one bundled into this build (require() could not load the process's own). */
export const usingBundledNock = (): boolean => bundled
