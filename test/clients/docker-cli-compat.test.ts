import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer } from '../../src/index'
import { hasCommand, run, skipUnless } from './support/clients'
import { dockerCli } from './support/docker-cli'

// Issue 8, point 4: the docker CLI gets Docker's answers (filters, login, events types) or a clear refusal.
const skip = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm), or a static client from download.docker.com')

const START = Date.UTC(2026, 0, 1) / 1000

describe.skipIf(skip)('docker CLI: ps filters, login, events types, unserved commands', () => {
  let fake: Dockside
  let server: DocksideServer
  beforeEach(async () => {
    fake = createDockside({ clock: 'auto', seed: 8 })
    fake.images.add('nginx', { layers: 1 })
    fake.registries.add('localhost:5000', { username: 'ci', password: 's3cret' })
    fake.containers.create({ name: 'web', image: 'nginx', labels: { app: 'web' } }).start()
    fake.containers.create({ name: 'db', image: 'nginx', labels: { app: 'db' } })
    fake.containers.create({ name: 'cache', image: 'nginx', labels: { app: 'web', tier: 'cache' } })
    server = await fake.listen({ port: 0 })
  })
  afterEach(() => fake.close())

  const names = (stdout: string) => stdout.trim().split('\n').filter(Boolean).sort()

  it('docker ps -a --filter label=app=web lists only those; name, status and ancestor filter too', async () => {
    using cli = dockerCli(server.url)
    const ps = (...args: string[]) => cli.docker(['ps', '-a', '--format', '{{.Names}}', ...args])
    const label = await ps('--filter', 'label=app=web')
    expect([label.code, label.stderr]).toEqual([0, ''])
    expect(names(label.stdout)).toEqual(['cache', 'web'])
    expect(names((await ps('--filter', 'label=app=web', '--filter', 'label=tier')).stdout)).toEqual(['cache'])
    expect(names((await ps('--filter', 'name=^/db$')).stdout)).toEqual(['db'])
    expect(names((await ps('--filter', 'status=running')).stdout)).toEqual(['web'])
    expect(names((await cli.docker(['ps', '--format', '{{.Names}}', '--filter', 'status=created'])).stdout)).toEqual(['cache', 'db'])
    expect(names((await ps('--filter', 'ancestor=nginx:latest')).stdout)).toEqual(['cache', 'db', 'web'])
    expect(names((await ps('--filter', 'ancestor=alpine')).stdout)).toEqual([])
  })

  it('docker ps with a bad filter exits 1 with the daemon\'s message', async () => {
    using cli = dockerCli(server.url)
    const bad = await cli.docker(['ps', '--filter', 'status=up'])
    expect(bad.code).toBe(1)
    expect(bad.stderr.trim()).toBe("Error response from daemon: invalid filter 'status=up': invalid value for state (up): must be one of created, running, paused, restarting, removing, exited, dead")
    const unknown = await cli.docker(['ps', '--filter', 'colour=red'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr.trim()).toBe("Error response from daemon: invalid filter 'colour'")
  })

  it('docker login: right credentials succeed and are stored, wrong ones fail as the daemon fails them, an open registry takes anything', async () => {
    using cli = dockerCli(server.url)
    const login = (user: string, password: string, registry: string) =>
      run('sh', ['-c', 'printf %s "$PW" | docker login -u "$U" --password-stdin "$R"'], { env: { ...cli.env, PW: password, U: user, R: registry } })
    const ok = await login('ci', 's3cret', 'localhost:5000')
    expect([ok.code, ok.stdout.trim()]).toEqual([0, 'Login Succeeded'])
    const config = JSON.parse(readFileSync(join(cli.env.DOCKER_CONFIG, 'config.json'), 'utf8'))
    expect(config.auths['localhost:5000'].auth).toBe(Buffer.from('ci:s3cret').toString('base64'))
    const wrong = await login('ci', 'wrong', 'localhost:5000')
    expect(wrong.code).toBe(1)
    expect(wrong.stderr.trim()).toBe('Error response from daemon: login attempt to http://localhost:5000/v2/ failed with status: 401 Unauthorized')
    // A registry the fake does not know is open (loopback only: the CLI would try the registry itself if the daemon failed).
    const open = await login('anyone', 'anything', 'localhost:5999')
    expect([open.code, open.stdout.trim()]).toEqual([0, 'Login Succeeded'])
    expect(fake.journal.ofType('auth.login').map((e) => [e.registry, e.status])).toEqual([
      ['localhost:5000', 'ok'],
      ['localhost:5000', 'refused'],
      ['localhost:5999', 'ok'],
    ])
    // The stored credentials are the ones a push then sends.
    fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 1 })
    expect((await cli.docker(['push', 'localhost:5000/team/app:1.0'])).code).toBe(0)
  })

  it('docker events --filter type=container gets the container events, type=image none, and both need no error', async () => {
    using cli = dockerCli(server.url)
    // Past `until`: each command replays and ends at once.
    await fake.clock.advance('10s')
    const events = (...filters: string[]) =>
      cli.docker(['events', '--since', String(START), '--until', String(START + 5), '--format', '{{.Type}} {{.Action}} {{.Actor.Attributes.name}}', ...filters.flatMap((f) => ['--filter', f])], { timeoutMs: 15_000 })
    const container = await events('type=container')
    expect([container.code, container.stderr]).toEqual([0, ''])
    expect(container.stdout.trim()).toBe('container start web')
    const image = await events('type=image')
    expect([image.code, image.stdout, image.stderr]).toEqual([0, '', ''])
    const scoped = await events('type=container', 'scope=local', 'event=start', 'label=app=web')
    expect(scoped.stdout.trim()).toBe('container start web')
    expect((await events('network=bridge')).stdout).toBe('')
  })

  it('commands the fake does not serve exit 1 naming the route (501), never a silent success', async () => {
    using cli = dockerCli(server.url)
    for (const [args, route] of [
      [['rm', 'db'], 'DELETE /containers/{id}'],
      [['logs', 'web'], 'GET /containers/{id}/logs'],
      [['network', 'ls'], 'GET /networks'],
      [['volume', 'ls'], 'GET /volumes'],
      [['kill', 'web'], 'POST /containers/{id}/kill'],
      [['rmi', 'nginx'], 'DELETE /images/{name}'],
    ] as const) {
      const r = await cli.docker([...args])
      expect(r.code, args.join(' ')).not.toBe(0)
      expect(r.stderr, args.join(' ')).toContain(`${route} is not served by this fake`)
    }
    // Nothing changed.
    expect(fake.containers.list().map((c) => c.name)).toEqual(['web', 'db', 'cache'])
  })
})
