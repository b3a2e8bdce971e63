// @mswjs/interceptors, under nock and under MSW, keeps each kind of active interceptor in a registry on globalThis.
// Two copies of the library in one process (MSW's and nock's at different versions, or dockside's bundled nock beside
// the user's own copy, docs/decisions/0024-one-nock-per-process.md) each patch net.Socket.prototype.connect, and a
// request to any host then goes round between the two patches forever, at full CPU. A copy that activates replaces a
// foreign copy's registry entry by an instance of its own class: that is how the other copy is seen.
import type { Nock } from './nock-loader'

const SOCKET_INTERCEPTOR = Symbol.for('socket-interceptor')

export interface InterceptorEntry {
  readyState?: unknown
  constructor: unknown
}

const registry = () => (globalThis as { __MSW_INTERCEPTORS_REGISTRY?: Map<symbol, InterceptorEntry> }).__MSW_INTERCEPTORS_REGISTRY

/** The socket interceptor active in this process now, of whichever copy. */
export function activeSocketInterceptor(): InterceptorEntry | undefined {
  const entry = registry()?.get(SOCKET_INTERCEPTOR)
  return entry?.readyState === 'ACTIVE' ? entry : undefined
}

const TWO_COPIES =
  'dockside: another copy of @mswjs/interceptors (the library under MSW and nock) is active in this process, a different ' +
  "one from the copy under dockside's nock. Two copies each patch node:net and pass every request between them forever, " +
  'so intercept() refuses to hook. '
const DEDUPE =
  "Make them one copy: `npm ls @mswjs/interceptors` lists them; `npm dedupe`, or line up msw's and nock's versions " +
  '(package.json `overrides`). See docs/in-process.md.'
/** When dockside's CommonJS build runs its own bundled nock, the second copy is dockside's: no dedupe can merge it. */
const BUNDLED =
  "The copy under dockside's nock is the one bundled into dockside's CommonJS build, used because require() cannot load " +
  "nock's ES modules here (Node older than 22.12, or jest's module system). Load dockside with import, or run Node " +
  '22.12 or newer, so that it shares the process\'s nock. See docs/in-process.md.'

/** The class of the socket interceptor under dockside's nock, once seen. */
let own: unknown

/**
 * Throws, naming the fix, when nock's interceptors are active beside another copy's. `before` was active before this
 * install loaded or activated nock (`activated`); then nock's own patches come out again and the other copy keeps
 * the registry, so that the next install sees it too.
 */
export function refuseTwoCopies(nock: Nock, before: InterceptorEntry | undefined, activated: boolean, bundled: boolean): void {
  const now = activeSocketInterceptor()
  if (activated && now) own = now.constructor
  const foreign = activated ? before !== undefined && now !== undefined && before.constructor !== now.constructor : own !== undefined && now !== undefined && now.constructor !== own
  if (!foreign) return
  if (activated && before) {
    nock.restore()
    registry()?.set(SOCKET_INTERCEPTOR, before)
  }
  throw new Error(TWO_COPIES + (bundled ? BUNDLED : DEDUPE))
}
