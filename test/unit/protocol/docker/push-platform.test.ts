// The `platform` query of POST /images/{name}/push (src/protocol/docker/push.ts pushPlatform, platformMismatch), in
// process: API 1.46 and later read it as the daemon's httputils.DecodePlatform does (400 with Go's json error behind
// `failed to parse platform: `, then its two checks), then look the image up by it (404 for a platform the fake's
// linux/amd64 images are not). The docker CLI's own run of these is test/clients/push-platform.test.ts (outside the
// mutation set); this file pins the same texts where Stryker runs. Found by mutation testing (187 mutants no test reached).
import { describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

const EXPECTED = 'expected an OCI platform such as {"os":"linux","architecture":"amd64"}.'

const make = () => {
  const fake = createDockside({ seed: 1, clock: 'auto' })
  fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: [10] })
  return fake
}

/** The answer to a push with `platform` (sent encoded; no `tag` when ''; the auto clock runs a push's stream to its end): status, the daemon's message (or 'stream'), and dockside's hint. */
async function push(fake: Dockside, platform: string | undefined, { version = 'v1.47', path = 'localhost:5000/team/app', tag = '1.0' } = {}) {
  const query = [tag ? `tag=${tag}` : '', platform === undefined ? '' : `platform=${encodeURIComponent(platform)}`].filter(Boolean).join('&')
  const url = `${version ? `/${version}` : ''}/images/${path}/push${query ? `?${query}` : ''}`
  const res = await fake.protocol.handle({ method: 'POST', url, headers: {}, signal: new AbortController().signal, body: async () => '' })
  if (res.status === 200) {
    for await (const _ of res.body as AsyncIterable<string>) void _
    return [200, 'stream', res.headers['x-dockside-hint']] as const
  }
  return [res.status, (JSON.parse(res.body as string) as { message: string }).message, res.headers['x-dockside-hint']] as const
}

/** The 400 of a platform DecodePlatform refuses: its words on the wire, dockside's help in the hint. */
const refused = (wire: string, help: string) => [400, wire, help] as const
const shown = (raw: string) => JSON.stringify(raw)

describe('push --platform: what DecodePlatform refuses (400)', () => {
  it('text that is not JSON: Go json error text, and the platform shown in the help', async () => {
    await using fake = make()
    expect(await push(fake, '{bad')).toEqual(refused("failed to parse platform: invalid character 'b' looking for beginning of object key string", `failed to parse platform: "{bad" is not JSON; ${EXPECTED}`))
    expect(await push(fake, '{')).toEqual(refused('failed to parse platform: unexpected end of JSON input', `failed to parse platform: "{" is not JSON; ${EXPECTED}`))
  })

  it('JSON that is not an object: cannot unmarshal <kind> into Go value of type v1.Platform', async () => {
    await using fake = make()
    const notObject = (raw: string, kind: string) => refused(`failed to parse platform: json: cannot unmarshal ${kind} into Go value of type v1.Platform`, `failed to parse platform: ${shown(raw)} is not a JSON object; ${EXPECTED}`)
    expect(await push(fake, '"linux/amd64"')).toEqual(notObject('"linux/amd64"', 'string'))
    expect(await push(fake, '[1]')).toEqual(notObject('[1]', 'array'))
    expect(await push(fake, '5')).toEqual(notObject('5', 'number'))
    expect(await push(fake, 'true')).toEqual(notObject('true', 'bool'))
  })

  it("a field of the wrong type: Go's error naming the struct field and its type", async () => {
    await using fake = make()
    const field = (raw: string, name: string, kind: string, type = 'string', list = false) =>
      refused(`failed to parse platform: json: cannot unmarshal ${kind} into Go struct field Platform.${name} of type ${type}`, `failed to parse platform: "${name}" in ${shown(raw)} must be ${list ? 'a list of strings' : 'a string'}; ${EXPECTED}`)
    for (const [raw, name, kind] of [
      ['{"os":"linux","architecture":64}', 'architecture', 'number'],
      ['{"os":1,"architecture":"amd64"}', 'os', 'number'],
      ['{"os":"linux","architecture":"amd64","variant":true}', 'variant', 'bool'],
      ['{"os":"linux","architecture":"amd64","os.version":{}}', 'os.version', 'object'],
    ]) expect(await push(fake, raw)).toEqual(field(raw, name, kind))
    // Keys in any case (Go's encoding/json), named as the daemon's struct tags write them.
    const upper = '{"OS":"linux","Architecture":[1]}'
    expect(await push(fake, upper)).toEqual(field(upper, 'architecture', 'array'))
    // os.features is a list of strings: not a list names the list type, a bad element the element's (the first bad one).
    const notList = '{"os":"linux","architecture":"amd64","os.features":"sse4"}'
    expect(await push(fake, notList)).toEqual(field(notList, 'os.features', 'string', '[]string', true))
    const badElement = '{"os":"linux","architecture":"amd64","os.features":["sse4",null,2,true]}'
    expect(await push(fake, badElement)).toEqual(field(badElement, 'os.features', 'number', 'string', true))
    const nullThenBad = '{"os":"linux","architecture":"amd64","os.features":[null,false]}'
    expect(await push(fake, nullThenBad)).toEqual(field(nullThenBad, 'os.features', 'bool', 'string', true))
  })

  it('os or architecture missing: "both OS and Architecture must be provided", or the optional fields\' words', async () => {
    await using fake = make()
    const both = (raw: string) => refused('both OS and Architecture must be provided', `both OS and Architecture must be provided: platform ${shown(raw)}; ${EXPECTED}`)
    const optional = (raw: string) =>
      refused('optional platform fields provided, but OS and Architecture are missing', `optional platform fields provided, but OS and Architecture are missing: platform ${shown(raw)}; ${EXPECTED}`)
    for (const raw of ['{"os":"linux"}', '{"architecture":"amd64"}', '{}', 'null', '{"os":"","architecture":"amd64"}', '{"os":"linux","variant":"v8"}', '{"architecture":"arm64","variant":"v8"}', '{"os.features":[]}', '{"os":null,"architecture":null}']) {
      expect(await push(fake, raw)).toEqual(both(raw))
    }
    for (const raw of ['{"variant":"v8"}', '{"os.version":"10.0"}', '{"os.features":["sse4"]}']) expect(await push(fake, raw)).toEqual(optional(raw))
  })

  it('shows a platform of more than 100 characters cut to 100 and "..." in the help (the wire keeps Go\'s words)', async () => {
    await using fake = make()
    const of = (n: number) => `{"os":"linux","x":"${'a'.repeat(n - 21)}"}`
    expect(of(100)).toHaveLength(100)
    const hundred = await push(fake, of(100))
    expect(hundred).toEqual(refused('both OS and Architecture must be provided', `both OS and Architecture must be provided: platform ${shown(of(100))}; ${EXPECTED}`))
    const long = await push(fake, of(101))
    expect(long).toEqual(refused('both OS and Architecture must be provided', `both OS and Architecture must be provided: platform ${shown(`${of(101).slice(0, 100)}...`)}; ${EXPECTED}`))
  })

  it('is read from API 1.46 (and on an unversioned path); an older API ignores it, as does an empty one', async () => {
    await using fake = make()
    const bad = refused("failed to parse platform: invalid character 'b' looking for beginning of object key string", `failed to parse platform: "{bad" is not JSON; ${EXPECTED}`)
    expect(await push(fake, '{bad', { version: 'v1.46' })).toEqual(bad)
    expect(await push(fake, '{bad', { version: '' })).toEqual(bad)
    expect(await push(fake, '{bad', { version: 'v1.45' })).toEqual([200, 'stream', undefined])
    expect(await push(fake, '')).toEqual([200, 'stream', undefined])
  })

  it('is read after the reference: a reference the daemon refuses is its 400 whatever the platform', async () => {
    await using fake = make()
    const [status, message] = await push(fake, '{bad', { path: 'Bad_Name' })
    expect([status, message]).toEqual([400, 'invalid reference format: repository name (library/Bad_Name) must be lowercase'])
  })
})

describe('push --platform: the image looked up by it', () => {
  it("the images' own platform passes: the OS in any case, the architecture's aliases, any variant, null and unknown fields", async () => {
    await using fake = make()
    for (const raw of [
      '{"os":"linux","architecture":"amd64"}',
      '{"OS":"Linux","Architecture":"x86_64","variant":"v2"}',
      '{"os":"LINUX","architecture":"AMD64"}',
      '{"os":"linux","architecture":"x86-64"}',
      '{"os":"linux","architecture":"amd64","variant":null,"os.version":null,"os.features":["sse4",null],"other":1}',
    ]) expect([raw, ...(await push(fake, raw))]).toEqual([raw, 200, 'stream', undefined])
  })

  it('another platform: 404 in Engine 28\'s words, naming the image as sent and the platform as FormatAll writes it', async () => {
    await using fake = make()
    const mismatch = (ref: string, wanted: string) => {
      const wire = `image with reference ${ref} was found but its platform (linux/amd64) does not match the specified platform (${wanted})`
      return [404, wire, `${wire}. The fake's images are all linux/amd64: push without --platform, or with --platform linux/amd64.`] as const
    }
    expect(await push(fake, '{"os":"linux","architecture":"arm64"}')).toEqual(mismatch('localhost:5000/team/app:1.0', 'linux/arm64'))
    expect(await push(fake, '{"os":"linux","architecture":"aarch64","variant":"v8"}')).toEqual(mismatch('localhost:5000/team/app:1.0', 'linux/aarch64/v8'))
    expect(await push(fake, '{"os":"windows","architecture":"amd64"}')).toEqual(mismatch('localhost:5000/team/app:1.0', 'windows/amd64'))
    // Without a tag (every tag of the repository is pushed): the repository alone.
    expect(await push(fake, '{"os":"linux","architecture":"arm64"}', { tag: '' })).toEqual(mismatch('localhost:5000/team/app', 'linux/arm64'))
  })

  it('no such image stays the push\'s own answer, whatever the platform', async () => {
    await using fake = make()
    const arm = '{"os":"linux","architecture":"arm64"}'
    expect(await push(fake, arm, { tag: '2.0' })).toEqual([404, 'No such image: localhost:5000/team/app:2.0', undefined])
    expect(await push(fake, arm, { path: 'localhost:5000/team/nope' })).toEqual([404, 'No such image: localhost:5000/team/nope:1.0', undefined])
    const untagged = await push(fake, undefined, { path: 'localhost:5000/team/nope', tag: '' })
    expect(await push(fake, arm, { path: 'localhost:5000/team/nope', tag: '' })).toEqual(untagged)
  })
})
