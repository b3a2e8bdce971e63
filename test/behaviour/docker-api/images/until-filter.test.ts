// Mutation testing (docs/contributing/testing-internals.md) of src/protocol/docker/images.ts: the `until` filter of `GET /images/json` reads
// its value as the daemon's timetypes.GetTimestamp does (a Go duration before now, an RFC 3339 date or time, or Unix
// seconds), and only a handful of its values were pinned (by the docker CLI test in engine-answer-shapes).
// These pin what a `docker images --filter until=...` user sees for the rest: durations with fractions of several
// digits, a sign, Go's overflow; Go's calendar (leap years, days per month) and range checks; zone offsets with minutes
// or a minus sign; layouts picked by colons; fractions past nanoseconds; "0"; a clock before 1970; the error's text.
// Found by mutation testing of src/protocol/docker/images.ts (was test/regressions/mutation-docker-images.test.ts).
import { describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'
import type { ProtoRequest } from '../../../../src/protocol/types'

function get(url: string): ProtoRequest {
  return { method: 'GET', url, headers: {}, signal: new AbortController().signal, body: async () => '' }
}

/** `GET /images/json` with `{"until":[until]}`: the status, and the listed tags (or the error's message). */
async function until(fake: Dockside, value: string): Promise<{ status: number; tags?: string[]; message?: string }> {
  const res = await fake.protocol.handle(get(`/v1.47/images/json?filters=${encodeURIComponent(JSON.stringify({ until: [value] }))}`))
  const body = JSON.parse(res.body as string) as { RepoTags: string[] }[] | { message: string }
  if (res.status !== 200) return { status: res.status, message: (body as { message: string }).message }
  return { status: res.status, tags: (body as { RepoTags: string[] }[]).flatMap((i) => i.RepoTags).sort() }
}

/** A fake whose clock starts at 2026-01-01T00:00:00Z with `nginx:latest` made then. */
function fresh(start: number | string = '2026-01-01T00:00:00Z') {
  const fake = createDockside({ clock: { mode: 'virtual', start }, seed: 5 })
  fake.images.add('nginx', { layers: 1 })
  return fake
}

const all = { status: 200, tags: ['nginx:latest'] }
const none = { status: 200, tags: [] }

describe('until as a Go duration before the clock', () => {
  it('adds a fraction of several digits scaled to its unit, and the time is cut to the whole second', async () => {
    await using fake = fresh()
    await fake.clock.advance('2h')
    // 2h - 1h59m58.5s = 00:00:01.5, cut to 00:00:01: nginx (made at 00:00:00) is before it.
    expect(await until(fake, '1h59m58.5s')).toEqual(all)
    // 2h - 1h59m59.25s = 00:00:00.75, cut to 00:00:00: nginx is not before it.
    expect(await until(fake, '1h59m59.25s')).toEqual(none)
    expect(await until(fake, '1h59m59.75s')).toEqual(none)
    expect(await until(fake, '1.5h')).toEqual(all)
    expect(await until(fake, '.25h')).toEqual(all)
    expect(await until(fake, '7199999.999ms')).toEqual(none)
  })

  it('a minus sign makes a time after now', async () => {
    await using fake = fresh()
    expect(await until(fake, '-1h')).toEqual(all)
    expect(await until(fake, '+1h')).toEqual(none)
    expect(await until(fake, '1h')).toEqual(none)
  })

  it('a duration past Go\'s int64 of nanoseconds is no duration: "failed to parse value as time or duration"', async () => {
    await using fake = fresh()
    // 2562047h is about 292 years: a valid duration, so a time before every image.
    expect(await until(fake, '2562047h')).toEqual(none)
    const over = await until(fake, '2562048h')
    expect(over.status).toBe(400)
    expect(over.message).toMatch(/^failed to parse value as time or duration: "2562048h": "until" takes /)
    // The edges of int64: 2^63 ns is one past Go's maximum; -2^63 ns is its minimum, a time far after now.
    expect((await until(fake, '9223372036854775808ns')).status).toBe(400)
    expect(await until(fake, '9223372036854775807ns')).toEqual(none)
    expect(await until(fake, '-9223372036854775808ns')).toEqual(all)
  })

  it('"0" is Unix time 0, as the daemon reads it (not a duration), while "0s" is now', async () => {
    await using fake = fresh()
    await fake.clock.advance('2h')
    expect(await until(fake, '0')).toEqual(none)
    expect(await until(fake, '0s')).toEqual(all)
  })

  it('before 1970 the time is cut down to the whole second, as Go\'s Unix() floors it', async () => {
    // The clock starts at 1969-12-31T23:59:57Z: a at -3 s, b at -2.5 s, now -1 s.
    await using fake = createDockside({ clock: { mode: 'virtual', start: -3000 }, seed: 5 })
    fake.images.add('a', { layers: 1 })
    await fake.clock.advance(500)
    fake.images.add('b', { layers: 1 })
    await fake.clock.advance(1500)
    // -1 s - 1 s = -2 s exactly: both were made before it.
    expect(await until(fake, '1s')).toEqual({ status: 200, tags: ['a:latest', 'b:latest'] })
    // -1 s - 1.5 s = -2.5 s, floored to -3 s: neither was made before it.
    expect(await until(fake, '1.5s')).toEqual(none)
    expect(await until(fake, '500ms')).toEqual({ status: 200, tags: ['a:latest', 'b:latest'] })
    expect(await until(fake, '1500ms')).toEqual(none)
  })
})

describe('until as an RFC 3339 date or time, checked as Go checks it', () => {
  it.each(['2024-02-29', '2000-02-29', '2026-01-31', '2026-04-30', '2026-12-31', '2026-02-28'])('%s is a valid date', async (date) => {
    await using fake = fresh()
    expect((await until(fake, date)).status).toBe(200)
  })

  it.each([
    ['2026-02-29', 'day'],
    ['2100-02-29', 'day'],
    ['1900-02-29', 'day'],
    ['2026-04-31', 'day'],
    ['2026-01-32', 'day'],
    ['2026-01-00', 'day'],
    ['2026-13-01', 'month'],
    ['2026-00-01', 'month'],
    ['2026-01-01T24:00', 'hour'],
    ['2026-01-01T00:60', 'minute'],
    ['2026-01-01T00:00:60', 'second'],
    ['2026-01-01T00:00:00+25:00', 'time zone offset hour'],
    ['2026-01-01T00:00:00+00:61', 'time zone offset minute'],
  ])('%s: %s out of range (400)', async (value, field) => {
    await using fake = fresh()
    const res = await until(fake, value)
    expect(res.status).toBe(400)
    expect(res.message).toContain(`: ${field} out of range; "until" takes `)
  })

  it.each(['2026-01-01T23:00', '2026-01-01T00:59', '2026-01-01T00:00:59', '2026-01-01T00:00:00+24:00', '2026-01-01T00:00:00+00:60', '2026-01-01T00:00:00.5-24:00'])(
    '%s is in range',
    async (value) => {
      await using fake = fresh()
      expect((await until(fake, value)).status).toBe(200)
    },
  )

  it('an offset counts its minutes and its sign', async () => {
    await using fake = fresh()
    // 01:30+01:30 is 00:00Z, when nginx was made: not before it.
    expect(await until(fake, '2026-01-01T01:30:00+01:30')).toEqual(none)
    expect(await until(fake, '2026-01-01T01:30:01+01:30')).toEqual(all)
    // 00:00-00:30 is 00:30Z.
    expect(await until(fake, '2026-01-01T00:00:00-00:30')).toEqual(all)
    expect(await until(fake, '2026-01-01T00:00:00+00:30')).toEqual(none)
  })

  it('the layout is picked by the colons of the time, an offset\'s own colon not counted', async () => {
    await using fake = fresh()
    // 01:01+01:00 is 00:01Z (layout 2006-01-02T15:04Z07:00).
    expect(await until(fake, '2026-01-01T01:01+01:00')).toEqual(all)
    expect(await until(fake, '2026-01-01T01:00+01:00')).toEqual(none)
    // An hour alone, without a zone: UTC, the fake's time zone.
    expect(await until(fake, '2026-01-01T01')).toEqual(all)
    expect(await until(fake, '2026-01-01T00')).toEqual(none)
  })

  it('digits of a fraction past the nanosecond are dropped, as Go drops them', async () => {
    await using fake = fresh()
    await fake.clock.advance('5s')
    fake.images.add('later', { layers: 1 })
    expect(await until(fake, '2026-01-01T00:00:00.9999999999Z')).toEqual(all)
    expect(await until(fake, '2026-01-01T00:00:05.0000000009Z')).toEqual(all)
    expect(await until(fake, '2026-01-01T00:00:05.000001Z')).toEqual({ status: 200, tags: ['later:latest', 'nginx:latest'] })
  })

  it('a value with a "-" that is no date is Go\'s parse error naming the layout tried', async () => {
    await using fake = fresh()
    const res = await until(fake, '2026-01-01T01-01')
    expect(res.status).toBe(400)
    expect(res.message).toMatch(/^parsing time "2026-01-01T01-01" as "2006-01-02T15Z07:00": cannot parse it as that layout; "until" takes a Go duration /)
  })

  it('a long value is shown cut to 60 characters', async () => {
    await using fake = fresh()
    const sixty = `2026-01-01T${'x'.repeat(49)}`
    expect(sixty).toHaveLength(60)
    expect((await until(fake, sixty)).message).toMatch(new RegExp(`^parsing time "${sixty}" as `))
    expect((await until(fake, `${sixty}y`)).message).toMatch(new RegExp(`^parsing time "${sixty}\\.\\.\\." as `))
    const digits = '9'.repeat(61)
    expect((await until(fake, digits)).message).toMatch(new RegExp(`^failed to parse value as time or duration: "${'9'.repeat(60)}\\.\\.\\.": `))
  })
})
