// Issue 8 points 11-12: secrets come from the environment or files (command lines are visible in `ps`), the admin
// token is enforced, and no secret shows in the log, the journal, the admin API or an error message. Each source is
// tried on the built CLI, as a user runs it.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { signHyperRequest } from '../../../src/protocol/signing'
import { ensureBuilt, root, cliEntry as entry } from '../../support/cli'


let dir: string
beforeAll(async () => {
  ensureBuilt()
  dir = await mkdtemp(join(tmpdir(), 'dockside-secrets-'))
}, 120_000)
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const running = new Set<ChildProcess>()
afterEach(() => {
  for (const c of running) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  running.clear()
})

/** Env without any DOCKSIDE_* from the runner's shell, plus `extra`. */
function env(extra: Record<string, string> = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DOCKSIDE_')))
  return { ...clean, ...extra }
}

function cli(args: string[], extraEnv: Record<string, string> = {}) {
  const child = spawn(process.execPath, [entry, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: env(extraEnv) })
  running.add(child)
  let out = ''
  let err = ''
  const waiters: (() => void)[] = []
  const poke = () => waiters.splice(0).forEach((w) => w())
  child.stdout.on('data', (d: Buffer) => ((out += d.toString()), poke()))
  child.stderr.on('data', (d: Buffer) => ((err += d.toString()), poke()))
  const exit = new Promise<number | null>((r) => child.once('close', (code) => (poke(), r(code))))
  return {
    child,
    exit,
    stdout: () => out,
    stderr: () => err,
    async waitFor(re: RegExp) {
      for (;;) {
        const m = out.match(re)
        if (m) return m
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the CLI exited (${child.exitCode}) before printing ${re}.\nstdout:\n${out}\nstderr:\n${err}`)
        await new Promise<void>((r) => waiters.push(r))
      }
    },
  }
}

async function serve(args: string[], extraEnv: Record<string, string> = {}) {
  const run = cli(['serve', '--port', '0', '--clock', 'virtual', ...args], extraEnv)
  const [line, url] = await run.waitFor(/dockside listening on (http:\/\/127\.0\.0\.1:\d+).*\n/)
  return { ...run, url, line }
}

const admin = (url: string, path: string, token?: string, init: RequestInit = {}) =>
  fetch(`${url}/_dockside${path}`, { ...init, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...init.headers } })

/** Opens a signed events websocket; the fake's virtual clock starts at 2026-01-01T00:00:00Z. */
async function signedUpgrade(url: string, accessKey: string, secretKey: string): Promise<number> {
  const host = new URL(url).host
  const headers = await signHyperRequest({ method: 'GET', url: '/events/ws', headers: { host } }, { accessKey, secretKey, date: Date.UTC(2026, 0, 1) })
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/events/ws`, { headers })
    ws.once('open', () => (ws.close(), resolve(101)))
    ws.once('unexpected-response', (_req, res) => (res.resume(), resolve(res.statusCode ?? 0)))
  })
}

/** Everything a secret must not be in: the log, the state, registries and journal, and the process's argv. */
async function expectNowhere(s: Awaited<ReturnType<typeof serve>>, secrets: string[], token?: string) {
  const seen = [
    s.stdout(),
    s.stderr(),
    s.child.spawnargs.join(' '),
    await (await admin(s.url, '/state', token)).text(),
    await (await admin(s.url, '/registries', token)).text(),
    await (await admin(s.url, '/journal', token)).text(),
  ].join('\n')
  for (const secret of secrets) expect(seen).not.toContain(secret)
}

describe('the admin token, from each source', () => {
  const sources: [string, () => Promise<{ args: string[]; env: Record<string, string> }>][] = [
    ['DOCKSIDE_ADMIN_TOKEN', async () => ({ args: [], env: { DOCKSIDE_ADMIN_TOKEN: 'tok-from-env' } })],
    ['--admin-token-file', async () => {
      const file = join(dir, 'token')
      await writeFile(file, 'tok-from-file\n', { mode: 0o600 })
      return { args: ['--admin-token-file', file], env: {} }
    }],
  ]
  it.each(sources)('%s: admin routes need the Bearer token (401 without), Docker routes do not; the token shows nowhere', async (name, source) => {
    const { args, env: extra } = await source()
    const token = name === 'DOCKSIDE_ADMIN_TOKEN' ? 'tok-from-env' : 'tok-from-file'
    const s = await serve(args, extra)
    expect(s.line).toMatch(/admin token required/)
    expect(s.child.spawnargs.join(' ')).not.toContain(token)
    const missing = await admin(s.url, '/state')
    expect(missing.status).toBe(401)
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/)
    expect((await admin(s.url, '/state', 'wrong')).status).toBe(401)
    expect((await admin(s.url, '/state', token)).status).toBe(200)
    expect((await fetch(`${s.url}/_ping`)).status).toBe(200)
    await s.waitFor(/request GET \/_dockside\/state -> 200/)
    await expectNowhere(s, [token], token)
    expect(s.stderr()).toBe('')
  })

  it('--admin-token on the command line works too (and wins over the environment)', async () => {
    const s = await serve(['--admin-token', 'tok-flag'], { DOCKSIDE_ADMIN_TOKEN: 'tok-env' })
    expect((await admin(s.url, '/state', 'tok-env')).status).toBe(401)
    expect((await admin(s.url, '/state', 'tok-flag')).status).toBe(200)
  })

  it('a bad token or token file is refused with exit 2, and the message does not show the token', async () => {
    const spaced = cli(['serve', '--port', '0'], { DOCKSIDE_ADMIN_TOKEN: 'has a space' })
    expect(await spaced.exit).toBe(2)
    expect(spaced.stderr()).toMatch(/invalid DOCKSIDE_ADMIN_TOKEN: expected a non-empty token.*not shown/)
    expect(spaced.stderr()).not.toContain('has a space')
    const missing = cli(['serve', '--port', '0', '--admin-token-file', join(dir, 'nope')])
    expect(await missing.exit).toBe(2)
    expect(missing.stderr()).toMatch(/cannot read --admin-token-file .*nope: ENOENT/)
    const both = cli(['serve', '--port', '0', '--admin-token', 'a', '--admin-token-file', join(dir, 'nope')])
    expect(await both.exit).toBe(2)
    expect(both.stderr()).toMatch(/give one of them/)
  })
})

describe('access keys, from each source', () => {
  it('DOCKSIDE_ACCESS_KEYS="id:secret,id2:secret2": signed upgrades verify against them; no secret shows anywhere', async () => {
    const s = await serve([], { DOCKSIDE_ACCESS_KEYS: 'AKONE:env-secret-1, AKTWO:env-secret-2' })
    expect(s.line).toMatch(/signed requests verified for access keys AKONE, AKTWO/)
    expect(await signedUpgrade(s.url, 'AKTWO', 'env-secret-2')).toBe(101)
    expect(await signedUpgrade(s.url, 'AKONE', 'env-secret-2')).toBe(403)
    expect(await signedUpgrade(s.url, 'AKNONE', 'env-secret-1')).toBe(403)
    await s.waitFor(/auth\.refused/)
    await expectNowhere(s, ['env-secret-1', 'env-secret-2'])
  })

  it.each([
    ['lines', '# keys for CI\nAKFILE:file-secret-1\n\nAKFILE2:file:secret:2\n'],
    ['JSON', '{"AKFILE": "file-secret-1", "AKFILE2": "file:secret:2"}'],
  ])('--access-keys-file with %s', async (_kind, text) => {
    const file = join(dir, `keys-${_kind}`)
    await writeFile(file, text, { mode: 0o600 })
    const s = await serve(['--access-keys-file', file])
    expect(s.line).toMatch(/access keys AKFILE, AKFILE2/)
    expect(await signedUpgrade(s.url, 'AKFILE2', 'file:secret:2')).toBe(101)
    expect(await signedUpgrade(s.url, 'AKFILE', 'file:secret:2')).toBe(403)
    await expectNowhere(s, ['file-secret-1', 'file:secret:2'])
  })

  it('a malformed entry names its source and line, never the secret (exit 2)', async () => {
    const file = join(dir, 'bad-keys')
    await writeFile(file, 'AKOK:fine\nno-colon-secret-value\n')
    const bad = cli(['serve', '--port', '0', '--access-keys-file', file])
    expect(await bad.exit).toBe(2)
    expect(bad.stderr()).toMatch(/invalid --access-keys-file .*bad-keys line 2: expected ACCESS_KEY_ID:SECRET_KEY \(the value is not shown/)
    expect(bad.stderr()).not.toContain('no-colon-secret-value')
    const env2 = cli(['serve', '--port', '0'], { DOCKSIDE_ACCESS_KEYS: 'AK:ok,justasecret' })
    expect(await env2.exit).toBe(2)
    expect(env2.stderr()).toMatch(/invalid DOCKSIDE_ACCESS_KEYS entry 2/)
    expect(env2.stderr()).not.toContain('justasecret')
    // Before, --access-key echoed a malformed value, which is usually the secret itself.
    const flag = cli(['serve', '--port', '0', '--access-key', 'pastedsecretonly'])
    expect(await flag.exit).toBe(2)
    expect(flag.stderr()).toMatch(/invalid --access-key \(occurrence 1\)/)
    expect(flag.stderr()).not.toContain('pastedsecretonly')
  })
})

describe('registry passwords and tokens', () => {
  it('never show in the log, GET /_dockside/state, /registries or /journal, even after a failed push', async () => {
    const file = join(dir, 'registries.yaml')
    await writeFile(
      file,
      'registries:\n  - host: reg.example.com\n    username: ci\n    password: reg-password-1\n  - host: tok.example.com\n    token: reg-token-2\nimages:\n  - name: reg.example.com/team/app:1\n    layers: 1\n',
    )
    const s = await serve(['--scenario', file])
    await admin(s.url, '/registries', undefined, { method: 'POST', body: JSON.stringify({ host: 'late.example.com', username: 'u', password: 'reg-password-3' }) })
    const auth = Buffer.from(JSON.stringify({ username: 'ci', password: 'wrong-password-4' })).toString('base64')
    const push = await fetch(`${s.url}/images/reg.example.com/team/app/push?tag=1`, { method: 'POST', headers: { 'x-registry-auth': auth } })
    await push.text()
    await s.waitFor(/push +reg\.example\.com\/team\/app/)
    const registries = await (await admin(s.url, '/registries')).json()
    expect(registries.map((r: { auth: string }) => r.auth)).toEqual(['basic', 'token', 'basic'])
    await expectNowhere(s, ['reg-password-1', 'reg-token-2', 'reg-password-3', 'wrong-password-4'])
  })
})

describe('binding beyond loopback', () => {
  // 192.0.2.1 is TEST-NET-1: never assigned here, so the bind fails (exit 1) after the warning; nothing listens off loopback.
  it('--host with a non-loopback address and no admin token warns on stderr, naming the risk', async () => {
    const run = cli(['serve', '--port', '0', '--host', '192.0.2.1'])
    expect(await run.exit).toBe(1)
    expect(run.stderr()).toMatch(/warning: --host 192\.0\.2\.1 makes the fake reachable from other machines, and with no admin token anyone who reaches it can drive the admin API/)
  })

  it('with an admin token there is no warning; loopback hosts never warn', async () => {
    const run = cli(['serve', '--port', '0', '--host', '192.0.2.1'], { DOCKSIDE_ADMIN_TOKEN: 't0ken' })
    expect(await run.exit).toBe(1)
    expect(run.stderr()).not.toMatch(/warning/)
    const local = await serve(['--host', '127.0.0.1'])
    expect(local.stderr()).toBe('')
  })
})
