// Property-based: push references, tags and X-Registry-Auth on POST /images/{name}/push, both ways in.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Dockside } from '../../src/index'
import { checkAnswer, expectStillServes, fuzzParams, KNOWN, oddString, anyJson, registryAuth, SECRETS, testTimeout, useFuzzWay, WAYS, type FuzzWay } from '../support/fuzz-kit'

const segment = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[a-z0-9]+([._-][a-z0-9]+)*$/) },
  { weight: 1, arbitrary: fc.constantFrom('..', '.', '', 'Team', 'APP', 'a b', 'a%2Fb', '%2e%2e', 'localhost:5000', 'fuzz', 'known', 'team', 'app') },
  { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
)
/** A reference: host/path[:tag][@digest], near the known images or anything, long or upper-case now and then. */
const reference = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(KNOWN.repo, `${KNOWN.repo}:${KNOWN.tag}`, `${KNOWN.repo}:latest`, 'localhost:5001/team/app', 'localhost:5001/team/app:2', 'nginx:1.27', 'nginx') },
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom('', 'localhost:5000/', 'localhost:5001/', 'registry.example.com/', 'LOCALHOST:5000/', 'localhost:99999/', ':5000/'), fc.array(segment, { minLength: 1, maxLength: 4 }), fc.option(oddString(), { nil: undefined }), fc.boolean())
    .map(([host, parts, tag, digest]) => `${host}${parts.join('/')}${tag !== undefined ? `:${tag}` : ''}${digest ? `@sha256:${'a'.repeat(64)}` : ''}`) },
  { weight: 1, arbitrary: fc.integer({ min: 129, max: 5000 }).map((n) => `localhost:5000/${'a'.repeat(n)}`) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 1, arbitrary: oddString() },
)
/** How the name goes into the path: raw, percent-encoded, or with its slashes encoded. */
const inPath = (name: string, how: 'raw' | 'encoded' | 'slashes') =>
  how === 'encoded' ? encodeURIComponent(name) : how === 'slashes' ? name.replace(/\//g, '%2F') : name.replace(/[?#]/g, (c) => encodeURIComponent(c))
const tagValue = fc.oneof(fc.constantFrom(KNOWN.tag, 'latest', '2', 'LATEST', '-x', '.x', 'a'.repeat(128), 'a'.repeat(129), '1.0@sha256:x', 'a:b', '', '%'), oddString())

const pushArgs = fc.record({
  name: reference,
  how: fc.constantFrom('raw', 'encoded', 'slashes') as fc.Arbitrary<'raw' | 'encoded' | 'slashes'>,
  tag: fc.option(tagValue, { nil: undefined }),
  version: fc.constantFrom('', '/v1.47', '/v1.24', '/v99', '/vx'),
})

const rightAuth = registryAuth({ username: KNOWN.username, password: SECRETS.password, serveraddress: KNOWN.registry })
const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 300 })

/** An X-Registry-Auth header, and whether it carries the right credentials for the password registry. */
const authHeader: fc.Arbitrary<{ header: string; right: boolean }> = fc.oneof(
  // The right credentials, in every spelling Docker clients use.
  { weight: 2, arbitrary: fc.tuple(fc.boolean(), fc.boolean(), fc.constantFrom('plain', 'Caps', 'auth'), fc.dictionary(fc.constantFrom('email', 'serveraddress', 'extra', 'identitytoken'), fc.string({ maxLength: 8 }), { maxKeys: 2 }))
    .map(([url, strip, spelling, extra]) => {
      const creds = spelling === 'plain' ? { username: KNOWN.username, password: SECRETS.password } : spelling === 'Caps' ? { Username: KNOWN.username, Password: SECRETS.password } : { auth: Buffer.from(`${KNOWN.username}:${SECRETS.password}`).toString('base64') }
      const h = registryAuth({ ...extra, ...creds }, url)
      return { header: strip ? h.replace(/=+$/, '') : h, right: true }
    }) },
  // Wrong credentials of every type: valid-looking objects with wrong values or types.
  { weight: 3, arbitrary: fc.record({ username: fc.oneof(fc.constant(KNOWN.username), anyJson()), password: fc.oneof(fc.constant(`${SECRETS.password}x`), fc.constant(SECRETS.password.toUpperCase()), anyJson()), auth: fc.option(fc.oneof(printable, anyJson()), { nil: undefined }) }, { requiredKeys: [] })
    .chain((o) => fc.boolean().map((url) => ({ header: registryAuth(o, url), right: false }))) },
  { weight: 2, arbitrary: fc.tuple(anyJson(), fc.boolean()).map(([v, url]) => ({ header: registryAuth(v, url), right: false })) },
  // Not base64 JSON at all.
  { weight: 2, arbitrary: printable.map((header) => ({ header, right: false })) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }).map((s) => ({ header: Buffer.from(s).toString('base64'), right: false })) },
)

/** The last JSON line of a push stream: success carries `aux`, failure `error`. */
const lastLine = (body: string) => JSON.parse(body.trimEnd().split('\n').at(-1) ?? '{}') as { aux?: unknown; error?: string }

for (const w of WAYS) {
  describe(`fuzz: push (${w.name})`, () => {
    let fake: Dockside
    let way: FuzzWay
    useFuzzWay(w, (f, started) => {
      fake = f
      way = started
    })

    it('any reference and tag: a JSON answer, a push stream or a 4xx naming the reference or tag', { timeout: testTimeout(200) }, async () => {
      await fc.assert(
        fc.asyncProperty(pushArgs, fc.boolean(), async ({ name, how, tag, version }, withAuth) => {
          const path = `${version}/images/${inPath(name, how)}/push${tag !== undefined ? `?tag=${encodeURIComponent(tag)}` : ''}`
          const a = await way.request(path, { method: 'POST', headers: withAuth ? { 'x-registry-auth': rightAuth } : {} })
          // API 1.41 and older: the 20.10 daemon answers a bad reference 500 (its errors had no class yet).
          const allow5xx = (status: number) => status === 500 && version === '/v1.24'
          checkAnswer(a, { what: `POST ${path} (${way.name})`, ndjson: true, allow5xx, fields: ['reference', 'tag', 'name', 'image', 'digest', 'route', 'percent', 'version'] })
        }),
        fuzzParams(200),
      )
      await expectStillServes(fake, way)
    })

    it('any X-Registry-Auth: a JSON answer; the push succeeds only with the right credentials', { timeout: testTimeout(150) }, async () => {
      await fc.assert(
        fc.asyncProperty(authHeader, fc.constantFrom(`${KNOWN.repo}?tag=${KNOWN.tag}`, 'localhost:5001/team/app?tag=2'), async ({ header, right }, target) => {
          const [repo, query] = target.split('?')
          const path = `/images/${repo}/push?${query}`
          const a = await way.request(path, { method: 'POST', headers: { 'x-registry-auth': header } })
          checkAnswer(a, { what: `POST ${path} with X-Registry-Auth ${JSON.stringify(header.slice(0, 200))} (${way.name})`, ndjson: true, fields: ['X-Registry-Auth', 'auth'] })
          if (a.status !== 200) return
          const ok = lastLine(a.body).aux !== undefined
          // The token registry takes no password; the password registry exactly the right one.
          const expected = repo === KNOWN.repo ? right : false
          expect(ok, `push ${path} with X-Registry-Auth ${header} ${ok ? 'succeeded' : 'failed'}: ${a.body.slice(-200)}`).toBe(expected)
        }),
        fuzzParams(150),
      )
      await expectStillServes(fake, way)
    })
  })
}
