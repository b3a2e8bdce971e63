// What distribution's reference.Parse refuses past its grammar (src/protocol/docker/references.ts): the name's length
// counted as the daemon normalizes it, then the digest as go-digest validates it. Lengths measured against dockerd
// 20.10: a one-part name of 237 characters is the longest (docker.io/library/ makes 255), 238 is refused.
import { describe, expect, it } from 'vitest'
import { daemonReferenceText, referenceLimitError, referenceLimitHint } from '../../../../src/protocol/docker/references'

const TOO_LONG = 'repository name must not be more than 255 characters'
const hex = (n: number) => 'a'.repeat(n)

describe('referenceLimitError', () => {
  it('counts a name as ParseNormalizedNamed hands it to Parse: docker.io/, and library/ before one part', () => {
    expect(referenceLimitError('a'.repeat(237))).toBeUndefined()
    expect(referenceLimitError('a'.repeat(238))).toBe(TOO_LONG)
    // Two parts on Docker Hub: docker.io/ only (10 characters).
    expect(referenceLimitError(`team/${'a'.repeat(240)}`)).toBeUndefined()
    expect(referenceLimitError(`team/${'a'.repeat(241)}`)).toBe(TOO_LONG)
    // A registry host (a `.`, a `:` or localhost) is counted as given; index.docker.io is docker.io.
    expect(referenceLimitError(`localhost:5000/${'b'.repeat(240)}`)).toBeUndefined()
    expect(referenceLimitError(`localhost:5000/${'b'.repeat(241)}`)).toBe(TOO_LONG)
    expect(referenceLimitError(`localhost/${'b'.repeat(245)}`)).toBeUndefined()
    expect(referenceLimitError(`localhost/${'b'.repeat(246)}`)).toBe(TOO_LONG)
    expect(referenceLimitError(`registry.example.com/${'b'.repeat(234)}`)).toBeUndefined()
    expect(referenceLimitError(`registry.example.com/${'b'.repeat(235)}`)).toBe(TOO_LONG)
    expect(referenceLimitError(`index.docker.io/${'c'.repeat(237)}`)).toBeUndefined()
    expect(referenceLimitError(`index.docker.io/${'c'.repeat(238)}`)).toBe(TOO_LONG)
    expect(referenceLimitError(`docker.io/library/${'c'.repeat(238)}`)).toBe(TOO_LONG)
    // The tag and the digest do not count.
    expect(referenceLimitError(`${'a'.repeat(237)}:${'t'.repeat(128)}`)).toBeUndefined()
    expect(referenceLimitError(`${'a'.repeat(237)}@sha256:${hex(64)}`)).toBeUndefined()
  })

  it('then validates the digest: the algorithm, its length, lower-case hex', () => {
    expect(referenceLimitError(`app@sha256:${hex(64)}`)).toBeUndefined()
    expect(referenceLimitError(`app@sha384:${hex(96)}`)).toBeUndefined()
    expect(referenceLimitError(`app@sha512:${hex(128)}`)).toBeUndefined()
    expect(referenceLimitError(`app@sha256:${hex(32)}`)).toBe('invalid checksum digest length')
    expect(referenceLimitError(`app@sha256:${hex(65)}`)).toBe('invalid checksum digest length')
    expect(referenceLimitError(`app@sha512:${hex(64)}`)).toBe('invalid checksum digest length')
    expect(referenceLimitError(`app@sha256:${'A'.repeat(64)}`)).toBe('invalid checksum digest format')
    expect(referenceLimitError(`app@sha256:${hex(63)}A`)).toBe('invalid checksum digest format')
    expect(referenceLimitError(`app@sha256:A${hex(63)}`)).toBe('invalid checksum digest format')
    expect(referenceLimitError(`app@md5:${hex(32)}`)).toBe('unsupported digest algorithm')
    expect(referenceLimitError(`app:1.0@sha256:${hex(32)}`)).toBe('invalid checksum digest length')
    // The name's length is checked before the digest.
    expect(referenceLimitError(`${'a'.repeat(238)}@sha256:${hex(32)}`)).toBe(TOO_LONG)
  })

  it('leaves what the grammar refuses to the callers: undefined', () => {
    for (const ref of ['UPPER', `${'A'.repeat(300)}`, 'a//b', 'app:', 'app:bad!tag', `app@sha256:${hex(31)}`, 'app@1sha:' + hex(64), 'app@sha256:zz', `${'a'.repeat(300)}:bad!`]) {
      expect(referenceLimitError(ref), ref).toBeUndefined()
    }
  })
})

describe('referenceLimitHint', () => {
  it('names the repository as the daemon counts it, and how long it is', () => {
    expect(referenceLimitHint('a'.repeat(238), TOO_LONG)).toBe(`${TOO_LONG}: "${'a'.repeat(77)}..." names the repository "docker.io/library/${'a'.repeat(59)}...", 256 characters as the daemon counts it (with docker.io/ and library/ before a Docker Hub name).`)
    expect(referenceLimitHint(`x.io/${'b'.repeat(251)}:1`, TOO_LONG)).toMatch(/, 256 characters as the daemon counts it/)
  })
  it('cuts the reference and the name past 80 characters, not at 80', () => {
    const at80 = `x.io/${'b'.repeat(75)}`
    expect(referenceLimitHint(at80, TOO_LONG)).toBe(`${TOO_LONG}: "${at80}" names the repository "${at80}", 80 characters as the daemon counts it (with docker.io/ and library/ before a Docker Hub name).`)
    expect(referenceLimitHint(`${at80}@sha256:${hex(64)}`, TOO_LONG)).toMatch(new RegExp(`names the repository "${at80}", 80 characters`))
  })

  it('says what a digest must be', () => {
    expect(referenceLimitHint(`app@sha256:${hex(32)}`, 'invalid checksum digest length')).toBe(`invalid checksum digest length: the digest "sha256:${hex(32)}" after "@" must be sha256:<64 hex digits> (or sha384:<96>, sha512:<128>), in lower case.`)
  })
})

describe('daemonReferenceText: what the daemon says of a push or tag name it refuses', () => {
  it('a bare 64-hex name, only when exactly that', () => {
    expect(daemonReferenceText(hex(64), undefined, '1.47')).toBe(`invalid repository name (${hex(64)}), cannot specify 64-byte hexadecimal strings`)
    expect(daemonReferenceText(`x${hex(64)}`, undefined, '1.47')).toBe('invalid reference format')
    expect(daemonReferenceText(`${hex(64)}x`, undefined, '1.47')).toBe('invalid reference format')
  })
  it('an upper-case path: distribution 2.8 names no repository (API 1.43 and older), distribution/reference names it', () => {
    expect(daemonReferenceText('UPPER', undefined, '1.41')).toBe('invalid reference format: repository name must be lowercase')
    expect(daemonReferenceText('UPPER', undefined, '1.44')).toBe('invalid reference format: repository name (library/UPPER) must be lowercase')
    expect(daemonReferenceText('team/App:1', undefined, '1.44')).toBe('invalid reference format: repository name (team/App) must be lowercase')
    expect(daemonReferenceText('localhost:5000/Team/app', undefined, '1.44')).toBe('invalid reference format: repository name (Team/app) must be lowercase')
    expect(daemonReferenceText('x.io/App', undefined, '1.41')).toBe('invalid reference format: repository name must be lowercase')
  })
  it('an upper-case first part is a registry host from API 1.44 (splitDockerDomain), a path before', () => {
    expect(daemonReferenceText('Team/app', undefined, '1.41')).toBe('invalid reference format: repository name must be lowercase')
    expect(daemonReferenceText('Team/app', undefined, '1.44')).toBe('invalid reference format')
  })
  it('a tag query the daemon refuses after a name it takes', () => {
    expect(daemonReferenceText('app', 'bad!', '1.47')).toBe('invalid tag format')
    expect(daemonReferenceText('app:', 'bad!', '1.47')).toBe('invalid reference format')
    // The name is parsed first (RepoTagReference): a name it refuses is that refusal, whatever the tag.
    expect(daemonReferenceText('a//b', 'bad!', '1.47')).toBe('invalid reference format')
    expect(daemonReferenceText('app:1', 'bad!', '1.47')).toBe('invalid tag format')
  })
})
