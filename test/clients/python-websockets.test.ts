import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../src/index'
import { selfSignedCertificate } from '../../src/transports/server/tls'
import { pythonWith, run, skipUnless } from './support/clients'

const python = pythonWith('websockets')
const skip = skipUnless(python !== undefined, "Python's websockets", 'apt-get install python3-websockets (or pip install websockets)')
const script = fileURLToPath(new URL('./support/ws_client.py', import.meta.url))

interface Result {
  frames?: { Action: string; id: string; Actor: { Attributes: Record<string, string> } }[]
  close?: { code: number; reason: string }
  refused?: number
}

/** `X-Hyper-Date` for the fake's clock time `ms`. */
const hyperDate = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')

async function client(fake: Dockside, url: string, args: string[], whileOpen: () => Promise<void> | void): Promise<Result> {
  const opened = new Promise<void>((resolve) => {
    const off = fake.on('journal', (e) => {
      if (e.type === 'ws.open') {
        off()
        resolve()
      }
    })
  })
  const done = run(python!, [script, url, ...args], { timeoutMs: 8000 })
  // A refused handshake never opens: the script finishes first.
  const first = await Promise.race([opened.then(() => 'open' as const), done.then(() => 'done' as const)])
  if (first === 'open') await whileOpen()
  const r = await done
  if (r.code !== 0) throw new Error(`python client failed (${r.code}): ${r.stderr}`)
  return JSON.parse(r.stdout) as Result
}

describe.skipIf(skip)("Python websockets (Debian's python3-websockets) on the events websocket", () => {
  let fake: Dockside
  afterEach(() => fake.close())

  it('receives only filtered events, then the maintenance-restart close code 1001 with its reason', async () => {
    fake = createDockside({ seed: 9 })
    const server = await fake.listen({ port: 0 })
    const web = fake.containers.create({ name: 'web', image: 'nginx', labels: { app: 'web', team: 'a=b' } })
    const db = fake.containers.create({ name: 'db', image: 'postgres' })
    const filters = encodeURIComponent(JSON.stringify({ event: { start: true }, label: { 'app=web': true } }))
    const r = await client(fake, `${server.wsUrl}/events/ws?filters=${filters}`, [], () => {
      db.start()
      web.start()
      web.stop()
      fake.restart()
    })
    expect(r.frames).toHaveLength(1)
    expect(r.frames![0]).toMatchObject({ Action: 'start', id: web.id, Actor: { Attributes: { app: 'web', team: 'a=b', exitCode: '0', sh_hyper_instancetype: 's4' } } })
    expect(r.close).toEqual({ code: 1001, reason: 'server restarting for maintenance; reconnect to continue' })
  })

  it('over wss:// with a self-signed certificate and signed headers verified against access keys; max age closes with 1000', async () => {
    fake = createDockside({ seed: 9, accessKeys: { AKPY: 'python-secret' }, maxConnectionAge: '1h' })
    const server = await fake.listen({ port: 0, tls: await selfSignedCertificate() })
    expect(server.wsUrl).toMatch(/^wss:\/\//)
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    const url = `${server.wsUrl}/v1.23/events/ws?filters=${encodeURIComponent('{"container":["web"]}')}`
    const date = hyperDate(fake.clock.now())
    const r = await client(fake, url, ['--insecure', '--sign', 'AKPY', 'python-secret', 'us-west-1', date], async () => {
      web.start()
      await fake.clock.advance('1h')
    })
    expect(r.frames?.map((f) => f.Action)).toEqual(['start'])
    expect(r.close).toEqual({ code: 1000, reason: 'maximum connection age of 1h reached; reconnect to continue' })
    expect(fake.journal.ofType('auth.signed').at(-1)).toMatchObject({ accessKey: 'AKPY', verified: true })
  })

  it('signed headers are accepted as they are when no access keys are configured', async () => {
    fake = createDockside({ seed: 9 })
    const server = await fake.listen({ port: 0 })
    const web = fake.containers.create({ name: 'web', image: 'nginx' })
    // Any secret and a date a day off: nothing is verified without keys, and nothing is refused.
    const r = await client(fake, `${server.wsUrl}/events/ws`, ['--sign', 'AKANY', 'any-secret', 'us-west-1', hyperDate(fake.clock.now() - 86_400_000)], () => {
      web.start()
      fake.closeSockets(1000, 'done')
    })
    expect(r.frames?.map((f) => f.Action)).toEqual(['start'])
    expect(r.close).toEqual({ code: 1000, reason: 'done' })
    expect(fake.journal.ofType('auth.signed').at(-1)).toMatchObject({ accessKey: 'AKANY', verified: false })
  })

  it('is refused before the upgrade for a wrong secret and for a date more than 5 minutes from the clock', async () => {
    fake = createDockside({ accessKeys: { AKPY: 'python-secret' } })
    const server = await fake.listen({ port: 0 })
    const url = `${server.wsUrl}/events/ws`
    const now = fake.clock.now()
    const never = () => {
      throw new Error('the socket must not open')
    }
    expect(await client(fake, url, ['--sign', 'AKPY', 'wrong', 'us-west-1', hyperDate(now)], never)).toEqual({ refused: 403 })
    expect(fake.journal.ofType('auth.refused').at(-1)?.reason).toMatch(/^Wrong signature for access key "AKPY"/)
    expect(await client(fake, url, ['--sign', 'AKPY', 'python-secret', 'us-west-1', hyperDate(now - 6 * 60_000)], never)).toEqual({ refused: 403 })
    expect(fake.journal.ofType('auth.refused').at(-1)?.reason).toMatch(/^Request expired: X-Hyper-Date \d{8}T\d{6}Z is 6 min behind the fake's clock/)
    expect(await client(fake, url, [], never)).toEqual({ refused: 403 })
    expect(fake.journal.ofType('auth.refused').at(-1)?.reason).toMatch(/^Missing Authorization header/)
  })
})
