import { describe, expect, it } from 'vitest'
import { compileFilters, InvalidFilterError, parseFilters, type FilterSubject } from '../../../src/index'
import { stripTag } from '../../../src/service/filters'

const subject = (over: Partial<FilterSubject> = {}): FilterSubject => ({
  action: 'start',
  id: 'f29698ca1b2c3d4e5f60718293a4b5c6d7e8f9011223344556677889900aabbcc',
  name: 'web',
  image: 'nginx:1.27',
  labels: {},
  ...over,
})

/** Parses and compiles a filters value given as an object (as a client would JSON-encode it). */
const match = (filters: object, s: FilterSubject) => compileFilters(parseFilters(JSON.stringify(filters))).matches(s)

describe('parseFilters', () => {
  it('reads nothing as no filters', () => {
    expect(parseFilters(undefined)).toEqual({})
    expect(parseFilters(null)).toEqual({})
    expect(parseFilters('')).toEqual({})
    expect(parseFilters('{}')).toEqual({})
  })

  it('accepts the object-of-true and the list spellings alike', () => {
    expect(parseFilters('{"event":{"start":true}}')).toEqual({ event: ['start'] })
    expect(parseFilters('{"event":["start"]}')).toEqual({ event: ['start'] })
    expect(parseFilters('{"container":{"web":true,"api":true},"label":["a=b"]}')).toEqual({ container: ['web', 'api'], label: ['a=b'] })
  })

  it('refuses invalid JSON, naming it and showing the expected shape', () => {
    const e = (() => {
      try {
        parseFilters('{"event":')
      } catch (error) {
        return error
      }
    })()
    expect(e).toBeInstanceOf(InvalidFilterError)
    expect((e as Error).message).toMatch(/not valid JSON/)
    expect((e as Error).message).toMatch(/Expected an object like/)
  })

  it.each([
    ['[]', /an array/],
    ['null', /null/],
    ['"event"', /string/],
    ['42', /number/],
  ])('refuses a filters value that is not an object: %s', (raw, what) => {
    expect(() => parseFilters(raw)).toThrow(InvalidFilterError)
    expect(() => parseFilters(raw)).toThrow(what)
    expect(() => parseFilters(raw)).toThrow(/Allowed filter names: container, event, image, label/)
  })

  it('refuses an unknown filter name and lists the allowed names', () => {
    expect(() => parseFilters('{"type":["container"]}')).toThrow(InvalidFilterError)
    expect(() => parseFilters('{"type":["container"]}')).toThrow('Invalid filter "type". Allowed filter names: container, event, image, label.')
  })

  it('refuses an event this service does not emit and lists start, stop', () => {
    for (const raw of ['{"event":["die"]}', '{"event":{"create":true}}']) {
      expect(() => parseFilters(raw)).toThrow(InvalidFilterError)
      expect(() => parseFilters(raw)).toThrow(/Allowed values: start, stop\./)
    }
  })

  it.each([
    ['{"event":"start"}', /expected an object of booleans like .* or a list of strings/],
    ['{"event":true}', /expected an object of booleans/],
    ['{"event":null}', /expected an object of booleans/],
    ['{"label":[1]}', /a list must hold only strings/],
    ['{"label":{"a":"yes"}}', /an object must map values to true or false/],
    ['{"container":{"web":1}}', /an object must map values to true or false/],
  ])('refuses a value of the wrong shape: %s', (raw, what) => {
    expect(() => parseFilters(raw)).toThrow(InvalidFilterError)
    expect(() => parseFilters(raw)).toThrow(what)
  })

  it('gives a 400-class error with a code', () => {
    try {
      parseFilters('{"nope":[]}')
      expect.unreachable()
    } catch (error) {
      expect((error as InvalidFilterError).code).toBe('DOCKSIDE_INVALID_FILTER')
    }
  })
})

describe('compileFilters: container', () => {
  const s = subject({ name: 'webserver' })
  it('matches the full id, an id prefix, the name and a name prefix', () => {
    expect(match({ container: [s.id] }, s)).toBe(true)
    expect(match({ container: [s.id.slice(0, 12)] }, s)).toBe(true)
    expect(match({ container: ['webserver'] }, s)).toBe(true)
    expect(match({ container: ['web'] }, s)).toBe(true)
  })
  it('does not match something that is neither a prefix of the id nor of the name', () => {
    expect(match({ container: ['server'] }, s)).toBe(false)
    expect(match({ container: ['f29698cb'] }, s)).toBe(false)
    expect(match({ container: ['webserver2'] }, s)).toBe(false)
  })
  it('ORs several values', () => {
    expect(match({ container: ['api', 'web'] }, s)).toBe(true)
    expect(match({ container: { api: true, db: true } }, s)).toBe(false)
  })
})

describe('compileFilters: event', () => {
  it('matches the action exactly', () => {
    expect(match({ event: ['start'] }, subject({ action: 'start' }))).toBe(true)
    expect(match({ event: ['start'] }, subject({ action: 'stop' }))).toBe(false)
    expect(match({ event: { start: true, stop: true } }, subject({ action: 'stop' }))).toBe(true)
  })
  it('indexes the subscriber by kind', () => {
    expect(compileFilters(parseFilters('{"event":["stop"]}')).kinds).toEqual(['stop'])
    expect(compileFilters(parseFilters('{}')).kinds).toBeUndefined()
  })
})

describe('compileFilters: image (tag stripping)', () => {
  it('matches exactly or with the event image tag stripped', () => {
    expect(match({ image: ['alpine'] }, subject({ image: 'alpine:latest' }))).toBe(true)
    expect(match({ image: ['alpine:latest'] }, subject({ image: 'alpine:latest' }))).toBe(true)
    expect(match({ image: ['alpine'] }, subject({ image: 'alpine' }))).toBe(true)
  })
  it('does not strip the filter side: alpine:latest does not match an event for alpine', () => {
    expect(match({ image: ['alpine:latest'] }, subject({ image: 'alpine' }))).toBe(false)
    expect(match({ image: ['alpine:3'] }, subject({ image: 'alpine:latest' }))).toBe(false)
  })
  it('treats a registry port as part of the name, not a tag', () => {
    expect(match({ image: ['localhost:5000/app'] }, subject({ image: 'localhost:5000/app:1' }))).toBe(true)
    expect(match({ image: ['localhost:5000/app'] }, subject({ image: 'localhost:5000/app' }))).toBe(true)
    expect(match({ image: ['localhost:5000/app:1'] }, subject({ image: 'localhost:5000/app' }))).toBe(false)
    expect(match({ image: ['localhost'] }, subject({ image: 'localhost:5000/app' }))).toBe(false)
    expect(match({ image: ['localhost:5000'] }, subject({ image: 'localhost:5000/app:1' }))).toBe(false)
  })
  it('is not a prefix match', () => {
    expect(match({ image: ['alp'] }, subject({ image: 'alpine:latest' }))).toBe(false)
  })
  it("reads the event's image by its familiar name, as the Engine's stripTag (FamiliarName of ParseNormalizedNamed)", () => {
    for (const image of ['docker.io/library/nginx:1.27', 'library/nginx', 'index.docker.io/library/nginx', `nginx@sha256:${'0'.repeat(64)}`, 'nginx']) {
      expect(match({ image: ['nginx'] }, subject({ image })), image).toBe(true)
    }
    // The filter side is not normalised: only an event whose image attribute is that very text.
    expect(match({ image: ['docker.io/library/nginx'] }, subject({ image: 'docker.io/library/nginx:1.27' }))).toBe(false)
    expect(match({ image: ['docker.io/library/nginx:1.27'] }, subject({ image: 'docker.io/library/nginx:1.27' }))).toBe(true)
    expect(match({ image: ['team/app'] }, subject({ image: 'docker.io/team/app:2' }))).toBe(true)
    expect(match({ image: ['registry-1.docker.io/library/nginx'] }, subject({ image: 'registry-1.docker.io/library/nginx:1' }))).toBe(true)
    expect(match({ image: ['nginx'] }, subject({ image: 'registry-1.docker.io/library/nginx:1' }))).toBe(false)
  })
  it("matches the event's actor id exactly, as the Engine's matchImage does (a container event's actor is the container)", () => {
    const e = subject({ image: 'nginx' })
    expect(match({ image: [e.id] }, e)).toBe(true)
    expect(match({ image: [e.id.slice(0, 12)] }, e)).toBe(false)
  })
  it('stripTag keeps ports and drops tags and digests', () => {
    expect(stripTag('localhost:5000/app')).toBe('localhost:5000/app')
    expect(stripTag('localhost:5000/app:1')).toBe('localhost:5000/app')
    expect(stripTag('busybox@sha256:abc')).toBe('busybox')
    expect(stripTag('busybox:1@sha256:abc')).toBe('busybox')
  })
})

describe('compileFilters: label', () => {
  const s = subject({ labels: { app: 'web', empty: '', eq: 'b=c', tier: 'frontend' } })
  it('`key` means the label exists, empty value included', () => {
    expect(match({ label: ['app'] }, s)).toBe(true)
    expect(match({ label: ['empty'] }, s)).toBe(true)
    expect(match({ label: ['missing'] }, s)).toBe(false)
  })
  it('`key=value` compares the value exactly', () => {
    expect(match({ label: ['app=web'] }, s)).toBe(true)
    expect(match({ label: ['app=api'] }, s)).toBe(false)
    expect(match({ label: ['app=we'] }, s)).toBe(false)
    expect(match({ label: ['empty='] }, s)).toBe(true)
    expect(match({ label: ['app='] }, s)).toBe(false)
  })
  it('splits on the first `=`', () => {
    expect(match({ label: ['eq=b=c'] }, s)).toBe(true)
    expect(match({ label: ['eq=b'] }, s)).toBe(false)
    expect(match({ label: ['eq'] }, subject({ labels: { 'eq=b': 'c' } }))).toBe(false)
  })
  it('needs every label to match (AND, unlike other names)', () => {
    expect(match({ label: ['app=web', 'tier=frontend'] }, s)).toBe(true)
    expect(match({ label: ['app=web', 'tier=backend'] }, s)).toBe(false)
    expect(match({ label: { app: true, missing: true } }, s)).toBe(false)
  })
  it('does not see inherited object properties as labels', () => {
    expect(match({ label: ['constructor'] }, s)).toBe(false)
    expect(match({ label: ['toString'] }, s)).toBe(false)
  })
})

describe('compileFilters: combining', () => {
  const s = subject({ name: 'web', image: 'nginx:1.27', labels: { app: 'web' } })
  it('ANDs different names', () => {
    expect(match({ container: ['web'], event: ['start'], image: ['nginx'], label: ['app=web'] }, s)).toBe(true)
    expect(match({ container: ['web'], event: ['stop'] }, s)).toBe(false)
    expect(match({ container: ['web'], image: ['busybox'] }, s)).toBe(false)
    expect(match({ container: ['api'], label: ['app=web'] }, s)).toBe(false)
  })
  it('matches everything with no filters', () => {
    expect(match({}, s)).toBe(true)
    expect(match({ event: [] }, s)).toBe(true)
    expect(match({ container: {} }, s)).toBe(true)
  })
  it('`x: false` does not select x', () => {
    expect(match({ event: { start: false, stop: true } }, subject({ action: 'start' }))).toBe(false)
    expect(match({ event: { start: false, stop: true } }, subject({ action: 'stop' }))).toBe(true)
    expect(match({ container: { web: false, api: true } }, s)).toBe(false)
  })
  it('a name given only with `false` values selects nothing (as Docker: the set is not empty)', () => {
    expect(match({ event: { start: false } }, subject({ action: 'start' }))).toBe(false)
    expect(match({ event: { start: false } }, subject({ action: 'stop' }))).toBe(false)
    expect(match({ container: { web: false } }, s)).toBe(false)
    expect(match({ label: { app: false } }, s)).toBe(false)
    expect(match({ image: { nginx: false } }, s)).toBe(false)
  })
})
