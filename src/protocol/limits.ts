// What one request or one client may cost the fake: request bodies, client frames, and the backlog of a
// client that stops reading. Both ways in apply the same limits; the numbers are in docs/api.md.

/** Sizes in bytes, or a string like `'512KiB'`, `'4MiB'`, `'1GB'`. */
export type ByteSize = number | string

export interface ProtocolLimits {
  /** Largest request body in bytes; a larger one is refused with 413 before it is read whole. */
  maxBodySize: number
  /** Bytes an events websocket or `GET /events` stream may have queued for a client that is not reading. */
  maxBacklog: number
}

export const DEFAULT_MAX_BODY_SIZE = 1024 * 1024
export const DEFAULT_MAX_BACKLOG = 4 * 1024 * 1024
/** The events websocket takes no client messages: a frame over this many bytes closes it with 1009. */
export const EVENTS_MAX_MESSAGE = 4096

/**
 * The reasons of the closes a client's protocol error causes, as Go's websocket servers (the real service) give one
 * for 1002; `ws` sends the code alone. PROTOCOL.md: every close carries a readable reason.
 */
export const PROTOCOL_ERROR_REASONS = {
  1002: 'protocol error: the client sent a frame the WebSocket protocol (RFC 6455) does not allow',
  1007: 'invalid frame payload data: the client sent text that is not UTF-8',
  1008: 'policy violation: the client sent a message in too many fragments',
} as const
/** Close code of an events websocket whose client fell more than `maxBacklog` behind (IANA: Try Again Later). */
export const BACKLOG_CLOSE_CODE = 1013

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1e3, kb: 1e3, kib: 1024, m: 1e6, mb: 1e6, mib: 1024 ** 2, g: 1e9, gb: 1e9, gib: 1024 ** 3 }

/** Parses a byte size: a whole number of bytes, or a number with a unit (`kb`, `KiB`, `MB`, `MiB`, `GB`, `GiB`). */
export function toBytes(value: ByteSize, what: string): number {
  const m = typeof value === 'number' ? undefined : /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value)
  const bytes = typeof value === 'number' ? value : m && m[2].toLowerCase() in UNITS ? Math.floor(Number(m[1]) * UNITS[m[2].toLowerCase()]) : NaN
  if (!Number.isSafeInteger(bytes) || bytes < 1) {
    throw new RangeError(`Invalid ${what} ${JSON.stringify(value)}: expected a whole number of bytes above 0, or a size like "512KiB", "4MiB", "1GB".`)
  }
  return bytes
}

/** A size for messages: `1 MiB (1048576 bytes)`. */
export function showBytes(bytes: number): string {
  for (const [unit, size] of [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const) {
    if (bytes >= size && bytes % (size / 1024) === 0) return `${bytes / size} ${unit} (${bytes} bytes)`
  }
  return `${bytes} bytes`
}

export function resolveLimits(options: { maxBodySize?: ByteSize; maxBacklog?: ByteSize } = {}): ProtocolLimits {
  return {
    maxBodySize: options.maxBodySize === undefined ? DEFAULT_MAX_BODY_SIZE : toBytes(options.maxBodySize, 'maxBodySize'),
    maxBacklog: options.maxBacklog === undefined ? DEFAULT_MAX_BACKLOG : toBytes(options.maxBacklog, 'maxBacklog'),
  }
}

/**
 * A request body over `maxBodySize` (HTTP 413). Transports throw it from `ProtoRequest.body(limit)` having stopped
 * reading at the limit; the protocol throws it on a `Content-Length` over the limit without reading at all.
 */
export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError'
  readonly code = 'DOCKSIDE_BODY_TOO_LARGE'
  constructor(readonly limit: number) {
    super(
      `The request body is over the ${showBytes(limit)} limit. Send a smaller body, or raise the limit: ` +
        `createDockside({ maxBodySize: '8MiB' }) or dockside serve --max-body-size 8MiB.`,
    )
  }
}

/** The close reason of an events websocket (and the report's reason for a stream) that fell too far behind. */
export const backlogReason = (limit: number) => `client too slow: over ${limit} bytes queued (maxBacklog); reconnect with since to resume`

/** Reads a byte stream as UTF-8 text, stopping with a `BodyTooLargeError` past `max` bytes (for transports). */
export async function readCappedText(chunks: AsyncIterable<Uint8Array> | null | undefined, max = Infinity): Promise<string> {
  if (!chunks) return ''
  const decoder = new TextDecoder()
  let size = 0
  let text = ''
  // Leaving the loop early (the throw) cancels the rest of the stream.
  for await (const chunk of chunks) {
    size += chunk.byteLength
    if (size > max) throw new BodyTooLargeError(max)
    text += decoder.decode(chunk, { stream: true })
  }
  return text + decoder.decode()
}

/**
 * Node's HTTP server refuses a request whose target and header names and values add up to this many bytes or more
 * (`--max-http-header-size`, 16 KiB; spaces, colons and line ends are not counted): the real server answers 431
 * before the protocol sees it. The in-process ways in apply the same count ({@link headerOverflow}).
 */
export const MAX_HEADER_BYTES = 16 * 1024

/** The server's answer to a request line and headers over {@link MAX_HEADER_BYTES} (serve.ts writes the same). */
export const HEADER_OVERFLOW_MESSAGE = 'Bad request: the request line and headers exceed the 16 KB limit; send shorter filters'

/**
 * Whether the real server refuses a request of this target and headers with 431, counted as Node counts: the
 * target's length plus each header's name and value.
 */
export function headerOverflow(target: string, headers: Record<string, string | undefined>): boolean {
  let n = target.length
  for (const k in headers) n += k.length + (headers[k]?.length ?? 0)
  return n >= MAX_HEADER_BYTES
}
