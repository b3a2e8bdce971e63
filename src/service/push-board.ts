/** One layer of a push, as the dashboard shows it. */
export interface PushLayerView {
  id: string
  size: number
  current: number
  status: 'waiting' | 'pushing' | 'pushed' | 'exists'
}

/** A push in flight or recently ended. */
export interface PushView {
  id: number
  repository: string
  tags: string[]
  registry: string
  /** Clock time it started, epoch ms. */
  startedAt: number
  /**
   * `stalled`: an injected `stall` holds it silent while its client still waits on the open stream; it ends `cancelled`
   * when the client gives up (or the fake is reset or closed), as any push whose client left.
   */
  state: 'pushing' | 'stalled' | 'done' | 'failed' | 'cancelled'
  layers: PushLayerView[]
  /** Digest of each tag pushed so far. */
  digests: Record<string, string>
  error?: string
}

/** What a push reports to the board as it goes: plain assignments, no allocation per tick beyond the push's own. */
export interface PushTrack {
  readonly view: PushView
  layer(id: string, size: number, current: number, status: PushLayerView['status']): void
  digest(tag: string, digest: string): void
  /** Still in flight, silent: `note` says why (shown as its `error` line until it ends). */
  stall(note: string): void
  /** Ends it (from `pushing` or `stalled`); a push already ended stays as it ended. */
  end(state: Exclude<PushView['state'], 'pushing' | 'stalled'>, error?: string): void
}

/** Pushes in flight and the last few that ended, for the live dashboard (GET /_dockside/live). */
export interface PushBoard {
  list(): PushView[]
  begin(repository: string, tags: string[], registry: string, now: number): PushTrack
  /** Called after any change; one listener at a time is enough for the live feed, but several are allowed. */
  subscribe(listener: () => void): () => void
}

/** How many ended pushes the board keeps. */
export const ENDED_PUSHES_KEPT = 20

export function createPushBoard(): PushBoard {
  const live: PushView[] = []
  const ended: PushView[] = []
  const listeners = new Set<() => void>()
  let next = 0
  const changed = () => listeners.forEach((l) => l())
  return {
    list: () => [...ended, ...live],
    subscribe(listener) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    begin(repository, tags, registry, now) {
      const view: PushView = { id: ++next, repository, tags, registry, startedAt: now, state: 'pushing', layers: [], digests: {} }
      const byId = new Map<string, PushLayerView>()
      live.push(view)
      changed()
      return {
        view,
        layer(id, size, current, status) {
          let l = byId.get(id)
          if (!l) {
            l = { id, size, current, status }
            byId.set(id, l)
            view.layers.push(l)
          } else {
            l.current = current
            l.status = status
          }
          if (listeners.size) changed()
        },
        digest(tag, digest) {
          view.digests[tag] = digest
          changed()
        },
        stall(note) {
          if (view.state !== 'pushing') return
          view.state = 'stalled'
          view.error = note
          changed()
        },
        end(state, error) {
          if (view.state !== 'pushing' && view.state !== 'stalled') return
          view.state = state
          if (error !== undefined) view.error = error
          live.splice(live.indexOf(view), 1)
          ended.push(view)
          if (ended.length > ENDED_PUSHES_KEPT) ended.shift()
          changed()
        },
      }
    },
  }
}
