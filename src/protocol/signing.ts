/**
 * The real service's request signing (`HYPER-HMAC-SHA256`, AWS Signature Version 4 with Hyper's names),
 * as its Go client `hyperhq/hypercli` computed it (`engine-api/client/sign4.go`, `Sign4`):
 *
 * ```
 * CanonicalRequest = METHOD \n normuri(path) \n normquery(query) \n
 *                    (name:trimmed-value \n for each signed header) \n signed;header;names \n hex(sha256(body))
 * StringToSign     = "HYPER-HMAC-SHA256" \n X-Hyper-Date \n <yyyymmdd>/<region>/<service>/hyper_request \n hex(sha256(CanonicalRequest))
 * SigningKey       = HMAC(HMAC(HMAC(HMAC("HYPER" + secret, yyyymmdd), region), service), "hyper_request")
 * Signature        = hex(HMAC(SigningKey, StringToSign))
 * ```
 *
 * `normuri` drops empty path segments and the leading slash (`/events/ws` → `events/ws`) and percent-encodes
 * everything but `A-Za-z0-9-_.~` per segment; `normquery` is Go's `url.Values.Encode()` (keys sorted, values
 * query-escaped) with `+` written as `%20`; the `host` value loses a `:80`/`:443` port. The service's Node client signs
 * with hyper-aws4, which keeps the port (`host:us-west-1.hyper.sh:443`); the real service took both, and so does the
 * check. See docs/docker-compat.md.
 *
 * Uses WebCrypto (`crypto.subtle`), so it stays in the I/O-free core.
 */

/** Access key id → secret key. */
export type AccessKeys = Readonly<Record<string, string>>

/** The outcome of a signature check: accepted (possibly unsigned), or refused with a status and reason. */
export type SignatureCheck =
  | { ok: true; accessKey: string | undefined; verified: boolean }
  | { ok: false; status: 400 | 403; message: string; detail?: { canonicalRequest: string; stringToSign: string } }

/** A signed request's parts, as the check needs them. Header names lower-case. */
export interface SignableRequest {
  method: string
  /** Path and query as received (with any `/v1.xx` prefix: the client signed the full path). */
  url: string
  headers: Record<string, string | undefined>
  /** The request body (empty for a websocket upgrade). */
  body?: string
}

const ALGORITHM = 'HYPER-HMAC-SHA256'
/** How far `X-Hyper-Date` may be from the fake's clock, either way. */
export const MAX_SKEW_MS = 5 * 60 * 1000
const AUTH = /^HYPER-HMAC-SHA256\s+Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/hyper_request\s*,\s*SignedHeaders=([a-z0-9;-]+)\s*,\s*Signature=([0-9a-fA-F]{64})\s*$/
const DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/

const encoder = new TextEncoder()
const hex = (buf: ArrayBuffer) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('')

export async function sha256Hex(text: string): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', encoder.encode(text)))
}

async function hmac(key: ArrayBuffer | Uint8Array, text: string): Promise<ArrayBuffer> {
  const k = await crypto.subtle.importKey('raw', key as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
  return crypto.subtle.sign('HMAC', k, encoder.encode(text))
}

/** The signature of `stringToSign` with the key derived from `secret`, date, region and service. */
export async function hyperSignature(secret: string, date: string, region: string, service: string, stringToSign: string): Promise<string> {
  let key = await hmac(encoder.encode(`HYPER${secret}`), date)
  key = await hmac(key, region)
  key = await hmac(key, service)
  key = await hmac(key, 'hyper_request')
  return hex(await hmac(key, stringToSign))
}

const unreserved = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2d || c === 0x5f || c === 0x2e || c === 0x7e

/** Percent-encodes every byte outside `A-Za-z0-9-_.~` (upper-case hex); `space` as given. */
function escapeBytes(text: string, space: string): string {
  let out = ''
  for (const b of encoder.encode(text)) {
    if (unreserved(b)) out += String.fromCharCode(b)
    else if (b === 0x20) out += space
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** Go's url.PathUnescape / QueryUnescape: undefined for a bad escape. */
function unescape(text: string, plusIsSpace: boolean): string | undefined {
  try {
    return decodeURIComponent(plusIsSpace ? text.replace(/\+/g, ' ') : text)
  } catch {
    return undefined
  }
}

/** hypercli's normuri over Go's decoded URL path. */
export function normUri(rawPath: string): string {
  const path = unescape(rawPath, false) ?? rawPath
  return path.split('/').filter(Boolean).map((s) => escapeBytes(s, '%20')).join('/')
}

/** Go's url.ParseQuery + Values.Encode(), with `+` as `%20`. Pairs Go cannot parse are dropped, as Go drops them. */
export function normQuery(rawQuery: string): string {
  const values = new Map<string, string[]>()
  for (const part of rawQuery.split('&')) {
    if (part === '' || part.includes(';')) continue
    const eq = part.indexOf('=')
    const k = unescape(eq < 0 ? part : part.slice(0, eq), true)
    const v = unescape(eq < 0 ? '' : part.slice(eq + 1), true)
    if (k === undefined || v === undefined) continue
    values.set(k, [...(values.get(k) ?? []), v])
  }
  const keys = [...values.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  return keys.flatMap((k) => values.get(k)!.map((v) => `${escapeBytes(k, '%20')}=${escapeBytes(v, '%20')}`)).join('&')
}

function headerValue(name: string, value: string | undefined, keepPort: boolean): string {
  let v = (value ?? '').trim()
  // hypercli leaves the port out of the signed host when it is 80 or 443 (hyper-aws4 keeps it: `keepPort`).
  if (name === 'host' && !keepPort) v = v.replace(/:(80|443)$/, '')
  return v
}

/**
 * The canonical request and string to sign of `req`, as the client built them: as hypercli's Go signer does, or with
 * `keepPort`, as the Node client's hyper-aws4 signs the host (its `:443` kept).
 */
export async function canonicalize(req: SignableRequest, signedHeaders: string, scope: string, payloadHash: string, keepPort = false) {
  const q = req.url.indexOf('?')
  const path = q < 0 ? req.url : req.url.slice(0, q)
  const query = q < 0 ? '' : req.url.slice(q + 1)
  const headers = signedHeaders.split(';').map((h) => `${h}:${headerValue(h, req.headers[h], keepPort)}\n`).join('')
  const canonicalRequest = [req.method.toUpperCase(), normUri(path), normQuery(query), headers, signedHeaders, payloadHash].join('\n')
  const stringToSign = [ALGORITHM, req.headers['x-hyper-date'] ?? '', scope, await sha256Hex(canonicalRequest)].join('\n')
  return { canonicalRequest, stringToSign }
}

/** Signs a request as hypercli does; returns the headers to add. For tests and for clients written against the fake. */
export async function signHyperRequest(
  req: SignableRequest,
  credentials: { accessKey: string; secretKey: string; region?: string; date: Date | number },
): Promise<Record<'authorization' | 'x-hyper-date' | 'x-hyper-content-sha256' | 'content-type', string>> {
  const date = new Date(credentials.date).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')
  const region = credentials.region ?? 'us-west-1'
  const payloadHash = await sha256Hex(req.body ?? '')
  const headers = { ...req.headers, 'content-type': req.headers['content-type'] ?? 'application/json', 'x-hyper-date': date, 'x-hyper-content-sha256': payloadHash }
  const signed = Object.keys(headers).filter((h) => h === 'content-type' || h === 'content-md5' || h === 'host' || h.startsWith('x-hyper-')).sort().join(';')
  const scope = `${date.slice(0, 8)}/${region}/hyper/hyper_request`
  const { stringToSign } = await canonicalize({ ...req, headers }, signed, scope, payloadHash)
  const signature = await hyperSignature(credentials.secretKey, date.slice(0, 8), region, 'hyper', stringToSign)
  return {
    authorization: `${ALGORITHM} Credential=${credentials.accessKey}/${scope}, SignedHeaders=${signed}, Signature=${signature}`,
    'x-hyper-date': date,
    'x-hyper-content-sha256': payloadHash,
    'content-type': headers['content-type'],
  }
}

/**
 * Compares two strings in time that depends on neither their contents nor their lengths: both are hashed
 * (SHA-256) and the digests compared byte by byte without an early exit. For secrets (tokens, signatures).
 */
export async function timingSafeEqual(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([crypto.subtle.digest('SHA-256', encoder.encode(a)), crypto.subtle.digest('SHA-256', encoder.encode(b))])
  const p = new Uint8Array(x)
  const q = new Uint8Array(y)
  let diff = 0
  for (let i = 0; i < p.length; i++) diff |= p[i] ^ q[i]
  return diff === 0
}

/** A skew past the 5-minute window, in whole minutes. */
const fmtSkew = (ms: number) => `${Math.round(Math.abs(ms) / 60_000)} min`

/** The unsigned answer every request gets without an Authorization header: one object, not one per request. */
const UNSIGNED: SignatureCheck = Object.freeze({ ok: true, accessKey: undefined, verified: false })

/**
 * {@link checkSignature}'s answer when no access keys are configured (every request accepted, nothing to verify), at
 * once rather than through a promise: most upgrades are decided without one. `undefined` when keys are configured.
 */
export function unverifiedSignature(headers: SignableRequest['headers'], keys: AccessKeys | undefined): SignatureCheck | undefined {
  if (keys !== undefined && Object.keys(keys).length > 0) return undefined
  const authorization = headers.authorization
  if (authorization === undefined) return UNSIGNED
  return { ok: true, accessKey: AUTH.exec(authorization.trim())?.[1], verified: false }
}

/**
 * Checks a request's `HYPER-HMAC-SHA256` signature. Without configured keys every request is accepted
 * (signed or not). With keys, an unsigned request, an unknown access key, a date more than 5 minutes from
 * `now`, a body hash that does not match, or a wrong signature is refused.
 */
export async function checkSignature(req: SignableRequest, keys: AccessKeys | undefined, now: number): Promise<SignatureCheck> {
  const unverified = unverifiedSignature(req.headers, keys)
  if (unverified) return unverified
  const authorization = req.headers.authorization
  if (authorization === undefined) {
    return { ok: false, status: 403, message: 'Missing Authorization header: this fake verifies signed requests (access keys are configured). Sign the request with HYPER-HMAC-SHA256 and send X-Hyper-Date and X-Hyper-Content-Sha256.' }
  }
  const m = AUTH.exec(authorization.trim())
  if (!m) {
    return {
      ok: false,
      status: 400,
      message: 'Malformed Authorization header: expected "HYPER-HMAC-SHA256 Credential=<access key>/<yyyymmdd>/<region>/hyper/hyper_request, SignedHeaders=<a;b;c>, Signature=<64 hex>".',
    }
  }
  const [, accessKey, scopeDate, region, service, signedHeaders, signature] = m
  const date = req.headers['x-hyper-date']
  const d = date === undefined ? null : DATE.exec(date)
  // A date that does not exist (month 13, 31 November) is malformed too: Date.UTC would roll it over silently.
  if (d && new Date(Date.UTC(+d[1], +d[2] - 1, +d[3], +d[4], +d[5], +d[6])).toISOString().replace(/[-:]|\.\d+/g, '') !== date) return { ok: false, status: 400, message: `Malformed X-Hyper-Date ${JSON.stringify(date)}: not a date that exists; expected YYYYMMDDTHHMMSSZ (UTC), e.g. 20260101T000000Z.` }
  if (!d) return { ok: false, status: 400, message: `Missing or malformed X-Hyper-Date ${JSON.stringify(date ?? null)}: expected YYYYMMDDTHHMMSSZ (UTC), e.g. 20260101T000000Z.` }
  // Configured (unverifiedSignature answered otherwise).
  const secret = keys![accessKey]
  if (secret === undefined) return { ok: false, status: 403, message: `Unknown access key "${accessKey}": this fake knows ${Object.keys(keys!).map((k) => `"${k}"`).join(', ')}.` }
  const at = Date.UTC(+d[1], +d[2] - 1, +d[3], +d[4], +d[5], +d[6])
  if (Math.abs(at - now) > MAX_SKEW_MS) {
    const when = at < now ? 'behind' : 'ahead of'
    return { ok: false, status: 403, message: `Request expired: X-Hyper-Date ${date} is ${fmtSkew(at - now)} ${when} the fake's clock (${new Date(now).toISOString()}); signed requests are valid for 5 minutes.` }
  }
  if (scopeDate !== date!.slice(0, 8)) return { ok: false, status: 403, message: `Credential date ${scopeDate} does not match X-Hyper-Date ${date}: the scope must use the request's date.` }
  const payloadHash = await sha256Hex(req.body ?? '')
  if (req.headers['x-hyper-content-sha256'] !== payloadHash) {
    return { ok: false, status: 403, message: `X-Hyper-Content-Sha256 ${JSON.stringify(req.headers['x-hyper-content-sha256'] ?? null)} is not the SHA-256 of the request body (${payloadHash}).` }
  }
  const scope = `${scopeDate}/${region}/${service}/hyper_request`
  const detail = await canonicalize(req, signedHeaders, scope, payloadHash)
  const matches = async (d: { stringToSign: string }) => timingSafeEqual(await hyperSignature(secret, scopeDate, region, service, d.stringToSign), signature.toLowerCase())
  // A host signed with its :80/:443 (hyper-aws4, the Node client's signer) is the other form the service took.
  const withPort = signedHeaders.split(';').includes('host') && /:(80|443)$/.test((req.headers.host ?? '').trim())
  if (!(await matches(detail)) && !(withPort && (await matches(await canonicalize(req, signedHeaders, scope, payloadHash, true))))) {
    return { ok: false, status: 403, message: `Wrong signature for access key "${accessKey}": the signature does not match the request. Compare your canonical request and string to sign with the ones in this answer.`, detail }
  }
  return { ok: true, accessKey, verified: true }
}
