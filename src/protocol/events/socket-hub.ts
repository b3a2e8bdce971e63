// The live events sockets and Docker `GET /events` streams of one fake, and the closes that reach all of them.
import { checkCloseCode } from '../../service/close-code'
import { InvalidInputError } from '../../service/errors'
import type { Service } from '../../core/service'
import { type CompiledFilter } from '../../service/filters'

/** A live events websocket, as the hub tracks it. */
export interface LiveSocket {
  readonly id: number
  readonly client: string | undefined
  readonly filters: CompiledFilter['filters']
  /** Messages sent so far. */
  readonly sent: number
  /** Closes from the server side with a close frame. */
  close(code: number, reason: string): void
  /** Ends the socket with no close frame (the client sees 1006). */
  drop(): void
}

/**
 * A live Docker `GET /events` stream, as the hub tracks it. A restart or a close of every socket reaches it too: the
 * spec's "closed by the server on a restart for maintenance" holds for `docker events` as for the websocket.
 */
export interface LiveStream {
  readonly id: number
  readonly client: string | undefined
  /** Ends the response cleanly, as a daemon restart does (HTTP has no close code: the delivery report keeps it). */
  close(code: number, reason: string): void
  /** Cuts the connection with no end of the response, as a crashed server does (the client sees a reset). */
  drop(): void
}

/** RFC 6455 §5.5: a close frame's reason fits in 123 bytes of UTF-8. */
export const MAX_CLOSE_REASON_BYTES = 123

/**
 * `reason` cut to at most 123 UTF-8 bytes on a character boundary, ending in `…` when cut. Every close the protocol
 * sends goes through it: a reason built from input (`maxConnectionAge: '1s'.repeat(70)`) made `ws.close` throw.
 */
export function clampCloseReason(reason: string): string {
  let bytes = 0
  let end = 0
  let fits = 0
  for (const ch of reason) {
    const cp = ch.codePointAt(0)!
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4
    if (bytes > MAX_CLOSE_REASON_BYTES) return `${reason.slice(0, fits)}…`
    end += ch.length
    // Where the cut goes if one is needed: room left for the 3-byte ellipsis.
    if (bytes <= MAX_CLOSE_REASON_BYTES - 3) fits = end
  }
  return reason
}

/** The live events sockets and Docker events streams of one service. */
export interface SocketHub {
  /** The live events websockets (what the admin state and the dashboard list). */
  readonly sockets: ReadonlySet<LiveSocket>
  /** The live Docker `GET /events` streams: every close and drop below reaches them as well. */
  readonly streams: ReadonlySet<LiveStream>
  /** Closes every live events socket and ends every events stream cleanly; returns how many (both counted). */
  closeAll(code: number, reason: string): number
  /** Drops every live events socket with no close frame and cuts every events stream; returns how many (both counted). */
  dropAll(): number
  /** Aborted by the next maintenance restart: handshakes a fault holds unanswered (a stall) end with it. */
  readonly restarts: AbortSignal
  /** Aborts {@link restarts} (a maintenance restart, after its closes) and arms it again for the next. */
  restarted(): void
}

/** What a maintenance restart says: the close reason of every socket, and the answer to a handshake it cuts short. */
export const RESTART_REASON = 'server restarting for maintenance; reconnect to continue'

export function createHub(): SocketHub & { add(s: LiveSocket): void; delete(s: LiveSocket): void; addStream(s: LiveStream): void; deleteStream(s: LiveStream): void } {
  const sockets = new Set<LiveSocket>()
  // Kept apart from `sockets`: the admin state lists websockets with their filters and frames sent.
  const streams = new Set<LiveStream>()
  let restarting = new AbortController()
  return {
    sockets,
    streams,
    get restarts() {
      return restarting.signal
    },
    restarted() {
      const ended = restarting
      restarting = new AbortController()
      ended.abort()
    },
    add: (s) => sockets.add(s),
    delete: (s) => sockets.delete(s),
    addStream: (s) => streams.add(s),
    deleteStream: (s) => streams.delete(s),
    closeAll(code, reason) {
      // Checked here, the one place every close path goes through (library, admin API, timeline), before any socket
      // changes: a reason a socket cannot send must not leave it half closed.
      checkCloseCode(code, reason)
      if (typeof reason !== 'string') throw new InvalidInputError('Invalid close reason: expected a string of at most 123 bytes (every close carries a readable reason).')
      // Snapshots: each one leaves its set as it closes.
      const all = [...sockets]
      const ending = [...streams]
      for (const s of all) s.close(code, reason)
      for (const s of ending) s.close(code, reason)
      return all.length + ending.length
    },
    dropAll() {
      const all = [...sockets]
      const ending = [...streams]
      for (const s of all) s.drop()
      for (const s of ending) s.drop()
      return all.length + ending.length
    },
  }
}

/** A maintenance restart: closes every events socket with 1001, ends every events stream, and journals it; returns how many. */
export function maintenanceRestart(svc: Service, hub: SocketHub): number {
  const closed = hub.closeAll(1001, RESTART_REASON)
  svc.journal.record('maintenance.restart', { closed })
  hub.restarted()
  return closed
}
