import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createDockside, type Dockside, type DocksideServer } from '../../src/index'
import { hasCommand, skipUnless } from './support/clients'
import { dockerCli } from './support/docker-cli'

const skip = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm), or a static client from download.docker.com')

const START = Date.UTC(2026, 0, 1) / 1000

describe.skipIf(skip)('docker CLI 28 against the fake (DOCKER_HOST=tcp://...)', () => {
  let fake: Dockside
  let server: DocksideServer
  beforeEach(async () => {
    fake = createDockside({ clock: 'auto', seed: 4 })
    fake.images.add('localhost:5000/team/app', { tags: ['1.0', '2.0'], layers: 3 })
    server = await fake.listen({ port: 0 })
  })
  afterEach(() => fake.close())

  it('docker push prints progress and the digest, exits 0, and the registry holds the tag', async () => {
    using cli = dockerCli(server.url)
    const r = await cli.docker(['push', 'localhost:5000/team/app:1.0'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const image = fake.images.resolve('localhost:5000/team/app:1.0')!
    expect(r.stdout).toContain('The push refers to repository [localhost:5000/team/app]')
    for (const l of image.layers) expect(r.stdout).toContain(`${l.shortId}: Pushed`)
    expect(r.stdout).toContain(`1.0: digest: ${image.manifestDigest} size: ${image.manifestSize}`)
    expect(fake.registries.get('localhost:5000').get('localhost:5000/team/app', '1.0')?.digest).toBe(image.manifestDigest)
    expect(fake.journal.ofType('request').some((e) => e.method === 'HEAD' && e.path === '/_ping')).toBe(true)
  })

  it('docker push --all-tags pushes every tag; the second reports layers that already exist', async () => {
    using cli = dockerCli(server.url)
    const r = await cli.docker(['push', '--all-tags', 'localhost:5000/team/app'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/1\.0: digest: sha256:[0-9a-f]{64} size: \d+/)
    expect(r.stdout).toMatch(/2\.0: digest: sha256:[0-9a-f]{64} size: \d+/)
    expect(r.stdout).toContain('Layer already exists')
    expect(fake.registries.get('localhost:5000').tags.map((t) => t.tag)).toEqual(['1.0', '2.0'])
  })

  it('credentials from a DOCKER_CONFIG auths entry reach the fake and are checked', async () => {
    fake.registries.add('localhost:5000', { username: 'ci', password: 's3cret' })
    using good = dockerCli(server.url, { auths: { 'localhost:5000': { username: 'ci', password: 's3cret' } } })
    const ok = await good.docker(['push', 'localhost:5000/team/app:1.0'])
    expect(ok.code).toBe(0)
    expect(fake.registries.get('localhost:5000').get('localhost:5000/team/app', '1.0')?.pushedBy).toBe('ci')

    using bad = dockerCli(server.url, { auths: { 'localhost:5000': { username: 'ci', password: 'wrong' } } })
    const denied = await bad.docker(['push', 'localhost:5000/team/app:2.0'])
    expect(denied.code).toBe(1)
    expect(denied.stdout + denied.stderr).toContain('unauthorized: authentication required')
    expect(fake.registries.get('localhost:5000').get('localhost:5000/team/app', '2.0')).toBeUndefined()
    expect(fake.journal.ofType('push.failed').at(-1)).toMatchObject({ message: 'unauthorized: authentication required' })
  })

  it('a mid-push fault makes the CLI print the error and exit 1', async () => {
    fake.faults.add({ on: 'push', error: 'blob upload unknown: simulated by dockside', afterLayer: 1 })
    using cli = dockerCli(server.url)
    const r = await cli.docker(['push', 'localhost:5000/team/app:1.0'])
    expect(r.code).toBe(1)
    expect(r.stdout + r.stderr).toContain('blob upload unknown: simulated by dockside')
    expect(r.stdout).not.toContain('digest:')
    expect(fake.registries.list().flatMap((reg) => reg.tags)).toEqual([])
  })

  it('an unknown image: "Error response from daemon: No such image: ..." and exit 1', async () => {
    using cli = dockerCli(server.url)
    const r = await cli.docker(['push', 'localhost:5000/team/nope:1.0'])
    expect(r.code).toBe(1)
    expect(r.stderr.trim()).toBe('Error response from daemon: No such image: localhost:5000/team/nope:1.0')
  })

  it('docker events --filter event=start --filter label=app=web prints matching events and exits when --until passes', async () => {
    const web = fake.containers.create({ name: 'web', image: 'nginx', labels: { app: 'web' } })
    const api = fake.containers.create({ name: 'api', image: 'nginx', labels: { app: 'api' } })
    web.start() // before the CLI connects: replayed from --since
    web.stop()
    using cli = dockerCli(server.url)
    // The stream replays from --since, so events made once the request is in are never missed.
    const connected = new Promise<void>((resolve) => {
      const off = fake.on('journal', (e) => {
        if (e.type === 'request' && e.path === '/events') {
          off()
          resolve()
        }
      })
    })
    const until = START + 3600
    const run = cli.docker(['events', '--since', String(START), '--until', String(until), '--filter', 'event=start', '--filter', 'label=app=web'])
    await connected
    api.start() // label does not match
    web.start() // matches
    web.stop({ exitCode: 137 }) // event does not match
    await fake.clock.advance('2h') // past --until: the stream ends and the CLI exits
    const r = await run
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines).toHaveLength(2)
    for (const line of lines) {
      expect(line).toMatch(new RegExp(`^2026-01-01T\\S+Z container start ${web.id} \\(app=web, exitCode=0, image=nginx, name=web, sh_hyper_instancetype=s4\\)$`))
    }
  })

  it('docker events rejects --until before --since with the daemon\'s message', async () => {
    using cli = dockerCli(server.url)
    const r = await cli.docker(['events', '--since', String(START + 10), '--until', String(START)])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`Error response from daemon: \`since\` time (${START + 10}) cannot be after \`until\` time (${START})`)
  })

  it('docker tag, images, ps -a, start and stop drive the fake, and the events websocket shows what they did', async () => {
    fake.images.add('nginx', { layers: 2 })
    const web = fake.containers.create({ name: 'web', image: 'nginx', labels: { app: 'web' } })
    using cli = dockerCli(server.url)
    const ws = new WebSocket(`${server.wsUrl}/events/ws?filters=${encodeURIComponent('{"container":{"web":true}}')}`)
    const frames: { Action: string; id: string }[] = []
    ws.on('message', (m) => frames.push(JSON.parse(String(m))))
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))

    expect((await cli.docker(['tag', 'nginx', 'localhost:5000/team/nginx:v1'])).code).toBe(0)
    expect(fake.images.resolve('localhost:5000/team/nginx:v1')).toBe(fake.images.resolve('nginx'))

    const images = await cli.docker(['images', '--format', '{{.Repository}}:{{.Tag}} {{.ID}}'])
    expect(images.code).toBe(0)
    const nginxId = fake.images.resolve('nginx')!.id.slice(7, 19)
    expect(images.stdout.split('\n')).toEqual(expect.arrayContaining([`nginx:latest ${nginxId}`, `localhost:5000/team/nginx:v1 ${nginxId}`, expect.stringMatching(/^localhost:5000\/team\/app:1\.0 [0-9a-f]{12}$/)]))

    const one = await cli.docker(['images', '--format', '{{.Repository}}:{{.Tag}}', 'localhost:5000/team/*'])
    expect(one.stdout.trim().split('\n').sort()).toEqual(['localhost:5000/team/app:1.0', 'localhost:5000/team/app:2.0', 'localhost:5000/team/nginx:v1'])
    expect((await cli.docker(['images', '--format', '{{.Repository}}:{{.Tag}}', 'nginx'])).stdout).toBe('nginx:latest\n')
    // The fake's images are all tagged and have no labels: the CLI's dangling and label filters list none.
    expect(await cli.docker(['images', '-q', '--filter', 'dangling=true'])).toMatchObject({ code: 0, stdout: '' })
    expect(await cli.docker(['images', '-q', '--filter', 'label=app=web'])).toMatchObject({ code: 0, stdout: '' })
    expect((await cli.docker(['images', '--format', '{{.Repository}}', '--filter', 'dangling=false', 'nginx'])).stdout).toBe('nginx\n')
    const unknown = await cli.docker(['images', '--filter', 'colour=blue'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr.trim()).toBe("Error response from daemon: invalid filter 'colour'")

    expect(await cli.docker(['start', 'web'])).toMatchObject({ code: 0, stdout: 'web\n' })
    const ps = await cli.docker(['ps', '-a'])
    expect(ps.stdout).toMatch(new RegExp(`^${web.id.slice(0, 12)}\\s+nginx\\s+"sh"\\s+.+\\s+Up .+\\s+web$`, 'm'))
    expect(await cli.docker(['stop', 'web'])).toMatchObject({ code: 0, stdout: 'web\n' })
    const after = await cli.docker(['ps', '-a', '--format', '{{.Names}} {{.Status}}'])
    expect(after.stdout.trim()).toMatch(/^web Exited \(0\) .+ ago$/)
    expect((await cli.docker(['ps', '--format', '{{.Names}}'])).stdout).toBe('')
    const inspect = JSON.parse((await cli.docker(['inspect', 'web'])).stdout) as { State: { Status: string } }[]
    expect(inspect[0].State.Status).toBe('exited')
    const missing = await cli.docker(['start', 'nope'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('No such container: nope')

    await expect.poll(() => frames.map((f) => f.Action)).toEqual(['start', 'stop'])
    expect(frames.every((f) => f.id === web.id)).toBe(true)
    ws.close()
  })
})
