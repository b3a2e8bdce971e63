/** Every error dockside throws or answers with; `code` is listed in docs/errors.md. */
export class DocksideError extends Error {
  override name = 'DocksideError'
  /** What a Docker route sends instead of `message`: the daemon's own text, byte for byte (see {@link onWire}). */
  wire: string | undefined
  /** The daemon's status for it, where the error's class would say another (see {@link onWire}). */
  wireStatus: number | undefined
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }

  /**
   * Sends `text` (the real daemon's words) on the wire instead of the message, which keeps dockside's help: clients
   * that match the daemon's text pass on both, and the help goes in the `X-Dockside-Hint` header and the journal.
   */
  onWire(text: string, status?: number): this {
    this.wire = text
    this.wireStatus = status
    return this
  }
}

/** A request or call named something the fake does not have (HTTP 404). */
export class NotFoundError extends DocksideError {
  override name = 'NotFoundError'
  constructor(message: string, code = 'DOCKSIDE_NOT_FOUND') {
    super(code, message)
  }
}

/** Bad input: wrong filters, bad options, a malformed body (HTTP 400). */
export class InvalidInputError extends DocksideError {
  override name = 'InvalidInputError'
  constructor(message: string, code = 'DOCKSIDE_INVALID_INPUT') {
    super(code, message)
  }
}

/** Join a path inside a value: `rules` + `[2].match` → `rules[2].match`. */
export const joinPath = (prefix: string, path: string): string => (!path ? prefix : !prefix ? path : path.startsWith('[') ? prefix + path : `${prefix}.${path}`)

/**
 * Bad input with the path of the field inside it (`rules[2].match.route`), what was wrong and what is
 * allowed: `rules[2].match.route: must be a string`. `subject` names the whole value when the path is empty.
 */
export class FieldError extends InvalidInputError {
  override name = 'InvalidInputError'
  constructor(
    readonly path: string,
    readonly expected: string,
    readonly subject = 'input',
  ) {
    // A path that starts with an index (`[0]`) reads better after its subject: `rate limit[0]: ...`.
    super(`${path.startsWith('[') ? subject + path : path || subject}: ${expected}`)
  }

  /** The same error one level down: `at('rules')` on `[2].match` gives `rules[2].match`. */
  at(prefix: string): FieldError {
    return new FieldError(joinPath(prefix, this.path), this.expected, this.subject)
  }
}

/** The `filters` parameter of an events request is malformed (HTTP 400). */
export class InvalidFilterError extends InvalidInputError {
  override name = 'InvalidFilterError'
  constructor(message: string) {
    super(message, 'DOCKSIDE_INVALID_FILTER')
  }
}

/** The request conflicts with the current state, e.g. a container name in use (HTTP 409). */
export class ConflictError extends DocksideError {
  override name = 'ConflictError'
  constructor(message: string) {
    super('DOCKSIDE_CONFLICT', message)
  }
}

/** A scenario file does not match the format; `path` points inside the file. */
export class ScenarioError extends DocksideError {
  override name = 'ScenarioError'
  constructor(
    readonly file: string,
    readonly path: string,
    readonly expected: string,
  ) {
    super('DOCKSIDE_INVALID_SCENARIO', `${file}: at ${path || '(root)'}: ${expected}`)
  }
}

/**
 * Refuses what is not an object of options, and an option name that is not in `names`, naming the allowed ones: a
 * JavaScript caller's typo (`{ exitcode: 137 }`) was ignored, and the fake went on as if the option had not been given.
 */
export function checkOptions<T>(options: unknown, names: Record<keyof T, true>, subject: string): asserts options is T {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw new FieldError('', 'must be an object of options', subject)
  const unknown = Object.keys(options).find((k) => !Object.hasOwn(names, k))
  if (unknown !== undefined) throw new FieldError('', `unknown option "${unknown}"; allowed: ${Object.keys(names).join(', ')}`, subject)
}
