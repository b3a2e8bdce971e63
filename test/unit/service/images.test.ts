// The image model (src/service/images.ts): references, tags, layers, lookups and refusals word for word.
import { describe, expect, it } from 'vitest'
import { createDockside } from '../../../src/index'
import { pushReferenceProblem, splitReference, type Image } from '../../../src/service/images'

describe('references', () => {
  it('splitReference: a port is not a tag; a digest has no tag', () => {
    expect(['app', 'app:1', 'localhost:5000/app', 'localhost:5000/app:1.0', 'app@sha256:abc', 'a/b:c'].map(splitReference)).toEqual([
      { repository: 'app', tag: undefined },
      { repository: 'app', tag: '1' },
      { repository: 'localhost:5000/app', tag: undefined },
      { repository: 'localhost:5000/app', tag: '1.0' },
      { repository: 'app', tag: undefined },
      { repository: 'a/b', tag: 'c' },
    ])
  })

  it('pushReferenceProblem: digests, bad names and bad tags, word for word', () => {
    expect(pushReferenceProblem('localhost:5000/team/app', '1.0')).toBeUndefined()
    expect(pushReferenceProblem('localhost:5000/team/app:1.0', '')).toBeUndefined()
    expect(pushReferenceProblem('app@sha256:abc', undefined)).toBe('cannot push a digest reference "app@sha256:abc": push by repository and tag, e.g. "localhost:5000/team/app:1.0".')
    expect(pushReferenceProblem('Team/App', undefined)).toBe('invalid reference format "Team/App": expected lower-case [host[:port]/]path[:tag], e.g. "localhost:5000/team/app:1.0".')
    expect(pushReferenceProblem('app:-x', undefined)).toBe('invalid tag format "-x": expected up to 128 characters of [A-Za-z0-9_.-], not starting with "." or "-".')
    expect(pushReferenceProblem('app', '.x')).toBe('invalid tag format ".x": expected up to 128 characters of [A-Za-z0-9_.-], not starting with "." or "-".')
    expect(pushReferenceProblem('app', 'a'.repeat(128))).toBeUndefined()
    expect(pushReferenceProblem('app', 'a'.repeat(129))).toBe(`invalid tag format "${'a'.repeat(129)}": expected up to 128 characters of [A-Za-z0-9_.-], not starting with "." or "-".`)
  })
})

describe('images', () => {
  it('add: tags from the name and the options, latest by default, layer sizes summed, manifest size of a real manifest', async () => {
    await using fake = createDockside()
    const img = fake.images.add('localhost:5000/app:1', { tags: ['2'], layers: [100, 250] })
    expect(fake.images.tagsOf('localhost:5000/app').sort()).toEqual(['1', '2'])
    expect(img.size).toBe(350)
    expect(img.layers.map((l) => l.size)).toEqual([100, 250])
    for (const l of img.layers) expect(l.digest).toBe(`sha256:${l.shortId}${l.digest.slice(19)}`)
    expect(img.id).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(img.manifestDigest).toMatch(/^sha256:[0-9a-f]{64}$/)
    // schemaVersion, mediaType, config and two layers, indented by 3 as the registry writes it: 731 bytes with
    // sizes of 3 digits each (the push fixture's 3_000_000 and 1_000_000, 7 digits each, make 739).
    expect(img.manifestSize).toBe(731)
    const plain = fake.images.add('busybox')
    expect(fake.images.tagsOf('busybox')).toEqual(['latest'])
    expect(plain.layers).toHaveLength(3)
    for (const l of plain.layers) expect(l.size >= 512 * 1024 && l.size <= 12 * 1024 * 1024).toBe(true)
    expect(fake.images.add('one', { layers: 1 }).layers).toHaveLength(1)
    expect(fake.images.add('many', { layers: 127 }).layers).toHaveLength(127)
    expect(fake.images.list().map((x) => `${x.repository}:${x.tag}`)).toEqual(['localhost:5000/app:2', 'localhost:5000/app:1', 'busybox:latest', 'one:latest', 'many:latest'])
  })

  it('refusals, word for word', async () => {
    await using fake = createDockside()
    expect(() => fake.images.add('Bad')).toThrow('Invalid image name "Bad": expected lower-case [host[:port]/]path[:tag], e.g. "localhost:5000/team/app:1.0".')
    expect(() => fake.images.add('app', { tags: ['.x'] })).toThrow('Invalid tag ".x": expected up to 128 characters of [A-Za-z0-9_.-], not starting with "." or "-".')
    for (const n of [0, 128, 1.5]) expect(() => fake.images.add('app', { layers: n })).toThrow(`Invalid layers ${n}: expected a count from 1 to 127 or a list of sizes in bytes.`)
    for (const l of [[], [0], [1.5], [-1], [100, 0], [100, 1.5], [100, -1]]) {
      expect(() => fake.images.add('app', { layers: l })).toThrow(`Invalid layers ${JSON.stringify(l)}: expected a count from 1 to 127 or a non-empty list of positive sizes in bytes (or of { digest: "sha256:<64 hex>", size }).`)
    }
    expect(() => fake.images.tag('nope:1', 'x:1')).toThrow('No such image: nope:1')
    expect(() => fake.images.untag('nope:1')).toThrow('No such image: nope:1')
    expect(fake.images.list()).toEqual([])
  })

  it('tag, untag, resolve by reference or by a unique id prefix', async () => {
    await using fake = createDockside()
    const a = fake.images.add('app:1', { layers: 1 })
    const b = fake.images.add('other', { layers: 1 })
    expect(fake.images.tag('app:1', 'registry.example.com/team/app')).toBe(a)
    expect(fake.images.resolve('registry.example.com/team/app:latest')).toBe(a)
    expect(() => fake.images.tag('app:1', 'Bad:1')).toThrow(/^Invalid image name "Bad"/)
    expect(() => fake.images.tag('app:1', 'ok:-1')).toThrow(/^Invalid tag "-1"/)
    expect(fake.images.resolve('other')).toBe(b)
    expect(fake.images.resolve(a.id)).toBe(a)
    expect(fake.images.resolve(a.id.slice(7, 19))).toBe(a)
    expect(fake.images.resolve(`sha256:${b.id.slice(7, 11)}`)).toBe(b)
    expect(fake.images.resolve(a.id.slice(7, 10))).toBeUndefined()
    // A reference that merely contains "sha256:" is not an id.
    expect(fake.images.resolve(`${a.id.slice(7, 11)}sha256:`)).toBeUndefined()
    expect(fake.images.resolve('app:2')).toBeUndefined()
    fake.images.untag('app:1')
    expect(fake.images.resolve('app:1')).toBeUndefined()
    expect(fake.images.resolve(a.id)).toBe(a)
    fake.images.untag('other')
    expect(fake.images.tagsOf('other')).toEqual([])
    fake.images.clear()
    expect([fake.images.list(), fake.images.resolve(a.id)]).toEqual([[], undefined])
  })

  it('an id prefix two images share resolves to neither (Docker: ambiguous), a longer one to its image', async () => {
    await using fake = createDockside({ seed: 4 })
    const byPrefix = new Map<string, Image>()
    let pair: [Image, Image] | undefined
    for (let i = 0; !pair; i++) {
      const image = fake.images.add(`app${i}`, { layers: [1] })
      const other = byPrefix.get(image.id.slice(7, 11))
      if (other) pair = [other, image]
      byPrefix.set(image.id.slice(7, 11), image)
    }
    const [a, b] = pair
    expect(a.id.slice(7, 11)).toBe(b.id.slice(7, 11))
    expect(fake.images.resolve(a.id.slice(7, 11))).toBeUndefined()
    expect(fake.images.resolve(a.id.slice(7, 23))).toBe(a)
    expect(fake.images.resolve(b.id.slice(7, 23))).toBe(b)
  })

  it('a layer count draws sizes from 512 KiB to 12 MiB, as real image layers', async () => {
    await using fake = createDockside({ seed: 2 })
    const sizes = fake.images.add('app', { layers: 127 }).layers.map((l) => l.size)
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(512 * 1024)
    expect(Math.max(...sizes)).toBeLessThanOrEqual(12 * 1024 * 1024)
    for (const s of sizes) expect(Number.isInteger(s)).toBe(true)
  })
})

describe('unknown option names are refused, naming the allowed ones (a JavaScript typo was ignored)', () => {
  it('bug: c.stop({ exitcode: 137 }) stopped with exit code 0; create and images.add ignored a misspelt option too', () => {
    const fake = createDockside({ seed: 1 })
    const c = fake.containers.create({ name: 'web', image: 'nginx' }).start()
    expect(() => c.stop({ exitcode: 137 } as never)).toThrow('stop: unknown option "exitcode"; allowed: exitCode')
    expect(c.state).toBe('running')
    expect(fake.events.lastSeq).toBe(1)
    expect(() => fake.containers.create({ name: 'x', image: 'nginx', labl: {} } as never)).toThrow('containers.create: unknown option "labl"; allowed: id, name, image, labels, instanceType, networkMode')
    expect(() => fake.images.add('localhost:5000/x', { tag: ['1.0'] } as never)).toThrow('images.add: unknown option "tag"; allowed: tags, layers')
    expect(fake.containers.list().map((x) => x.name)).toEqual(['web'])
    expect(fake.images.list()).toEqual([])
  })
})
