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

it('a version before 1.12 is the 20.10 daemon\'s 400; an error to 1.23 or older is plain text, as Engines before 25 send it', async () => {
  // Both checked side by side with dockerd 20.10: the fake served 1.0 and answered every error in JSON.
  const { server } = await serve()
  const answer = async (path: string) => {
    const res = await fetch(server.url + path)
    return [res.status, res.headers.get('content-type'), res.headers.get('x-content-type-options'), await res.text()]
  }
  const plain = (status: number, text: string) => [status, 'text/plain; charset=utf-8', 'nosniff', `${text}\n`]
  expect(await answer('/v1.11/_ping')).toEqual(plain(400, 'client version 1.11 is too old. Minimum supported API version is 1.12, please upgrade your client to a newer version'))
  expect(await answer('/v1.0/containers/json')).toEqual(plain(400, 'client version 1.0 is too old. Minimum supported API version is 1.12, please upgrade your client to a newer version'))
  expect(await answer('/v1.23/containers/nope/json')).toEqual(plain(404, 'No such container: nope'))
  expect(await answer('/v1.12/nope')).toEqual(plain(404, 'page not found'))
  expect(await answer('/v1.23/events?since=5&until=3')).toEqual(plain(400, '`since` time (5) cannot be after `until` time (3)'))
  // Past 1.23 (1.23.1 included, as Go's versions compare), JSON.
  for (const path of ['/v1.24/containers/nope/json', '/v1.23.1/containers/nope/json', '/containers/nope/json']) {
    expect(await answer(path), path).toEqual([404, 'application/json', null, '{"message":"No such container: nope"}\n'])
  }
  // What is not an error keeps its own type.
  expect((await answer('/v1.12/_ping'))[0]).toBe(200)
  // The version middleware refuses before the experimental middleware inside it sets Docker-Experimental.
  for (const [path, experimental] of [['/v1.11/_ping', null], ['/v1.99/_ping', null], ['/v1.23/_ping', 'false'], ['/v1.23/containers/nope/json', 'false']] as const) {
    const res = await fetch(server.url + path)
    await res.arrayBuffer()
    expect([res.headers.get('docker-experimental'), res.headers.get('api-version')], path).toEqual([experimental, '1.47'])
  }
})

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
