// HYPER-HMAC-SHA256 as docs/docker-compat.md ("Signed requests") and PROTOCOL.md describe it, checked against
// literal canonical requests written from that description and an HMAC chain computed here with node:crypto,
// independently of src/protocol/signing.ts.
import { createHash, createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { canonicalize, checkSignature, normQuery, normUri, signHyperRequest, timingSafeEqual, type SignableRequest } from '../../../src/protocol/signing'

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')
const EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
/** kDate = HMAC("HYPER" + secret, yyyymmdd) ... Signature = hex(HMAC(HMAC(kService, "hyper_request"), StringToSign)). */
function signature(secret: string, date: string, region: string, service: string, stringToSign: string) {
  let key: Buffer = createHmac('sha256', `HYPER${secret}`).update(date).digest()
  for (const part of [region, service, 'hyper_request']) key = createHmac('sha256', key).update(part).digest()
  return createHmac('sha256', key).update(stringToSign).digest('hex')
}

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0)
const DATE = '20260101T120000Z'

describe('normuri and normquery', () => {
  it('normuri: decoded path, empty segments and the leading slash dropped, each byte outside A-Za-z0-9-_.~ escaped in upper-case hex', () => {
    expect(normUri('/')).toBe('')
    expect(normUri('/09AZaz-_.~')).toBe('09AZaz-_.~')
    expect(normUri('/:@[`{/!*\'()')).toBe('%3A%40%5B%60%7B/%21%2A%27%28%29')
    expect(normUri('/a+b/é/f g//x%2Fy/')).toBe('a%2Bb/%C3%A9/f%20g/x/y')
    expect(normUri('/a\tb/a\x1fb')).toBe('a%09b/a%1Fb')
    // A bad escape: the path as sent.
    expect(normUri('/a%zz/b')).toBe('a%25zz/b')
  })
  it("normquery: Go's ParseQuery + Encode, keys sorted by bytes, values in the order sent, spaces as %20", () => {
    expect(normQuery('')).toBe('')
    expect(normQuery('a=1&&b=2&')).toBe('a=1&b=2')
    expect(normQuery('x;y=1&b=2&c=3;')).toBe('b=2')
    expect(normQuery('flag&a=')).toBe('a=&flag=')
    expect(normQuery('a=%zz&b=1&%zz=2')).toBe('b=1')
    expect(normQuery('a=2&a=1&a=3')).toBe('a=2&a=1&a=3')
    expect(normQuery('~=4&a=2&_=3&B=1')).toBe('B=1&_=3&a=2&~=4')
    expect(normQuery('k=a%2Bb&j=a+b&i=a%20b')).toBe('i=a%20b&j=a%20b&k=a%2Bb')
    expect(normQuery('é=ü&=v&m=x=y')).toBe('=v&m=x%3Dy&%C3%A9=%C3%BC')
    expect(normQuery('a+b=1&k%20y=2')).toBe('a%20b=1&k%20y=2')
  })
})

describe('the canonical request and string to sign', () => {
  it('are laid out as documented: method, normuri, normquery, trimmed signed headers (host without :443), names, body hash', async () => {
    const req: SignableRequest = {
      method: 'get',
      url: '/v1.23//events/ws?b=2&a=x+y',
      headers: { host: 'us-west-1.hyper.sh:443', 'content-type': '  application/json ', 'x-hyper-date': DATE },
    }
    const { canonicalRequest, stringToSign } = await canonicalize(req, 'content-type;host;x-hyper-date;x-missing', '20260101/us-west-1/hyper/hyper_request', EMPTY)
    const expected = `GET\nv1.23/events/ws\na=x%20y&b=2\ncontent-type:application/json\nhost:us-west-1.hyper.sh\nx-hyper-date:${DATE}\nx-missing:\n\ncontent-type;host;x-hyper-date;x-missing\n${EMPTY}`
    expect(canonicalRequest).toBe(expected)
    expect(stringToSign).toBe(`HYPER-HMAC-SHA256\n${DATE}\n20260101/us-west-1/hyper/hyper_request\n${sha256(expected)}`)
  })
  it('keep any host port but 80 and 443, and a path without a query', async () => {
    const at = (host: string) => canonicalize({ method: 'GET', url: '/info', headers: { host } }, 'host', 's', 'h')
    expect((await at('h.example:80')).canonicalRequest).toBe('GET\ninfo\n\nhost:h.example\n\nhost\nh')
    expect((await at('h.example:8080')).canonicalRequest).toBe('GET\ninfo\n\nhost:h.example:8080\n\nhost\nh')
    expect((await at('h.example:4431')).canonicalRequest).toBe('GET\ninfo\n\nhost:h.example:4431\n\nhost\nh')
    // Only the host header loses its port.
    const other = await canonicalize({ method: 'GET', url: '/info', headers: { 'x-hyper-origin': 'h.example:80' } }, 'x-hyper-origin', 's', 'h')
    expect(other.canonicalRequest).toBe('GET\ninfo\n\nx-hyper-origin:h.example:80\n\nx-hyper-origin\nh')
    // No X-Hyper-Date: an empty line in its place.
    expect((await at('h')).stringToSign).toBe(`HYPER-HMAC-SHA256\n\ns\n${sha256('GET\ninfo\n\nhost:h\n\nhost\nh')}`)
  })
})

describe('signHyperRequest signs as hypercli does', () => {
  it('date without milliseconds, default region and content type, the signed headers chosen by name, the HMAC chain', async () => {
    const req = { method: 'POST', url: '/events/ws?a=1', headers: { host: 'h.example', 'user-agent': 'x', 'content-md5': 'abc', 'x-hyper-extra': ' e ' }, body: '{"a":1}' }
    const out = await signHyperRequest(req, { accessKey: 'AK', secretKey: 'SK', date: NOW + 123 })
    const hash = sha256('{"a":1}')
    const signed = 'content-md5;content-type;host;x-hyper-content-sha256;x-hyper-date;x-hyper-extra'
    const canonical = `POST\nevents/ws\na=1\ncontent-md5:abc\ncontent-type:application/json\nhost:h.example\nx-hyper-content-sha256:${hash}\nx-hyper-date:${DATE}\nx-hyper-extra:e\n\n${signed}\n${hash}`
    const toSign = `HYPER-HMAC-SHA256\n${DATE}\n20260101/us-west-1/hyper/hyper_request\n${sha256(canonical)}`
    expect(out).toEqual({
      authorization: `HYPER-HMAC-SHA256 Credential=AK/20260101/us-west-1/hyper/hyper_request, SignedHeaders=${signed}, Signature=${signature('SK', '20260101', 'us-west-1', 'hyper', toSign)}`,
      'x-hyper-date': DATE,
      'x-hyper-content-sha256': hash,
      'content-type': 'application/json',
    })
  })
  it('keeps a given content type and region; no body hashes as empty', async () => {
    const out = await signHyperRequest({ method: 'GET', url: '/', headers: { 'content-type': 'text/plain' } }, { accessKey: 'AK', secretKey: 'SK', region: 'eu-central-1', date: new Date(NOW) })
    const canonical = `GET\n\n\ncontent-type:text/plain\nx-hyper-content-sha256:${EMPTY}\nx-hyper-date:${DATE}\n\ncontent-type;x-hyper-content-sha256;x-hyper-date\n${EMPTY}`
    const toSign = `HYPER-HMAC-SHA256\n${DATE}\n20260101/eu-central-1/hyper/hyper_request\n${sha256(canonical)}`
    expect(out).toEqual({
      authorization: `HYPER-HMAC-SHA256 Credential=AK/20260101/eu-central-1/hyper/hyper_request, SignedHeaders=content-type;x-hyper-content-sha256;x-hyper-date, Signature=${signature('SK', '20260101', 'eu-central-1', 'hyper', toSign)}`,
      'x-hyper-date': DATE,
      'x-hyper-content-sha256': EMPTY,
      'content-type': 'text/plain',
    })
  })
})

/** A request signed by hand (node:crypto), as a client in another language would. */
function handSigned(options: { region?: string; service?: string; scopeDate?: string; date?: string; hash?: string | null; sigCase?: 'upper'; padAuth?: boolean } = {}): SignableRequest {
  const { region = 'us-west-1', service = 'hyper', date = DATE, scopeDate = date.slice(0, 8) } = options
  const hash = options.hash === undefined ? EMPTY : options.hash
  const headers: Record<string, string | undefined> = { host: 'us-west-1.hyper.sh', 'x-hyper-date': date }
  if (hash !== null) headers['x-hyper-content-sha256'] = hash
  const signed = hash === null ? 'host;x-hyper-date' : 'host;x-hyper-content-sha256;x-hyper-date'
  const canonical = `GET\nevents/ws\n\nhost:us-west-1.hyper.sh\n${hash === null ? '' : `x-hyper-content-sha256:${hash}\n`}x-hyper-date:${date}\n\n${signed}\n${EMPTY}`
  const scope = `${scopeDate}/${region}/${service}/hyper_request`
  let sig = signature('SK', scopeDate, region, service, `HYPER-HMAC-SHA256\n${date}\n${scope}\n${sha256(canonical)}`)
  if (options.sigCase === 'upper') sig = sig.toUpperCase()
  const auth = `HYPER-HMAC-SHA256 Credential=AK/${scope}, SignedHeaders=${signed}, Signature=${sig}`
  return { method: 'GET', url: '/events/ws', headers: { ...headers, authorization: options.padAuth ? `  ${auth}\t` : auth }, body: '' }
}

describe('checkSignature', () => {
  const KEYS = { AK: 'SK', OTHER: 'x' }

  it('accepts a request signed by an independent implementation, any region or service, upper-case hex, padded header', async () => {
    expect(await checkSignature(handSigned(), KEYS, NOW)).toEqual({ ok: true, accessKey: 'AK', verified: true })
    expect(await checkSignature(handSigned({ region: 'eu-central-1', service: 'other' }), KEYS, NOW)).toEqual({ ok: true, accessKey: 'AK', verified: true })
    expect(await checkSignature(handSigned({ sigCase: 'upper', padAuth: true }), KEYS, NOW)).toEqual({ ok: true, accessKey: 'AK', verified: true })
  })

  it('reads every field of X-Hyper-Date (hours, minutes and seconds too)', async () => {
    const at = Date.UTC(2026, 0, 1, 12, 13, 14)
    expect(await checkSignature(handSigned({ date: '20260101T121314Z' }), KEYS, at)).toEqual({ ok: true, accessKey: 'AK', verified: true })
    expect(await checkSignature(handSigned({ date: '20260101T121314Z' }), KEYS, at + 5 * 60_000 + 1)).toMatchObject({ ok: false, status: 403 })
  })

  it('with no keys (none, or an empty set) accepts anything and names the access key of a well-formed header', async () => {
    expect(await checkSignature(handSigned({ padAuth: true }), {}, NOW + 3_600_000)).toEqual({ ok: true, accessKey: 'AK', verified: false })
    expect(await checkSignature({ ...handSigned(), headers: { authorization: 'Bearer x' } }, undefined, NOW)).toEqual({ ok: true, accessKey: undefined, verified: false })
  })

  it.each([
    ['no scope suffix', 'HYPER-HMAC-SHA256 Credential=AK/20260101/us-west-1/hyper, SignedHeaders=host, Signature=' + 'a'.repeat(64)],
    ['upper-case header names', 'HYPER-HMAC-SHA256 Credential=AK/20260101/us-west-1/hyper/hyper_request, SignedHeaders=Host, Signature=' + 'a'.repeat(64)],
    ['a short signature', 'HYPER-HMAC-SHA256 Credential=AK/20260101/us-west-1/hyper/hyper_request, SignedHeaders=host, Signature=' + 'a'.repeat(63)],
    ['a long signature', 'HYPER-HMAC-SHA256 Credential=AK/20260101/us-west-1/hyper/hyper_request, SignedHeaders=host, Signature=' + 'a'.repeat(65)],
    ['a short date', 'HYPER-HMAC-SHA256 Credential=AK/2026011/us-west-1/hyper/hyper_request, SignedHeaders=host, Signature=' + 'a'.repeat(64)],
    ['another algorithm', 'AWS4-HMAC-SHA256 Credential=AK/20260101/us-west-1/hyper/hyper_request, SignedHeaders=host, Signature=' + 'a'.repeat(64)],
    ['text before', 'x HYPER-HMAC-SHA256 Credential=AK/20260101/us-west-1/hyper/hyper_request, SignedHeaders=host, Signature=' + 'a'.repeat(64)],
  ])('a malformed Authorization header (%s) is a 400', async (_, authorization) => {
    expect(await checkSignature({ ...handSigned(), headers: { ...handSigned().headers, authorization } }, KEYS, NOW)).toEqual({
      ok: false,
      status: 400,
      message: 'Malformed Authorization header: expected "HYPER-HMAC-SHA256 Credential=<access key>/<yyyymmdd>/<region>/hyper/hyper_request, SignedHeaders=<a;b;c>, Signature=<64 hex>".',
    })
  })

  it('refuses a missing or malformed date, an unknown key, a credential date that is not the request date, a missing body hash', async () => {
    const without = handSigned()
    delete without.headers['x-hyper-date']
    expect(await checkSignature(without, KEYS, NOW)).toEqual({ ok: false, status: 400, message: 'Missing or malformed X-Hyper-Date null: expected YYYYMMDDTHHMMSSZ (UTC), e.g. 20260101T000000Z.' })
    expect(await checkSignature({ ...without, headers: { ...without.headers, 'x-hyper-date': '2026-01-01T12:00:00Z' } }, KEYS, NOW)).toMatchObject({ status: 400, message: expect.stringMatching(/^Missing or malformed X-Hyper-Date "2026-01-01T12:00:00Z"/) })
    expect(await checkSignature({ ...without, headers: { ...without.headers, 'x-hyper-date': `${DATE}x` } }, KEYS, NOW)).toMatchObject({ status: 400 })
    expect(await checkSignature({ ...without, headers: { ...without.headers, 'x-hyper-date': `x${DATE}` } }, KEYS, NOW)).toMatchObject({ status: 400 })
    // Dates that do not exist are malformed, not rolled over into another date (month 13 was "525600 min ahead").
    for (const bad of ['20261301T000000Z', '20251232T000000Z', '20260230T120000Z', '20260101T246000Z']) {
      expect(await checkSignature({ ...without, headers: { ...without.headers, 'x-hyper-date': bad } }, KEYS, NOW), bad).toEqual({
        ok: false,
        status: 400,
        message: `Malformed X-Hyper-Date "${bad}": not a date that exists; expected YYYYMMDDTHHMMSSZ (UTC), e.g. 20260101T000000Z.`,
      })
    }
    expect(await checkSignature(handSigned(), { B: '1', C: '2' }, NOW)).toEqual({ ok: false, status: 403, message: 'Unknown access key "AK": this fake knows "B", "C".' })
    expect(await checkSignature(handSigned({ scopeDate: '20251231' }), KEYS, NOW)).toEqual({ ok: false, status: 403, message: `Credential date 20251231 does not match X-Hyper-Date ${DATE}: the scope must use the request's date.` })
    expect(await checkSignature(handSigned({ hash: null }), KEYS, NOW)).toEqual({ ok: false, status: 403, message: `X-Hyper-Content-Sha256 null is not the SHA-256 of the request body (${EMPTY}).` })
    expect(await checkSignature(handSigned({ hash: 'ab' }), KEYS, NOW)).toEqual({ ok: false, status: 403, message: `X-Hyper-Content-Sha256 "ab" is not the SHA-256 of the request body (${EMPTY}).` })
  })

  it('refuses a date more than 5 minutes either way, saying by how many minutes and which way', async () => {
    const req = handSigned()
    expect(await checkSignature(req, KEYS, NOW + 5 * 60_000)).toMatchObject({ ok: true })
    expect(await checkSignature(req, KEYS, NOW - 5 * 60_000)).toMatchObject({ ok: true })
    expect(await checkSignature(req, KEYS, NOW + 5 * 60_000 + 1)).toEqual({ ok: false, status: 403, message: `Request expired: X-Hyper-Date ${DATE} is 5 min behind the fake's clock (2026-01-01T12:05:00.001Z); signed requests are valid for 5 minutes.` })
    expect(await checkSignature(req, KEYS, NOW + 5 * 60_000 + 31_000)).toMatchObject({ message: expect.stringContaining('is 6 min behind the fake\'s clock (2026-01-01T12:05:31.000Z)') })
    expect(await checkSignature(req, KEYS, NOW - 6 * 60_000 - 29_000)).toEqual({ ok: false, status: 403, message: `Request expired: X-Hyper-Date ${DATE} is 6 min ahead of the fake's clock (2026-01-01T11:53:31.000Z); signed requests are valid for 5 minutes.` })
  })

  it('a wrong signature is a 403 with the canonical request and string to sign to compare', async () => {
    const req = handSigned()
    const tampered = { ...req, url: '/events/ws?x=1' }
    const canonical = `GET\nevents/ws\nx=1\nhost:us-west-1.hyper.sh\nx-hyper-content-sha256:${EMPTY}\nx-hyper-date:${DATE}\n\nhost;x-hyper-content-sha256;x-hyper-date\n${EMPTY}`
    expect(await checkSignature(tampered, KEYS, NOW)).toEqual({
      ok: false,
      status: 403,
      message: 'Wrong signature for access key "AK": the signature does not match the request. Compare your canonical request and string to sign with the ones in this answer.',
      detail: { canonicalRequest: canonical, stringToSign: `HYPER-HMAC-SHA256\n${DATE}\n20260101/us-west-1/hyper/hyper_request\n${sha256(canonical)}` },
    })
    // Signed with another secret.
    expect(await checkSignature(req, { AK: 'not-SK' }, NOW)).toMatchObject({ ok: false, status: 403 })
  })

  it('timingSafeEqual compares whole strings', async () => {
    expect(await timingSafeEqual('abc', 'abc')).toBe(true)
    expect(await timingSafeEqual('abc', 'abd')).toBe(false)
    expect(await timingSafeEqual('abc', 'abcd')).toBe(false)
    expect(await timingSafeEqual('', '')).toBe(true)
  })
})
