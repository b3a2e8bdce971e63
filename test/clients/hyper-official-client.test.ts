// The service's own client (hyperhq/websocket-client): its Node client's way of connecting, with the packages it uses
// (WebSocket-Node and hyper-aws4, from npm), over wss to the fake on 127.0.0.1:443 with signing on; the client names
// the real service's host, which a preload resolves to loopback in its process only. hyper-aws4 signs the host with its
// `:443`, where the Go client's signer leaves the port out: the real service took both, and so must the fake.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import WebSocket from 'ws'
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../src/index'
import { signHyperRequest } from '../../src/protocol/signing'
import { selfSignedCertificate } from '../../src/transports/server/tls'

const client = fileURLToPath(new URL('./support/hyper-node-client.cjs', import.meta.url))
const preload = fileURLToPath(new URL('./support/resolve-hyper-sh.cjs', import.meta.url))
const KEYS = { AKOFFICIAL: 'official-secret' }

interface Running {
  lines: string[]
  /** Resolves with the lines so far once one matches. */
  until(match: RegExp): Promise<string[]>
  stop(): Promise<void>
}

/** Runs the client with these credentials (and our HYPER_FILTERS); its stdout line by line. */
function runClient(env: Record<string, string>): Running {
  const child = spawn(process.execPath, ['--require', preload, client], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  const lines: string[] = []
  const waiting: { match: RegExp; resolve: (l: string[]) => void }[] = []
  let rest = ''
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += String(d)))
  child.stdout.on('data', (d) => {
    rest += String(d)
    const parts = rest.split('\n')
    rest = parts.pop()!
    for (const line of parts) {
      lines.push(line)
      for (const w of waiting.filter((w) => w.match.test(line))) {
        waiting.splice(waiting.indexOf(w), 1)
        w.resolve(lines)
      }
    }
  })
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  return {
    lines,
    until: (match) =>
      lines.some((l) => match.test(l))
        ? Promise.resolve(lines)
        : Promise.race([
            new Promise<string[]>((resolve) => waiting.push({ match, resolve })),
            exited.then(() => {
              throw new Error(`the client exited before ${match}; it printed ${JSON.stringify(lines)}; stderr ${stderr}`)
            }),
          ]),
    async stop() {
      child.kill()
      await exited
    },
  }
}

describe('the service\'s own Node client (hyperhq/websocket-client: WebSocket-Node, hyper-aws4) over wss with signing on', () => {
  let fake: Dockside
  let running: Running | undefined
  afterEach(async () => {
    await running?.stop()
    running = undefined
    await fake?.close()
  })

  async function serve() {
    // hyper-aws4 dates its signature by the wall clock: the fake's clock starts there, so it is within 5 minutes.
    fake = createDockside({ seed: 4, accessKeys: KEYS, clock: { mode: 'virtual', start: Date.now() } })
    // The official client's URL has :443; only loopback is listened on.
    return fake.listen({ host: '127.0.0.1', port: 443, tls: await selfSignedCertificate() })
  }

  it('connects with a signature over host:443, verified, and receives the events as the service sent them', async () => {
    await serve()
    running = runClient({ HYPER_ACCESS: 'AKOFFICIAL', HYPER_SECRET: KEYS.AKOFFICIAL })
    await running.until(/^connected$/)
    expect(running.lines).toContain('signed host us-west-1.hyper.sh:443')
    expect(fake.journal.ofType('auth.signed')).toEqual([expect.objectContaining({ accessKey: 'AKOFFICIAL', verified: true })])
    const web = fake.containers.create({ name: 'web', image: 'nginx:1.27', labels: { app: 'web' } })
    web.start()
    const lines = await running.until(/^message /)
    const frame = JSON.parse(lines.find((l) => l.startsWith('message '))!.slice('message '.length))
    expect(frame).toMatchObject({ status: 'start', id: web.id, from: 'nginx:1.27', Type: 'container', Action: 'start', Actor: { ID: web.id, Attributes: { app: 'web', name: 'web', image: 'nginx:1.27' } } })
  })

  it('filters signed into the query (the Go client\'s image filter by id, and by a 12-digit prefix) select by image id', async () => {
    await serve()
    const alpine = fake.images.add('alpine:latest', { layers: 1 })
    const hex = alpine.id.slice('sha256:'.length)
    for (const value of [hex, hex.slice(0, 12)]) {
      running = runClient({ HYPER_ACCESS: 'AKOFFICIAL', HYPER_SECRET: KEYS.AKOFFICIAL, HYPER_FILTERS: JSON.stringify({ image: { [value]: true } }) })
      await running.until(/^connected$/)
      const other = fake.containers.create({ image: 'nginx:1.27' })
      const mine = fake.containers.create({ image: 'alpine' })
      other.start()
      mine.start()
      const lines = await running.until(/^message /)
      expect(lines.filter((l) => l.startsWith('message ')).map((l) => JSON.parse(l.slice(8)).id), value).toEqual([mine.id])
      await running.stop()
      running = undefined
    }
  })

  it('a wrong secret is refused before the upgrade, with the reason', async () => {
    await serve()
    running = runClient({ HYPER_ACCESS: 'AKOFFICIAL', HYPER_SECRET: 'not-the-secret' })
    const lines = await running.until(/^connect failed/)
    expect(lines.find((l) => l.startsWith('connect failed'))).toMatch(/^connect failed: .*403/)
    expect(fake.journal.ofType('auth.refused')).toEqual([expect.objectContaining({ status: 403, reason: expect.stringMatching(/^Wrong signature for access key "AKOFFICIAL"/) })])
  })

  it('the Go client\'s form of the same request (host signed without :443, the raw JSON query) is taken too', async () => {
    const server = await serve()
    const path = '/events/ws?filters={"event":{"start":true}}'
    const host = 'us-west-1.hyper.sh:443'
    const signed = await signHyperRequest({ method: 'GET', url: path, headers: { host } }, { accessKey: 'AKOFFICIAL', secretKey: KEYS.AKOFFICIAL, date: fake.clock.now() })
    const socket = new WebSocket(`${server.wsUrl}${path}`, { headers: { ...signed, host }, rejectUnauthorized: false })
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
    expect(fake.journal.ofType('auth.signed')).toEqual([expect.objectContaining({ accessKey: 'AKOFFICIAL', verified: true })])
    socket.close()
  })
})
