// Regressions: two event filters that answered otherwise than the Engine (daemon/events/filter.go), found with the
// docker CLI, dockerode and websocket clients against the fake.
// 1. `image=nginx` missed events of containers made from `docker.io/library/nginx:1.27` or `library/nginx`: the fake cut
//    the tag only, where the Engine reads the event's image by its familiar name (reference.FamiliarName of
//    ParseNormalizedNamed), so all of them are `nginx` (and `image=docker.io/library/nginx` matches none).
// 2. `container=/web` matched web's events: the Engine's events name containers without the slash its container list
//    shows, and its filter is a prefix of the id or that name, so `/web` matches nothing there.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer } from '../../../../src/index'
import { hasCommand, skipUnless } from '../../../clients/support/clients'
import { dockerCli } from '../../../clients/support/docker-cli'

const skip = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm)')

/** The clock's start (2026-01-01T00:00:00Z), when every container below starts, and a second later. */
const START = 1767225600
const UNTIL = START + 1

let fake: Dockside
let server: DocksideServer
beforeEach(async () => {
  fake = createDockside({ seed: 5 })
  for (const [name, image] of [
    ['plain', 'nginx'],
    ['full', 'docker.io/library/nginx:1.27'],
    ['hub', 'library/nginx'],
    ['other', 'busybox'],
  ]) fake.containers.create({ name, image }).start()
  // Past UNTIL: every stream below replays, then ends at once.
  await fake.clock.advance('2s')
  server = await fake.listen({ port: 0 })
})
afterEach(() => fake.close())

/** The names of the containers whose events `GET /events` (Docker's stream) and `/events/ws` replay for `filters`. */
async function names(filters: object): Promise<{ stream: string[]; ws: string[] }> {
  const q = `since=${START}&until=${UNTIL}&filters=${encodeURIComponent(JSON.stringify(filters))}`
  const res = await fetch(`${server.url}/v1.47/events?${q}`)
  expect(res.status).toBe(200)
  const stream = (await res.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l).Actor.Attributes.name as string)
  const socket = new WebSocket(`${server.wsUrl}/events/ws?${q}`)
  const ws: string[] = []
  socket.addEventListener('message', (m) => ws.push(JSON.parse(String(m.data)).Actor.Attributes.name))
  await new Promise((resolve) => socket.addEventListener('close', resolve))
  return { stream, ws }
}

describe('event filters as the Engine reads them', () => {
  it('bug: image=nginx missed docker.io/library/nginx:1.27 and library/nginx; now every name of the official image matches', async () => {
    const all = ['plain', 'full', 'hub']
    expect(await names({ image: ['nginx'] })).toEqual({ stream: all, ws: all })
    // The filter's own text is not normalised: only the event whose image attribute is that text.
    expect(await names({ image: ['docker.io/library/nginx'] })).toEqual({ stream: [], ws: [] })
    expect(await names({ image: ['docker.io/library/nginx:1.27'] })).toEqual({ stream: ['full'], ws: ['full'] })
  })

  it('bug: container=/web matched the container web; now it matches nothing, as in the Engine', async () => {
    expect(await names({ container: ['/plain'] })).toEqual({ stream: [], ws: [] })
    expect(await names({ container: ['plain'] })).toEqual({ stream: ['plain'], ws: ['plain'] })
  })

  it.skipIf(skip)('the docker CLI reads the same: docker events --filter image=nginx, --filter container=/plain', async () => {
    using cli = dockerCli(server.url)
    const events = async (...filter: string[]) => {
      const r = await cli.docker(['events', '--since', String(START), '--until', String(UNTIL), ...filter.flatMap((f) => ['--filter', f]), '--format', '{{.Actor.Attributes.name}}'])
      expect(r.code, r.stderr).toBe(0)
      return r.stdout.split('\n').filter(Boolean)
    }
    expect(await events('image=nginx')).toEqual(['plain', 'full', 'hub'])
    expect(await events('container=/plain')).toEqual([])
  })
})
