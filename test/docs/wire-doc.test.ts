// docs/wire.md shows the fake's own bytes: this runs the script the page describes (seed 42, the virtual clock) on a
// real port and checks that every example on the page is what the fake sent (the Date header aside).
import { readFileSync } from 'node:fs'
import net from 'node:net'
import WebSocket from 'ws'
import { expect, it } from 'vitest'
import { createDockside } from '../../src/index'

const page = readFileSync(new URL('../../docs/wire.md', import.meta.url), 'utf8')
/** The page's text with each HTTP date made one placeholder, as the fake's are. */
const undated = (s: string) => s.replace(/^date: .*$/gim, 'date: DATE')

/**
 * The raw bytes the server answers `request` with: one whole HTTP answer (its head, then as many body bytes as its
 * Content-Length says; a 101 or an answer to HEAD is its head alone), or what came before the server closed.
 */
function raw(port: string, request: string): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(Number(port), '127.0.0.1', () => s.write(request))
    let out = Buffer.alloc(0)
    const done = () => (s.destroy(), resolve(out.toString().replace(/\r\n/g, '\n').trimEnd()))
    const complete = () => {
      const end = out.indexOf('\r\n\r\n')
      if (end < 0) return false
      const head = out.subarray(0, end).toString()
      if (head.startsWith('HTTP/1.1 101 ') || request.startsWith('HEAD ')) return true
      const length = /^content-length: *(\d+)$/im.exec(head)
      return length !== null && out.length - end - 4 >= Number(length[1])
    }
    s.on('data', (d: Buffer) => {
      out = Buffer.concat([out, d])
      if (complete()) done()
    })
    s.on('close', done)
  })
}

it('every example of docs/wire.md is what the fake sends', async () => {
  await using fake = createDockside({ seed: 42, maxConnectionAge: '1h' })
  await using server = await fake.listen({ port: 0 })
  const port = new URL(server.url).port
  fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 2 })
  fake.registries.add('registry.example.com', { username: 'alice', password: 's3cret' })
  fake.images.add('registry.example.com/team/api', { tags: ['2.3'], layers: 1 })
  const web = fake.containers.create({ name: 'web', image: 'nginx:1.27', labels: { app: 'web', tier: '' } })
  const upgrade = (query = '', extra = '') =>
    `GET /events/ws${query} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`
  const shown: string[] = []
  shown.push(await raw(port, upgrade('', 'Sec-WebSocket-Protocol: v1.events, json\r\n')))
  shown.push(await raw(port, upgrade('?filters={"event":["die"]}')))
  fake.faults.add({ on: 'events', reply: 429, retryAfter: 5 })
  shown.push(await raw(port, upgrade()))
  shown.push(JSON.parse((await raw(port, 'GET /events/ws HTTP/1.1\r\nHost: x\r\n\r\n')).split('\n\n')[1]).message)

  const closeOf = (ws: WebSocket) => new Promise<string>((r) => ws.once('close', (code, why) => r(`| ${code} | \`${why.toString()}\``)))
  const ws = new WebSocket(`${server.wsUrl}/events/ws`)
  await new Promise((r) => ws.once('open', r))
  const frames: string[] = []
  ws.on('message', (d) => frames.push(d.toString()))
  const restarted = closeOf(ws)
  web.start()
  await fake.clock.advance('90s')
  web.stop({ exitCode: 137 })
  await expect.poll(() => frames.length).toBe(2)
  shown.push(frames.join('\n'))
  fake.restart()
  shown.push(await restarted)
  const aged = new WebSocket(`${server.wsUrl}/events/ws`)
  await new Promise((r) => aged.once('open', r))
  const agedClose = closeOf(aged)
  await fake.clock.advance('1h')
  shown.push(await agedClose)
  const closed = new WebSocket(`${server.wsUrl}/events/ws`)
  await new Promise((r) => closed.once('open', r))
  const adminClose = closeOf(closed)
  await fetch(`${server.url}/_dockside/sockets/close`, { method: 'POST', body: '{}' })
  shown.push(await adminClose)
  const until = new WebSocket(`${server.wsUrl}/events/ws?until=${Math.floor(fake.clock.now() / 1000)}`)
  shown.push(await closeOf(until))

  const drain = async (res: Response) => {
    const reader = res.body!.getReader()
    let text = ''
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      text += new TextDecoder().decode(r.value)
      await fake.clock.advance('1s')
    }
    // Each line ends in \r\n, as Docker's JSON stream writes it (the page says so).
    expect(text.endsWith('}\r\n') && !/[^\r]\n/.test(text)).toBe(true)
    return text.trim().split('\r\n')
  }
  const push = await drain(await fetch(`${server.url}/v1.47/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST' }))
  // The page leaves some Pushing lines out: the rest, in order.
  shown.push([...push.slice(0, 5), ...push.slice(-5)].join('\n'))
  const auth = Buffer.from(JSON.stringify({ username: 'alice', password: 'wrong' })).toString('base64')
  const errors = [
    (await drain(await fetch(`${server.url}/v1.47/images/registry.example.com/team/api/push?tag=2.3`, { method: 'POST' }))).at(-1),
    (await drain(await fetch(`${server.url}/v1.47/images/registry.example.com/team/api/push?tag=2.3`, { method: 'POST', headers: { 'X-Registry-Auth': auth } }))).at(-1),
  ]
  fake.faults.add({ on: 'push', error: 'denied: requested access to the resource is denied', afterLayer: 1 })
  errors.push((await drain(await fetch(`${server.url}/v1.47/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST' }))).at(-1))
  shown.push(errors.join('\n'))
  shown.push(await raw(port, 'POST /v1.47/images/localhost:5000/nope/push?tag=1.0 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n'))
  const ping = await raw(port, 'HEAD /_ping HTTP/1.1\r\nHost: x\r\n\r\n')
  for (const h of ['api-version: 1.47', 'docker-experimental: false', 'ostype: linux', 'server: Docker/28.2.2 (linux)', 'cache-control: no-cache, no-store, must-revalidate', 'pragma: no-cache', 'swarm: inactive']) expect(ping).toContain(h)
  ws.close()

  for (const example of shown) expect(undated(page), `docs/wire.md shows:\n${example}`).toContain(undated(example))
}, 30_000)
