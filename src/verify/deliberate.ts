import { serviceEvents } from './service-events'

/**
 * Differences between a real Docker daemon and the fake that are on purpose: where the spec or PROTOCOL.md says
 * the service differs from Docker, or where the API version the daemon speaks explains it. Each is listed with its
 * reason in docs/docker-compat.md#deliberate-differences (a test checks that the two agree).
 */
export interface Deliberate {
  readonly id: string
  /** `spec` or `protocol` (the service differs from Docker, and says so), `version` (the Engine versions differ). */
  readonly kind: 'spec' | 'protocol' | 'version'
  /** Why, in one sentence a user reads in verify's output. */
  readonly reason: string
  /** The cases it may explain, by id. */
  readonly cases: RegExp
  /** Rewrites the two transcripts as if the difference were not there; a case whose rewrites then agree is deliberate. */
  apply(real: string[], fake: string[]): [string[], string[]]
}

const isJson = (l: string) => l.startsWith('{')

/** Gives the fake's transcript the real one's value of a header (`name: `), where both name it. */
const realHeader = (name: string) => (real: string[], fake: string[]): [string[], string[]] => {
  const line = real.find((l) => l.startsWith(`${name}: `))
  return [real, line === undefined ? fake : fake.map((l) => (l.startsWith(`${name}: `) ? line : l))]
}

export const DELIBERATE: readonly Deliberate[] = [
  {
    id: 'push-without-auth-header',
    kind: 'protocol',
    reason: 'a push with no X-Registry-Auth and no body goes on as an anonymous push (PROTOCOL.md: dockerode sends no header without credentials; tolerate its absence); the 20.10 daemon answers 400 Bad parameters and missing X-Registry-Auth: EOF',
    cases: /^push\/no-auth-header$/,
    apply: (real, fake) => (real.some((l) => l.includes('missing X-Registry-Auth')) && fake[0] === 'HTTP 200' ? [['(anonymous push)'], ['(anonymous push)']] : [real, fake]),
  },
  {
    id: 'api-version',
    kind: 'version',
    reason: "the fake answers as Engine 28 (API 1.47) whatever the daemon's own version; the Api-Version header names the newest version each speaks",
    cases: /./,
    apply: realHeader('api-version'),
  },
  {
    id: 'server-version',
    kind: 'version',
    reason: 'the Server header names each Engine\'s own version (Docker/28.2.2 for the fake)',
    cases: /./,
    apply: realHeader('server'),
  },
  {
    id: 'ping-swarm-header',
    kind: 'version',
    reason:
      'the Swarm header of GET and HEAD /_ping came with Engine 23.0 (API 1.42; moby\'s version history: not versioned, a daemon that has it sends it whatever version the request asks); the 20.10 daemon sends none',
    cases: /^ping$/,
    apply: (real, fake) => (real.some((l) => l.startsWith('swarm: ')) ? [real, fake] : [real, fake.filter((l) => !l.startsWith('swarm: '))]),
  },
  {
    id: 'events-start-stop-only',
    kind: 'spec',
    reason:
      "the service reports two container events, start and stop (spec: Events): a process that exits is a stop with its exit code, where Docker sends die (and create, attach, kill, destroy and image events the service has none of); a start carries exitCode \"0\" as the service's did (PROTOCOL.md)",
    cases: /^events\/|^cli\/events|^errors\/unknown-filter$/,
    apply: (real, fake) =>
      // The docker CLI prints attributes as (k=v, ...): the start's exitCode=0 is the service's.
      real[0]?.startsWith('exit ') ? [real, fake.map((l) => (/ container start /.test(l) ? l.replace('exitCode=0, ', '') : l))] : [[...real.filter((l) => !isJson(l)), ...serviceEvents(real.filter(isJson))], fake],
  },
  {
    id: 'events-until-epoch',
    kind: 'protocol',
    reason:
      'an until at or before the epoch stops the replay there (PROTOCOL.md: replay from a buffer, stop at until; docs/decisions 0023); the daemon caps its replay only at an until after 1970, so it sends every buffered event, then ends',
    cases: /^events\/until-zero$/,
    apply: (real, fake) => (fake.some(isJson) ? [real, fake] : [real.filter((l) => !isJson(l)), fake]),
  },
  {
    id: 'push-no-such-image',
    kind: 'spec',
    reason:
      'a push of an image or tag the host does not have is a 404 No such image before the stream (spec: POST /images/{name}/push, status 404); the 20.10 daemon answers 200 and an error line',
    cases: /^push\/unknown-|^cli\/push-unknown/,
    apply: (real, fake) => {
      const streamed = real.some((l) => /does not exist locally|tag does not exist/.test(l))
      const refused = fake.some((l) => l === 'HTTP 404' || /No such image/.test(l))
      return streamed && refused ? [['(no such image)'], ['(no such image)']] : [real, fake]
    },
  },
]
