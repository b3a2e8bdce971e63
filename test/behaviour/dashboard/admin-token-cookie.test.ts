// Regression: with an admin token the dashboard was unusable: a browser cannot add `Authorization: Bearer`, so the
// page, its admin calls and its live feed all got 401. Now `GET /_dockside/ui?token=<token>` answers 303 to the URL
// without the token and sets an HttpOnly, SameSite=Strict cookie scoped to /_dockside (and the port) that the guard
// accepts in place of the header; Host and Origin checks still come first. Every request goes to 127.0.0.1 with the
// Host, Origin and Sec-Fetch-Site headers a browser would send.
import { spawn, type ChildProcess } from 'node:child_process'
import http from 'node:http'
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'
import { cliEntry, ensureBuilt, root } from '../../support/cli'

const open: Dockside[] = []
const servers: { close(): Promise<void> }[] = []
const children: ChildProcess[] = []
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGTERM')
  for (const s of servers.splice(0)) await s.close()
  for (const f of open.splice(0)) await f.close()
})

interface Answer {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

function send(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      // The live feed never ends: its headers and first event are enough.
      res.on('data', (c: string) => {
        text += c
        if (res.headers['content-type']?.startsWith('text/event-stream') && text.includes('\n\n')) {
          resolve({ status: res.statusCode!, headers: res.headers, body: text })
          req.destroy()
        }
      })
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function started(adminToken = 'dash-s3cret') {
  const fake = createDockside({ seed: 1, adminToken })
  open.push(fake)
  const server = await fake.listen({ port: 0 })
  servers.push(server)
  return { fake, port: Number(new URL(server.url).port) }
}

/** What a browser sends on navigating to a URL typed in its address bar. */
const navigation = { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' }

it('opening /_dockside/ui?token= once sets an HttpOnly, SameSite=Strict cookie for /_dockside and redirects to the URL without the token', async () => {
  const { port } = await started()
  const login = await send(port, 'GET', '/_dockside/ui?token=dash-s3cret&x=1', navigation)
  expect(login.status).toBe(303)
  expect(login.headers.location).toBe('/_dockside/ui?x=1')
  const cookie = login.headers['set-cookie']![0]
  expect(cookie).toMatch(new RegExp(`^dockside_admin_${port}=[0-9a-f]{64}; Path=/_dockside; HttpOnly; SameSite=Strict$`))
  expect(cookie).not.toContain('dash-s3cret')
  const jar = cookie.split(';')[0]
  // The page, its same-origin admin calls (fetch sends Origin on a POST) and its live feed pass with the cookie.
  expect((await send(port, 'GET', '/_dockside/ui', { ...navigation, cookie: jar })).status).toBe(200)
  const origin = `http://127.0.0.1:${port}`
  const created = await send(port, 'POST', '/_dockside/containers', { cookie: jar, origin, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' }, JSON.stringify({ name: 'web', image: 'nginx' }))
  expect(created.status).toBe(201)
  const live = await send(port, 'GET', '/_dockside/live', { cookie: `other=1; ${jar}`, 'sec-fetch-site': 'same-origin' })
  expect([live.status, live.body]).toEqual([200, expect.stringContaining('event: state')])
})

it('without the cookie, with a wrong one or a wrong ?token=, admin routes stay 401, and the 401 says how a browser gets in', async () => {
  const { fake, port } = await started()
  const missing = await send(port, 'GET', '/_dockside/ui', navigation)
  expect(missing.status).toBe(401)
  expect(JSON.parse(missing.body).message).toMatch(/open \/_dockside\/ui\?token=<token> once/)
  const wrongLogin = await send(port, 'GET', '/_dockside/ui?token=dash-s3creT', navigation)
  expect([wrongLogin.status, wrongLogin.headers['set-cookie']]).toEqual([401, undefined])
  expect(wrongLogin.body).not.toContain('s3cret')
  expect((await send(port, 'GET', '/_dockside/state', { cookie: `dockside_admin_${port}=${'0'.repeat(64)}` })).status).toBe(401)
  // ?token= is a dashboard login only: it does not authorise an admin call on other routes.
  expect((await send(port, 'POST', '/_dockside/reset?token=dash-s3cret')).status).toBe(401)
  // The token in the query is masked in the request log.
  expect(JSON.stringify(fake.requests.list())).not.toContain('dash-s3cret')
})

it("the cookie of another fake's port, a cross-site page and a foreign Host are refused as before", async () => {
  const a = await started('token-a')
  const b = await started('token-b')
  const jarA = (await send(a.port, 'GET', '/_dockside/ui?token=token-a', navigation)).headers['set-cookie']![0].split(';')[0]
  // A browser sends every 127.0.0.1 cookie to every port: b's guard reads only its own.
  expect((await send(b.port, 'GET', '/_dockside/state', { cookie: jarA.replace(`_${a.port}=`, `_${b.port}=`) })).status).toBe(401)
  expect((await send(b.port, 'GET', '/_dockside/state', { cookie: jarA })).status).toBe(401)
  // Origin, Sec-Fetch-Site and Host are checked before the token and the cookie.
  expect((await send(a.port, 'POST', '/_dockside/reset', { cookie: jarA, origin: 'https://evil.example' })).status).toBe(403)
  expect((await send(a.port, 'GET', '/_dockside/ui?token=token-a', { 'sec-fetch-site': 'cross-site' })).status).toBe(403)
  expect((await send(a.port, 'GET', '/_dockside/state', { cookie: jarA, host: `rebind.example:${a.port}` })).status).toBe(403)
  expect((await send(a.port, 'GET', '/_dockside/state', { cookie: jarA })).status).toBe(200)
})

/** `dockside serve` as a user starts it (the built CLI, no display); resolves with its stdout once `re` matches. */
function serve(args: string[], env: Record<string, string> = {}, re = /dockside listening on .*\n/) {
  const child = spawn(process.execPath, [cliEntry, 'serve', '--port', '0', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DISPLAY: '', WAYLAND_DISPLAY: '', DOCKSIDE_ADMIN_TOKEN: '', ...env } })
  children.push(child)
  let out = ''
  return new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d
      if (re.test(out)) resolve(out)
    })
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)))
  })
}

it('the ready line and --open give the dashboard URL with the token only when the token was typed on the command line', { timeout: 60_000 }, async () => {
  ensureBuilt()
  const typed = await serve(['--admin-token', 'typed-t0ken', '--open'], {}, /open (\S+) in your browser/)
  const url = /no browser to open here \(no display\): open (\S+) in your browser/.exec(typed)![1]
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_dockside\/ui\?token=typed-t0ken$/)
  expect(typed).toContain(`dashboard: ${url}, clock:`)
  const login = await fetch(url, { redirect: 'manual', headers: navigation })
  expect([login.status, login.headers.get('location'), login.headers.get('set-cookie')]).toEqual([303, '/_dockside/ui', expect.stringMatching(/HttpOnly; SameSite=Strict$/)])
  // From the environment (or a file), the token stays out of the output; the line says how to open the dashboard.
  const fromEnv = await serve(['--open'], { DOCKSIDE_ADMIN_TOKEN: 'env-t0ken' }, /in your browser\n/)
  expect(fromEnv).not.toContain('env-t0ken')
  expect(fromEnv).toMatch(/dashboard: http:\/\/127\.0\.0\.1:\d+\/_dockside\/ui, .*admin token required \(open the dashboard once with \?token=<admin token>\)/)
})
