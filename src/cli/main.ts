import { createDockside } from '../dockside'
import { checkAccess, isLoopback } from '../protocol/guard'
import { toBytes } from '../protocol/limits'
import { loadScenario } from '../scenario/load'
import { DocksideError, ScenarioError } from '../service/errors'
import { MAX_CLOCK_SPEED, type ClockMode } from '../time/clock'
import { formatEntry, formatEvent } from './format'
import { readSecrets, SecretError } from './secrets'

// Built-ins taken with getBuiltinModule, not imported: an ESM import of node:util reads every export, loading
// worker_threads and util's diff on the way (~2 ms of `dockside serve`'s start-up; docs/performance.md).
const { parseArgs } = process.getBuiltinModule('node:util')

const USAGE = `Usage:
  dockside serve [--host 127.0.0.1] [--port 2375] [--seed N] [--scenario FILE|demo]
                 [--clock real|auto|virtual] [--speed N] [--quiet]
                 [--tls | --cert FILE --key FILE] [--access-keys-file FILE]
                 [--admin-token-file FILE] [--allow-origin ORIGIN ...] [--allow-host NAME ...]
                 [--max-body-size 1MiB] [--max-backlog 4MiB] [--max-fakes 32] [--open]
  dockside demo [FILE|demo] [serve options]
                               serve a scenario on the real clock and open the dashboard
  dockside validate FILE       check a scenario file as serve would (exit 2 if refused)
  dockside --help | --version

serve starts the fake service: the events websocket (GET /events/ws), image push
(POST /images/{name}/push), Docker-compatible routes and the admin API (/_dockside/).
Defaults: host 127.0.0.1, port 2375, the scenario's clock (else real), the scenario's seed (else 1).
--tls serves https:// and wss:// with a self-signed certificate made at start; --cert/--key use yours.
--access-keys-file (one ID:SECRET a line, or JSON), DOCKSIDE_ACCESS_KEYS="id:secret,..." or --access-key ID:SECRET
(repeatable) make the events websocket verify HYPER-HMAC-SHA256 signed requests.
--admin-token-file or DOCKSIDE_ADMIN_TOKEN (or --admin-token TOKEN) requires "Authorization: Bearer TOKEN" on /_dockside/.
Prefer the environment or files for secrets: command lines are visible to other users in ps.
--allow-origin lets a web page's origin use the admin API and, once given, limits the events websocket to those origins;
--allow-host lets the admin API answer another Host name (e.g. a compose service name). See docs/security.md.
--max-body-size caps request bodies (larger: 413); --max-backlog caps what an events client that
stops reading may fall behind (then close 1013). Sizes: bytes, or 512KiB, 4MiB, 1GB...
--max-fakes caps the fleet: POST /_dockside/fakes creates an isolated fake on a port of its own, one per
CI worker (docs/admin-api.md#fleet); 0 turns the fleet off.
The dashboard is at /_dockside/ui (behind the admin guard); --open opens it in a browser (xdg-open, open or start)
where there is one, else prints its address. A scenario paused at a step goes on when you press Enter.`

function fail(message: string, code = 2): never {
  process.stderr.write(`dockside: ${message}\n`)
  process.exit(code)
}

async function serve(argv: string[]) {
  let values: Record<string, string | boolean | string[] | undefined>
  try {
    ;({ values } = parseArgs({
      args: argv,
      options: {
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
        open: { type: 'boolean', default: false },
      },
      strict: true,
    }))
  } catch (error) {
    fail(`${(error as Error).message}\n${USAGE}`)
  }
  // Digits only: Number() would take '', ' ', '0x10' and '1e3'.
  const port = /^\d{1,5}$/.test(values.port as string) ? Number(values.port) : NaN
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`invalid --port ${values.port}: expected 0-65535`)
  const seed = values.seed === undefined ? undefined : /^-?\d+$/.test(values.seed as string) ? Number(values.seed) : NaN
  if (seed !== undefined && !Number.isSafeInteger(seed)) fail(`invalid --seed ${values.seed}: expected an integer`)
  const clockFlag = values.clock as ClockMode | undefined
  if (clockFlag !== undefined && !['real', 'auto', 'virtual'].includes(clockFlag)) fail(`invalid --clock ${clockFlag}: expected real, auto or virtual`)
  const speed = values.speed === undefined ? undefined : Number(values.speed)
  // At most the admin API's cap: a faster real clock ran past the last date the fake can show, and then every answer
  // (even /_ping) was a 400 "Invalid time value".
  if (speed !== undefined && !(speed > 0 && speed <= MAX_CLOCK_SPEED && (values.speed as string).trim() !== '')) {
    fail(`invalid --speed ${values.speed}: expected a finite number above 0, at most ${MAX_CLOCK_SPEED} (clock seconds per wall second)`)
  }

  const maxFakes = /^\d{1,4}$/.test(values['max-fakes'] as string) ? Number(values['max-fakes']) : NaN
  if (!Number.isInteger(maxFakes)) fail(`invalid --max-fakes ${values['max-fakes']}: expected an integer from 0 (no fleet) to 9999`)
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
  if (!isLoopback((values.host as string).replace(/^\[|\]$/g, '')) && access.adminToken === undefined) {
    process.stderr.write(
      `dockside: warning: --host ${values.host} makes the fake reachable from other machines, and with no admin token anyone who reaches it can drive ` +
        `the admin API (/_dockside/: change state, inject faults, reset). Set DOCKSIDE_ADMIN_TOKEN or --admin-token-file, or bind 127.0.0.1. See docs/security.md.\n`,
    )
  }
  let tls
  if (values.cert !== undefined) {
    const { loadCertificate } = await import('../transports/server/tls')
    tls = await loadCertificate(values.key as string, values.cert as string).catch((error: Error) => fail(error.message))
  } else if (values.tls) {
    const { selfSignedCertificate } = await import('../transports/server/tls')
    tls = await selfSignedCertificate({ hosts: [values.host as string] })
  }
  let fake
  try {
    fake = createDockside({ scenario, seed, accessKeys, ...access, ...limits, clock: { mode: clock, ...(speed ? { speed } : {}) }, fleet: maxFakes > 0 && { maxFakes } })
  } catch (error) {
    scenarioFailure(values.scenario as string, error)
  }
  const out = (line: string | undefined) => line !== undefined && !values.quiet && process.stdout.write(`${line}\n`)
  fake.on('journal', (e) => out(formatEntry(e)))
  fake.on('event', (e) => out(formatEvent(e)))
  // Events the scenario emitted at time 0 (containers that start `running`) happened before we listened.
  for (const e of fake.events.events) out(formatEvent(e))

  let server
  try {
    server = await fake.listen({ host: values.host as string, port, tls })
  } catch (error) {
    fail(`cannot listen on ${values.host}:${port}: ${(error as Error).message}`, 1)
  }
  // The dashboard's address carries the admin token (a browser cannot send it as a header; docs/security.md) only when
  // the user typed the token on the command line, where their shell and `ps` show it anyway: one from a file or the
  // environment stays out of the output, and the ready line says how to use it.
  const tokenInUrl = access.adminToken !== undefined && values['admin-token'] !== undefined
  const dashboard = `${server.url}/_dockside/ui${tokenInUrl ? `?token=${encodeURIComponent(access.adminToken!)}` : ''}`
  process.stdout.write(
    `dockside listening on ${server.url} (events: ${server.wsUrl}/events/ws, admin: ${server.url}/_dockside/state, dashboard: ${dashboard}, clock: ${fake.clock.mode}, seed: ${fake.seed}${values.scenario ? `, scenario: ${values.scenario}` : ''}${tls ? `, tls: ${values.cert ? values.cert : 'self-signed certificate'}` : ''}${Object.keys(accessKeys ?? scenario?.accessKeys ?? {}).length ? `, signed requests verified for access keys ${Object.keys(accessKeys ?? scenario?.accessKeys ?? {}).join(', ')}` : ''}${access.adminToken ? `, admin token required${tokenInUrl ? '' : ' (open the dashboard once with ?token=<admin token>)'}` : ''})\n`,
  )
  if (values.open) await openDashboard(dashboard)
  // A presenter continues a paused scenario with Enter (only when a person is at the terminal).
  // isatty(0) rather than process.stdin.isTTY: the first read of process.stdin builds its stream (fs and readline
  // streams when stdin is a file or /dev/null, 2-5 ms), which a server without a terminal never uses.
  if (process.getBuiltinModule('node:tty').isatty(0)) {
    process.stdin.on('data', () => {
      if (!fake.clock.paused) return
      fake.clock.resume()
      fake.journal.record('scenario.continue', { via: 'terminal' })
    })
  }
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    out(`received ${signal}, closing`)
    await fake.close()
    process.exit(0)
  }
  process.on('SIGINT', () => void stop('SIGINT'))
  process.on('SIGTERM', () => void stop('SIGTERM'))
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

/** `dockside demo [scenario] [serve options]`: the scenario (default: the built-in demo) on the real clock, dashboard opened. */
function demo(argv: string[]) {
  const scenario = argv[0] !== undefined && !argv[0].startsWith('-') ? argv[0] : 'demo'
  const rest = argv[0] === scenario ? argv.slice(1) : argv
  return serve(['--scenario', scenario, '--clock', 'real', '--open', ...rest])
}

/** A scenario refused while a fake was built from it, named after its file as a load error is. */
function scenarioFailure(file: string, error: unknown): never {
  if (error instanceof ScenarioError) fail(`invalid scenario ${error.file === '(scenario)' ? new ScenarioError(file, error.path, error.expected).message : error.message}`)
  if (error instanceof DocksideError || error instanceof RangeError) fail(`invalid scenario ${file}: at (root): ${error.message}`)
  throw error
}

async function validate(argv: string[]) {
  const file = argv[0]
  if (!file) fail(`validate needs a FILE\n${USAGE}`)
  try {
    // What serve would do with the file, on a throw-away fake: every check serve makes, made first.
    const scenario = await loadScenario(file)
    // On a virtual clock, unless the scenario paces a real one (serve's clock when no --clock is given).
    const paced = typeof scenario.clock === 'object' && scenario.clock.speed !== undefined
    await createDockside({ scenario, clock: { mode: paced ? 'real' : 'virtual' } }).close()
  } catch (error) {
    scenarioFailure(file, error)
  }
  process.stdout.write(`${file}: valid scenario\n`)
}

export async function main(argv = process.argv.slice(2)) {
  const [command, ...rest] = argv
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`)
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
  // `dockside --port 0` works like `dockside serve --port 0`.
  if (command.startsWith('--')) return serve(argv)
  fail(`unknown command "${command}"\n${USAGE}`)
}

main().catch((error: unknown) => fail(`${(error as Error).stack ?? error}`, 1))
