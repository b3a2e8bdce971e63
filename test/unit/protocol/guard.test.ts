// The admin guard (src/protocol/guard.ts), rule by rule, through the protocol both ways in share
// (`fake.protocol.handle` / `upgrade` with the address a transport serves): Host against DNS rebinding, Origin and
// Sec-Fetch-Site against cross-site pages, the Bearer token and the dashboard's cookie, the events websocket's Origin,
// and the access options' checks. docs/security.md is the source of every expected status, header and message;
// test/behaviour/admin-api/guard/origin-host-and-token.test.ts drives the same guard over real sockets and the in-process hooks.
import { createHash } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'
import { checkAccess, isLoopback, type Served } from '../../../src/protocol/guard'
import type { ProtoRequest } from '../../../src/protocol/types'

const fakes: Dockside[] = []
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close()
})

function fresh(options: Parameters<typeof createDockside>[0] = {}) {
  const fake = createDockside(options)
  fakes.push(fake)
  return fake
}

const local: Served = { scheme: 'http', host: '127.0.0.1', port: 2375 }

function request(method: string, url: string, headers: Record<string, string>, served: Served | undefined): ProtoRequest {
  return { method, url, headers, signal: new AbortController().signal, body: async () => '', served }
}

/** `served: null`: a request from a host that tells no served address. */
async function admin(fake: Dockside, headers: Record<string, string>, served: Served | null = local, url = '/_dockside/state', method = 'GET') {
  const res = await fake.protocol.handle(request(method, url, headers, served ?? undefined))
  const body = typeof res.body === 'string' ? res.body : ''
  return { status: res.status, headers: res.headers, message: body.startsWith('{') ? (JSON.parse(body).message as string | undefined) : undefined }
}

const status = async (fake: Dockside, headers: Record<string, string>, served: Served | null = local) => (await admin(fake, headers, served)).status

describe('check 1: Host names the fake', () => {
  it('loopback names, 127.0.0.0/8 and [::1] pass, in any case, on any port', async () => {
    const fake = fresh()
    for (const host of ['127.0.0.1:2375', '127.0.0.1', 'localhost:9', 'LocalHost', '[::1]:2375', '[::1]', '127.4.5.6:80', ' localhost:2375 ']) {
      expect(await status(fake, { host }), host).toBe(200)
    }
  })

  it('a missing or blank Host is a 403 naming the addresses that work', async () => {
    const fake = fresh()
    for (const headers of [{}, { host: '' }, { host: '  ' }] as Record<string, string>[]) {
      const res = await admin(fake, headers)
      expect(res.status).toBe(403)
      expect(res.message).toBe('Missing Host header: the admin API answers only requests that name the fake (127.0.0.1, localhost, [::1] or 127.0.0.1:2375).')
    }
    expect((await admin(fake, {}, null)).message).toBe('Missing Host header: the admin API answers only requests that name the fake (127.0.0.1, localhost, [::1] or this fake).')
    expect((await admin(fake, {}, { scheme: 'http', host: '::', port: 2375 })).message).toMatch(/or \[::\]:2375\)\.$/)
    expect(fake.journal.ofType('access.refused').map((e) => [e.reason, e.status])).toEqual([
      ['host', 403],
      ['host', 403],
      ['host', 403],
      ['host', 403],
      ['host', 403],
    ])
  })

  it('a foreign or malformed Host is a 403 saying why (DNS rebinding) and how to allow it', async () => {
    const fake = fresh()
    const res = await admin(fake, { host: 'evil.example:2375' })
    expect(res.status).toBe(403)
    expect(res.message).toBe(
      'Host "evil.example:2375" is not an address of this fake (served at 127.0.0.1:2375): the admin API answers only requests sent to ' +
        '127.0.0.1, localhost, [::1] or the bound address, because a web page that reached it through DNS rebinding sends its own domain name. ' +
        'Use one of those addresses, or allow the name with --allow-host NAME (option allowedHosts).',
    )
    for (const host of ['localhost.evil.example', '127.0.0.1.evil.example', 'evil127.0.0.1', '128.0.0.1', '127.0.0.1.5', '::1', 'user@localhost', 'localhost:99999999', 'local host', 'localhost/x', '[::1']) {
      expect(await status(fake, { host }), host).toBe(403)
    }
  })

  it('the bound address passes (IPv6 in brackets, any case); bound to a wildcard, any IP literal does, a name does not', async () => {
    const fake = fresh()
    expect(await status(fake, { host: 'Dockside.Internal:2375' }, { scheme: 'http', host: 'dockside.internal', port: 2375 })).toBe(200)
    expect(await status(fake, { host: '[fd00::5]:2375' }, { scheme: 'http', host: 'fd00::5', port: 2375 })).toBe(200)
    expect(await status(fake, { host: '[fd00::6]:2375' }, { scheme: 'http', host: 'fd00::5', port: 2375 })).toBe(403)
    expect(await status(fake, { host: '10.0.0.2' }, { scheme: 'http', host: '10.0.0.1', port: 2375 })).toBe(403)
    for (const wildcard of ['0.0.0.0', '::', '[::]', '']) {
      const served: Served = { scheme: 'http', host: wildcard, port: 2375 }
      expect(await status(fake, { host: '192.168.1.20:2375' }, served), wildcard).toBe(200)
      expect(await status(fake, { host: '[fe80::1]:2375' }, served), wildcard).toBe(200)
      expect(await status(fake, { host: 'attacker.example:2375' }, served), wildcard).toBe(403)
      expect(await status(fake, { host: '1.2.3.4.attacker.example' }, served), wildcard).toBe(403)
      expect(await status(fake, { host: 'x1.2.3.4' }, served), wildcard).toBe(403)
    }
    // Not bound to a wildcard: another IP literal is refused.
    expect(await status(fake, { host: '192.168.1.20:2375' })).toBe(403)
  })

  it('allowedHosts names more hosts ("*" any); the server\'s own access options win over the fake\'s, field by field', async () => {
    const fake = fresh({ allowedHosts: ['Dockside'], adminToken: 'fake-token' })
    const auth = { authorization: 'Bearer fake-token' }
    expect(await status(fake, { host: 'dockside:2375', ...auth })).toBe(200)
    expect(await status(fake, { host: 'DOCKSIDE', ...auth })).toBe(200)
    expect(await status(fake, { host: 'other:2375', ...auth })).toBe(403)
    const anyHost: Served = { ...local, access: { allowedHosts: ['*'], adminToken: undefined } }
    expect(await status(fake, { host: 'other:2375', ...auth }, anyHost)).toBe(200)
    expect(await status(fake, { host: 'other:2375' }, anyHost)).toBe(401)
    const ownToken: Served = { ...local, access: { adminToken: 'server-token' } }
    expect(await status(fake, { host: 'dockside', authorization: 'Bearer server-token' }, ownToken)).toBe(200)
    expect(await status(fake, { host: 'dockside', ...auth }, ownToken)).toBe(401)
  })

  it('isLoopback: localhost, 127.0.0.0/8 and ::1 only', () => {
    for (const h of ['localhost', 'LOCALHOST', '127.0.0.1', '127.255.0.9', '::1', '[::1]']) expect(isLoopback(h), h).toBe(true)
    for (const h of ['0.0.0.0', '127.0.0.1.nip.io', 'x127.0.0.1', '127.1', '10.0.0.1', 'localhost.', '']) expect(isLoopback(h), h).toBe(false)
  })
})

describe('check 2: Origin and Sec-Fetch-Site', () => {
  const host = { host: '127.0.0.1:2375' }

  it("the fake's own origin (its scheme and the request's Host) passes; loopback origins on its port pass", async () => {
    const fake = fresh({ allowedHosts: ['dockside'] })
    for (const origin of ['http://127.0.0.1:2375', 'http://localhost:2375', 'http://[::1]:2375', 'http://127.9.9.9:2375', ' http://localhost:2375 ']) {
      expect(await status(fake, { ...host, origin }), origin).toBe(200)
    }
    // Same origin as the Host the page was served from, a name included.
    expect(await status(fake, { host: 'dockside:2375', origin: 'http://dockside:2375' })).toBe(200)
    expect(await status(fake, { host: ' dockside:2375 ', origin: 'http://dockside:2375' })).toBe(200)
    expect(await status(fake, { host: 'dockside:2375', origin: 'http://dockside:2376' })).toBe(403)
    // Default ports: http 80, https 443.
    expect(await status(fake, { host: 'localhost', origin: 'http://localhost' }, { scheme: 'http', host: '127.0.0.1', port: 80 })).toBe(200)
    expect(await status(fake, { host: '127.0.0.1:8443', origin: 'https://localhost' }, { scheme: 'https', host: '127.0.0.1', port: 443 })).toBe(200)
    expect(await status(fake, { host: '127.0.0.1:8443', origin: 'https://localhost' }, { scheme: 'https', host: '127.0.0.1', port: 80 })).toBe(403)
    expect(await status(fake, { host: '127.0.0.1:8443', origin: 'http://localhost' }, { scheme: 'http', host: '127.0.0.1', port: 443 })).toBe(403)
  })

  it('another scheme, port or site, "null", a non-URL and an origin with a path are 403s naming the Origin and --allow-origin', async () => {
    const fake = fresh()
    const res = await admin(fake, { ...host, origin: 'https://evil.example' })
    expect(res.status).toBe(403)
    expect(res.message).toBe(
      'Cross-origin request refused: Origin "https://evil.example" is not this fake\'s own origin, so a web page sent it. ' +
        'The admin API changes state and injects faults; a page on another site must not drive it. ' +
        'Call it from a test, a script or curl (they send no Origin), or allow it with --allow-origin ORIGIN (createDockside or listen option allowedOrigins).',
    )
    for (const origin of ['https://127.0.0.1:2375', 'http://localhost:3000', 'http://evil.example:2375', 'null', 'not a url', 'http://localhost:2375/', 'http://localhost:2375/app', 'http://u@localhost:2375', 'http://[::1', '']) {
      expect(await status(fake, { ...host, origin }), origin).toBe(403)
    }
    // With no served address (a host that tells none), only allowedOrigins can pass.
    expect(await status(fake, { ...host, origin: 'http://127.0.0.1:2375' }, null)).toBe(403)
    expect(fake.journal.ofType('access.refused')[0]).toMatchObject({ path: '/_dockside/state', status: 403, reason: 'origin', origin: 'https://evil.example', host: '127.0.0.1:2375' })
  })

  it('allowedOrigins are normalised to scheme://host[:port] and let those pages in', async () => {
    const fake = fresh({ allowedOrigins: ['HTTP://App.Example:80/', 'https://tools.example:8443'] })
    expect(await status(fake, { ...host, origin: 'http://app.example' })).toBe(200)
    expect(await status(fake, { ...host, origin: 'https://tools.example:8443' })).toBe(200)
    expect(await status(fake, { ...host, origin: 'https://tools.example' })).toBe(403)
    // Allowed even where no address is served.
    expect(await status(fake, { ...host, origin: 'http://app.example' }, null)).toBe(200)
  })

  it('without an Origin, Sec-Fetch-Site cross-site or same-site (any case, spaces) is a 403; same-origin and none pass', async () => {
    const fake = fresh()
    for (const site of ['cross-site', 'same-site', ' Cross-Site ', 'SAME-SITE']) {
      const res = await admin(fake, { ...host, 'sec-fetch-site': site })
      expect(res.status, site).toBe(403)
      const shown = site.trim().toLowerCase()
      expect(res.message).toBe(
        `Cross-site request refused: Sec-Fetch-Site: ${shown} means a link, image or form on another page sent it. ` +
          'The admin API changes state and injects faults; call it from a test, a script or curl, or open the address directly.',
      )
    }
    expect(fake.journal.ofType('access.refused').map((e) => e.reason)).toEqual(['sec-fetch-site', 'sec-fetch-site', 'sec-fetch-site', 'sec-fetch-site'])
    for (const site of ['same-origin', 'none', 'cross-site-ish']) expect(await status(fake, { ...host, 'sec-fetch-site': site }), site).toBe(200)
    // An allowed Origin decides: Sec-Fetch-Site is looked at only without one.
    expect(await status(fake, { ...host, origin: 'http://localhost:2375', 'sec-fetch-site': 'same-site' })).toBe(200)
  })

  it('Host is checked before Origin, Origin before the token', async () => {
    const fake = fresh({ adminToken: 'tok' })
    expect((await admin(fake, { host: 'evil.example', origin: 'https://evil.example' })).message).toMatch(/^Host "evil\.example"/)
    expect((await admin(fake, { ...host, origin: 'https://evil.example' })).message).toMatch(/^Cross-origin request refused/)
    expect((await admin(fake, { ...host, 'sec-fetch-site': 'cross-site' })).status).toBe(403)
    expect((await admin(fake, host)).status).toBe(401)
  })
})

describe('check 3: the admin token', () => {
  const host = { host: '127.0.0.1:2375' }
  const challenge = 'Bearer realm="dockside admin"'
  const invalid = 'Bearer realm="dockside admin", error="invalid_token"'
  const how =
    'this fake\'s admin API requires "Authorization: Bearer <token>" with the admin token it was started with (--admin-token-file, DOCKSIDE_ADMIN_TOKEN, --admin-token or the adminToken option). ' +
    'In a browser, open /_dockside/ui?token=<token> once: the dashboard then keeps a cookie.'

  it('missing, malformed and wrong are 401s with WWW-Authenticate; Bearer in any case, one token, spaces or tabs around it, passes', async () => {
    const fake = fresh({ adminToken: 's3cret' })
    const missing = await admin(fake, host)
    expect([missing.status, missing.headers['www-authenticate'], missing.message]).toEqual([401, challenge, `Missing Authorization header: ${how}`])
    for (const authorization of ['Basic czNjcmV0', 'Bearer', 'Bearer ', 'Bearer s3 cret', 's3cret', 'Bearers3cret', 'xBearer s3cret']) {
      const res = await admin(fake, { ...host, authorization })
      expect([res.status, res.headers['www-authenticate'], res.message], authorization).toEqual([401, challenge, `Malformed Authorization header: ${how}`])
    }
    const wrong = await admin(fake, { ...host, authorization: 'Bearer s3creT' })
    expect([wrong.status, wrong.headers['www-authenticate'], wrong.message]).toEqual([401, invalid, 'Wrong admin token: the Bearer token does not match the admin token this fake was started with.'])
    for (const authorization of ['Bearer s3cret', 'bearer s3cret', 'BEARER\ts3cret', 'Bearer   s3cret \t']) expect(await status(fake, { ...host, authorization }), authorization).toBe(200)
    expect(fake.journal.ofType('access.refused').map((e) => e.reason)).toEqual(['token missing', ...Array(7).fill('token missing'), 'token wrong'])
    expect(JSON.stringify(fake.journal.entries)).not.toContain('s3cret')
  })

  it('no token set: no Authorization needed, and one sent is ignored', async () => {
    const fake = fresh()
    expect(await status(fake, host)).toBe(200)
    expect(await status(fake, { ...host, authorization: 'Bearer anything' })).toBe(200)
  })

  const digest = (token: string) => createHash('sha256').update(`dockside dashboard cookie\n${token}`).digest('hex')

  it('GET /_dockside/ui?token= answers 303 to the URL without the token and sets the port\'s cookie holding a digest', async () => {
    const fake = fresh({ adminToken: 'tok-1' })
    const login = await fake.protocol.handle(request('GET', '/_dockside/ui?token=tok-1', host, local))
    expect(login.status).toBe(303)
    expect(login.headers).toEqual({
      location: '/_dockside/ui',
      'set-cookie': `dockside_admin_2375=${digest('tok-1')}; Path=/_dockside; HttpOnly; SameSite=Strict`,
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      date: expect.stringMatching(/ GMT$/),
    })
    expect(login.body).toBe('')
    const kept = await fake.protocol.handle(request('GET', '/_dockside/ui/app.js?a=1&token=tok-1&b=2', host, { scheme: 'https', host: '127.0.0.1', port: 8443 }))
    expect(kept.headers.location).toBe('/_dockside/ui/app.js?a=1&b=2')
    expect(kept.headers['set-cookie']).toBe(`dockside_admin_8443=${digest('tok-1')}; Path=/_dockside; HttpOnly; SameSite=Strict; Secure`)
    expect((await fake.protocol.handle(request('GET', '/_dockside/ui/?token=tok-1', host, local))).headers.location).toBe('/_dockside/ui/')
    expect(fake.journal.ofType('access.refused')).toEqual([])
  })

  it('?token= is a credential on GET /_dockside/ui only; a wrong one is a 401 naming ?token=', async () => {
    const fake = fresh({ adminToken: 'tok-1' })
    const wrong = await admin(fake, host, local, '/_dockside/ui?token=tok-2')
    expect([wrong.status, wrong.headers['www-authenticate'], wrong.message]).toEqual([401, 'Bearer realm="dockside admin", error="invalid_token"', 'Wrong admin token in ?token=: it does not match the admin token this fake was started with.'])
    expect(fake.journal.ofType('access.refused').map((e) => e.reason)).toEqual(['token wrong'])
    for (const [method, url] of [
      ['GET', '/_dockside/state?token=tok-1'],
      ['GET', '/_dockside/uix?token=tok-1'],
      ['GET', '/_dockside/live?token=tok-1&x=/_dockside/ui'],
      ['POST', '/_dockside/ui?token=tok-1'],
      ['GET', '/_dockside/ui'],
      ['GET', '/_dockside/ui?tok=tok-1'],
    ]) {
      const res = await admin(fake, host, local, url, method)
      expect([res.status, res.message?.slice(0, 28)], `${method} ${url}`).toEqual([401, 'Missing Authorization header'])
    }
    // With an Authorization header the header decides, not ?token=.
    expect((await admin(fake, { ...host, authorization: 'Bearer nope' }, local, '/_dockside/ui?token=tok-1')).status).toBe(401)
  })

  it('the cookie of this port is accepted in place of the header; another port\'s, a wrong digest or the raw token are not', async () => {
    const fake = fresh({ adminToken: 'tok-1' })
    const ok = digest('tok-1')
    for (const cookie of [`dockside_admin_2375=${ok}`, `theme=dark; dockside_admin_2375=${ok}`, ` x=1 ;  dockside_admin_2375 = ${ok} `, `=junk; dockside_admin_2375=${ok}`]) {
      expect(await status(fake, { ...host, cookie }), cookie).toBe(200)
    }
    for (const cookie of [`dockside_admin_2376=${ok}`, `dockside_admin_2375=${digest('tok-2')}`, 'dockside_admin_2375=tok-1', `xdockside_admin_2375=${ok}`, 'dockside_admin_2375', `=${ok}`]) {
      const res = await admin(fake, { ...host, cookie })
      expect([res.status, res.message?.slice(0, 28)], cookie).toEqual([401, 'Missing Authorization header'])
    }
    // An Authorization header is checked instead of the cookie.
    expect(await status(fake, { ...host, cookie: `dockside_admin_2375=${ok}`, authorization: 'Bearer wrong' })).toBe(401)
    // With no served address the cookie is named for port 0.
    expect(await status(fake, { ...host, cookie: `dockside_admin_0=${ok}` }, null)).toBe(200)
  })
})

describe('the events websocket', () => {
  const upgrade = async (fake: Dockside, headers: Record<string, string>, served: Served | undefined = local) => {
    const result = await fake.protocol.upgrade(request('GET', '/events/ws', { host: '127.0.0.1:2375', ...headers }, served))
    if (result.kind === 'reject') return { status: result.response.status, message: JSON.parse(result.response.body as string).message as string }
    return { status: result.kind === 'accept' ? 101 : 404, message: undefined }
  }

  it('any Origin by default; with allowedOrigins only those, the fake\'s own, and none', async () => {
    expect((await upgrade(fresh(), { origin: 'https://evil.example' })).status).toBe(101)
    const fake = fresh({ allowedOrigins: ['https://app.example', 'http://localhost:5173'] })
    const refused = await upgrade(fake, { origin: 'https://evil.example' })
    expect(refused).toEqual({
      status: 403,
      message: 'Origin "https://evil.example" may not open the events websocket: this fake allows "https://app.example", "http://localhost:5173" (besides its own). Add it with --allow-origin ORIGIN (option allowedOrigins).',
    })
    expect(fake.journal.ofType('access.refused')).toMatchObject([{ path: '/events/ws', status: 403, reason: 'origin', origin: 'https://evil.example' }])
    expect((await upgrade(fake, { origin: 'https://app.example' })).status).toBe(101)
    expect((await upgrade(fake, { origin: 'http://localhost:2375' })).status).toBe(101)
    expect((await upgrade(fake, {})).status).toBe(101)
    expect((await upgrade(fake, { origin: 'nonsense' })).status).toBe(403)
  })

  it('an empty allowedOrigins (the server\'s own, over the fake\'s) allows no web origin but the fake\'s own', async () => {
    const fake = fresh({ allowedOrigins: ['https://app.example'] })
    const served: Served = { ...local, access: { allowedOrigins: [] } }
    expect(await upgrade(fake, { origin: 'https://app.example' }, served)).toEqual({
      status: 403,
      message: 'Origin "https://app.example" may not open the events websocket: this fake allows no web origin (besides its own). Add it with --allow-origin ORIGIN (option allowedOrigins).',
    })
    expect((await upgrade(fake, { origin: 'http://127.0.0.1:2375' }, served)).status).toBe(101)
    // A server option left undefined keeps the fake's.
    expect((await upgrade(fake, { origin: 'https://app.example' }, { ...local, access: { allowedOrigins: undefined } })).status).toBe(101)
  })
})

describe('access options are checked and named', () => {
  it('adminToken: visible ASCII, no spaces; the value is never shown', () => {
    for (const token of ['', 'has space', 'tab\there', 'é', 5]) {
      let message = ''
      try {
        checkAccess({ adminToken: token as string })
      } catch (error) {
        message = (error as Error).message
      }
      expect(message, String(token)).toBe('Invalid adminToken: expected a non-empty string of visible ASCII characters with no spaces (the value is not shown: it is a secret).')
    }
    expect(checkAccess({ adminToken: '!~abc' })).toEqual({ adminToken: '!~abc' })
    expect(() => checkAccess({ adminToken: 'a b' }, { adminToken: '--admin-token', allowedOrigins: '--allow-origin', allowedHosts: '--allow-host' })).toThrow(/^Invalid --admin-token: /)
  })

  it('allowedOrigins: a list of http(s) origins with no path, query, fragment or credentials', () => {
    expect(() => checkAccess({ allowedOrigins: 'http://a.example' as never })).toThrow('Invalid allowedOrigins: expected a list of origins such as ["https://app.example"].')
    for (const o of ['localhost:5173', 'ftp://a.example', 'http://a.example/path', 'http://a.example/?q=1', 'http://a.example/#h', 'http://u@a.example', 'http://u:p@a.example', 'not a url', 5, null]) {
      expect(() => checkAccess({ allowedOrigins: [o as string] }), String(o)).toThrow(`Invalid allowedOrigins entry ${JSON.stringify(o)}: expected an origin (scheme, host and port, no path), e.g. "http://localhost:5173".`)
    }
    expect(checkAccess({ allowedOrigins: ['HTTPS://App.Example:443/', 'http://localhost:5173', 'http://a.example?'] })).toEqual({ allowedOrigins: ['https://app.example', 'http://localhost:5173', 'http://a.example'] })
    expect(checkAccess({})).toEqual({})
  })

  it('allowedHosts: host names without port, IPv6 in brackets, or "*"; lower-cased', () => {
    expect(() => checkAccess({ allowedHosts: 'dockside' as never })).toThrow('Invalid allowedHosts: expected a list of host names such as ["dockside"].')
    for (const h of ['a host', 'dockside:2375', 'http://dockside', '**', 'd*', '', '[::1', 5]) {
      expect(() => checkAccess({ allowedHosts: [h as string] }), String(h)).toThrow(`Invalid allowedHosts entry ${JSON.stringify(h)}: expected a host name without port, e.g. "dockside", or "*" for any.`)
    }
    expect(checkAccess({ allowedHosts: ['*', 'DockSide', 'a-b.c', '[FD00::1]', '10.0.0.1'] })).toEqual({ allowedHosts: ['*', 'dockside', 'a-b.c', '[fd00::1]', '10.0.0.1'] })
  })
})
