import type nockType from 'nock'

export type Nock = typeof nockType

// nock, loaded on the first intercept() (importing dockside patches nothing). The ESM build imports the process's own
// copy, the one the user's `import nock from 'nock'` gets. The CommonJS build swaps in nock-loader-cjs.ts
// (tsup.config.ts): two copies of nock's interceptors in one process each patch net.Socket.prototype.connect and send
// a request round between them forever (docs/decisions/0024-one-nock-per-process.md).
export async function loadNock(): Promise<Nock> {
  return (await import('nock')).default
}

/** Whether the copy of nock in use is the one bundled into dockside's CommonJS build (never, in this build). */
export const usingBundledNock = (): boolean => false
