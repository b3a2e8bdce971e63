import { expect } from 'vitest'
import type { Dockside } from '../../src/index'
import { drainWithClock } from '../support/helpers'
import type { Case } from '../support/way-in'

// The Docker Engine routes' exact answers (docs/docker-compat.md, the Engine API v1.47), on every way in:
// ping, version, info, container inspect/start/stop and the list's fields, and login's registry names. What is
// not served (404/501, which the in-process way treats as unhandled first) is in test/unit/protocol/docker/unserved.test.ts.

const T0 = Date.UTC(2026, 0, 1)
const ZERO_TIME = '0001-01-01T00:00:00Z'

/** web (running, started at T0), api (ran, exited 3 at T0+1s), db (created at T0+2s, never started, unknown image). Now: T0+3s. */
async function seed(fake: Dockside) {
  fake.images.add('nginx', { tags: ['1.27', 'latest'], layers: [1000, 2345] })
  fake.images.add('localhost:5000/team/api', { tags: ['1.0'], layers: [700] })
  const web = fake.containers.create({ name: 'web', image: 'nginx:1.27', labels: { app: 'web' } })
  web.start()
  await fake.clock.advance(1000)
  const api = fake.containers.create({ name: 'api', image: 'localhost:5000/team/api:1.0' })
  api.start()
  api.stop({ exitCode: 3 })
  await fake.clock.advance(1000)
  const db = fake.containers.create({ name: 'db', image: 'postgres' })
  await fake.clock.advance(1000)
  return { web, api, db }
}

async function message(res: Response): Promise<string> {
  expect(res.headers.get('content-type')).toBe('application/json')
  return ((await res.json()) as { message: string }).message
}

const login = (body: object) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

export const dockerEngineCases: Case[] = [
  {
    name: 'HEAD and GET /_ping answer 200 OK with the Engine headers (API 1.47, linux, no caching)',
    async run({ h }) {
      for (const method of ['GET', 'HEAD']) {
        const res = await h.fetch('/_ping', { method })
        expect(res.status, method).toBe(200)
        expect(res.headers.get('api-version')).toBe('1.47')
        expect(res.headers.get('ostype')).toBe('linux')
        expect(res.headers.get('docker-experimental')).toBe('false')
        expect(res.headers.get('cache-control')).toBe('no-cache, no-store, must-revalidate')
        expect(res.headers.get('pragma')).toBe('no-cache')
        expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8')
        // The daemon's pingHandler sets Content-Length 0 on HEAD.
        expect(res.headers.get('content-length'), method).toBe(method === 'HEAD' ? '0' : '2')
        expect(await res.text(), method).toBe(method === 'HEAD' ? '' : 'OK')
      }
    },
  },
  {
    name: 'GET /version and GET /info answer the documented fields (28.2.2, API 1.47 min 1.24, counts of the fake)',
    async run({ fake, h }) {
      await seed(fake)
      const version = await h.fetch('/v1.47/version')
      expect(version.status).toBe(200)
      expect(version.headers.get('api-version')).toBe('1.47')
      const engine = { ApiVersion: '1.47', Arch: 'amd64', BuildTime: '2026-01-01T00:00:00.000Z', Experimental: 'false', GitCommit: 'dockside', GoVersion: 'go1.24', KernelVersion: 'dockside', MinAPIVersion: '1.24', Os: 'linux' }
      const versionJson = await version.json()
      // types.Version in the daemon's key order, with the components `docker version` prints.
      expect(Object.keys(versionJson)).toEqual(['Platform', 'Components', 'Version', 'ApiVersion', 'MinAPIVersion', 'GitCommit', 'GoVersion', 'Os', 'Arch', 'KernelVersion', 'BuildTime'])
      expect(versionJson).toEqual({
        Platform: { Name: 'dockside' },
        Components: [
          { Name: 'Engine', Version: '28.2.2', Details: engine },
          { Name: 'containerd', Version: '1.7.27', Details: { GitCommit: 'dockside' } },
          { Name: 'runc', Version: '1.2.5', Details: { GitCommit: 'dockside' } },
          { Name: 'docker-init', Version: '0.19.0', Details: { GitCommit: 'de40ad0' } },
        ],
        Version: '28.2.2',
        ApiVersion: '1.47',
        MinAPIVersion: '1.24',
        Os: 'linux',
        Arch: 'amd64',
        KernelVersion: 'dockside',
        GoVersion: 'go1.24',
        GitCommit: 'dockside',
        BuildTime: '2026-01-01T00:00:00.000Z',
      })
      const info = await h.fetch('/v1.47/info')
      expect(info.status).toBe(200)
      expect(info.headers.get('ostype')).toBe('linux')
      // Two tags of nginx are one image: Docker counts images, not tags.
      expect(await info.json()).toEqual({
        ID: 'dockside',
        Name: 'dockside',
        Containers: 3,
        ContainersRunning: 1,
        ContainersPaused: 0,
        ContainersStopped: 2,
        Images: 2,
        ServerVersion: '28.2.2',
        OperatingSystem: 'dockside (fake)',
        OSType: 'linux',
        Architecture: 'x86_64',
        NCPU: 2,
        MemTotal: 0,
        Driver: 'dockside',
        SystemTime: '2026-01-01T00:00:03.000Z',
        Swarm: { NodeID: '', NodeAddr: '', LocalNodeState: 'inactive', ControlAvailable: false, Error: '', RemoteManagers: null },
      })
    },
  },
  {
    name: 'GET /containers/{id}/json: the inspect fields of a running, an exited and a never-started container, by name, escaped name or id',
    async run({ fake, h }) {
      const { web, api, db } = await seed(fake)
      const nginx = fake.images.resolve('nginx')!.id
      const inspect = async (ref: string) => {
        const res = await h.fetch(`/v1.47/containers/${ref}/json`)
        expect(res.status, ref).toBe(200)
        return (await res.json()) as Record<string, unknown>
      }
      const common = { Path: 'sh', Args: [], RestartCount: 0, Driver: 'overlay2', Platform: 'linux', Mounts: [] }
      const state = { Paused: false, Restarting: false, OOMKilled: false, Dead: false, Pid: 0, Error: '' }
      const webJson = await inspect('web')
      expect(webJson).toMatchObject({
        ...common,
        Id: web.id,
        Created: '2026-01-01T00:00:00.000Z',
        State: { ...state, Status: 'running', Running: true, ExitCode: 0, StartedAt: '2026-01-01T00:00:00.000Z', FinishedAt: ZERO_TIME },
        Image: nginx,
        Name: '/web',
        ResolvConfPath: `/var/lib/docker/containers/${web.id}/resolv.conf`,
        HostConfig: { NetworkMode: 'bridge', Memory: 0, RestartPolicy: { Name: 'no', MaximumRetryCount: 0 }, LogConfig: { Type: 'json-file', Config: {} } },
        Config: { Hostname: web.id.slice(0, 12), Image: 'nginx:1.27', Labels: { app: 'web', sh_hyper_instancetype: web.instanceType }, Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'], Cmd: ['sh'] },
        NetworkSettings: { Ports: {}, Networks: { bridge: { NetworkID: expect.stringMatching(/^[0-9a-f]{64}$/), IPAddress: '', DNSNames: null } } },
      })
      // Every key the daemon writes, in its order (a `docker inspect -f '{{.HostConfig.Memory}}'` template needs the
      // key, a client that decodes into a struct its order does not, a diff of the JSON both): Engine 28's layout.
      expect(Object.keys(webJson)).toEqual(['Id', 'Created', 'Path', 'Args', 'State', 'Image', 'ResolvConfPath', 'HostnamePath', 'HostsPath', 'LogPath', 'Name', 'RestartCount', 'Driver', 'Platform', 'MountLabel', 'ProcessLabel', 'AppArmorProfile', 'ExecIDs', 'HostConfig', 'GraphDriver', 'Mounts', 'Config', 'NetworkSettings'])
      expect(Object.keys(webJson.HostConfig as object).slice(8, 12)).toEqual(['VolumesFrom', 'ConsoleSize', 'CapAdd', 'CapDrop'])
      expect(Object.keys(webJson.HostConfig as object)).not.toContain('KernelMemory')
      expect(Object.keys(webJson.NetworkSettings as object).slice(0, 4)).toEqual(['Bridge', 'SandboxID', 'SandboxKey', 'Ports'])
      // API 1.41: the 20.10 daemon's layout (its ConsoleSize before Isolation, KernelMemory, NetworkMode `default`).
      const old = (await (await h.fetch('/v1.41/containers/web/json')).json()) as Record<string, Record<string, unknown>>
      const oldKeys = Object.keys(old.HostConfig)
      expect(oldKeys.slice(oldKeys.indexOf('ShmSize'), oldKeys.indexOf('ShmSize') + 4)).toEqual(['ShmSize', 'Runtime', 'ConsoleSize', 'Isolation'])
      expect(old.HostConfig).toMatchObject({ NetworkMode: 'default', KernelMemory: 0, KernelMemoryTCP: 0, RestartPolicy: { Name: '' } })
      expect(Object.keys(old.NetworkSettings).slice(0, 6)).toEqual(['Bridge', 'SandboxID', 'HairpinMode', 'LinkLocalIPv6Address', 'LinkLocalIPv6PrefixLen', 'Ports'])
      expect(Object.keys((old.NetworkSettings.Networks as Record<string, object>).bridge)).toEqual(['IPAMConfig', 'Links', 'Aliases', 'NetworkID', 'EndpointID', 'Gateway', 'IPAddress', 'IPPrefixLen', 'IPv6Gateway', 'GlobalIPv6Address', 'GlobalIPv6PrefixLen', 'MacAddress', 'DriverOpts'])
      expect(await inspect(api.id)).toMatchObject({
        Name: '/api',
        State: { Status: 'exited', Running: false, ExitCode: 3, StartedAt: '2026-01-01T00:00:01.000Z', FinishedAt: '2026-01-01T00:00:01.000Z' },
      })
      // An image the fake does not hold: no image id, as for a removed image.
      expect(await inspect('%64b')).toMatchObject({
        Id: db.id,
        Name: '/db',
        Image: '',
        Created: '2026-01-01T00:00:02.000Z',
        State: { Status: 'created', Running: false, StartedAt: ZERO_TIME, FinishedAt: ZERO_TIME },
      })
      const ghost = await h.fetch('/containers/ghost/json')
      expect(ghost.status).toBe(404)
      expect(await message(ghost)).toMatch(/^No such container: ghost/)
      // A broken escape in the path is Go's HTTP server's bare 400 before any route (dockerd 20.10 checked).
      const bad = await h.fetch('/containers/%E0%A4%A/json')
      expect([bad.status, bad.headers.get('content-type'), await bad.text()]).toEqual([400, 'text/plain; charset=utf-8', '400 Bad Request'])
      // Escapes that are not UTF-8: each bad byte is U+FFFD, as the daemon names it (`No such container: \ufffd\ufffd`).
      const notUtf8 = await h.fetch('/containers/%E0%A4/json')
      expect([notUtf8.status, await message(notUtf8)]).toEqual([404, 'No such container: \ufffd\ufffd'])
      // A query Go cannot read: inspect never reads its form, so the container is answered.
      expect((await h.fetch(`/v1.41/containers/${web.id}/json?x=%ZZ`)).status).toBe(200)
    },
  },
  {
    name: 'POST /containers/{id}/start and /stop: 204 and a journal entry, 304 when already in that state',
    async run({ fake, h }) {
      const { db } = await seed(fake)
      const post = async (path: string) => {
        const res = await h.fetch(path, { method: 'POST' })
        expect(await res.text(), path).toBe('')
        return res.status
      }
      expect(await post('/v1.47/containers/db/start')).toBe(204)
      expect(db.state).toBe('running')
      expect(db.startedAt).toBe(T0 + 3000)
      expect(await post('/v1.47/containers/db/start')).toBe(304)
      await fake.clock.advance(1000)
      expect(await post(`/v1.47/containers/${db.id}/stop`)).toBe(204)
      expect([db.state, db.exitCode, db.finishedAt]).toEqual(['exited', 0, T0 + 4000])
      expect(await post('/v1.47/containers/db/stop')).toBe(304)
      expect(fake.journal.ofType('container.start').filter((e) => e.via === 'docker-api')).toEqual([expect.objectContaining({ type: 'container.start', id: db.id, name: 'db', via: 'docker-api' })])
      expect(fake.journal.ofType('container.stop').filter((e) => e.via === 'docker-api')).toEqual([expect.objectContaining({ type: 'container.stop', id: db.id, name: 'db', via: 'docker-api' })])
      const ghost = await h.fetch('/containers/ghost/start', { method: 'POST' })
      expect(ghost.status).toBe(404)
      expect(await message(ghost)).toMatch(/^No such container: ghost/)
      expect(db.state).toBe('exited')
    },
  },
  {
    name: 'GET /containers/json: each summary as the Engine lists it, Status as docker ps prints it, size=1 adds the sizes',
    async run({ fake, h }) {
      const { web, api, db } = await seed(fake)
      const res = await h.fetch('/v1.47/containers/json?all=1')
      expect(res.status).toBe(200)
      const bridge = { IPAMConfig: null, Links: null, Aliases: null, MacAddress: '', DriverOpts: null, GwPriority: 0, NetworkID: expect.stringMatching(/^[0-9a-f]{64}$/), EndpointID: '', Gateway: '', IPAddress: '', IPPrefixLen: 0, IPv6Gateway: '', GlobalIPv6Address: '', GlobalIPv6PrefixLen: 0, DNSNames: null }
      const common = { Command: 'sh', Ports: [], HostConfig: { NetworkMode: 'bridge' }, NetworkSettings: { Networks: { bridge } }, Mounts: [] }
      expect(await res.json()).toEqual([
        { ...common, Id: db.id, Names: ['/db'], Image: 'postgres', ImageID: '', Created: 1767225602, Labels: { sh_hyper_instancetype: 's4' }, State: 'created', Status: 'Created' },
        { ...common, Id: api.id, Names: ['/api'], Image: 'localhost:5000/team/api:1.0', ImageID: fake.images.resolve('localhost:5000/team/api:1.0')!.id, Created: 1767225601, Labels: { sh_hyper_instancetype: 's4' }, State: 'exited', Status: 'Exited (3) 2 seconds ago' },
        { ...common, Id: web.id, Names: ['/web'], Image: 'nginx:1.27', ImageID: fake.images.resolve('nginx')!.id, Created: 1767225600, Labels: { app: 'web', sh_hyper_instancetype: 's4' }, State: 'running', Status: 'Up 3 seconds' },
      ])
      await fake.clock.advance(58_000)
      const later = (await (await h.fetch('/containers/json?all=true&size=1')).json()) as Record<string, unknown>[]
      expect(later.map((c) => [c.Status, c.SizeRw, c.SizeRootFs])).toEqual([
        ['Created', 0, 0],
        ['Exited (3) About a minute ago', 0, 700],
        ['Up About a minute', 0, 3345],
      ])
      // Docker's booleans: "0", "no", "false", "none" and "" (any case, trimmed) are false.
      for (const no of ['0', 'no', 'NO', 'None', '+false', '']) {
        const names = ((await (await h.fetch(`/containers/json?all=${no}&size=${no}`)).json()) as { Names: string[]; SizeRw?: number }[])
        expect(names.map((c) => [c.Names[0], c.SizeRw]), `all=${no}`).toEqual([['/web', undefined]])
      }
    },
  },
  {
    name: 'GET /containers/json filters: exact refusal messages, exit codes of several digits, an ambiguous id prefix, a name pattern over the size limit',
    async run({ fake, h }) {
      await seed(fake)
      const list = async (filters: object) => {
        const res = await h.fetch(`/containers/json?all=1&filters=${encodeURIComponent(JSON.stringify(filters))}`)
        return { status: res.status, body: (await res.json()) as { Names: string[] }[] & { message: string } }
      }
      expect((await list({ exited: ['13', '3'] })).body.map((c) => c.Names[0])).toEqual(['/api'])
      expect((await list({ exited: ['-1', '30'] })).body).toEqual([])
      for (const bad of ['x3', '3x', '']) {
        // Engine 28's words (daemon/list.go): the filter, then Go's strconv error; 20.10's the strconv error alone, a 500.
        expect(await list({ exited: [bad] }), bad).toEqual({ status: 400, body: { message: `invalid filter 'exited=${bad}': strconv.Atoi: parsing ${JSON.stringify(bad)}: invalid syntax` } })
      }
      expect((await h.fetch(`/v1.41/containers/json?all=1&filters=${encodeURIComponent(JSON.stringify({ exited: ['x3'] }))}`)).status).toBe(500)
      // The values as Go's %s prints a []string.
      expect(await list({ 'is-task': ['maybe', 'perhaps'] })).toEqual({ status: 400, body: { message: "invalid filter 'is-task=[maybe perhaps]'" } })
      expect(await list({ health: ['ok'] })).toEqual({ status: 400, body: { message: "invalid filter 'health=ok': invalid value for health (ok): must be one of none, starting, healthy, unhealthy" } })
      // A label filter splits on its first "=": "=x" is the empty key with value x, as in Docker's MatchKVList.
      fake.containers.create({ name: 'odd', image: 'nginx', labels: { '': 'x' } })
      expect((await list({ label: ['=x'] })).body.map((c) => c.Names[0])).toEqual(['/odd'])
      const notJson = await h.fetch(`/containers/json?filters=${encodeURIComponent('{"label":')}`)
      // Engine 28's words (the 20.10 daemon's: Go's json error, a 500); dockside's in the hint.
      expect([notJson.status, await message(notJson), notJson.headers.get('x-dockside-hint')]).toEqual([400, 'invalid filter', 'Invalid filters: "{\\"label\\":" is not valid JSON. Expected an object like {"label":{"app=web":true},"status":{"running":true}}.'])
      // The empty prefix is every container's: ambiguous, so it matches none.
      expect((await list({ id: [''] })).body).toEqual([])
      expect(await list({ name: ['(a?){1000}(b?){1000}'] })).toEqual({
        status: 400,
        body: { message: "invalid filter 'name=(a?){1000}(b?){1000}': the pattern compiles to 8002 instructions, more than 1000; the fake matches names in linear time and refuses patterns larger than that (shorten the pattern or lower its repeat counts)." },
      })
    },
  },
  {
    name: "POST /auth: Docker Hub's names all mean docker.io; a loopback address is plain http; the journal says whether the registry is known",
    async run({ fake, h }) {
      fake.registries.add('docker.io', { username: 'hub', password: 'pw' })
      fake.registries.add('127.0.0.1:5000', { username: 'ci', password: 's3cret' })
      const hub = 'login attempt to https://registry-1.docker.io/v2/ failed with status: 401 Unauthorized'
      for (const serveraddress of [undefined, '', ' https://index.docker.io/v1/ ', 'https://index.docker.io/v1/', 'index.docker.io', 'registry-1.docker.io', 'docker.io', 'HTTPS://Docker.IO/']) {
        const wrong = await h.fetch('/auth', login({ username: 'hub', password: 'nope', serveraddress }))
        expect(wrong.status, String(serveraddress)).toBe(500)
        expect(await message(wrong)).toBe(hub)
        const right = await h.fetch('/auth', login({ username: 'hub', password: 'pw', serveraddress }))
        expect(right.status, String(serveraddress)).toBe(200)
      }
      const loopback = await h.fetch('/auth', login({ username: 'ci', password: 'nope', serveraddress: 'http://127.0.0.1:5000/v2/' }))
      expect(loopback.status).toBe(500)
      expect(await message(loopback)).toBe('login attempt to http://127.0.0.1:5000/v2/ failed with status: 401 Unauthorized')
      // An unknown registry is open, whatever is sent.
      const open = await h.fetch('/auth', login({ username: 'x', identitytoken: 'a', registrytoken: 'b', serveraddress: 'elsewhere.example.com' }))
      expect(await open.json()).toEqual({ Status: 'Login Succeeded', IdentityToken: '' })
      const journal = fake.journal.ofType('auth.login')
      expect(journal.at(0)).toMatchObject({ registry: 'docker.io', username: 'hub', status: 'refused', known: true })
      expect(journal.at(-2)).toMatchObject({ registry: '127.0.0.1:5000', status: 'refused', known: true })
      expect(journal.at(-1)).toMatchObject({ registry: 'elsewhere.example.com', username: 'x', status: 'ok', known: false })
    },
  },
  {
    name: 'POST /auth to a token registry: the token as identitytoken or registrytoken comes back as the identity token too (it came back empty)',
    async run({ fake, h }) {
      fake.registries.add('ghcr.example.com', { token: 'tok-123' })
      for (const field of ['identitytoken', 'registrytoken']) {
        const ok = await h.fetch('/auth', login({ [field]: 'tok-123', serveraddress: 'ghcr.example.com' }))
        expect(ok.status, field).toBe(200)
        expect(await ok.json()).toEqual({ Status: 'Login Succeeded', IdentityToken: 'tok-123' })
      }
    },
  },
  {
    name: 'GET /images/json: one summary per image (tags of one image together, newest first, RepoDigests after a push), reference globs',
    async run({ fake, h }) {
      fake.registries.add('localhost:5000')
      fake.images.add('nginx', { tags: ['1.27', 'latest'], layers: [1000, 2345] })
      await fake.clock.advance(5000)
      const app = fake.images.add('localhost:5000/team/app', { tags: ['1.0', '2.0'], layers: [700] })
      fake.containers.create({ name: 'web', image: 'nginx:1.27' })
      fake.containers.create({ name: 'web2', image: 'docker.io/library/nginx' })
      const nginx = fake.images.resolve('nginx')!
      const pushed = await h.fetch('/images/localhost:5000/team/app/push?tag=1.0', { method: 'POST' })
      await drainWithClock(pushed, () => fake.clock.advance('100ms'))
      const list = async (filters?: object) => {
        const res = await h.fetch(`/v1.47/images/json${filters ? `?filters=${encodeURIComponent(JSON.stringify(filters))}` : ''}`)
        expect(res.status, JSON.stringify(filters)).toBe(200)
        return (await res.json()) as { RepoTags: string[] }[]
      }
      expect(await list()).toEqual([
        { Containers: -1, Created: 1767225605, Id: app.id, Labels: null, ParentId: '', RepoDigests: [`localhost:5000/team/app@${app.manifestDigest}`], RepoTags: ['localhost:5000/team/app:1.0', 'localhost:5000/team/app:2.0'], SharedSize: -1, Size: 700 },
        { Containers: -1, Created: 1767225600, Id: nginx.id, Labels: null, ParentId: '', RepoDigests: [], RepoTags: ['nginx:1.27', 'nginx:latest'], SharedSize: -1, Size: 3345 },
      ])
      // Below API 1.43 an image's missing digests are Go's nil slice, null (dockerd 20.10 checked); its labels always are.
      const old = (await (await h.fetch('/v1.42/images/json')).json()) as { RepoDigests: unknown; Labels: unknown }[]
      expect(old.map((i) => [i.RepoDigests, i.Labels])).toEqual([[[`localhost:5000/team/app@${app.manifestDigest}`], null], [null, null]])
      const tags = async (filters: object) => (await list(filters)).map((i) => i.RepoTags)
      expect(await tags({ reference: { nginx: true } })).toEqual([['nginx:1.27', 'nginx:latest']])
      expect(await tags({ reference: ['nginx:1.*'] })).toEqual([['nginx:1.27']])
      expect(await tags({ reference: { 'docker.io/library/nginx:latest': true } })).toEqual([['nginx:latest']])
      expect(await tags({ reference: ['localhost:5000/*/app:2.0'] })).toEqual([['localhost:5000/team/app:2.0']])
      // `*` stays within one path component; other characters are literal.
      expect(await tags({ reference: ['localhost:5000/*'] })).toEqual([])
      expect(await tags({ reference: ['ngin.'] })).toEqual([])
      expect(await tags({ reference: ['nginx', 'localhost:5000/team/app:1.0'] })).toEqual([['localhost:5000/team/app:1.0'], ['nginx:1.27', 'nginx:latest']])
      // Docker's Args.Get reads an object's keys whatever their booleans.
      expect(await tags({ reference: { nginx: false } })).toEqual([['nginx:1.27', 'nginx:latest']])
      // JSON null filters nothing (with the white space Go's json allows around it).
      const nullFilters = await h.fetch(`/images/json?filters=${encodeURIComponent(' null ')}`)
      expect(((await nullFilters.json()) as { RepoTags: string[] }[]).map((i) => i.RepoTags)).toEqual([['localhost:5000/team/app:1.0', 'localhost:5000/team/app:2.0'], ['nginx:1.27', 'nginx:latest']])
      const all = [['localhost:5000/team/app:1.0', 'localhost:5000/team/app:2.0'], ['nginx:1.27', 'nginx:latest']]
      // The fake's images have no labels and are all tagged: a label filter or dangling=true matches none.
      expect(await tags({ label: ['x'] })).toEqual([])
      expect(await tags({ label: { 'app=web': false } })).toEqual([])
      expect(await tags({ dangling: ['true'] })).toEqual([])
      expect(await tags({ dangling: { 1: true } })).toEqual([])
      expect(await tags({ dangling: ['false'] })).toEqual(all)
      expect(await tags({ dangling: { 0: true } })).toEqual(all)
      // before/since name an image (the last one given wins); until is a timestamp (nginx was made at 1767225600).
      expect(await tags({ before: ['localhost:5000/team/app:1.0'] })).toEqual([['nginx:1.27', 'nginx:latest']])
      expect(await tags({ since: ['nginx:latest'] })).toEqual([['localhost:5000/team/app:1.0', 'localhost:5000/team/app:2.0']])
      expect(await tags({ since: ['localhost:5000/team/app', 'nginx'] })).toEqual([['localhost:5000/team/app:1.0', 'localhost:5000/team/app:2.0']])
      expect(await tags({ before: ['nginx'] })).toEqual([])
      expect(await tags({ until: ['1767225601'] })).toEqual([['nginx:1.27', 'nginx:latest']])
      expect(await tags({ until: ['1767225600'] })).toEqual([])
      expect(await tags({ reference: ['nginx'], until: ['1767225606'] })).toEqual([['nginx:1.27', 'nginx:latest']])
      // A name given with no values (checked against dockerd 20.10): an empty `reference` selects nothing (Args.Contains);
      // an empty `label`, `before`, `since` or `until` is no filter.
      expect(await tags({ reference: [] })).toEqual([])
      expect(await tags({ reference: {} })).toEqual([])
      expect(await tags({ label: {} })).toHaveLength(2)
      expect(await tags({ before: [] })).toHaveLength(2)
      const refused = async (filters: object, status = 400) => {
        const res = await h.fetch(`/images/json?filters=${encodeURIComponent(JSON.stringify(filters))}`)
        expect(res.status, JSON.stringify(filters)).toBe(status)
        return message(res)
      }
      // Engine 28's words (GetBoolOrDefault: the values as Go prints a []string); 20.10's: ExactMatch on true or false only.
      expect(await refused({ dangling: ['maybe'] })).toBe("invalid filter 'dangling=[maybe]'")
      expect(await refused({ dangling: ['true', 'false'] })).toBe("invalid filter 'dangling=[true false]'")
      expect(await refused({ dangling: { true: false } })).toBe("invalid filter 'dangling=[true]'")
      const oldList = async (filters: object) => {
        const res = await h.fetch(`/v1.41/images/json?filters=${encodeURIComponent(JSON.stringify(filters))}`)
        return [res.status, res.status === 200 ? 'ok' : ((await res.json()) as { message: string }).message]
      }
      expect(await oldList({ dangling: ['1'] })).toEqual([400, "Invalid filter 'dangling=[1]'"])
      expect(await oldList({ dangling: ['true', 'false'] })).toEqual([200, 'ok'])
      expect(await oldList({ until: ['10m'] })).toEqual([400, "Invalid filter 'until'"])
      // An empty `dangling`: 20.10's ExactMatch passes it (only untagged images: none here); GetBoolOrDefault refuses it.
      expect(await oldList({ dangling: {} })).toEqual([200, 'ok'])
      expect(await (await h.fetch(`/v1.41/images/json?filters=${encodeURIComponent('{"dangling":[]}')}`)).json()).toEqual([])
      expect(await refused({ dangling: {} })).toBe("invalid filter 'dangling'")
      expect(await refused({ before: ['redis'] }, 404)).toBe('No such image: redis:latest')
      expect(await refused({ until: ['yesterday'] })).toMatch(/^failed to parse value as time or duration: "yesterday": "until" takes /)
      expect(await refused({ colour: ['blue'] })).toBe("invalid filter 'colour'")
      expect(await refused({ reference: 'nginx' })).toBe('invalid filter')
      const bad = await h.fetch(`/images/json?filters=${encodeURIComponent('{"reference":')}`)
      expect(bad.status).toBe(400)
      expect(bad.headers.get('x-dockside-hint')).toBe('Invalid filters: "{\\"reference\\":" is not valid JSON. Expected an object like {"reference":{"nginx:*":true}}.')
      expect(await message(bad)).toBe('invalid filter')
      // A reference over the matcher's budget (shown cut to 120 characters).
      const big = await h.fetch(`/images/json?filters=${encodeURIComponent(JSON.stringify({ reference: ['a'.repeat(1001)] }))}`)
      expect(big.status).toBe(400)
      expect(await message(big)).toBe(`Invalid "filters" reference "${'a'.repeat(120)}": a pattern that compiles to at most 1000 instructions is expected, e.g. {"reference":{"nginx:*":true}}.`)
    },
  },
  {
    name: 'GET /images/{name}/json: the inspect fields, by name, Docker Hub name, escaped name or id; 404 No such image',
    async run({ fake, h }) {
      fake.images.add('nginx', { tags: ['1.27'], layers: [1000, 2345] })
      const nginx = fake.images.resolve('nginx:1.27')!
      const inspect = async (ref: string) => {
        const res = await h.fetch(`/v1.47/images/${ref}/json`)
        expect(res.status, ref).toBe(200)
        return res.json()
      }
      const expected = {
        Id: nginx.id,
        RepoTags: ['nginx:1.27'],
        RepoDigests: [],
        Parent: '',
        Comment: '',
        Created: '2026-01-01T00:00:00.000Z',
        DockerVersion: '',
        Author: '',
        Architecture: 'amd64',
        Os: 'linux',
        Size: 3345,
        GraphDriver: { Data: null, Name: 'overlay2' },
        RootFS: { Type: 'layers', Layers: nginx.layers.map((l) => l.digest) },
        Metadata: { LastTagTime: '0001-01-01T00:00:00Z' },
        // Below API 1.50 Engine 28 writes its legacy container.Config, last (image_routes.go's imageInspectLegacy).
        Config: { Hostname: '', Domainname: '', User: '', AttachStdin: false, AttachStdout: false, AttachStderr: false, Tty: false, OpenStdin: false, StdinOnce: false, Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'], Cmd: ['sh'], Image: '', Volumes: null, WorkingDir: '', Entrypoint: null, OnBuild: null, Labels: null },
      }
      const first = await inspect('nginx:1.27')
      expect(first).toEqual(expected)
      expect(Object.keys(first)).toEqual(Object.keys(expected))
      // API 1.41, the 20.10 daemon's: Container, ContainerConfig, Config after Author, VirtualSize.
      const old = await (await h.fetch('/v1.41/images/nginx:1.27/json')).json()
      expect(Object.keys(old)).toEqual(['Id', 'RepoTags', 'RepoDigests', 'Parent', 'Comment', 'Created', 'Container', 'ContainerConfig', 'DockerVersion', 'Author', 'Config', 'Architecture', 'Os', 'Size', 'VirtualSize', 'GraphDriver', 'RootFS', 'Metadata'])
      expect(old.VirtualSize).toBe(3345)
      expect(await inspect('docker.io/library/nginx:1.27')).toEqual(expected)
      expect(await inspect('nginx%3A1.27')).toEqual(expected)
      expect(await inspect(nginx.id)).toEqual(expected)
      // Only docker.io/library/NAME loses its "library/"; other registries' and deeper names are kept. An untagged name
      // is reported with `:latest`, as the daemon's reference.TagNameOnly names it.
      for (const [ref, shown] of [['docker.io/team/app', 'team/app:latest'], ['docker.io/library/a/b', 'library/a/b:latest'], ['localhost:5000/docker.io/app', 'localhost:5000/docker.io/app:latest'], ['localhost:5000/app:1', 'localhost:5000/app:1']]) {
        const res = await h.fetch(`/images/${ref}/json`)
        expect([res.status, await message(res)], ref).toEqual([404, `No such image: ${shown}`])
      }
      const missing = await h.fetch('/images/docker.io/library/redis/json')
      expect(missing.status).toBe(404)
      expect(await message(missing)).toBe('No such image: redis:latest')
      // What no image could be called is the daemon's 400 (reference.ParseAnyReference), before any lookup, in its words;
      // dockside's reading in X-Dockside-Hint.
      const malformed = await h.fetch(`/images/${encodeURIComponent('Bad Name')}/json`)
      expect(malformed.status).toBe(400)
      expect(malformed.headers.get('x-dockside-hint')).toBe('invalid reference format: "Bad Name" is not an image id or [host[:port]/]path[:tag][@sha256:<64 hex>] with a lower-case path, e.g. "localhost:5000/team/app:1.0".')
      expect(await message(malformed)).toBe('invalid reference format: repository name (library/Bad Name) must be lowercase')
      // A query Go cannot read: image inspect reads its form from API 1.42 (Engine 23), the 20.10 daemon never did.
      expect([(await h.fetch('/v1.47/images/nginx:1.27/json?x=%ZZ')).status, (await h.fetch('/v1.41/images/nginx:1.27/json?x=%ZZ')).status]).toEqual([400, 200])
      for (const [ref, text, old] of [
        ['UPPER', 'invalid reference format: repository name (library/UPPER) must be lowercase', 'no such image: UPPER: invalid reference format: repository name must be lowercase'],
        ['team/App:1.0', 'invalid reference format: repository name (team/App) must be lowercase', 'no such image: team/App:1.0: invalid reference format: repository name must be lowercase'],
        ['localhost:5000/Team/app', 'invalid reference format: repository name (Team/app) must be lowercase', 'no such image: localhost:5000/Team/app: invalid reference format: repository name must be lowercase'],
        ['nginx:bad!tag', 'invalid reference format', 'no such image: nginx:bad!tag: invalid reference format'],
        ['nginx@sha256:zz', 'invalid reference format', 'no such image: nginx@sha256:zz: invalid reference format'],
        ['a//b', 'invalid reference format', 'no such image: a//b: invalid reference format'],
        // Past the grammar (reference.Parse): the name's length counted normalized (docker.io/library/ counts), then
        // the digest as go-digest validates it. The 20.10 daemon (API 1.41) wraps its inspect's error.
        ['a'.repeat(238), 'repository name must not be more than 255 characters', `no such image: ${'a'.repeat(238)}: repository name must not be more than 255 characters`],
        [`localhost:5000/${'b'.repeat(241)}`, 'repository name must not be more than 255 characters', `no such image: localhost:5000/${'b'.repeat(241)}: repository name must not be more than 255 characters`],
        [`app@sha256:${'0'.repeat(32)}`, 'invalid checksum digest length', `no such image: app@sha256:${'0'.repeat(32)}: invalid checksum digest length`],
        [`app@sha256:${'A'.repeat(64)}`, 'invalid checksum digest format', `no such image: app@sha256:${'A'.repeat(64)}: invalid checksum digest format`],
        [`app@sha512:${'0'.repeat(64)}`, 'invalid checksum digest length', `no such image: app@sha512:${'0'.repeat(64)}: invalid checksum digest length`],
        [`app@md5:${'0'.repeat(32)}`, 'unsupported digest algorithm', `no such image: app@md5:${'0'.repeat(32)}: unsupported digest algorithm`],
      ]) {
        const res = await h.fetch(`/images/${encodeURIComponent(ref)}/json`)
        expect([res.status, await message(res)], ref).toEqual([400, text])
        expect(res.headers.get('x-dockside-hint'), ref).toMatch(/^(invalid reference format: ".*" is not an image id|repository name must not be more than 255 characters: .* characters as the daemon counts it|invalid checksum digest length: the digest|invalid checksum digest format: the digest|unsupported digest algorithm: the digest)/)
        const before = await h.fetch(`/v1.41/images/${encodeURIComponent(ref)}/json`)
        expect([before.status, await message(before)], ref).toEqual([400, old])
      }
      // At the limit: 237 characters of a one-part Docker Hub name, 255 with a registry host, are names (404).
      for (const ref of ['a'.repeat(237), `localhost:5000/${'b'.repeat(240)}`]) {
        const res = await h.fetch(`/images/${ref}/json`)
        expect(res.status, ref).toBe(404)
        await res.arrayBuffer()
      }
      // An id prefix, a digest reference, a name no image has and a capitalised first part (a registry host to the
      // daemon) are well formed: 404.
      for (const ref of ['abc123', 'sha256:abc', `nginx@sha256:${'a'.repeat(64)}`, 'redis:7', 'Library/nginx', 'UPPER/app']) {
        const res = await h.fetch(`/images/${encodeURIComponent(ref)}/json`)
        expect(res.status, ref).toBe(404)
        await res.arrayBuffer()
      }
    },
  },
  {
    name: 'POST /images/{name}/tag: 201 and the new tag points at the same image (tag from ?tag, else from repo, else latest); no repo is a 400',
    async run({ fake, h }) {
      fake.images.add('nginx', { tags: ['1.27'], layers: [1000] })
      const nginx = fake.images.resolve('nginx:1.27')!
      const tag = async (query: string) => {
        const res = await h.fetch(`/v1.47/images/nginx:1.27/tag${query}`, { method: 'POST' })
        return { status: res.status, body: await res.text() }
      }
      expect(await tag('?repo=localhost:5000/team/web&tag=2.0')).toEqual({ status: 201, body: '' })
      expect(await tag('?repo=localhost:5000/team/web:3.0')).toEqual({ status: 201, body: '' })
      expect(await tag('?repo=docker.io/library/mine')).toEqual({ status: 201, body: '' })
      expect(await tag('?repo=localhost:5000/team/web:4.0&tag=')).toEqual({ status: 201, body: '' })
      for (const ref of ['localhost:5000/team/web:2.0', 'localhost:5000/team/web:3.0', 'mine:latest', 'localhost:5000/team/web:4.0']) expect(fake.images.resolve(ref), ref).toBe(nginx)
      expect(fake.journal.ofType('image.tag').map((e) => [e.source, e.target])).toEqual([
        ['nginx:1.27', 'localhost:5000/team/web:2.0'],
        ['nginx:1.27', 'localhost:5000/team/web:3.0'],
        ['nginx:1.27', 'mine:latest'],
        ['nginx:1.27', 'localhost:5000/team/web:4.0'],
      ])
      // No repo: the empty name is no reference (400 in the daemon's words, the help in the hint)...
      const noRepo = await h.fetch('/images/nginx:1.27/tag?tag=2.0', { method: 'POST' })
      expect([noRepo.status, noRepo.headers.get('x-dockside-hint')]).toEqual([400, 'POST /images/{name}/tag needs a "repo" query parameter, e.g. ?repo=localhost:5000/team/app&tag=1.0.'])
      expect(await message(noRepo)).toBe('invalid reference format')
      // ...and neither repo nor tag is Engine 28's 200 that tags nothing (RepoTagReference gives no reference and no
      // error); the 20.10 daemon's 500.
      const neither = await h.fetch('/images/nginx:1.27/tag', { method: 'POST' })
      expect([neither.status, await neither.text()]).toEqual([200, ''])
      expect((await h.fetch('/v1.41/images/nginx:1.27/tag', { method: 'POST' })).status).toBe(500)
      // 20.10 looked the source up first: a missing one is its 404 whatever the repo.
      expect((await h.fetch('/v1.41/images/redis/tag?repo=Bad', { method: 'POST' })).status).toBe(404)
      expect((await h.fetch('/v1.47/images/redis/tag?repo=Bad', { method: 'POST' })).status).toBe(400)
      const missing = await h.fetch('/images/redis/tag?repo=x', { method: 'POST' })
      expect(missing.status).toBe(404)
      expect(await message(missing)).toBe('No such image: redis:latest')
    },
  },
  {
    name: "every answer's Date header is the fake's clock, not the host's (and the same every run)",
    async run({ fake, h }) {
      const date = async (path: string, init?: RequestInit) => {
        const res = await h.fetch(path, init)
        await res.arrayBuffer()
        return [res.status, res.headers.get('date')]
      }
      expect(await date('/_ping')).toEqual([200, 'Thu, 01 Jan 2026 00:00:00 GMT'])
      await fake.clock.advance(90_999)
      expect(await date('/v1.47/version')).toEqual([200, 'Thu, 01 Jan 2026 00:01:30 GMT'])
      expect(await date('/v1.47/containers/nope/json')).toEqual([404, 'Thu, 01 Jan 2026 00:01:30 GMT'])
      expect(await date('/_ping', { method: 'HEAD' })).toEqual([200, 'Thu, 01 Jan 2026 00:01:30 GMT'])
      await fake.clock.advance(1)
      expect(await date('/_dockside/state')).toEqual([200, 'Thu, 01 Jan 2026 00:01:31 GMT'])
    },
  },
]
