import { expect } from 'vitest'
import type { Dockside } from '../../src/index'
import type { Case, Harness } from '../support/way-in'

// Docker Engine routes answered as the Engine answers them (issue 8, point 4), on every way in.

/** Four containers, oldest first: web (running, app=web), api (exited 3, app=api), db (created), web-2 (running, app=web tier=front). */
function seed(fake: Dockside) {
  fake.images.add('nginx', { tags: ['1.27', 'latest'], layers: 1 })
  fake.images.add('localhost:5000/team/api', { tags: ['1.0'], layers: 1 })
  const web = fake.containers.create({ name: 'web', image: 'nginx:1.27', labels: { app: 'web' } })
  web.start()
  fake.clock.advance(1000)
  const api = fake.containers.create({ name: 'api', image: 'localhost:5000/team/api:1.0', labels: { app: 'api' } })
  api.start()
  api.stop({ exitCode: 3 })
  fake.clock.advance(1000)
  const db = fake.containers.create({ name: 'db', image: 'postgres' })
  fake.clock.advance(1000)
  const web2 = fake.containers.create({ name: 'web-2', image: 'nginx', labels: { app: 'web', tier: 'front' } })
  web2.start()
  return { web, api, db, web2 }
}

/** The names `GET /containers/json?...` lists, in order. */
async function ps(h: Harness, query: Record<string, string | object>): Promise<string[]> {
  const qs = Object.entries(query)
    .map(([k, v]) => `${k}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`)
    .join('&')
  const res = await h.fetch(`/v1.47/containers/json?${qs}`)
  expect(res.status, `GET /containers/json?${qs}: ${res.status}`).toBe(200)
  return ((await res.json()) as { Names: string[] }[]).map((c) => c.Names[0].slice(1))
}

async function refused(h: Harness, path: string, status: number, message: RegExp | string, hint?: RegExp) {
  const res = await h.fetch(path)
  expect(res.status, path).toBe(status)
  expect(res.headers.get('content-type')).toBe('application/json')
  const body = ((await res.json()) as { message: string }).message
  if (typeof message === 'string') expect(body, path).toBe(message)
  else expect(body, path).toMatch(message)
  // Where the body is the daemon's own text, dockside's help is in the hint header.
  if (hint) expect(res.headers.get('x-dockside-hint'), path).toMatch(hint)
}

const enc = (v: object) => encodeURIComponent(JSON.stringify(v))
const login = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) })

export const dockerCases: Case[] = [
  {
    // dockerd 20.10 checked: its JSON keeps < & > as they are, escapes U+2028 and U+2029, and (built with a Go before
    // 1.22) writes a backspace as \u0008; Engine 28's Go writes \b.
    name: "Docker routes' JSON is Go's json.Encoder's: U+2028/U+2029 escaped, HTML as it is, \\b by API version, a newline at the end",
    async run({ fake, h }) {
      fake.containers.create({ name: 'odd', image: 'nginx', labels: { a: 'x\u2028y<&>\bz\\b\f' } })
      const raw = async (version: string) => {
        const res = await h.fetch(`/${version}/containers/json?all=1`)
        const text = await res.text()
        expect(Number(res.headers.get('content-length') ?? new TextEncoder().encode(text).length), version).toBe(new TextEncoder().encode(text).length)
        expect(text.endsWith(']\n'), version).toBe(true)
        return /"Labels":\{"a":"([^"]*)"/.exec(text)![1]
      }
      expect(await raw('v1.41')).toBe('x\\u2028y<&>\\u0008z\\\\b\\u000c')
      expect(await raw('v1.47')).toBe('x\\u2028y<&>\\bz\\\\b\\f')
      expect(((await (await h.fetch('/v1.41/containers/json?all=1')).json()) as { Labels: Record<string, string> }[])[0].Labels.a).toBe('x\u2028y<&>\bz\\b\f')
    },
  },
  {
    // The same patterns gave the same tags and errors against dockerd 20.10 (busybox:local, 127.0.0.1:5055/team/app:1.0).
    name: "GET /images/json's reference filter is Go's path.Match: ?, classes, ranges, negation, escapes; a malformed pattern is the daemon's 500",
    async run({ fake, h }) {
      fake.images.add('busybox:local', { layers: 1 })
      fake.images.add('127.0.0.1:5055/team/app:1.0', { layers: 1 })
      const tags = async (pattern: string) => {
        const res = await h.fetch(`/v1.41/images/json?filters=${enc({ reference: [pattern] })}`)
        const body = (await res.json()) as { RepoTags: string[] }[] & { message: string }
        return res.status === 200 ? body.flatMap((i) => i.RepoTags) : [res.status, body.message]
      }
      for (const p of ['busybox:loca?', 'busy[a-c]ox:local', 'busybox:[^x]ocal', 'busybox:[l]ocal', 'busybox:loc\\al']) expect(await tags(p), p).toEqual(['busybox:local'])
      expect(await tags('127.0.0.1:5055/*/app')).toEqual(['127.0.0.1:5055/team/app:1.0'])
      expect(await tags('busybox:loca')).toEqual([])
      for (const p of ['a[', 'a\\', '[]a]', 'x[a-]']) expect(await tags(p), p).toEqual([500, 'syntax error in pattern'])
    },
  },
  {
    name: "Docker's JSON answers end with a newline, as the daemon's json.Encoder writes them, and Content-Length counts it",
    async run({ fake, h }) {
      fake.containers.create({ name: 'web', image: 'nginx' })
      for (const [path, status] of [['/v1.47/version', 200], ['/v1.47/containers/json?all=1', 200], ['/v1.41/containers/nope/json', 404], ['/v1.41/containers/json?filters=%7B', 500]] as const) {
        const res = await h.fetch(path)
        const text = await res.text()
        expect([res.status, text.endsWith('}\n') || text.endsWith(']\n')], path).toEqual([status, true])
        const length = res.headers.get('content-length')
        if (length !== null) expect(Number(length), path).toBe(new TextEncoder().encode(text).length)
      }
      expect(await (await h.fetch('/v1.41/containers/nope/json')).text()).toBe('{"message":"No such container: nope"}\n')
      // The daemon's `{name:.*}`: a name with a slash is looked up, not a missing route.
      expect(await (await h.fetch('/v1.47/containers/a/b/json')).text()).toBe('{"message":"No such container: a/b"}\n')
      const started = await h.fetch('/v1.47/containers/web/start', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"Binds":["/a:/b"]}' })
      expect([started.status, await started.text()]).toEqual([400, '{"message":"starting container with non-empty request body was deprecated since API v1.22 and removed in v1.24"}\n'])
    },
  },
  {
    name: 'GET /containers/json: running only by default, all=1 lists every container newest first, limit implies all',
    async run({ fake, h }) {
      seed(fake)
      expect(await ps(h, {})).toEqual(['web-2', 'web'])
      expect(await ps(h, { all: '1' })).toEqual(['web-2', 'db', 'api', 'web'])
      // Docker's BoolValue: anything but "", 0, no, false, none.
      expect(await ps(h, { all: 'yes' })).toEqual(['web-2', 'db', 'api', 'web'])
      expect(await ps(h, { all: 'false' })).toEqual(['web-2', 'web'])
      expect(await ps(h, { limit: '2' })).toEqual(['web-2', 'db'])
    },
  },
  {
    name: 'GET /containers/json filters: label key and key=value (every one must match), in both JSON spellings',
    async run({ fake, h }) {
      seed(fake)
      expect(await ps(h, { all: '1', filters: { label: { 'app=web': true } } })).toEqual(['web-2', 'web'])
      expect(await ps(h, { all: '1', filters: { label: ['app=web'] } })).toEqual(['web-2', 'web'])
      expect(await ps(h, { all: '1', filters: { label: ['app=web', 'tier'] } })).toEqual(['web-2'])
      expect(await ps(h, { all: '1', filters: { label: ['app'] } })).toEqual(['web-2', 'api', 'web'])
      expect(await ps(h, { all: '1', filters: { label: ['app=nope'] } })).toEqual([])
      // Docker reads label, name, status, before, since and ancestor by their keys whatever their booleans (Args.Get,
      // Match, MatchKVList, WalkValues); health and is-task with them (ExactMatch: a value given as false is not selected).
      expect(await ps(h, { all: '1', filters: { label: { 'app=web': false } } })).toEqual(['web-2', 'web'])
      expect(await ps(h, { all: '1', filters: { before: { db: false } } })).toEqual(await ps(h, { all: '1', filters: { before: ['db'] } }))
      expect(await ps(h, { all: '1', filters: { before: { db: false } } })).not.toEqual([])
      const running = await ps(h, { all: '1', filters: { status: ['running'] } })
      expect(running).not.toEqual([])
      expect(await ps(h, { all: '1', filters: { status: { running: false } } })).toEqual(running)
      expect(await ps(h, { all: '1', filters: { health: { none: false } } })).toEqual([])
      expect(await ps(h, { all: '1', filters: { health: { none: true } } })).toEqual(['web-2', 'db', 'api', 'web'])
      // is-task given only as false is neither true nor false to ExactMatch: Docker refuses it.
      const isTask = await h.fetch(`/containers/json?filters=${encodeURIComponent(JSON.stringify({ 'is-task': { true: false } }))}`)
      expect(isTask.status).toBe(400)
      expect(((await isTask.json()) as { message: string }).message).toBe("invalid filter 'is-task=[true]'")
      expect(await ps(h, { all: '1', filters: { label: [] } })).toEqual(['web-2', 'db', 'api', 'web'])
    },
  },
  {
    name: 'GET /containers/json filters: name by regexp on the name with or without "/", id by unique prefix',
    async run({ fake, h }) {
      const { web, api } = seed(fake)
      expect(await ps(h, { all: '1', filters: { name: ['web'] } })).toEqual(['web-2', 'web'])
      expect(await ps(h, { all: '1', filters: { name: ['^/web$'] } })).toEqual(['web'])
      expect(await ps(h, { all: '1', filters: { name: ['^web$'] } })).toEqual(['web'])
      expect(await ps(h, { all: '1', filters: { name: ['^db$', 'pi'] } })).toEqual(['db', 'api'])
      // A pattern that does not compile matches nothing (Go's regexp error is skipped).
      expect(await ps(h, { all: '1', filters: { name: ['('] } })).toEqual([])
      expect(await ps(h, { all: '1', filters: { id: [api.id.slice(0, 6)] } })).toEqual(['api'])
      expect(await ps(h, { all: '1', filters: { id: [web.id] } })).toEqual(['web'])
      expect(await ps(h, { all: '1', filters: { id: [api.id.slice(0, 6)], name: ['web'] } })).toEqual([])
    },
  },
  {
    name: 'GET /containers/json filters: status (implies all), exited, ancestor by name, name:tag or id, before and since',
    async run({ fake, h }) {
      const { web } = seed(fake)
      expect(await ps(h, { filters: { status: ['exited'] } })).toEqual(['api'])
      expect(await ps(h, { filters: { status: ['created', 'running'] } })).toEqual(['web-2', 'db', 'web'])
      expect(await ps(h, { filters: { status: ['paused'] } })).toEqual([])
      expect(await ps(h, { all: '1', filters: { exited: ['3'] } })).toEqual(['api'])
      expect(await ps(h, { all: '1', filters: { exited: ['0'] } })).toEqual([])
      // nginx:1.27 and nginx:latest are one image here, so both containers descend from either name.
      expect(await ps(h, { all: '1', filters: { ancestor: ['nginx'] } })).toEqual(['web-2', 'web'])
      expect(await ps(h, { all: '1', filters: { ancestor: ['nginx:1.27'] } })).toEqual(['web-2', 'web'])
      expect(await ps(h, { all: '1', filters: { ancestor: ['docker.io/library/nginx:latest'] } })).toEqual(['web-2', 'web'])
      expect(await ps(h, { all: '1', filters: { ancestor: [fake.images.resolve('localhost:5000/team/api:1.0')!.id] } })).toEqual(['api'])
      expect(await ps(h, { all: '1', filters: { ancestor: ['nothing-here'] } })).toEqual([])
      expect(await ps(h, { all: '1', filters: { before: ['db'] } })).toEqual(['api', 'web'])
      expect(await ps(h, { all: '1', filters: { since: ['api'] } })).toEqual(['web-2', 'db'])
      expect(await ps(h, { all: '1', filters: { since: [web.id], before: ['web-2'] } })).toEqual(['db', 'api'])
      // What a fake container never has: a health check (Docker reports "none"), a task, volumes, ports; its one network
      // by name or id, exactly.
      expect(await ps(h, { all: '1', filters: { health: ['none'] } })).toEqual(['web-2', 'db', 'api', 'web'])
      expect(await ps(h, { all: '1', filters: { health: ['healthy'] } })).toEqual([])
      expect(await ps(h, { all: '1', filters: { 'is-task': ['false'] } })).toEqual(['web-2', 'db', 'api', 'web'])
      expect(await ps(h, { all: '1', filters: { 'is-task': ['true'] } })).toEqual([])
      expect(await ps(h, { all: '1', filters: { network: ['bridge'] } })).toEqual(['web-2', 'db', 'api', 'web'])
      expect(await ps(h, { all: '1', filters: { network: ['none'] } })).toEqual([])
      expect(await ps(h, { all: '1', filters: { network: ['bri'] } })).toEqual([])
      expect(await ps(h, { all: '1', filters: { publish: ['80/tcp'] } })).toEqual([])
      // A name given with no values, as dockerd 20.10 reads it: Args.Contains selects nothing for an empty `ancestor`,
      // `volume` or `network`; Match, MatchKVList and ExactMatch take an empty `status`, `name`, `id`, `label`, `health`
      // or `exited` as no filter.
      for (const empty of [[], {}]) {
        for (const name of ['ancestor', 'volume', 'network']) expect(await ps(h, { all: '1', filters: { [name]: empty } }), name).toEqual([])
        for (const name of ['status', 'name', 'id', 'label', 'health', 'exited', 'before', 'since', 'isolation']) expect(await ps(h, { all: '1', filters: { [name]: empty } }), name).toEqual(['web-2', 'db', 'api', 'web'])
      }
      // An empty `is-task`: 20.10's ExactMatch("is-task", "true") passes it (tasks only: none); Engine 23 on refuses it.
      const oldPs = await h.fetch(`/v1.41/containers/json?all=1&filters=${encodeURIComponent('{"is-task":{}}')}`)
      expect(await oldPs.json()).toEqual([])
      const emptyTask = await h.fetch(`/v1.47/containers/json?all=1&filters=${encodeURIComponent('{"is-task":[]}')}`)
      expect([emptyTask.status, ((await emptyTask.json()) as { message: string }).message]).toEqual([400, "invalid filter 'is-task'"])
      // Engine 23 on reads is-task as GetBoolOrDefault: 1 and 0 too.
      expect(await ps(h, { all: '1', filters: { 'is-task': ['0'] } })).toEqual(['web-2', 'db', 'api', 'web'])
      // An empty `publish` or `expose` is no filter (the daemon reads no port).
      expect(await ps(h, { all: '1', filters: { publish: [], expose: [] } })).toEqual(['web-2', 'db', 'api', 'web'])
      expect(await ps(h, { all: '1', filters: { publish: {} } })).toEqual(['web-2', 'db', 'api', 'web'])
    },
  },
  {
    name: 'GET /containers/json refusals: bad JSON, wrong shape, unknown filter, bad status and unknown before are JSON 4xx',
    async run({ fake, h }) {
      seed(fake)
      // What filters.FromJSON cannot read: Engine 28's invalidFilter (400 `invalid filter`); the 20.10 daemon's Go json
      // error (500). dockside's reading in the hint.
      await refused(h, `/containers/json?filters=${encodeURIComponent('{"label":')}`, 400, 'invalid filter', /not valid JSON/)
      await refused(h, `/containers/json?filters=${enc(['label'])}`, 400, 'invalid filter', /expected a JSON object.*Allowed filter names: ancestor, before/)
      await refused(h, `/containers/json?filters=${enc({ label: 'app=web' })}`, 400, 'invalid filter', /Invalid filter "label": expected an object of booleans/)
      await refused(h, `/v1.41/containers/json?filters=${enc({ label: 'app=web' })}`, 500, 'json: cannot unmarshal string into Go value of type map[string]bool')
      await refused(h, `/v1.41/containers/json?filters=${enc(['label'])}`, 500, 'json: cannot unmarshal array into Go value of type map[string]map[string]bool')
      await refused(h, `/v1.41/containers/json?filters=${enc({ label: { a: 'yes' } })}`, 500, 'json: cannot unmarshal string into Go value of type bool')
      // The two spellings mixed: neither of Go's readings takes it (the first one's error), though each name is fine.
      await refused(h, `/v1.41/containers/json?filters=${enc({ label: { a: true }, status: ['running'] })}`, 500, 'json: cannot unmarshal array into Go value of type map[string]bool', /mix the object form/)
      // A name given as null has no values, as Go reads it.
      expect((await (await h.fetch(`/containers/json?all=1&filters=${enc({ label: null })}`)).json()).length).toBeGreaterThan(0)
      await refused(h, `/containers/json?filters=${enc({ foo: ['x'] })}`, 400, "invalid filter 'foo'", /^invalid filter 'foo': GET \/containers\/json takes the filters ancestor, before, .*status, volume\.$/)
      // The 20.10 daemon's words (API 1.41 and older): capital I, and Go's json error a 500.
      await refused(h, `/v1.41/containers/json?filters=${enc({ foo: ['x'] })}`, 400, "Invalid filter 'foo'")
      await refused(h, `/v1.41/containers/json?filters=${encodeURIComponent('{"label":')}`, 500, 'unexpected end of JSON input')
      await refused(h, `/containers/json?filters=${enc({ status: ['up'] })}`, 400, "invalid filter 'status=up': invalid value for state (up): must be one of created, running, paused, restarting, removing, exited, dead", /^invalid filter 'status=up': allowed values are created, restarting, running, removing, paused, exited, dead\.$/)
      await refused(h, `/v1.41/containers/json?filters=${enc({ status: ['up'] })}`, 400, "Invalid filter 'status=up'")
      await refused(h, `/containers/json?filters=${enc({ exited: ['x'] })}`, 400, /invalid filter 'exited=x'/)
      await refused(h, `/containers/json?filters=${enc({ health: ['ok'] })}`, 400, /^invalid filter 'health=ok': invalid value for health/)
      await refused(h, `/v1.41/containers/json?filters=${enc({ health: ['ok'] })}`, 400, 'Unrecognised filter value for health: ok')
      await refused(h, `/containers/json?filters=${enc({ 'is-task': ['maybe'] })}`, 400, "invalid filter 'is-task=[maybe]'")
      await refused(h, `/v1.41/containers/json?filters=${enc({ before: ['ghost'] })}`, 500, 'no such container ghost')
      // Ports as the daemon's portOp reads them (go-connections' nat): always a 500, in the daemon's words by version.
      await refused(h, `/containers/json?filters=${enc({ publish: ['a:80'] })}`, 500, "filter for 'publish' should not contain ':': a:80", /^invalid filter 'publish=a:80': expected <port>/)
      await refused(h, `/containers/json?filters=${enc({ expose: ['abc/udp'] })}`, 500, 'error while looking up for expose abc/udp: strconv.ParseUint: parsing "abc": invalid syntax')
      await refused(h, `/containers/json?filters=${enc({ publish: ['70000'] })}`, 500, 'error while looking up for publish 70000: strconv.ParseUint: parsing "70000": value out of range')
      await refused(h, `/containers/json?filters=${enc({ publish: ['5-3'] })}`, 500, 'error while looking up for publish 5-3: invalid range specified for port: 5-3')
      await refused(h, `/v1.41/containers/json?filters=${enc({ publish: ['5-3'] })}`, 500, 'error while looking up for publish 5-3: Invalid range specified for the Port: 5-3')
      await refused(h, `/containers/json?filters=${enc({ publish: ['/tcp'] })}`, 500, 'error while looking up for publish /tcp: empty string specified for ports')
      await refused(h, `/v1.41/containers/json?filters=${enc({ expose: [''] })}`, 500, 'error while looking up for expose : Empty string specified for ports.')
      // Forms nat takes, though odd: the text after a second "-" or "/" is ignored; nothing matches, as no fake container has ports.
      expect(await ps(h, { all: '1', filters: { publish: ['1-2-x', '80/', '80/udp/x'] } })).toEqual([])
      await refused(h, `/containers/json?filters=${enc({ before: ['ghost'] })}`, 404, /No such container: ghost/)
      await refused(h, '/containers/json?limit=x', 500, 'strconv.Atoi: parsing "x": invalid syntax', /Invalid "limit"/)
      // Still serving a normal client afterwards.
      expect(await ps(h, {})).toEqual(['web-2', 'web'])
    },
  },
  {
    name: 'POST /auth: right credentials succeed, wrong ones are the daemon\'s 500 (a basic-auth registry: loginV2\'s unclassed error) in its words, open and unknown registries accept anything',
    async run({ fake, h }) {
      fake.registries.add('localhost:5000', { username: 'ci', password: 's3cret' })
      fake.registries.add('registry.example.com', { username: 'ci', password: 's3cret' })
      fake.registries.add('open.example.com')
      const ok = await h.fetch('/v1.47/auth', login({ username: 'ci', password: 's3cret', serveraddress: 'localhost:5000' }))
      expect(ok.status).toBe(200)
      expect(await ok.json()).toEqual({ Status: 'Login Succeeded', IdentityToken: '' })
      const wrong = await h.fetch('/auth', login({ username: 'ci', password: 'nope', serveraddress: 'localhost:5000' }))
      expect(wrong.status).toBe(500)
      expect(await wrong.json()).toEqual({ message: 'login attempt to http://localhost:5000/v2/ failed with status: 401 Unauthorized' })
      const remote = await h.fetch('/auth', login({ username: 'ci', password: 'nope', serveraddress: 'https://registry.example.com/' }))
      expect(await remote.json()).toEqual({ message: 'login attempt to https://registry.example.com/v2/ failed with status: 401 Unauthorized' })
      // Go's encoding/json matches keys case-insensitively; a config file's `auth` holds user:pass.
      expect((await h.fetch('/auth', login({ Username: 'ci', Password: 's3cret', ServerAddress: 'localhost:5000' }))).status).toBe(200)
      expect((await h.fetch('/auth', login({ auth: btoa('ci:s3cret'), serveraddress: 'localhost:5000' }))).status).toBe(200)
      expect((await h.fetch('/auth', login({ username: 'x', password: 'y', serveraddress: 'open.example.com' }))).status).toBe(200)
      expect((await h.fetch('/auth', login({ username: 'x', password: 'y', serveraddress: 'unknown.example.com:5001' }))).status).toBe(200)
      // No credentials at all for a registry that wants them: refused too.
      expect((await h.fetch('/auth', login({ serveraddress: 'localhost:5000' }))).status).toBe(500)
      // A body Go's json.Decoder cannot read into an AuthConfig: its error, a 500; what to send in the hint.
      for (const [bad, go] of [
        ['{nope', "invalid character 'n' looking for beginning of object key string"],
        ['', 'EOF'],
        ['{"username":"ci"', 'unexpected EOF'],
        ['[]', 'json: cannot unmarshal array into Go value of type registry.AuthConfig'],
        ['"x"', 'json: cannot unmarshal string into Go value of type registry.AuthConfig'],
        ['{"username":5}', 'json: cannot unmarshal number into Go struct field AuthConfig.username of type string'],
      ]) {
        const res = await h.fetch('/auth', login(bad))
        expect([res.status, ((await res.json()) as { message: string }).message], bad).toEqual([500, go])
        expect(res.headers.get('x-dockside-hint'), bad).toMatch(/AuthConfig/)
      }
      const old = await h.fetch('/v1.41/auth', login('[]'))
      expect(((await old.json()) as { message: string }).message).toBe('json: cannot unmarshal array into Go value of type types.AuthConfig')
      const journal = fake.journal.ofType('auth.login')
      expect(journal.map((e) => e.status)).toEqual(['ok', 'refused', 'refused', 'ok', 'ok', 'ok', 'ok', 'refused'])
      expect(JSON.stringify(journal)).not.toContain('s3cret')
    },
  },
  {
    name: 'POST /auth to a token registry: the token as password succeeds and comes back as the identity token',
    async run({ fake, h }) {
      fake.registries.add('ghcr.example.com', { token: 'tok-123' })
      const ok = await h.fetch('/auth', login({ username: 'me', password: 'tok-123', serveraddress: 'ghcr.example.com' }))
      expect(await ok.json()).toEqual({ Status: 'Login Succeeded', IdentityToken: 'tok-123' })
      const wrong = await h.fetch('/auth', login({ username: 'me', password: 'nope', serveraddress: 'ghcr.example.com' }))
      expect(wrong.status).toBe(401)
      expect(await wrong.json()).toEqual({ message: 'Get "https://ghcr.example.com/v2/": unauthorized: incorrect username or password' })
    },
  },
  {
    name: "GET /events takes Docker's other filter keys: type=container and scope=local match, other types nothing; /events/ws stays strict",
    async run({ fake, h }) {
      const start = Math.floor(fake.clock.now() / 1000)
      fake.containers.create({ name: 'web', image: 'nginx', labels: { app: 'web' } }).start()
      fake.clock.advance(2000)
      const events = async (filters: object) => {
        const res = await h.fetch(`/events?since=${start}&until=${start + 1}&filters=${enc(filters)}`)
        expect(res.status, JSON.stringify(filters)).toBe(200)
        return (await res.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l).Action as string)
      }
      expect(await events({ type: ['container'] })).toEqual(['start'])
      expect(await events({ type: { container: true }, scope: { local: true }, event: { start: true } })).toEqual(['start'])
      expect(await events({ type: ['container', 'image'] })).toEqual(['start'])
      for (const none of [{ type: ['image'] }, { type: ['network'] }, { scope: ['swarm'] }, { network: ['bridge'] }, { volume: ['data'] }, { daemon: ['x'] }, { plugin: ['p'] }, { node: ['n'] }, { service: ['s'] }, { secret: ['s'] }, { config: ['c'] }]) {
        expect(await events(none), JSON.stringify(none)).toEqual([])
      }
      // The Engine matches these by a prefix of the actor's id or name, container events included.
      expect(await events({ network: ['we'] })).toEqual(['start'])
      // A name the Engine does not know is ignored on GET /events (moby's getEvents validates none); the websocket refuses it.
      expect(await events({ colour: ['red'] })).toEqual(['start'])
      const colour = await h.connect(`/events/ws?filters=${enc({ colour: ['red'] })}`)
      expect(colour.status).toBe(400)
      const ws = await h.connect(`/events/ws?filters=${enc({ type: ['container'] })}`)
      expect(ws.status).toBe(400)
      expect(JSON.parse(ws.body ?? '{}').message).toMatch(/Invalid filter "type". Allowed filter names: container, event, image, label\.$/)
    },
  },
  {
    name: 'a live GET /events with type=image gets no container events, one with type=container gets them',
    async run({ fake, h }) {
      const web = fake.containers.create({ name: 'web', image: 'nginx' })
      const image = await h.fetch(`/events?client=img&filters=${enc({ type: ['image'] })}`)
      const container = await h.fetch(`/events?client=ctr&filters=${enc({ type: ['container'] })}`)
      expect([image.status, container.status]).toEqual([200, 200])
      const reader = container.body!.getReader()
      const imageReader = image.body!.getReader()
      web.start()
      const decoder = new TextDecoder()
      let text = ''
      while (!text.includes('\n')) text += decoder.decode((await reader.read()).value ?? new Uint8Array())
      expect(JSON.parse(text).Action).toBe('start')
      expect([fake.deliveries.report('img').expected, fake.deliveries.report('img').delivered]).toEqual([0, 0])
      expect([fake.deliveries.report('ctr').expected, fake.deliveries.report('ctr').delivered]).toEqual([1, 1])
      await reader.cancel()
      await imageReader.cancel()
    },
  },
  {
    name: "a request line and headers over Node's 16 KiB limit are a 431 the fake never sees, on HTTP and the websocket",
    async run({ fake, h }) {
      const under = await h.fetch(`/_ping?pad=${'x'.repeat(15_000)}`)
      expect([under.status, await under.text()]).toEqual([200, 'OK'])
      const over = await h.fetch(`/_ping?pad=${'x'.repeat(17_000)}`)
      expect(over.status).toBe(431)
      expect(((await over.json()) as { message: string }).message).toMatch(/^Bad request: the request line and headers exceed the 16 KB limit/)
      const ws = await h.connect(`/events/ws?filters=${enc({ container: Array.from({ length: 2000 }, (_, i) => `c${i}`) })}`)
      expect(ws.status).toBe(431)
      expect(fake.requests.list().map((r) => r.url.length)).toEqual([`/_ping?pad=${'x'.repeat(15_000)}`.length])
      expect(fake.journal.ofType('ws.open')).toHaveLength(0)
    },
  },
]
