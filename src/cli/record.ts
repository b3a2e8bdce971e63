import { record } from '../record/index'
import { MissingPackageError } from '../runtime/optional-peer'
import { fail, parseCommand } from './args'

export const RECORD_USAGE = `Usage:
  dockside record --upstream unix:///var/run/docker.sock|tcp://HOST:PORT|http(s)://HOST:PORT --out FILE
                  [--host 127.0.0.1] [--port 2375] [--max-events 100000] [--quiet]

Serves on a local port and passes every request to the upstream (a Docker daemon, or any Docker-compatible service)
and its answer back unchanged: Docker's routes, streamed answers (GET /events, push progress) and upgraded
connections (attach, exec). GET /events/ws is passed on too, or, where the upstream has none (a Docker daemon),
served from its container events as the service's frames. On SIGINT or SIGTERM, or POST /_dockside/record/stop, it
writes FILE (YAML, or JSON for FILE.json) and exits 0: a scenario that dockside serve --scenario FILE replays, with
the containers, images, registries, pushes and start/stop events the client saw. No credential, token or
signature reaches FILE: a registry that needed credentials gets <USERNAME> and <PASSWORD> to fill in.
--max-events bounds the events kept (the file notes how many were dropped). See docs/recording.md.`

/** `dockside record`: exits 0 once the file is written, 1 when the port cannot be bound, 2 on a bad flag. */
export async function recordCommand(argv: string[]): Promise<void> {
  const parsed = parseCommand(
    argv,
    {
      upstream: { type: 'string' },
      out: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '2375' },
      'max-events': { type: 'string' },
      quiet: { type: 'boolean', default: false },
    },
    RECORD_USAGE,
    false,
  )
  if (parsed === undefined) return
  const v = parsed.values as { upstream?: string; out?: string; host: string; port: string; 'max-events'?: string; quiet: boolean }
  if (v.upstream === undefined || v.upstream.trim() === '') fail(`record needs --upstream (the service to record, e.g. unix:///var/run/docker.sock)\n${RECORD_USAGE}`)
  if (v.out === undefined || v.out.trim() === '') fail(`record needs --out FILE (the scenario to write, YAML or FILE.json)\n${RECORD_USAGE}`)
  const port = /^\d{1,5}$/.test(v.port) ? Number(v.port) : NaN
  if (!(port >= 0 && port <= 65535)) fail(`invalid --port ${v.port}: expected 0-65535`)
  const maxEvents = v['max-events'] === undefined ? undefined : /^\d{1,9}$/.test(v['max-events']) ? Number(v['max-events']) : NaN
  if (maxEvents !== undefined && !Number.isSafeInteger(maxEvents)) fail(`invalid --max-events ${v['max-events']}: expected an integer >= 0`)
  const host = v.host.replace(/^\[(.*)\]$/, '$1')
  let logGone = false
  process.stdout.on('error', () => (logGone = true))
  const log = (line: string) => {
    if (!v.quiet && !logGone) process.stdout.write(`${new Date().toISOString()} ${line}\n`)
  }
  let recorder
  try {
    recorder = await record({ upstream: v.upstream, out: v.out, host, port, maxEvents, log })
  } catch (error) {
    if (error instanceof RangeError || error instanceof MissingPackageError) fail(error.message)
    fail(`cannot listen on ${v.host}:${port}: ${(error as Error).message}`, 1)
  }
  const stop = (signal: string) => {
    log(`received ${signal}, writing ${v.out}`)
    void recorder.stop()
  }
  process.once('SIGINT', () => stop('SIGINT'))
  process.once('SIGTERM', () => stop('SIGTERM'))
  process.stdout.write(`dockside listening on ${recorder.url} (recording ${v.upstream} into ${v.out}; events: ${recorder.wsUrl}/events/ws, stop: POST ${recorder.url}/_dockside/record/stop or Ctrl-C)\n`)
  const result = await recorder.stopped
  process.stdout.write(`dockside wrote ${result.file}: ${result.events} start/stop events${result.droppedEvents ? `, ${result.droppedEvents} dropped past --max-events` : ''}\n`)
  process.exit(0)
}
