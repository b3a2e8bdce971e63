// Regression: a token registry accepted credentials for login that it refused for push. dockerode's
// checkAuth({ username: 'ci', password: 'tok-123' }) answered Login Succeeded with the IdentityToken, but push() with the
// very same authconfig ended with `unauthorized: authentication required`: login (POST /auth) took the token as the
// password, push's authorize() only as registrytoken/identitytoken. A real daemon authenticates login and push the
// same way (for a token registry it exchanges username and password at the token endpoint for both), so credentials
// that log in also push. One rule now serves both (authorize in src/service/auth.ts), and a wrong password is refused
// by both. Checked with dockerode and the docker CLI against a real port on 127.0.0.1.
import Docker from 'dockerode'
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer } from '../../../../src/index'
import { hasCommand, skipUnless } from '../../../clients/support/clients'
import { dockerCli } from '../../../clients/support/docker-cli'

const skipCli = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm), or a static client from download.docker.com')

const REGISTRY = 'localhost:5001'
const IMAGE = `${REGISTRY}/team/app`

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

async function started(): Promise<{ fake: Dockside; server: DocksideServer; docker: Docker }> {
  const fake = createDockside({ seed: 1, clock: 'auto' })
  closers.push(() => fake.close())
  fake.registries.add(REGISTRY, { token: 'tok-123' })
  fake.images.add(IMAGE, { tags: ['1.0', '2.0'], layers: 1 })
  const server = await fake.listen({ port: 0 })
  closers.push(() => server.close())
  return { fake, server, docker: new Docker({ host: '127.0.0.1', port: server.port, protocol: 'http' }) }
}

/** Pushes with dockerode and resolves with the progress lines (an error line is data, as followProgress gives it). */
async function push(docker: Docker, tag: string, authconfig: Record<string, string>) {
  const stream = await docker.getImage(IMAGE).push({ tag, authconfig })
  return new Promise<{ status?: string; error?: string }[]>((resolve, reject) => docker.modem.followProgress(stream, (err: Error | null, out: { status?: string; error?: string }[]) => (err ? reject(err) : resolve(out))))
}

describe('a token registry: what logs in also pushes, and a wrong password does neither', () => {
  it('bug: checkAuth with the token as password succeeded, push with the same authconfig was unauthorized (dockerode)', async () => {
    const { fake, docker } = await started()
    const creds = { username: 'ci', password: 'tok-123', serveraddress: REGISTRY }
    expect(await docker.checkAuth(creds)).toEqual({ Status: 'Login Succeeded', IdentityToken: 'tok-123' })
    const out = await push(docker, '1.0', creds)
    expect(out.filter((l) => l.error)).toEqual([])
    expect(out.at(-2)?.status).toMatch(/^1\.0: digest: sha256:[0-9a-f]{64} size: \d+$/)
    expect(fake.registries.get(REGISTRY).get(IMAGE, '1.0')?.digest).toBe(fake.images.resolve(`${IMAGE}:1.0`)!.manifestDigest)
  })

  it('a wrong password is refused by login (401) and by push (unauthorized in the stream), with nothing pushed', async () => {
    const { fake, docker } = await started()
    const wrong = { username: 'ci', password: 'tok-124', serveraddress: REGISTRY }
    await expect(docker.checkAuth(wrong)).rejects.toMatchObject({ statusCode: 401, json: { message: `Get "http://${REGISTRY}/v2/": unauthorized: incorrect username or password` } })
    const out = await push(docker, '1.0', wrong)
    expect(out.at(-1)).toMatchObject({ error: 'unauthorized: authentication required' })
    expect(fake.registries.get(REGISTRY).tags).toEqual([])
    // No credentials at all: refused as before.
    expect((await push(docker, '1.0', {})).at(-1)).toMatchObject({ error: 'unauthorized: authentication required' })
  })

  it('the identity token login answered still pushes, as the CLI sends it after docker login (unchanged)', async () => {
    const { fake, docker } = await started()
    const { IdentityToken } = (await docker.checkAuth({ username: 'ci', password: 'tok-123', serveraddress: REGISTRY })) as { IdentityToken: string }
    const out = await push(docker, '2.0', { identitytoken: IdentityToken, serveraddress: REGISTRY })
    expect(out.filter((l) => l.error)).toEqual([])
    expect(fake.registries.get(REGISTRY).get(IMAGE, '2.0')).toBeDefined()
  })

  it.skipIf(skipCli)('bug: docker push with the token as password in DOCKER_CONFIG (the auth of a CI config file) was unauthorized; docker login -p took it', async () => {
    const { fake, server } = await started()
    using good = dockerCli(server.url, { auths: { [REGISTRY]: { username: 'ci', password: 'tok-123' } } })
    const ok = await good.docker(['push', `${IMAGE}:1.0`])
    expect(ok.stdout + ok.stderr).not.toContain('unauthorized')
    expect(ok.code).toBe(0)
    expect(fake.registries.get(REGISTRY).get(IMAGE, '1.0')).toBeDefined()

    using bad = dockerCli(server.url, { auths: { [REGISTRY]: { username: 'ci', password: 'wrong' } } })
    const denied = await bad.docker(['push', `${IMAGE}:2.0`])
    expect(denied.code).toBe(1)
    expect(denied.stdout + denied.stderr).toContain('unauthorized: authentication required')
    const login = await bad.docker(['login', '-u', 'ci', '-p', 'wrong', REGISTRY])
    expect(login.code).toBe(1)
    expect(login.stderr).toContain('unauthorized: incorrect username or password')
    expect(fake.registries.get(REGISTRY).get(IMAGE, '2.0')).toBeUndefined()
  })
})
