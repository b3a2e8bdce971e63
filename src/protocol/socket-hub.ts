// The live events sockets of one fake, and the closes that reach all of them.
import { checkCloseCode } from '../service/close-code'
import type { Service } from '../service/service'
import { type CompiledFilter } from '../service/filters'

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

/** The set of live events sockets of one service. */
export interface SocketHub {
  readonly sockets: ReadonlySet<LiveSocket>
  /** Closes every live events socket; returns how many were closed. */
  closeAll(code: number, reason: string): number
  /** Drops every live events socket with no close frame; returns how many. */
  dropAll(): number
}

export function createHub(): SocketHub & { add(s: LiveSocket): void; delete(s: LiveSocket): void } {
  const sockets = new Set<LiveSocket>()
  return {
    sockets,
    add: (s) => sockets.add(s),
    delete: (s) => sockets.delete(s),
    closeAll(code, reason) {
      // Checked here, the one place every close path goes through (library, admin API, timeline).
      checkCloseCode(code, reason)
      const all = [...sockets]
      for (const s of all) s.close(code, reason)
      return all.length
    },
    dropAll() {
      const all = [...sockets]
      for (const s of all) s.drop()
      return all.length
    },
  }
}

/** A maintenance restart: closes every events socket with 1001 and journals it; returns how many closed. */
export function maintenanceRestart(svc: Service, hub: SocketHub): number {
  const closed = hub.closeAll(1001, 'server restarting for maintenance; reconnect to continue')
  svc.journal.record('maintenance.restart', { closed })
  return closed
}
