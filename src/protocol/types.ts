/** Who may use the admin API and the events websocket. */
export interface AccessOptions {
  /** Required as `Authorization: Bearer <token>` on admin routes when set. */
  adminToken?: string
  /** Web origins (`https://app.example:8443`) allowed besides the fake's own: on the admin API, and (when set) the only ones on the events websocket. */
  allowedOrigins?: readonly string[]
  /** Host names (without port) the admin API answers besides loopback names and the bound address; `'*'` allows any. */
  allowedHosts?: readonly string[]
}

/** The address a transport serves, given with each request; its `access` overrides the fake's, field by field. */
export interface Served {
  scheme: 'http' | 'https'
  /** The bound host (`127.0.0.1`, `0.0.0.0`, `::`, a name) or, in process, the hooked region's host name. */
  host: string
  port: number
  access?: AccessOptions
}

/** A transport-neutral HTTP request. Header names are lower-case. */
export interface ProtoRequest {
  method: string
  /** Path and query exactly as received (the query may hold raw, unencoded JSON). */
  url: string
  headers: Record<string, string | undefined>
  /** Aborts when the client goes away. */
  signal: AbortSignal
  /**
   * Reads the request body as text (empty when none). Past `maxBytes` bytes the transport stops buffering and
   * rejects with a `BodyTooLargeError` (see limits.ts); the protocol always passes its `maxBodySize`.
   */
  body(maxBytes?: number): Promise<string>
  /** The client's address, for logs and per-client limits. */
  remoteAddress?: string
  /** The address the transport serves (and its own access options), for the admin guard (guard.ts). */
  served?: Served
}

/** A transport-neutral answer; `body` may be a stream of chunks, written with backpressure. */
export interface ProtoResponse {
  status: number
  headers: Record<string, string>
  body?: string | AsyncIterable<string>
  /**
   * Aborted by the protocol when a streaming body must end at once, even while the transport waits for the client
   * to read (a consumer more than `maxBacklog` behind): the transport ends the connection and returns the body.
   */
  abort?: AbortSignal
}

/** What a transport gives the protocol for an accepted websocket. */
export interface SocketSink {
  /** Writes a text frame; `false`: nothing was written (the socket is closing), and the frame is not counted. */
  send(text: string): boolean | void
  /**
   * The client's close frame, when the transport has read one but not yet reported the connection's end (the server
   * hears the end at the TCP close): asked when a send finds the socket closing.
   */
  goodbye?(): { code: number; reason: string } | undefined
  /** A clean close with a close frame. */
  close(code: number, reason: string): void
  /** An abrupt end with no close frame: the client sees 1006. */
  drop(): void
  /**
   * Bytes sent but not yet taken by the client (the server's `ws.bufferedAmount`): the protocol closes the socket
   * when this passes `maxBacklog`. Absent where clients cannot fall behind (the in-process WebSocket).
   */
  backlog?(): number
  /**
   * Writes out what the transport holds back to write together at the end of the turn (counted in `backlog`): checked
   * again after this, the backlog is what the client has not taken, not what one burst of events queued.
   */
  flush?(): void
}

/**
 * Thrown by a streaming body to make the transport reset the connection mid-body
 * (the server destroys the socket; in-process hooks error the stream as closely as they can).
 */
export class TransportReset extends Error {
  readonly code = 'DOCKSIDE_RESET'
  constructor(message = 'connection reset by the fake') {
    super(message)
  }
}

/** What the protocol gives back for an accepted websocket. */
export interface SocketSession {
  /** The client closed (or the connection ended). */
  clientClosed(code: number, reason: string): void
  /** The client sent a frame over `EVENTS_MAX_MESSAGE` bytes; the transport has closed (or closes) with 1009. */
  tooBig(): void
  /**
   * The client broke the WebSocket protocol (1002: a frame RFC 6455 does not allow; 1007: text that is not UTF-8;
   * 1008: a message in too many fragments); the transport has sent the close with the reason of
   * `PROTOCOL_ERROR_REASONS` (limits.ts) and ends the connection.
   */
  protocolError(code: 1002 | 1007 | 1008): void
  /** The transport is shutting down (its server closes): the socket closes with `code` and `reason`, by the server. */
  serverClosed(code: number, reason: string): void
}

/**
 * The reason a transport aborts a request's signal with when it shuts down (its server closes), rather than because
 * the client left: a `GET /events` stream then reports the server's close (1001), not the client's.
 */
export const SERVER_SHUTDOWN = Object.freeze({ name: 'AbortError', message: 'the fake server is shutting down' })

/** The answer to an upgrade request: refuse with an HTTP response, or accept and open a session. */
export type UpgradeResult =
  | { kind: 'reject'; response: ProtoResponse & { body?: string } }
  | { kind: 'accept'; open(sink: SocketSink): SocketSession }
  /** No websocket endpoint at this path; `response` is the protocol's 404 (a transport may apply its own unhandled-request policy first). */
  | { kind: 'not-found'; response: ProtoResponse & { body: string } }
