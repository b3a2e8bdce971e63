import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockside, parseScenario, type Dockside, type DocksideServer } from '../../src/index'
import { hasCommand, skipUnless } from './support/clients'
import { dockerCli } from './support/docker-cli'

// docs/docker-compat.md's transcript, replayed with the real `docker` CLI: every `$ docker ...` in the
// console block must print what the page shows and exit as it shows, so the page cannot drift.
const skip = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm), or a static client from download.docker.com')

const doc = readFileSync(fileURLToPath(new URL('../../docs/docker-compat.md', import.meta.url)), 'utf8')
const transcript = doc.slice(doc.indexOf('## Transcript'))
const scenarioYaml = /```yaml\n([\s\S]*?)```/.exec(transcript)?.[1]
const consoleBlock = /```console\n([\s\S]*?)```/.exec(transcript)?.[1]

interface Step {
  command: string
  env: Record<string, string>
  argv: string[]
  output: string
  exit: number
}

/** Splits a command line as sh would for what the page uses: words, '...' quoting, and NAME=value prefixes. */
function words(line: string): string[] {
  const out: string[] = []
  for (const m of line.matchAll(/'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2])
  return out
}

function steps(block: string): Step[] {
  return block
    .trim()
    .split(/\n\n(?=\$ )/)
    .map((chunk) => {
      const lines = chunk.split('\n')
      const command = lines[0].replace(/^\$ /, '')
      const exit = /^\[exit (\d+)\]$/.exec(lines.at(-1) ?? '')
      if (!lines[0].startsWith('$ ') || !exit) throw new Error(`docs/docker-compat.md transcript: each command is "$ cmd", its output, then "[exit N]"; got:\n${chunk}`)
      const argv = words(command)
      const env: Record<string, string> = {}
      while (/^[A-Z_]+=/.test(argv[0])) {
        const [k, ...v] = argv.shift()!.split('=')
        env[k] = v.join('=')
      }
      return { command, env, argv, output: lines.slice(1, -1).join('\n'), exit: Number(exit[1]) }
    })
}

/**
 * What may differ between runs: the CLI's relative times (CREATED, STATUS, measured from the wall clock
 * or the auto clock), event times (the auto clock runs with the wall clock), and table padding that
 * follows from them.
 */
function normalise(text: string): string {
  return text
    .replace(/\b(Less than a second|About an? (?:minute|hour)|\d+ (?:seconds?|minutes|hours|days|weeks|months|years))\b/g, '<duration>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, '<time>')
    .replace(/"time":\d+/g, '"time":<s>')
    .replace(/"timeNano":\d+/g, '"timeNano":<ns>')
    .replace(/ {2,}/g, '  ')
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .trim()
}

describe.skipIf(skip)('docs/docker-compat.md transcript, replayed with the docker CLI', () => {
  const parsed = consoleBlock ? steps(consoleBlock) : []
  let fake: Dockside
  let server: DocksideServer
  beforeAll(async () => {
    // As the page starts it: `dockside serve --scenario demo.yaml --clock auto`.
    fake = createDockside({ scenario: await parseScenario(scenarioYaml ?? '', 'docs/docker-compat.md'), clock: 'auto' })
    server = await fake.listen({ port: 0 })
  })
  afterAll(() => fake?.close())

  it('the page has a scenario and a transcript covering every docker command the routes table names', () => {
    expect(scenarioYaml, 'a ```yaml block after "## Transcript"').toBeTruthy()
    const commands = new Set(parsed.map((s) => s.argv.slice(1, 3).filter((w) => !w.startsWith('-')).join(' ')))
    for (const c of ['version', 'info', 'images', 'image inspect', 'ps', 'tag', 'start', 'stop', 'inspect', 'push', 'events']) {
      expect([...commands].some((x) => x === c || x.startsWith(`${c} `)), `transcript runs "docker ${c}"`).toBe(true)
    }
  })

  it('every command prints what the page shows and exits with the code it shows, in order', async () => {
    using good = dockerCli(server.url, { auths: { 'localhost:5000': { username: 'ci', password: 's3cret' } } })
    using wrong = dockerCli(server.url, { auths: { 'localhost:5000': { username: 'ci', password: 'wrong' } } })
    expect(parsed.length).toBeGreaterThan(10)
    for (const step of parsed) {
      expect(step.argv[0], step.command).toBe('docker')
      const unknownEnv = Object.entries(step.env).filter(([k, v]) => !(k === 'DOCKER_CONFIG' && v === 'wrong-creds'))
      expect(unknownEnv, `${step.command}: the only prefix the test knows is DOCKER_CONFIG=wrong-creds`).toEqual([])
      const cli = step.env.DOCKER_CONFIG ? wrong : good
      const r = await cli.docker(step.argv.slice(1), { timeoutMs: 15_000 })
      expect({ command: step.command, output: normalise(r.stdout + r.stderr), exit: r.code }).toEqual({ command: step.command, output: normalise(step.output), exit: step.exit })
    }
  })
})
