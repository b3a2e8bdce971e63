import type { Dockside } from '../dockside'

/** What a matcher returns, in the shape jest's and vitest's `expect.extend` both take. */
export interface MatcherResult {
  pass: boolean
  message: () => string
}

/** Options of `toHavePushed`. */
export interface PushedOptions {
  /** The registry user the push authenticated as. */
  user?: string
}

/** Options of `toHaveReconnected`. */
export interface ReconnectedOptions {
  /** Counts only sockets of this client (`X-Dockside-Client` header or `client` query). */
  client?: string
}

function splitImage(image: string): { repository: string; tag: string | undefined } {
  const slash = image.lastIndexOf('/')
  const colon = image.lastIndexOf(':')
  return colon > slash ? { repository: image.slice(0, colon), tag: image.slice(colon + 1) } : { repository: image, tag: undefined }
}

function journalOf(received: unknown, matcher: string): Dockside['journal'] {
  const journal = (received as Dockside | undefined)?.journal
  if (!journal || typeof journal.ofType !== 'function') throw new TypeError(`expect(...).${matcher}() needs a fake from createDockside(), e.g. expect(fake).${matcher}(...).`)
  return journal
}

/** Matchers over the fake's journal: pushes and reconnects. Part of {@link matchers} (`dockside/matchers`). */
export const docksideMatchers = {
  /** The fake committed `image` (`repo[:tag]`) to its registry, as `user` when given. */
  toHavePushed(received: Dockside, image: string, options: PushedOptions = {}): MatcherResult {
    const journal = journalOf(received, 'toHavePushed')
    const { repository, tag } = splitImage(image)
    const tags = journal.ofType('push.tag')
    const hit = tags.filter((e) => e.repository === repository && (tag === undefined || e.tag === tag) && (options.user === undefined || e.user === options.user))
    const seen = tags.map((e) => `${e.repository}:${e.tag} by ${e.user ?? '(anonymous)'}`)
    const want = `${image}${options.user !== undefined ? ` by ${options.user}` : ''}`
    return {
      pass: hit.length > 0,
      message: () =>
        hit.length > 0
          ? `expected the fake not to have pushed ${want}, but it did`
          : `expected the fake to have pushed ${want}; pushed: ${seen.length ? seen.join(', ') : 'nothing'} (failed pushes: ${journal.ofType('push.failed').length})`,
    }
  },
  /** The client opened the events websocket `times + 1` times (the first connection is not a reconnect). */
  toHaveReconnected(received: Dockside, times: number, options: ReconnectedOptions = {}): MatcherResult {
    const opens = journalOf(received, 'toHaveReconnected').ofType('ws.open').filter((e) => options.client === undefined || e.client === options.client)
    const reconnects = Math.max(0, opens.length - 1)
    const who = options.client !== undefined ? ` (client ${options.client})` : ''
    return {
      pass: reconnects === times,
      message: () => `expected ${times} reconnect(s)${who}, saw ${reconnects}: ${opens.length} events socket(s) opened at clock times ${opens.map((e) => new Date(e.time).toISOString()).join(', ') || '(none)'}`,
    }
  },
}
