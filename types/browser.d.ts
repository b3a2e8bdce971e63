/// <reference lib="esnext.disposable" />
// The types of `dockside/browser`: the library's and its MSW handlers', from the Node build's declarations. Written by
// hand rather than by tsup's declaration build: as one of that build's entries, browser.d.ts became the module the
// shared chunks were imported through (`import { Dockside } from './browser.js'` in matchers.d.ts and server.d.ts),
// and it imports msw, an optional peer: a project without msw could not type-check `dockside/matchers`.
// The fake, its server and its hooks are AsyncDisposable (`await using`): in Node, @types/node declares those types;
// in a page's project (the DOM lib, no Node types), the reference above brings TypeScript's own.
export * from '../dist/index.js'
export { docksideHandlers, type DocksideHandlersOptions, type MswHandshake } from '../dist/msw.js'
