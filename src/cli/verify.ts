import { formatCase, formatSummary } from '../verify/report'
import { verify, verifyPlan, type VerifyOptions } from '../verify/run'
import { fail, parseCommand } from './args'

const { readFileSync } = process.getBuiltinModule('node:fs')

export const VERIFY_USAGE = `Usage:
  dockside verify --against unix:///var/run/docker.sock|tcp://HOST:PORT --registry HOST:PORT
                  [--auth-registry HOST:PORT --auth-user USER --auth-password-file FILE]
                  [--image busybox:latest] [--docker PATH|none] [--only PREFIX ...]
                  [--json] [--full] [--dry-run] [--yes]

Runs a catalogue of client actions (push, events on /events and /events/ws, tag, login, the list and inspect routes,
error shapes, the docker CLI) against a real Docker-compatible host and against a fresh fake given the same state, and
prints one line per case: alike, deliberate (a difference docs/docker-compat.md lists, with its reason) or differs
(with the real and fake lines side by side). Exits 1 when a case differs, 0 otherwise.
--registry is an open registry the host pushes to (on loopback, as the daemon reaches it); --auth-registry one that
wants --auth-user and the password in --auth-password-file (or DOCKSIDE_VERIFY_PASSWORD) for the credential cases.
--image is an image the host has, with sh (nothing is pulled). On the host, verify imports a one-layer image, tags
it, creates two containers labelled dockside.verify=RUN, starts and stops them, pushes to the registries, and
removes what it made at the end, even when interrupted (Ctrl-C); --dry-run lists those actions and touches nothing.
A host that is neither a unix socket nor on loopback needs --yes. --json prints the report as JSON.`

/** `dockside verify`: exits 0 when every case is alike or deliberate, 1 when one differs, 2 on bad input. */
export async function verifyCommand(argv: string[]): Promise<void> {
  const parsed = parseCommand(
    argv,
    {
      against: { type: 'string' },
      registry: { type: 'string' },
      'auth-registry': { type: 'string' },
      'auth-user': { type: 'string' },
      'auth-password-file': { type: 'string' },
      image: { type: 'string' },
      docker: { type: 'string' },
      only: { type: 'string', multiple: true },
      json: { type: 'boolean', default: false },
      full: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      yes: { type: 'boolean', default: false },
    },
    VERIFY_USAGE,
    false,
  )
  if (parsed === undefined) return
  const v = parsed.values as {
    against?: string
    registry?: string
    'auth-registry'?: string
    'auth-user'?: string
    'auth-password-file'?: string
    image?: string
    docker?: string
    only?: string[]
    json: boolean
    full: boolean
    'dry-run': boolean
    yes: boolean
  }
  if (v.registry === undefined) fail(`verify needs --registry HOST:PORT (an open registry the host can push to)\n${VERIFY_USAGE}`)
  let authRegistry: VerifyOptions['authRegistry']
  if (v['auth-registry'] !== undefined) {
    const password = v['auth-password-file'] !== undefined ? readFileSync(v['auth-password-file'], 'utf8').trim() : process.env.DOCKSIDE_VERIFY_PASSWORD
    if (v['auth-user'] === undefined || password === undefined) fail('--auth-registry needs --auth-user and the password in --auth-password-file FILE or DOCKSIDE_VERIFY_PASSWORD')
    authRegistry = { host: v['auth-registry'], username: v['auth-user'], password }
  }
  const options = { registry: v.registry, authRegistry, image: v.image }
  if (v['dry-run']) {
    process.stdout.write(`dockside verify would, on ${v.against ?? '(no --against given)'}:\n${verifyPlan(options).map((a) => `  - ${a}`).join('\n')}\n`)
    return
  }
  if (v.against === undefined) fail(`verify needs --against unix:///path/docker.sock or tcp://HOST:PORT\n${VERIFY_USAGE}`)
  // Ctrl-C or SIGTERM: the run stops, removes what it made, then exits 130.
  const abort = new AbortController()
  const stop = () => abort.abort(new Error('interrupted'))
  process.once('SIGINT', stop).once('SIGTERM', stop)
  try {
    const report = await verify({
      ...options,
      against: v.against,
      docker: v.docker === 'none' ? false : v.docker,
      only: v.only,
      yes: v.yes,
      signal: abort.signal,
      onCase: v.json ? undefined : (r) => process.stdout.write(`${formatCase(r, { full: v.full })}\n`),
    })
    process.stdout.write(v.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatSummary(report)}\n`)
    if (report.summary.differs > 0) process.exitCode = 1
  } catch (error) {
    if (abort.signal.aborted) fail('verify interrupted: what it made on the host was removed', 130)
    if (error instanceof RangeError) fail(error.message)
    fail(`verify: ${(error as Error).message}`, 1)
  } finally {
    process.off('SIGINT', stop).off('SIGTERM', stop)
  }
}
