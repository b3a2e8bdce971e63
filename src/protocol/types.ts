import type { Served } from './guard'

/** A transport-neutral HTTP request. Header names are lower-case. */
export interface ProtoRequest {
  method: string
  /** Path and query exactly as received (the query may hold raw, unencoded JSON). */
  url: string
  headers: Record<string, string | undefined>
  /** Aborts when the client goes away. */
  signal: AbortSignal
  /** Reads the request body as text (empty when none). */
  body(): Promise<string>
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
}

/** What a transport gives the protocol for an accepted websocket. */
export interface SocketSink {
  send(text: string): void
  /** A clean close with a close frame. */
  close(code: number, reason: string): void
  /** An abrupt end with no close frame: the client sees 1006. */
  drop(): void
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
}

/** The answer to an upgrade request: refuse with an HTTP response, or accept and open a session. */
export type UpgradeResult =
  | { kind: 'reject'; response: ProtoResponse & { body?: string } }
  | { kind: 'accept'; open(sink: SocketSink): SocketSession }
  /** No websocket endpoint at this path; `response` is the protocol's 404 (a transport may apply its own unhandled-request policy first). */
  | { kind: 'not-found'; response: ProtoResponse & { body: string } }
