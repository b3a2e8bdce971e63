// Regression: `docker push --platform linux/arm64` (docker CLI 28, API 1.46+ sends `platform` as OCI platform JSON) pushed
// the fake's linux/amd64 image and exited 0, and a malformed `platform` was pushed too. The daemon reads `platform` with
// decodePlatform (400 for JSON that is not a platform with os and architecture) and looks the image up by it, answering
// 404 "image with reference ... was found but does not match the specified platform" before any push starts.
// Found by the real-client hunt (was test/clients/real-client-hunt-push-platform.test.ts).
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer } from '../../src/index'
import { dockerCli } from './support/docker-cli'

describe('push --platform, as the daemon reads it', () => {
  let fake: Dockside
  let server: DocksideServer
  beforeEach(async () => {
    fake = createDockside({ clock: 'auto', seed: 5 })
    fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 1 })
    server = await fake.listen({ port: 0 })
  })
  afterEach(() => fake.close())

  const pushed = () => fake.registries.list().flatMap((r) => r.tags.map((t) => `${t.repository}:${t.tag}`))

  it('bug: docker push --platform linux/arm64 of a linux/amd64 image pushed it; the daemon refuses with 404', async () => {
    using cli = dockerCli(server.url)
    const r = await cli.docker(['push', '--platform', 'linux/arm64', 'localhost:5000/team/app:1.0'])
    expect(r.code).toBe(1)
    // Engine 28's words (daemon/images/image.go GetImage).
    expect(r.stderr).toContain('Error response from daemon: image with reference localhost:5000/team/app:1.0 was found but its platform (linux/amd64) does not match the specified platform (linux/arm64)\n')
    expect(r.stdout).not.toContain('digest:')
    expect(pushed()).toEqual([])
    // The image's own platform (and an alias of its architecture) pushes.
    const ok = await cli.docker(['push', '--platform', 'linux/amd64', 'localhost:5000/team/app:1.0'])
    expect([ok.code, ok.stderr]).toEqual([0, ''])
    expect(ok.stdout).toMatch(/1\.0: digest: sha256:[0-9a-f]{64} size: \d+/)
    expect(pushed()).toEqual(['localhost:5000/team/app:1.0'])
  })

  it('bug: a platform that is not an OCI platform with os and architecture was pushed; the daemon answers 400', async () => {
    const push = async (query: string, version = 'v1.47') => {
      const res = await fetch(`${server.url}/${version}/images/localhost:5000/team/app/push?tag=1.0&platform=${encodeURIComponent(query)}`, { method: 'POST' })
      const body = await res.text()
      return [res.status, res.status === 200 ? 'stream' : (JSON.parse(body) as { message: string }).message, res.headers.get('x-dockside-hint')] as const
    }
    const expected = 'expected an OCI platform such as {"os":"linux","architecture":"amd64"}.'
    // httputils.DecodePlatform's words in the body (Go's json error behind "failed to parse platform: "); the fake's in the hint.
    expect(await push('{bad')).toEqual([400, "failed to parse platform: invalid character 'b' looking for beginning of object key string", `failed to parse platform: "{bad" is not JSON; ${expected}`])
    expect(await push('"linux/amd64"')).toEqual([400, 'failed to parse platform: json: cannot unmarshal string into Go value of type v1.Platform', `failed to parse platform: "\\"linux/amd64\\"" is not a JSON object; ${expected}`])
    expect(await push('{"os":"linux"}')).toEqual([400, 'both OS and Architecture must be provided', `both OS and Architecture must be provided: platform "{\\"os\\":\\"linux\\"}"; ${expected}`])
    expect(await push('{"variant":"v8"}')).toEqual([400, 'optional platform fields provided, but OS and Architecture are missing', `optional platform fields provided, but OS and Architecture are missing: platform "{\\"variant\\":\\"v8\\"}"; ${expected}`])
    expect(await push('{"os":"linux","architecture":64}')).toEqual([400, 'failed to parse platform: json: cannot unmarshal number into Go struct field Platform.architecture of type string', `failed to parse platform: "architecture" in "{\\"os\\":\\"linux\\",\\"architecture\\":64}" must be a string; ${expected}`])
    expect(pushed()).toEqual([])
    // Keys in any case and architecture aliases read as Go and containerd read them; an older API ignores `platform`.
    expect(await push('{"OS":"Linux","Architecture":"x86_64","variant":"v2"}')).toEqual([200, 'stream', null])
    expect(await push('{bad', 'v1.45')).toEqual([200, 'stream', null])
    // No such image stays the push's own 404, whatever the platform.
    const missing = await fetch(`${server.url}/v1.47/images/localhost:5000/team/nope/push?tag=1.0&platform=${encodeURIComponent('{"os":"linux","architecture":"arm64"}')}`, { method: 'POST' })
    expect([missing.status, ((await missing.json()) as { message: string }).message]).toEqual([404, 'No such image: localhost:5000/team/nope:1.0'])
  })
})
