import { describe, expect, it } from 'vitest'
import { createDockside, decodeRegistryAuth } from '../../../../src/index'
import { authConfigFrom, authorize, maskAuth } from '../../../../src/service/auth'
import { formatEntry } from '../../../../src/cli/format'

// A password whose base64 holds '+' and '/' in the standard alphabet (and '-' and '_' in the URL one).
const creds = { username: 'alice', password: 'p>>>w?~?~???', serveraddress: 'localhost:5000' }
const std = Buffer.from(JSON.stringify(creds)).toString('base64')
const url = Buffer.from(JSON.stringify(creds)).toString('base64url')

describe('decodeRegistryAuth', () => {
  it('the fixtures really differ between the alphabets and in padding', () => {
    expect(std).toMatch(/[+/]/)
    expect(url).toMatch(/[-_]/)
    expect(std.endsWith('=')).toBe(true)
    expect(url.endsWith('=')).toBe(false)
  })

  it.each([
    ['standard, padded', std],
    ['standard, unpadded', std.replace(/=+$/, '')],
    ['url-safe, unpadded', url],
    ['url-safe, padded', url + '='.repeat((4 - (url.length % 4)) % 4)],
    ['with surrounding spaces', `  ${std}  `],
  ])('reads %s', (_what, header) => {
    expect(decodeRegistryAuth(header)).toEqual(creds)
  })

  it('reads e30= (an empty object) as no credentials, not as invalid', () => {
    expect(decodeRegistryAuth('e30=')).toEqual({})
    expect(decodeRegistryAuth('e30')).toEqual({})
  })

  it('treats an absent or blank header as absent', () => {
    expect(decodeRegistryAuth(undefined)).toBeUndefined()
    expect(decodeRegistryAuth('')).toBeUndefined()
    expect(decodeRegistryAuth('   ')).toBeUndefined()
  })

  it('splits the `auth` field (base64 user:pass) on the first colon', () => {
    const header = Buffer.from(JSON.stringify({ auth: Buffer.from('bob:s3:cr:et').toString('base64') })).toString('base64')
    expect(decodeRegistryAuth(header)).toMatchObject({ username: 'bob', password: 's3:cr:et' })
  })

  // As the docker CLI's config reader (decodeAuth): credentials only from base64 of `user:pass` with a non-empty user.
  it.each([
    ['not base64', '!!!'],
    ['no colon', Buffer.from('bob').toString('base64')],
    ['an empty user (a leading colon)', Buffer.from(':s3cret').toString('base64')],
  ])('takes no user or password from an `auth` field with %s', (_what, auth) => {
    expect(authConfigFrom({ auth })).toEqual({ auth })
  })

  it('keeps explicit username/password over the `auth` field', () => {
    const header = Buffer.from(JSON.stringify({ username: 'carol', password: 'x', auth: Buffer.from('bob:y').toString('base64') })).toString('base64')
    expect(decodeRegistryAuth(header)).toMatchObject({ username: 'carol', password: 'x' })
  })

  it('keeps the token fields and ignores unknown fields', () => {
    const header = Buffer.from(JSON.stringify({ registrytoken: 'tok', identitytoken: 'id', extra: 'x', email: '' })).toString('base64url')
    expect(decodeRegistryAuth(header)).toEqual({ registrytoken: 'tok', identitytoken: 'id' })
  })

  it('a known field of the wrong type makes the whole header invalid, as the daemon then pushes with no credentials', () => {
    const header = Buffer.from(JSON.stringify({ username: 42, password: 'p' })).toString('base64url')
    expect(decodeRegistryAuth(header)).toEqual({ invalid: 'X-Registry-Auth field "username" is not a string' })
  })

  // The exact reasons (the journal and the 400 show them): 'not base64' must not pass for 'not base64-encoded JSON'.
  it.each([
    ['not base64 at all', '!!!not base64!!!', 'X-Registry-Auth is not base64'],
    ['base64 with spaces inside (atob would skip them; Go\'s decoder refuses them)', `${url.slice(0, 8)}    ${url.slice(8)}`, 'X-Registry-Auth is not base64'],
    ['padding in the middle', `${url.slice(0, 8)}=${url.slice(8)}`, 'X-Registry-Auth is not base64'],
    ['base64 of text that is not JSON', Buffer.from('hello').toString('base64'), 'X-Registry-Auth is not base64-encoded JSON'],
    ['base64 of a JSON array', Buffer.from('[1]').toString('base64'), 'X-Registry-Auth is not a JSON object'],
    ['base64 of JSON null', Buffer.from('null').toString('base64'), 'X-Registry-Auth is not a JSON object'],
  ])('reports %s as invalid', (_what, header, reason) => {
    expect(decodeRegistryAuth(header)).toEqual({ invalid: reason })
  })

  it('authConfigFrom names what it read: the caller\'s words, or "The AuthConfig"', () => {
    expect(authConfigFrom([1])).toEqual({ invalid: 'The AuthConfig is not a JSON object' })
    expect(authConfigFrom('x', 'The POST /auth body')).toEqual({ invalid: 'The POST /auth body is not a JSON object' })
    expect(authConfigFrom({ Username: 'dave', PASSWORD: 'pw' })).toEqual({ username: 'dave', password: 'pw' })
  })
})

describe('authorize', () => {
  it('lets anyone into an open registry', () => {
    expect(authorize({ kind: 'open' }, undefined)).toBe(true)
  })
  it('needs the exact username and password for a basic registry', () => {
    const need = { kind: 'basic' as const, username: 'alice', password: 'pw' }
    expect(authorize(need, { username: 'alice', password: 'pw' })).toBe(true)
    expect(authorize(need, { username: 'alice', password: 'PW' })).toBe(false)
    expect(authorize(need, { username: 'bob', password: 'pw' })).toBe(false)
    expect(authorize(need, {})).toBe(false)
    expect(authorize(need, undefined)).toBe(false)
  })
  it('matches a token registry by registrytoken, or the token as the password (as login takes it)', () => {
    const need = { kind: 'token' as const, token: 't0k' }
    expect(authorize(need, { registrytoken: 't0k' })).toBe(true)
    expect(authorize(need, { registrytoken: 'nope' })).toBe(false)
    expect(authorize(need, { username: 'alice', password: 't0k' })).toBe(true)
    expect(authorize(need, { username: 'alice', password: 'nope' })).toBe(false)
  })
  it('matches a token registry by identitytoken too (what `docker login` keeps after an OAuth login)', () => {
    const need = { kind: 'token' as const, token: 't0k' }
    expect(authorize(need, { identitytoken: 't0k' })).toBe(true)
    expect(authorize(need, { identitytoken: 'nope' })).toBe(false)
    expect(authorize(need, { registrytoken: 'nope', identitytoken: 't0k' })).toBe(true)
  })
})

describe('masking secrets', () => {
  const secrets = ['p>>>w?~?~???', 'the-token', 'the-identity', Buffer.from('bob:hunter2').toString('base64'), 'hunter2']

  it('never shows a password, token or auth field, and keeps who pushed', () => {
    const decoded = decodeRegistryAuth(
      Buffer.from(JSON.stringify({ ...creds, registrytoken: 'the-token', identitytoken: 'the-identity', auth: Buffer.from('bob:hunter2').toString('base64'), email: 'a@example.com' })).toString('base64'),
    )
    const masked = maskAuth(decoded)!
    const text = JSON.stringify(masked)
    for (const s of secrets) expect(text).not.toContain(s)
    expect(masked).toMatchObject({ username: 'alice', email: 'a@example.com', serveraddress: 'localhost:5000', password: '***', registrytoken: '***', identitytoken: '***', auth: '***' })
  })

  it('passes absent and invalid through without content', () => {
    expect(maskAuth(undefined)).toBeUndefined()
    expect(maskAuth({ invalid: 'X-Registry-Auth is not base64' })).toEqual({ invalid: 'X-Registry-Auth is not base64' })
    // A field present but undefined (an AuthConfig built in code) is left out, not shown as '***'.
    expect(maskAuth({ username: 'alice', password: undefined })).toStrictEqual({ username: 'alice' })
  })

  it('keeps secrets out of the journal and the CLI log of a real push', async () => {
    await using fake = createDockside({ seed: 3, clock: 'auto' })
    fake.registries.add('localhost:5000', { username: 'alice', password: 'hunter2' })
    fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: [1000] })
    await using server = await fake.listen({ port: 0 })
    const header = Buffer.from(JSON.stringify({ username: 'alice', password: 'hunter2', registrytoken: 'the-token', auth: Buffer.from('alice:hunter2').toString('base64') })).toString('base64url')
    const res = await fetch(`${server.url}/v1.47/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST', headers: { 'X-Registry-Auth': header } })
    const body = await res.text()
    expect(body).toContain('"aux"')
    const journal = JSON.stringify(fake.journal.entries)
    const log = fake.journal.entries.map(formatEntry).join('\n')
    for (const s of ['hunter2', 'the-token', Buffer.from('alice:hunter2').toString('base64'), header]) {
      expect(journal).not.toContain(s)
      expect(log).not.toContain(s)
    }
    // A test can still see who pushed.
    expect(fake.journal.ofType('push.tag')[0]).toMatchObject({ user: 'alice' })
    expect(fake.journal.ofType('push.start')[0]).toMatchObject({ auth: { username: 'alice', password: '***' } })
  })
})
