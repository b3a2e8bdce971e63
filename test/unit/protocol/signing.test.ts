import { describe, expect, it } from 'vitest'
import { checkSignature, hyperSignature, normQuery, normUri, sha256Hex, signHyperRequest } from '../../../src/protocol/signing'

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0)
const KEYS = { AKTEST: 'SECRETTEST' }

async function signed(url = '/events/ws?filters=%7B%22event%22%3A%7B%22start%22%3Atrue%7D%7D', at = NOW) {
  const base = { method: 'GET', url, headers: { host: 'us-west-1.hyper.sh:443' } as Record<string, string | undefined> }
  return { ...base, headers: { ...base.headers, ...(await signHyperRequest(base, { accessKey: 'AKTEST', secretKey: 'SECRETTEST', date: at })) } }
}

describe('HYPER-HMAC-SHA256 signatures', () => {
  it('derives the signature as a published client does (hyperb test vector: ak/sk, 20170729T230845Z)', async () => {
    // The Ruby client's spec signs GET "v1.23/" with these headers and expects this signature.
    const empty = await sha256Hex('')
    const canonical = ['GET', 'v1.23/', '', `content-type:application/json\nhost:us-west-1.hyper.sh\nx-hyper-content-sha256:${empty}\nx-hyper-date:20170729T230845Z\n`, 'content-type;host;x-hyper-content-sha256;x-hyper-date', empty].join('\n')
    const toSign = ['HYPER-HMAC-SHA256', '20170729T230845Z', '20170729/us-west-1/hyper/hyper_request', await sha256Hex(canonical)].join('\n')
    expect(await hyperSignature('sk', '20170729', 'us-west-1', 'hyper', toSign)).toBe('3a923718db713abc7b851712a434343eb7887298ab5f48113a7b291f261c037a')
  })

  it('normalises path and query as hypercli does', () => {
    expect(normUri('/v1.23//events/ws')).toBe('v1.23/events/ws')
    expect(normUri('/images/localhost%3A5000%2Fapp/push')).toBe('images/localhost%3A5000/app/push')
    expect(normQuery('b=2&a=x+y&filters={"event":{"start":true}}')).toBe('a=x%20y&b=2&filters=%7B%22event%22%3A%7B%22start%22%3Atrue%7D%7D')
  })

  it('accepts anything when no keys are configured, and a correct signature when they are', async () => {
    expect(await checkSignature({ method: 'GET', url: '/events/ws', headers: {} }, undefined, NOW)).toEqual({ ok: true, accessKey: undefined, verified: false })
    expect(await checkSignature(await signed(), KEYS, NOW + 60_000)).toEqual({ ok: true, accessKey: 'AKTEST', verified: true })
    // "More than 5 minutes" is refused: exactly 5 minutes either way is still accepted.
    expect(await checkSignature(await signed(), KEYS, NOW + 5 * 60_000)).toMatchObject({ ok: true, verified: true })
    expect(await checkSignature(await signed(), KEYS, NOW - 5 * 60_000)).toMatchObject({ ok: true, verified: true })
    // Without keys, signed headers are accepted as they are, even with a signature nobody could check.
    const unverifiable = await signed()
    expect(await checkSignature({ ...unverifiable, url: '/events/ws?other' }, undefined, NOW + 3_600_000)).toEqual({ ok: true, accessKey: 'AKTEST', verified: false })
  })

  it('refuses a wrong signature, an unknown key, a stale or future date, a bad body hash and no signature, saying which', async () => {
    const req = await signed()
    const tampered = { ...req, url: '/events/ws?filters=%7B%7D' }
    expect(await checkSignature(tampered, KEYS, NOW)).toMatchObject({ ok: false, status: 403, message: expect.stringContaining('Wrong signature for access key "AKTEST"') })
    expect(await checkSignature(req, { OTHER: 'x' }, NOW)).toMatchObject({ ok: false, status: 403, message: 'Unknown access key "AKTEST": this fake knows "OTHER".' })
    expect(await checkSignature(req, KEYS, NOW + 5 * 60_000 + 1000)).toMatchObject({ ok: false, status: 403, message: expect.stringMatching(/^Request expired: X-Hyper-Date 20260101T120000Z is 5 min behind/) })
    expect(await checkSignature(req, KEYS, NOW - 10 * 60_000)).toMatchObject({ ok: false, message: expect.stringContaining('10 min ahead of') })
    expect(await checkSignature({ ...req, body: 'x' }, KEYS, NOW)).toMatchObject({ ok: false, message: expect.stringContaining('X-Hyper-Content-Sha256') })
    expect(await checkSignature({ method: 'GET', url: '/events/ws', headers: {} }, KEYS, NOW)).toMatchObject({ ok: false, status: 403, message: expect.stringContaining('Missing Authorization header') })
    expect(await checkSignature({ ...req, headers: { ...req.headers, authorization: 'Bearer x' } }, KEYS, NOW)).toMatchObject({ ok: false, status: 400 })
  })
})
