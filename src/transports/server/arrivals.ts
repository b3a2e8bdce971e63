// What the real server knows of traffic still on its way: connections it accepted that have not sent a request yet,
// requests whose head came but whose body is still arriving, and websockets the server is closing (its close frame
// sent, the connection not yet ended). A test that moves the virtual clock while a client's request is in flight (a
// retry its own sleep just woke, over a fresh connection, from another process, over TLS) moved time under it: the
// request reached the fake at a later clock time than it was sent; and a client whose socket the fake closed (a
// restart's 1001) saw its close event one clock step late, so its backoff looked a step longer. `settled()` lets
// those arrive first; `clock.advance()` awaits it (through the fake's `settle` hook) before it fires any timer.
import type * as Http from 'node:http'
import type { Duplex } from 'node:stream'

/**
 * How long, in wall time, a connection with no request yet (or a body still arriving) counts as a request on its way:
 * a client that opens a connection and sends nothing (a pre-connected pool) holds no advance for longer than this.
 */
export const ARRIVAL_MS = 500

/** Host turns in a row with nothing on its way before `settled()` resolves: a request read in one may open another. */
const QUIET_TURNS = 2

export class Arrivals {
  /** Sockets with no request yet, and requests with their body still arriving, each with its wall-time deadline. */
  private readonly fresh = new Map<Duplex, number>()
  private readonly reading = new Map<Http.IncomingMessage, number>()
  /** Websockets the server is closing, until their connection ends. */
  private readonly leaving = new Map<object, number>()

  constructor(
    private readonly now: () => number,
    private readonly turn: () => Promise<void>,
  ) {}

  /** A connection accepted (after its TLS handshake over TLS): a request is on its way. */
  connected(socket: Duplex): void {
    this.fresh.set(socket, this.now() + ARRIVAL_MS)
    socket.once('close', () => this.fresh.delete(socket))
  }

  /** A request's head was read (a plain request or an upgrade): its connection is no longer waiting for one. */
  received(req: Http.IncomingMessage): void {
    this.fresh.delete(req.socket)
    if (req.complete) return
    this.reading.set(req, this.now() + ARRIVAL_MS)
    // Forgotten when its body ends or its connection goes, whether or not anyone asks settled() (a reset client's
    // request was kept, with its socket and buffers, until the next advance: heap growth under resets).
    const done = () => this.reading.delete(req)
    req.once('end', done)
    req.once('close', done)
  }

  /** The server sent a websocket its close frame: the close is on its way until {@link closed}. */
  closing(ws: object): void {
    this.leaving.set(ws, this.now() + ARRIVAL_MS)
  }

  /** A websocket's connection ended. */
  closed(ws: object): void {
    this.leaving.delete(ws)
  }

  /** Whether anything is still on its way (past its deadline, it no longer counts). */
  get pending(): number {
    const now = this.now()
    for (const [socket, deadline] of this.fresh) if (deadline <= now || socket.destroyed) this.fresh.delete(socket)
    for (const [req, deadline] of this.reading) if (deadline <= now || req.complete || req.destroyed) this.reading.delete(req)
    for (const [ws, deadline] of this.leaving) if (deadline <= now) this.leaving.delete(ws)
    return this.fresh.size + this.reading.size + this.leaving.size
  }

  /**
   * Resolves once no connection waits for its first request and no request body is arriving, for
   * {@link QUIET_TURNS} host turns in a row (or each has waited {@link ARRIVAL_MS}). At once (one turn at most) when
   * nothing is on its way.
   */
  async settled(): Promise<void> {
    if (this.fresh.size === 0 && this.reading.size === 0 && this.leaving.size === 0) return
    for (let quiet = 0; quiet < QUIET_TURNS; ) {
      await this.turn()
      quiet = this.pending === 0 ? quiet + 1 : 0
    }
  }
}
