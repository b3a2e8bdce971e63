import { InvalidInputError } from './errors'

/**
 * Checks a websocket close code and reason a server may send (RFC 6455 §7.4: 1000-1003, 1007-1014,
 * 3000-4999; a reason of at most 123 bytes). Throws an InvalidInputError that names `what`.
 */
export function checkCloseCode(code: unknown, reason: unknown, what = 'close'): asserts code is number {
  if (typeof code !== 'number' || !Number.isInteger(code) || !((code >= 1000 && code <= 1014 && ![1004, 1005, 1006].includes(code)) || (code >= 3000 && code <= 4999))) {
    throw new InvalidInputError(`Invalid ${what} code ${JSON.stringify(code)}: expected 1000-1003, 1007-1014 or 3000-4999.`)
  }
  if (reason !== undefined && (typeof reason !== 'string' || new TextEncoder().encode(reason).length > 123)) {
    throw new InvalidInputError(`Invalid ${what} reason: expected a string of at most 123 bytes.`)
  }
}

/** The reason of the 1001 every open events socket gets when the fake (or its server) shuts down, on every way in. */
export const SHUTDOWN_REASON = 'the fake server is shutting down'
