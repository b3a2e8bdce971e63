// The protocol's HTTP helpers (src/protocol/http.ts, limits.ts): the one table from errors to statuses
// (docs/errors.md), the JSON and text answers, request-target parsing, and the byte limits (docs/api.md).
import { describe, expect, it } from 'vitest'
import { ConflictError, DocksideError, FieldError, InvalidFilterError, InvalidInputError, NotFoundError, ScenarioError } from '../../../src/service/errors'
import { errorResponse, json, jsonError, parseTarget, statusOf, targetOf, text } from '../../../src/protocol/http'
import { backlogReason, BodyTooLargeError, readCappedText, resolveLimits, showBytes, toBytes } from '../../../src/protocol/limits'

describe('statusOf: the one table from errors to statuses (docs/errors.md)', () => {
  it.each([
    [new NotFoundError('x'), 404],
    [new BodyTooLargeError(1024), 413],
    [new ConflictError('x'), 409],
    [new InvalidInputError('x'), 400],
    [new InvalidFilterError('x'), 400],
    [new FieldError('x', 'y'), 400],
    [new RangeError('x'), 400],
    [new ScenarioError('f.yaml', 'x', 'y'), 400],
    [new TypeError('x'), 500],
    [new Error('x'), 500],
    ['a string', 500],
  ])('%s is %i', (error, status) => {
    expect(statusOf(error)).toBe(status)
  })
  it('every DocksideError is a client error', () => {
    expect(statusOf(new DocksideError('DOCKSIDE_OTHER', 'x'))).toBe(400)
  })
})

describe('answers', () => {
  it('json(): exact Content-Type (no charset, as the docker CLI needs) and the UTF-8 byte length', () => {
    expect(json(201, { a: 'é' }, { 'x-extra': '1' })).toEqual({ status: 201, headers: { 'content-type': 'application/json', 'content-length': '10', 'x-extra': '1' }, body: '{"a":"é"}' })
    expect(jsonError(404, 'No such image: x')).toEqual({ status: 404, headers: { 'content-type': 'application/json', 'content-length': '30' }, body: '{"message":"No such image: x"}' })
  })
  it('text(): plain text in UTF-8', () => {
    expect(text(200, 'OK€', { pragma: 'no-cache' })).toEqual({ status: 200, headers: { 'content-type': 'text/plain; charset=utf-8', 'content-length': '5', pragma: 'no-cache' }, body: 'OK€' })
  })
  it('errorResponse(): the message as is for domain errors, "internal error: " for the rest, Connection: close after a body too large', () => {
    expect(errorResponse(new NotFoundError('No such container: x'))).toEqual(jsonError(404, 'No such container: x'))
    expect(errorResponse(new TypeError('boom'))).toEqual(jsonError(500, 'internal error: boom'))
    expect(errorResponse('thrown text')).toEqual(jsonError(500, 'internal error: thrown text'))
    const tooLarge = errorResponse(new BodyTooLargeError(1024 * 1024))
    expect(tooLarge.status).toBe(413)
    expect(tooLarge.headers.connection).toBe('close')
    expect(JSON.parse(tooLarge.body).message).toBe("The request body is over the 1 MiB (1048576 bytes) limit. Send a smaller body, or raise the limit: createDockside({ maxBodySize: '8MiB' }) or dockside serve --max-body-size 8MiB.")
    expect(errorResponse(new InvalidInputError('bad')).headers.connection).toBeUndefined()
  })
})

describe('parseTarget', () => {
  it('strips a /v<digits.> version prefix followed by a path, and keeps it', () => {
    expect(parseTarget('/v1.47/images/json')).toMatchObject({ path: '/images/json', version: '1.47' })
    expect(parseTarget('/v1/_ping')).toMatchObject({ path: '/_ping', version: '1' })
    expect(parseTarget('/v1.2.3/info?x=1')).toMatchObject({ path: '/info', version: '1.2.3' })
    expect(parseTarget('/v1.47')).toMatchObject({ path: '/v1.47', version: undefined })
    expect(parseTarget('/version')).toMatchObject({ path: '/version', version: undefined })
    expect(parseTarget('/x/v1.47/info')).toMatchObject({ path: '/x/v1.47/info', version: undefined })
    expect(parseTarget('/v1.x/info')).toMatchObject({ path: '/v1.x/info', version: undefined })
  })
  it('decodes query keys and values (+ as space, raw JSON too, as Go reads them), keeps the first of a repeated key, skips empty parts', () => {
    const { path, query } = parseTarget('/events?a=x+y%21&&flag&a=second&filters={"event":["a+b"]}&list=[1+2]&bad=%E0%A4%A&k%20ey=v&=empty')
    expect(path).toBe('/events')
    expect(Object.fromEntries(query)).toEqual({ a: 'x y!', flag: '', filters: '{"event":["a b"]}', list: '[1 2]', bad: '%E0%A4%A', 'k ey': 'v', '': 'empty' })
    expect([...query.keys()]).toEqual(['a', 'flag', 'filters', 'list', 'bad', 'k ey', ''])
    expect(parseTarget('/events?').query.size).toBe(0)
    expect(parseTarget('/events').query.size).toBe(0)
    expect(parseTarget('/a?since=1?2').query.get('since')).toBe('1?2')
  })
})

describe('targetOf: parseTarget remembered per URL', () => {
  it('gives what parseTarget gives for each URL, the same object for a URL seen again, and stays right past its 256', () => {
    const urls = Array.from({ length: 300 }, (_, i) => `/v1.4${i % 10}/events?filters=%7B%22label%22%3A%5B%22n%3D${i}%22%5D%7D&client=c${i}`)
    for (const url of urls) expect(targetOf(url)).toEqual(parseTarget(url))
    expect(targetOf(urls[299])).toBe(targetOf(urls[299]))
    // The first URLs were forgotten (the last 256 are kept): parsed again, still right.
    expect(targetOf(urls[0])).toEqual(parseTarget(urls[0]))
    expect(targetOf(urls[0]).query.get('filters')).toBe('{"label":["n=0"]}')
    expect(targetOf(urls[1]).query.get('client')).toBe('c1')
  })
})

describe('limits', () => {
  it('toBytes takes whole bytes or a size with a unit (any case, spaces around)', () => {
    expect(toBytes(1, 'x')).toBe(1)
    expect(toBytes('512KiB', 'x')).toBe(524288)
    expect(toBytes('4MiB', 'x')).toBe(4194304)
    expect(toBytes(' 1 GB ', 'x')).toBe(1e9)
    expect(toBytes('1.5kb', 'x')).toBe(1500)
    expect(toBytes('2gib', 'x')).toBe(2 * 1024 ** 3)
    expect(toBytes('3MB', 'x')).toBe(3e6)
    expect(toBytes('10b', 'x')).toBe(10)
    expect(toBytes('10', 'x')).toBe(10)
    expect(toBytes('1.9', 'x')).toBe(1)
  })
  it.each([0, -1, 1.5, Number.MAX_SAFE_INTEGER + 2, '0', '1TB', 'KiB', '1 2', '0.5', '-1MiB', ''])('toBytes refuses %j, naming the option', (bad) => {
    expect(() => toBytes(bad, 'maxBacklog')).toThrow(new RangeError(`Invalid maxBacklog ${JSON.stringify(bad)}: expected a whole number of bytes above 0, or a size like "512KiB", "4MiB", "1GB".`))
  })
  it('showBytes names the largest binary unit that divides evenly', () => {
    expect(showBytes(1048576)).toBe('1 MiB (1048576 bytes)')
    expect(showBytes(4 * 1024 ** 3)).toBe('4 GiB (4294967296 bytes)')
    expect(showBytes(1536 * 1024 * 1024)).toBe('1.5 GiB (1610612736 bytes)')
    expect(showBytes(524288)).toBe('512 KiB (524288 bytes)')
    expect(showBytes(1536)).toBe('1.5 KiB (1536 bytes)')
    expect(showBytes(1024)).toBe('1 KiB (1024 bytes)')
    expect(showBytes(1023)).toBe('1023 bytes')
  })
  it('resolveLimits: 1 MiB bodies and 4 MiB backlog by default', () => {
    expect(resolveLimits()).toEqual({ maxBodySize: 1048576, maxBacklog: 4194304 })
    expect(resolveLimits({ maxBodySize: '8MiB', maxBacklog: 100 })).toEqual({ maxBodySize: 8388608, maxBacklog: 100 })
    expect(() => resolveLimits({ maxBodySize: 0 })).toThrow(/^Invalid maxBodySize 0:/)
  })
  it('BodyTooLargeError carries its code and limit; backlogReason names the limit', () => {
    const e = new BodyTooLargeError(2048)
    expect([e.name, e.code, e.limit]).toEqual(['BodyTooLargeError', 'DOCKSIDE_BODY_TOO_LARGE', 2048])
    expect(e.message).toMatch(/^The request body is over the 2 KiB \(2048 bytes\) limit\./)
    expect(backlogReason(4194304)).toBe('client too slow: over 4194304 bytes queued (maxBacklog); reconnect with since to resume')
  })
  it('readCappedText decodes UTF-8 split across chunks and stops past the cap', async () => {
    async function* chunks(...parts: number[][]) {
      for (const p of parts) yield new Uint8Array(p)
    }
    // "é€" split inside both characters.
    expect(await readCappedText(chunks([0xc3], [0xa9, 0xe2, 0x82], [0xac]), 5)).toBe('é€')
    expect(await readCappedText(chunks([0x61, 0x62]))).toBe('ab')
    expect(await readCappedText(null)).toBe('')
    expect(await readCappedText(undefined, 1)).toBe('')
    await expect(readCappedText(chunks([0x61, 0x62], [0x63]), 2)).rejects.toThrow(BodyTooLargeError)
    await expect(readCappedText(chunks([0x61, 0x62, 0x63]), 2)).rejects.toMatchObject({ limit: 2 })
  })
})

describe('TransportReset (docs/errors.md: DOCKSIDE_RESET)', () => {
  it('carries its code and a default message', async () => {
    const { TransportReset } = await import('../../../src/protocol/types')
    expect([new TransportReset().message, new TransportReset().code, new TransportReset('x').message]).toEqual(['connection reset by the fake', 'DOCKSIDE_RESET', 'x'])
  })
})
