import net from 'node:net'
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'
import { hasCommand, run, skipUnless } from '../../clients/support/clients'
import { dockerCli } from '../../clients/support/docker-cli'

// The Engine refuses a client pinned past its API version (its version middleware, on every route); an SDK pinned to
// a wrong version must fail here as it would against Docker. Older versions stay served: the real service's own
// clients speak 1.23.

const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

async function serve() {
  const fake = createDockside({ seed: 3 })
  open.push(fake)
  return { fake, server: await fake.listen({ port: 0 }) }
}

it('a version past 1.47 is a 400 naming the maximum; 1.47, 1.23 and no prefix are served', async () => {
  const { server } = await serve()
  const answers: string[] = []
  for (const path of ['/v1.99/version', '/v2/containers/json', '/v1.48/images/json', '/v1.47/version', '/v1.23/version', '/version', '/v1.47.0/_ping']) {
    const res = await fetch(server.url + path)
    const body = await res.text()
    answers.push(`${path} ${res.status}${res.status === 400 ? ` ${(JSON.parse(body) as { message: string }).message}` : ''}`)
  }
  expect(answers).toEqual([
    '/v1.99/version 400 client version 1.99 is too new. Maximum supported API version is 1.47',
    '/v2/containers/json 400 client version 2 is too new. Maximum supported API version is 1.47',
    '/v1.48/images/json 400 client version 1.48 is too new. Maximum supported API version is 1.47',
    '/v1.47/version 200',
    '/v1.23/version 200',
    '/version 200',
    '/v1.47.0/_ping 200',
  ])
})

it.skipIf(skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli'))('docker with DOCKER_API_VERSION=1.99 fails as against the Engine', async () => {
  const { server } = await serve()
  using cli = dockerCli(server.url)
  const r = await run('docker', ['ps'], { env: { ...cli.env, DOCKER_API_VERSION: '1.99' } })
  expect(r.code).toBe(1)
  expect(r.stderr).toContain('client version 1.99 is too new. Maximum supported API version is 1.47')
})

it('an absolute-form request target (RFC 9112, section 3.2.2) is served as its path', async () => {
  const { server } = await serve()
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(server.port, '127.0.0.1')
    let text = ''
    socket.on('data', (c) => (text += c))
    socket.on('close', () => resolve(text))
    socket.on('error', reject)
    socket.end(`GET http://127.0.0.1:${server.port}/_ping HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: close\r\n\r\n`)
  })
  expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK')
  expect(answer.endsWith('\r\n\r\nOK')).toBe(true)
})
