// Built-ins taken with getBuiltinModule, not imported: an ESM import of node:util reads every export, loading
// worker_threads and util's diff on the way (~2 ms of `dockside serve`'s start-up; docs/performance.md).
const { parseArgs } = process.getBuiltinModule('node:util')

export type Options = NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>['options']>
export type Values = Record<string, string | boolean | string[] | undefined>
export type Token = { kind: 'option'; name: string; index: number } | { kind: 'positional'; index: number; value: string } | { kind: 'option-terminator'; index: number }

/** Ends the process with `dockside: MESSAGE` on stderr: 2 (the default) for bad input, 1 for a failure. */
export function fail(message: string, code = 2): never {
  process.stderr.write(`dockside: ${message}\n`)
  process.exit(code)
}

/**
 * Parses a command's arguments strictly, the same way for every command. `--help` or `-h` anywhere (as an option, not
 * as another option's value) prints the command's usage and returns undefined, whatever else is on the line; anything
 * else unknown or malformed exits 2 with the message and the usage. `hint` follows the message of a stray positional.
 */
export function parseCommand(argv: string[], options: Options, usage: string, allowPositionals: boolean, hint = ''): { values: Values; positionals: string[]; tokens: Token[] } | undefined {
  const config = { args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } } as Options, allowPositionals, tokens: true as const }
  // Leniently first: a line with --help and a mistake shows the usage, as the mistake's message would send one there anyway.
  let lenient
  try {
    lenient = parseArgs({ ...config, strict: false, allowPositionals: true })
  } catch {
    lenient = undefined
  }
  if (lenient?.tokens?.some((t) => t.kind === 'option' && t.name === 'help')) {
    process.stdout.write(`${usage}\n`)
    return undefined
  }
  try {
    const { values, positionals, tokens } = parseArgs({ ...config, strict: true })
    return { values: values as Values, positionals, tokens: tokens as Token[] }
  } catch (error) {
    const positional = (error as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL'
    fail(`${(error as Error).message}${positional ? hint : ''}\n${usage}`)
  }
}
