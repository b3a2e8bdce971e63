import { createDockside, type Dockside } from '../dockside'
import { ttlProblem } from '../fleet'
import { checkAccess, isLoopback } from '../protocol/guard'
import { toBytes } from '../protocol/limits'
import { loadScenario } from '../scenario/load'
import { scenarioWarnings } from '../scenario/warnings'
import { DocksideError, ScenarioError } from '../service/errors'
import { MissingPackageError } from '../runtime/optional-peer'
import { MAX_CLOCK_SPEED, type ClockMode } from '../time/clock'
import { fail, parseCommand } from './args'
import { formatEntry, formatEvent } from './format'
import { readSecrets, SecretError } from './secrets'


const SERVE_SYNOPSIS = `  dockside serve [--host 127.0.0.1] [--port 2375] [--seed N] [--scenario FILE|demo]
                 [--clock real|auto|virtual] [--speed N] [--quiet]
                 [--tls | --cert FILE --key FILE] [--access-keys-file FILE]
                 [--admin-token-file FILE] [--allow-origin ORIGIN ...] [--allow-host NAME ...]
                 [--max-body-size 1MiB] [--max-backlog 4MiB] [--max-fakes 32] [--fake-ttl 15m] [--open]`

const SERVE_DETAILS = `serve starts the fake service: the events websocket (GET /events/ws), image push
(POST /images/{name}/push), Docker-compatible routes and the admin API (/_dockside/).
Defaults: host 127.0.0.1, port 2375, the scenario's clock (else real), the scenario's seed (else 1).
--tls serves https:// and wss:// with a self-signed certificate made at start; --cert/--key use yours (not both).
--access-keys-file (one ID:SECRET a line, or JSON), DOCKSIDE_ACCESS_KEYS="id:secret,..." or --access-key ID:SECRET
(repeatable) make the events websocket verify HYPER-HMAC-SHA256 signed requests.
--admin-token-file or DOCKSIDE_ADMIN_TOKEN (or --admin-token TOKEN) requires "Authorization: Bearer TOKEN" on /_dockside/.
Prefer the environment or files for secrets: command lines are visible to other users in ps.
--allow-origin lets a web page's origin use the admin API and, once given, limits the events websocket to those origins;
--allow-host lets the admin API answer another Host name (e.g. a compose service name). See docs/security.md.
--max-body-size caps request bodies (larger: 413); --max-backlog caps what an events client that
stops reading may fall behind (then close 1013). Sizes: bytes, or 512KiB, 4MiB, 1GB...
--max-fakes caps the fleet: POST /_dockside/fakes creates an isolated fake on a port of its own, one per
CI worker (docs/admin-api.md#fleet); 0 turns the fleet off. --fake-ttl removes a fake of the fleet once it has
had no request and no open connection that long (wall time), so a worker that died before its DELETE leaves none.
The dashboard is at /_dockside/ui (behind the admin guard); --open opens it in a browser (xdg-open, open or start)
where there is one, else prints its address. A scenario paused at a step goes on when you press Enter
(while dockside runs in the foreground of its terminal).`

const USAGE = `Usage:
${SERVE_SYNOPSIS}
  dockside demo [FILE|demo] [serve options]
                               serve a scenario on the real clock and open the dashboard
  dockside validate FILE...    check scenario files as serve would (exit 2 if one is refused)
  dockside verify --against HOST --registry HOST:PORT
                               compare a real Docker host with the fake, case by case (docs/verify.md)
  dockside record --upstream HOST --out FILE
                               record a real service into a scenario a replay serves (docs/recording.md)
  dockside COMMAND --help      the usage of one command
  dockside --help | --version

${SERVE_DETAILS}`

const SERVE_USAGE = `Usage:
${SERVE_SYNOPSIS}

${SERVE_DETAILS}`

const DEMO_USAGE = `Usage:
  dockside demo [FILE|demo] [serve options]

dockside serve --scenario FILE --clock real --open: a scenario told on the real clock with the dashboard
opened in the browser (or its address printed where none can open). Without FILE, the built-in demo.
Serve options may come before or after FILE, and win: dockside demo examples/chaos-story.yaml --port 0 --speed 2.
dockside serve --help lists them.`

const VALIDATE_USAGE = `Usage:
  dockside validate FILE...

Checks each scenario file (YAML or JSON, or demo for the built-in demo) as serve would, by building a
throw-away fake from it, and prints "FILE: valid scenario" for each one it accepts. Exits 2 when a file is
refused, with the file, the path inside it and what was expected; 0 when every file is valid. A start, stop
or remove step naming a container nothing in the file creates first is a warning on stderr (a test may
create it at run time), not a refusal.`

/** The usage of each command, for `dockside COMMAND --help` and `dockside help COMMAND`. */
const COMMAND_USAGE: Record<string, string> = { serve: SERVE_USAGE, demo: DEMO_USAGE, validate: VALIDATE_USAGE }

/** serve's options (demo takes the same). */
const SERVE_OPTIONS = {
  host: { type: 'string', default: '127.0.0.1' },
  port: { type: 'string', default: '2375' },
  seed: { type: 'string' },
  scenario: { type: 'string' },
  clock: { type: 'string' },
  speed: { type: 'string' },
  quiet: { type: 'boolean', default: false },
  tls: { type: 'boolean', default: false },
  cert: { type: 'string' },
  key: { type: 'string' },
  'access-key': { type: 'string', multiple: true },
  'access-keys-file': { type: 'string' },
  'admin-token': { type: 'string' },
  'admin-token-file': { type: 'string' },
  'allow-origin': { type: 'string', multiple: true },
  'allow-host': { type: 'string', multiple: true },
  'max-body-size': { type: 'string' },
  'max-backlog': { type: 'string' },
  'max-fakes': { type: 'string', default: '32' },
  'fake-ttl': { type: 'string' },
  open: { type: 'boolean', default: false },
} as const

async function serve(argv: string[], usage = SERVE_USAGE) {
  const parsed = parseCommand(argv, SERVE_OPTIONS, usage, false, ' (a scenario file goes after --scenario, or use dockside demo FILE)')
  if (!parsed) return
  const { values } = parsed
  // An empty value is a mistake (an unset shell variable, `--scenario=`), never "the default": '' as --host bound every
  // interface, and --scenario '' ran no scenario at all.
  // An IPv6 address in brackets, as URLs write it (`--host [::1]`), binds the address inside them: Node's listen took the
  // brackets for a host name (ENOTFOUND), and --tls crashed making a certificate for it.
  const host = (values.host as string).replace(/^\[(.*)\]$/, '$1')
  if (host.trim() === '') fail(`invalid --host ${JSON.stringify(values.host)}: expected an address to bind, e.g. 127.0.0.1 (the default), ::1, or 0.0.0.0 for every interface`)
  if (values.scenario !== undefined && (values.scenario as string).trim() === '') fail(`invalid --scenario ${JSON.stringify(values.scenario)}: expected a scenario file (YAML or JSON), or demo for the built-in demo`)
  if (values.tls && (values.cert !== undefined || values.key !== undefined)) {
    fail('--tls and --cert/--key both ask for TLS: --tls alone serves a self-signed certificate made at start, --cert FILE --key FILE serves yours; pass one or the other')
  }
  // Digits only: Number() would take '', ' ', '0x10' and '1e3'.
  const port = /^\d{1,5}$/.test(values.port as string) ? Number(values.port) : NaN
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`invalid --port ${values.port}: expected 0-65535`)
  const seed = values.seed === undefined ? undefined : /^-?\d+$/.test(values.seed as string) ? Number(values.seed) : NaN
  if (seed !== undefined && !Number.isSafeInteger(seed)) fail(`invalid --seed ${values.seed}: expected an integer from ${-Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`)
  const clockFlag = values.clock as ClockMode | undefined
  if (clockFlag !== undefined && !['real', 'auto', 'virtual'].includes(clockFlag)) fail(`invalid --clock ${clockFlag}: expected real, auto or virtual`)
  // A decimal number, as POST /_dockside/clock/speed reads ?speed=: Number() also read "0x10" as 16 and "0b11" as 3.
  const speed = values.speed === undefined ? undefined : /^\+?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(values.speed as string) ? Number(values.speed) : NaN
  // At most the admin API's cap: a faster real clock ran past the last date the fake can show, and then every answer
  // (even /_ping) was a 400 "Invalid time value".
  if (speed !== undefined && !(speed > 0 && speed <= MAX_CLOCK_SPEED)) {
    fail(`invalid --speed ${values.speed}: expected a finite number above 0, at most ${MAX_CLOCK_SPEED} (clock seconds per wall second)`)
  }

  const maxFakes = /^\d{1,4}$/.test(values['max-fakes'] as string) ? Number(values['max-fakes']) : NaN
  if (!Number.isInteger(maxFakes)) fail(`invalid --max-fakes ${values['max-fakes']}: expected an integer from 0 (no fleet) to 9999`)
  const fakeTtl = values['fake-ttl'] as string | undefined
  if (fakeTtl !== undefined) {
    const problem = ttlProblem(fakeTtl)
    if (problem) fail(`invalid --fake-ttl ${fakeTtl}: ${problem}`)
    if (maxFakes === 0) fail('--fake-ttl needs a fleet: it is off with --max-fakes 0')
  }
  const limits: { maxBodySize?: string; maxBacklog?: string } = { maxBodySize: values['max-body-size'] as string | undefined, maxBacklog: values['max-backlog'] as string | undefined }
  for (const [flag, value] of [['max-body-size', limits.maxBodySize], ['max-backlog', limits.maxBacklog]] as const) {
    try {
      if (value !== undefined) toBytes(value, `--${flag}`)
    } catch (error) {
      fail((error as Error).message)
    }
  }

  let scenario
  if (values.scenario) {
    try {
      scenario = await loadScenario(values.scenario as string)
    } catch (error) {
      if (error instanceof ScenarioError) fail(`invalid scenario ${error.message}`)
      if (error instanceof MissingPackageError) fail(error.message)
      throw error
    }
  }
  // --clock wins, then the scenario's clock, then `real`: demos unfold at human pace.
  const scenarioMode = typeof scenario?.clock === 'string' ? scenario.clock : scenario?.clock?.mode
  const clock = clockFlag ?? scenarioMode ?? 'real'
  // Only the real clock has a pace: a speed for another was silently ignored.
  if (speed !== undefined && clock !== 'real') {
    const from = clockFlag !== undefined ? `--clock ${clock}` : `the scenario's clock`
    const why = clock === 'virtual' ? 'it moves only when advanced (POST /_dockside/clock/advance)' : 'it runs at wall pace and skips ahead to what someone waits on'
    fail(`--speed ${values.speed} sets the pace of the real clock, and the clock is ${clock} (${from}): ${why}. Use --clock real --speed ${values.speed}, or leave --speed out`)
  }
  // The same for a scenario's own speed, when --clock made its clock another one.
  const scenarioSpeed = typeof scenario?.clock === 'object' ? scenario.clock.speed : undefined
  if (scenarioSpeed !== undefined && speed === undefined && clock !== 'real') {
    fail(`the scenario's clock.speed ${scenarioSpeed} sets the pace of the real clock, and --clock ${clock} makes the clock ${clock}. Use --clock real, or leave --clock out`)
  }
  if ((values.cert === undefined) !== (values.key === undefined)) fail('--cert and --key go together: pass both PEM files, or --tls alone for a self-signed certificate')
  // Secrets from the environment, files or flags (docs/security.md); errors never show them.
  const secrets = await readSecrets({
    env: process.env,
    accessKeyFlags: values['access-key'] as string[] | undefined,
    accessKeysFile: values['access-keys-file'] as string | undefined,
    adminTokenFlag: values['admin-token'] as string | undefined,
    adminTokenFile: values['admin-token-file'] as string | undefined,
  }).catch((error: unknown) => (error instanceof SecretError ? fail(error.message) : Promise.reject(error)))
  const accessKeys = secrets.accessKeys && { ...scenario?.accessKeys, ...secrets.accessKeys }
  let access
  try {
    access = checkAccess(
      { adminToken: secrets.adminToken, allowedOrigins: values['allow-origin'] as string[] | undefined, allowedHosts: values['allow-host'] as string[] | undefined },
      { adminToken: 'admin token', allowedOrigins: '--allow-origin', allowedHosts: '--allow-host' },
    )
  } catch (error) {
    fail((error as Error).message)
  }
  if (!isLoopback(host) && access.adminToken === undefined) {
    process.stderr.write(
      `dockside: warning: --host ${values.host} makes the fake reachable from other machines, and with no admin token anyone who reaches it can drive ` +
        `the admin API (/_dockside/: change state, inject faults, reset). Set DOCKSIDE_ADMIN_TOKEN or --admin-token-file, or bind 127.0.0.1. See docs/security.md.\n`,
    )
  }
  let tls
  if (values.cert !== undefined) {
    const { loadCertificate } = await import('../transports/server/tls')
    tls = await loadCertificate(values.key as string, values.cert as string).catch((error: Error) => fail(error.message))
    // A pair OpenSSL refuses (a key of another certificate, a damaged PEM) was found only by listen: "cannot listen on
    // ...: error:05800074:x509 certificate routines::key values mismatch", exit 1, as if the port were taken.
    try {
      process.getBuiltinModule('node:tls').createSecureContext(tls)
    } catch (error) {
      const mismatch = (error as NodeJS.ErrnoException).code === 'ERR_OSSL_X509_KEY_VALUES_MISMATCH'
      fail(
        mismatch
          ? `--key ${values.key} is not the private key of --cert ${values.cert}: pass the key the certificate was made with, or --tls alone for a self-signed certificate`
          : `cannot use --cert ${values.cert} with --key ${values.key}: ${(error as Error).message}; pass a PEM certificate and its private key, or --tls alone for a self-signed certificate`,
      )
    }
  } else if (values.tls) {
    const { selfSignedCertificate } = await import('../transports/server/tls')
    // The bound address is named in the certificate when it is one (or a host name): a malformed one ("1.2.3", ":::")
    // crashed the certificate library with a stack trace; listen now refuses it with its own message.
    const { isIP } = process.getBuiltinModule('node:net')
    tls = await selfSignedCertificate({ hosts: isIP(host) ? [host.replace(/%.*$/, '')] : /^[\d.]+$|:/.test(host) ? [] : [host] }).catch((error: unknown) =>
      error instanceof MissingPackageError ? fail(error.message) : Promise.reject(error),
    )
  }
  let fake
  try {
    fake = createDockside({ scenario, seed, accessKeys, ...access, ...limits, clock: { mode: clock, ...(speed ? { speed } : {}) }, fleet: maxFakes > 0 && { maxFakes, ...(fakeTtl !== undefined && { ttl: fakeTtl }) } })
  } catch (error) {
    scenarioFailure(values.scenario as string, error)
  }
  // The log waits for the ready line (docs/cli.md: it comes first): lines from before it (the scenario's time-0 events,
  // steps due at once) are held, then printed right after it, in order.
  let held: string[] | undefined = []
  // A reader of the log that went away (`dockside serve | head -1` once it has the ready line, a `| tee` ended by the
  // same Ctrl-C) is no reason to stop serving: the log stops (EPIPE, or EIO from a terminal gone), the server goes on.
  // Unhandled, the next line's EPIPE crashed the server with a stack.
  let logGone = false
  process.stdout.on('error', () => (logGone = true))
  const out = (line: string | undefined) => {
    if (line === undefined || values.quiet || logGone) return
    if (held) held.push(line)
    else process.stdout.write(`${line}\n`)
  }
  const flush = () => {
    if (held?.length && !logGone) process.stdout.write(held.map((line) => `${line}\n`).join(''))
    held = undefined
  }
  fake.on('journal', (e) => out(formatEntry(e)))
  fake.on('event', (e) => out(formatEvent(e)))
  // Events the scenario emitted at time 0 (containers that start `running`) happened before we listened.
  for (const e of fake.events.events) out(formatEvent(e))

  let server
  try {
    server = await fake.listen({ host, port, tls })
  } catch (error) {
    fail(`cannot listen on ${values.host}:${port}: ${(error as Error).message}`, 1)
  }
  // Before the ready line: whoever starts the server on seeing it may stop it at once (tests, scripts).
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    flush()
    out(`received ${signal}, closing`)
    await fake.close()
    process.exit(0)
  }
  process.on('SIGINT', () => void stop('SIGINT'))
  process.on('SIGTERM', () => void stop('SIGTERM'))
  // The dashboard's address carries the admin token (a browser cannot send it as a header; docs/security.md) only when
  // the user typed the token on the command line, where their shell and `ps` show it anyway: one from a file or the
  // environment stays out of the output, and the ready line says how to use it.
  const tokenInUrl = access.adminToken !== undefined && values['admin-token'] !== undefined
  const dashboard = `${server.url}/_dockside/ui${tokenInUrl ? `?token=${encodeURIComponent(access.adminToken!)}` : ''}`
  const ready = `dockside listening on ${server.url} (events: ${server.wsUrl}/events/ws, admin: ${server.url}/_dockside/state, dashboard: ${dashboard}, clock: ${fake.clock.mode}, seed: ${fake.seed}${values.scenario ? `, scenario: ${values.scenario}` : ''}${tls ? `, tls: ${values.cert ? values.cert : 'self-signed certificate'}` : ''}${Object.keys(accessKeys ?? scenario?.accessKeys ?? {}).length ? `, signed requests verified for access keys ${Object.keys(accessKeys ?? scenario?.accessKeys ?? {}).join(', ')}` : ''}${access.adminToken ? `, admin token required${tokenInUrl ? '' : ' (open the dashboard once with ?token=<admin token>)'}` : ''})\n`
  process.stdout.write(ready)
  if (values.open) await openDashboard(dashboard)
  flush()
  continueOnEnter(fake)
}

/**
 * Enter in the terminal continues a paused scenario (or a clock paused from the dashboard), read only while dockside
 * is in the foreground of its terminal. A job in the background that reads its terminal gets SIGTTIN, which stops the
 * whole process: `dockside serve &` in a shell with job control froze at the first thing typed in that terminal (or
 * at once, under `script` with no input), answering nothing. Node cannot ignore
 * SIGTTIN (a `process.on('SIGTTIN')` handler is not SIG_IGN: the kernel signals again and restarts the read, spinning a
 * core without serving either), so the terminal is read only in the foreground. A job leaves the foreground only
 * stopped (Ctrl-Z), and `bg` continues it with SIGCONT: reading stops then. `fg` of a running job sends no signal:
 * while not reading, a look every second (on Linux a read of /proc; elsewhere, a run of ps, only while the clock is
 * paused) starts reading once dockside is in the foreground.
 */
function continueOnEnter(fake: Dockside) {
  // isatty(0) rather than process.stdin.isTTY: the first read of process.stdin builds its stream (fs and readline
  // streams when stdin is a file or /dev/null, 2-5 ms), which a server without a terminal never uses.
  if (!process.getBuiltinModule('node:tty').isatty(0)) return
  let reading: boolean | undefined
  let gone = false
  const onEnter = () => {
    if (!fake.clock.paused) return
    fake.clock.resume()
    fake.journal.record('scenario.continue', { via: 'terminal' })
  }
  let turn = Promise.resolve()
  const sync = () =>
    (turn = turn.then(async () => {
      const foreground = await inForeground()
      if (gone || foreground === Boolean(reading)) return
      if (!foreground) process.stdin.pause()
      else if (reading === undefined) {
        process.stdin.on('data', onEnter)
        // The terminal gone (EIO, a hung-up session): no more Enter, and no crash.
        process.stdin.on('error', () => ((gone = true), process.stdin.pause()))
      } else process.stdin.resume()
      reading = foreground
    }))
  if (process.platform === 'win32') return void sync()
  process.on('SIGCONT', () => void sync())
  setInterval(() => {
    if (!reading && !gone && (process.platform === 'linux' || fake.clock.paused)) void sync()
  }, 1000).unref()
  void sync()
}

/**
 * Whether this process may read its terminal without being stopped: it is in the terminal's foreground process group,
 * or has no controlling terminal. Linux: /proc/self/stat; macOS and the BSDs: ps; Windows has no job control.
 * False when it cannot tell: then Enter does nothing, and the dashboard and the admin API still continue a scenario.
 */
async function inForeground(): Promise<boolean> {
  if (process.platform === 'win32') return true
  try {
    if (process.platform === 'linux') {
      // pid (comm) state ppid pgrp session tty_nr tpgid ...: comm may hold spaces and parentheses.
      const stat = process.getBuiltinModule('node:fs').readFileSync('/proc/self/stat', 'utf8')
      const [, , pgrp, , ttyNr, tpgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      return ttyNr === '0' || pgrp === tpgid
    }
    const { execFile } = process.getBuiltinModule('node:child_process')
    const ps = await new Promise<string>((resolve, reject) =>
      execFile('ps', ['-o', 'tpgid=', '-o', 'pgid=', '-p', String(process.pid)], (error, stdout) => (error ? reject(error) : resolve(stdout))),
    )
    const [tpgid, pgid] = ps.trim().split(/\s+/)
    return pgid !== undefined && tpgid === pgid
  } catch {
    return false
  }
}

/**
 * Opens `url` in the user's browser where there is one (xdg-open on Linux with a display, open on macOS, start on
 * Windows); otherwise, or when that fails, prints the address. Never fails the server.
 */
async function openDashboard(url: string) {
  const say = (line: string) => process.stdout.write(`${line}\n`)
  const platform = process.platform
  const display = platform !== 'linux' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY)
  const [command, ...args] = platform === 'darwin' ? ['open', url] : platform === 'win32' ? ['cmd', '/c', 'start', '""', url] : ['xdg-open', url]
  if (!display) return say(`no browser to open here (no display): open ${url} in your browser`)
  const { spawn } = await import('node:child_process')
  await new Promise<void>((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true })
    child.once('error', () => (say(`could not start ${command}: open ${url} in your browser`), resolve()))
    child.once('spawn', () => (child.unref(), say(`opening the dashboard in your browser: ${url}`), resolve()))
  })
}

/**
 * `dockside demo [scenario] [serve options]`: the scenario (default: the built-in demo) on the real clock, dashboard
 * opened. The options may come before or after the file; any of them wins over what demo sets (a later --scenario too).
 */
function demo(argv: string[]) {
  const parsed = parseCommand(argv, SERVE_OPTIONS, DEMO_USAGE, true)
  if (!parsed) return
  const { positionals, tokens } = parsed
  if (positionals.length > 1) fail(`demo takes one scenario FILE (or demo), not ${positionals.length}: ${positionals.join(', ')}\n${DEMO_USAGE}`)
  const at = tokens.find((t) => t.kind === 'positional')?.index
  const rest = argv.filter((_, i) => i !== at)
  return serve(['--scenario', positionals[0] ?? 'demo', '--clock', 'real', '--open', ...rest], DEMO_USAGE)
}

/** The message for a scenario refused while loading it or building a fake from it, named after its file. */
function scenarioProblem(file: string, error: unknown): string {
  if (error instanceof MissingPackageError) return error.message
  if (error instanceof ScenarioError) return `invalid scenario ${error.file === '(scenario)' ? new ScenarioError(file, error.path, error.expected).message : error.message}`
  if (error instanceof DocksideError || error instanceof RangeError) return `invalid scenario ${file}: at (root): ${error.message}`
  throw error
}

/** A scenario refused while a fake was built from it: exit 2. */
function scenarioFailure(file: string, error: unknown): never {
  fail(scenarioProblem(file, error))
}

/** `dockside validate FILE...`: each file checked as serve would; exit 2 when one is refused. */
async function validate(argv: string[]) {
  const parsed = parseCommand(argv, {}, VALIDATE_USAGE, true)
  if (!parsed) return
  const files = parsed.positionals
  if (files.length === 0) fail(`validate needs a FILE\n${VALIDATE_USAGE}`)
  let refused = 0
  for (const file of files) {
    if (file.trim() === '') {
      refused++
      process.stderr.write(`dockside: invalid scenario file name ${JSON.stringify(file)}: expected a scenario file (YAML or JSON), or demo\n`)
      continue
    }
    try {
      // What serve would do with the file, on a throw-away fake: every check serve makes, made first.
      const scenario = await loadScenario(file)
      // On a virtual clock, unless the scenario paces a real one (serve's clock when no --clock is given).
      const paced = typeof scenario.clock === 'object' && scenario.clock.speed !== undefined
      await createDockside({ scenario, clock: { mode: paced ? 'real' : 'virtual' } }).close()
      // Steps that will likely fail when they run, though a test could make them work: warned about, still valid.
      for (const w of scenarioWarnings(scenario)) process.stderr.write(`dockside: warning: scenario ${file}: at ${w.path}: ${w.message}\n`)
      process.stdout.write(`${file}: valid scenario\n`)
    } catch (error) {
      refused++
      process.stderr.write(`dockside: ${scenarioProblem(file, error)}\n`)
    }
  }
  if (refused) process.exit(2)
}

export async function main(argv = process.argv.slice(2)) {
  const [command, ...rest] = argv
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    // `dockside help serve`: that command's usage.
    const usage = command === 'help' && rest[0] !== undefined ? COMMAND_USAGE[rest[0]] : USAGE
    if (rest[0] === 'verify') return void process.stdout.write(`${(await import('./verify')).VERIFY_USAGE}\n`)
    if (rest[0] === 'record') return void process.stdout.write(`${(await import('./record')).RECORD_USAGE}\n`)
    if (usage === undefined) fail(`no help for "${rest[0]}": the commands are serve, demo, validate, verify and record\n${USAGE}`)
    process.stdout.write(`${usage}\n`)
    return
  }
  if (command === '--version' || command === '-v') {
    const { createRequire } = await import('node:module')
    process.stdout.write(`${createRequire(import.meta.url)('../package.json').version}\n`)
    return
  }
  if (command === 'serve') return serve(rest)
  if (command === 'validate') return validate(rest)
  if (command === 'demo') return demo(rest)
  // Loaded only for verify: serve's start-up stays lean.
  if (command === 'verify') return (await import('./verify')).verifyCommand(rest)
  // Loaded only for record, as verify.
  if (command === 'record') return (await import('./record')).recordCommand(rest)
  // `dockside --port 0` works like `dockside serve --port 0`.
  if (command.startsWith('--')) return serve(argv)
  fail(`unknown command "${command}"\n${USAGE}`)
}

main().catch((error: unknown) => fail(`${(error as Error).stack ?? error}`, 1))
