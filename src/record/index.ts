import '../runtime/node-version' // first: fails at once on a Node older than 22
import { loadOptional } from '../runtime/optional-peer'
import type { Scenario } from '../scenario/scenario'
import { parseUpstream } from './upstream'
import { Recording } from './recording'
import { createProxy } from './proxy'

export { parseUpstream, type Upstream } from './upstream'
export { STOP_PATH } from './proxy'

/** Options of {@link record}. */
export interface RecordOptions {
  /** The service to record: `unix:///var/run/docker.sock`, `tcp://HOST:PORT`, `http://HOST:PORT` or `https://HOST:PORT`. */
  upstream: string
  /** The scenario file written at stop: JSON when it ends in `.json`, else YAML. */
  out: string
  /** Address to bind. @default '127.0.0.1' */
  host?: string
  /** Port; 0 picks a free one (read it back from `url`). @default 0 */
  port?: number
  /** Start/stop events kept; later ones are dropped, and the file says how many. @default 100000 */
  maxEvents?: number
  /** Where log lines go (one per request, upgrade, websocket and upstream error). @default none */
  log?: (line: string) => void
}

/** A running recorder. */
export interface Recorder {
  /** `http://127.0.0.1:PORT`: point `DOCKER_HOST` (or dockerode, or a websocket client) here. */
  readonly url: string
  /** `ws://127.0.0.1:PORT`. */
  readonly wsUrl: string
  /**
   * Writes the file and closes every socket (idempotent: later calls return the first one's result). What was recorded
   * so far is written even when the upstream went away.
   */
  stop(): Promise<RecordResult>
  /** Settles when the recording stopped, by `stop()` or by `POST /_dockside/record/stop`. */
  readonly stopped: Promise<RecordResult>
  close(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

/** What a stopped recording wrote. */
export interface RecordResult {
  file: string
  scenario: Scenario
  /** Start/stop events recorded (of containers the client saw), and those dropped past `maxEvents`. */
  events: number
  droppedEvents: number
}

/**
 * Records a real Docker-compatible service: serves on a local port, passes every request to `upstream` and its answer
 * back unchanged, serves the events websocket from the upstream's container events when it has none, and at stop
 * writes what the client saw as a scenario that `dockside serve --scenario FILE` and `createDockside({ scenario })`
 * replay (docs/recording.md).
 *
 * @example
 * await using rec = await record({ upstream: 'unix:///var/run/docker.sock', out: 'session.yaml' })
 * // DOCKER_HOST=<rec.url> docker run -d --name web busybox sleep 60 ...
 * await rec.stop()
 */
export async function record(options: RecordOptions): Promise<Recorder> {
  const upstream = parseUpstream(options.upstream)
  if (typeof options.out !== 'string' || options.out.trim() === '') throw new RangeError('record needs "out": the scenario file to write (FILE.yaml or FILE.json).')
  const maxEvents = options.maxEvents ?? 100_000
  if (!Number.isSafeInteger(maxEvents) || maxEvents < 0) throw new RangeError(`Invalid maxEvents ${maxEvents}: expected an integer >= 0.`)
  // YAML needs an optional package: checked before anything is recorded, not when the recording is written (lost).
  const yaml = options.out.endsWith('.json') ? undefined : await loadOptional('yaml', `Writing a recording as YAML (${options.out}; a FILE.json needs no other package)`, () => import('yaml'))
  const log = options.log ?? (() => {})
  const recording = new Recording({ maxEvents, now: Date.now() })
  let result: Promise<RecordResult> | undefined
  let settle!: (r: RecordResult) => void
  const stopped = new Promise<RecordResult>((r) => (settle = r))
  let written: Promise<RecordResult> | undefined
  const write = () => {
    recording.stoppedMs ??= Date.now()
    return (written ??= writeRecording(recording, options.out, upstream.text, yaml?.stringify))
  }
  const stop = () =>
    (result ??= (async () => {
      const r = await write()
      await proxy.close()
      log(`stopped wrote ${r.file}: ${r.events} events${r.droppedEvents ? ` (${r.droppedEvents} dropped past --max-events ${maxEvents})` : ''}`)
      settle(r)
      return r
    })())
  const proxy = createProxy({
    upstream,
    recording,
    log,
    async onStop() {
      // The file first, then the answer (a client that gets it may read the file at once), then the sockets close.
      const r = await write()
      return { status: 200, body: { file: r.file, events: r.events, droppedEvents: r.droppedEvents } }
    },
    afterStop: () => void stop(),
  })
  const port = await proxy.listen(options.host ?? '127.0.0.1', options.port ?? 0)
  const host = (options.host ?? '127.0.0.1').includes(':') ? `[${options.host}]` : (options.host ?? '127.0.0.1')
  return {
    url: `http://${host}:${port}`,
    wsUrl: `ws://${host}:${port}`,
    stop,
    stopped,
    close: async () => void (await stop()),
    [Symbol.asyncDispose]: async () => void (await stop()),
  }
}

/** Writes the recording as a scenario (atomically: a temporary file renamed over FILE). */
async function writeRecording(recording: Recording, file: string, upstream: string, yamlText: typeof import('yaml').stringify | undefined): Promise<RecordResult> {
  const { writeFile, rename } = await import('node:fs/promises')
  const scenario = recording.toScenario()
  const notes = [...recording.notes]
  if (recording.droppedEvents) notes.push(`${recording.droppedEvents} start/stop events after the first ${recording.maxEvents} were dropped (--max-events ${recording.maxEvents})`)
  for (const r of scenario.registries ?? []) if ('username' in r) notes.push(`registry ${r.host} needed credentials: replace <USERNAME> and <PASSWORD> with the ones the replay should accept`)
  const about = {
    upstream,
    from: new Date(recording.startedMs).toISOString(),
    to: new Date(recording.stoppedMs ?? recording.startedMs).toISOString(),
    ...(notes.length ? { notes } : {}),
    replay: `dockside serve --scenario ${file} (docs/recording.md)`,
  }
  const full = { 'x-recording': about, ...scenario }
  let text: string
  if (!yamlText) text = `${JSON.stringify(full, null, 2)}\n`
  else text = `# Recorded by dockside record from ${upstream}, ${about.from} to ${about.to}: ${about.replay}\n${yamlText(full, { lineWidth: 0 })}`
  const tmp = `${file}.${process.pid}.tmp`
  await writeFile(tmp, text)
  await rename(tmp, file)
  const events = scenario.timeline?.filter((s) => s.start !== undefined || s.stop !== undefined).length ?? 0
  return { file, scenario, events, droppedEvents: recording.droppedEvents }
}

