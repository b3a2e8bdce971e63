/** A decoded `X-Registry-Auth` AuthConfig; every field optional. */
export interface AuthConfig {
  username?: string
  password?: string
  email?: string
  serveraddress?: string
  identitytoken?: string
  registrytoken?: string
  auth?: string
}

/** What a registry requires: nothing, a username and password, or a token. */
export type RegistryAuth = { kind: 'open' } | { kind: 'basic'; username: string; password: string } | { kind: 'token'; token: string }

const FIELDS = ['username', 'password', 'email', 'serveraddress', 'identitytoken', 'registrytoken', 'auth'] as const

function decodeBase64(text: string): string | undefined {
  // Standard or URL alphabet, padded or not.
  const std = text.trim().replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '')
  if (!/^[A-Za-z0-9+/]*$/.test(std)) return undefined
  const padded = std + '='.repeat((4 - (std.length % 4)) % 4)
  try {
    const bin = atob(padded)
    return new TextDecoder().decode(Uint8Array.from(bin, (ch) => ch.charCodeAt(0)))
  } catch {
    return undefined
  }
}

/**
 * Decodes an `X-Registry-Auth` header leniently: base64url or standard base64, padded or not.
 * Returns `undefined` for an absent header and `{ invalid: reason }` for one that cannot be read.
 */
export function decodeRegistryAuth(header: string | undefined): AuthConfig | { invalid: string } | undefined {
  if (header === undefined || header.trim() === '') return undefined
  const text = decodeBase64(header)
  if (text === undefined) return { invalid: 'X-Registry-Auth is not base64' }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { invalid: 'X-Registry-Auth is not base64-encoded JSON' }
  }
  // The daemon decodes the header with Go's encoding/json and, on any error, pushes with an empty AuthConfig: one
  // field of the wrong type (`"email": 5`) drops the username and password beside it too.
  if (json !== null && typeof json === 'object' && !Array.isArray(json)) {
    const wrong = Object.entries(json).find(([k, v]) => (FIELDS as readonly string[]).includes(k.toLowerCase()) && v !== null && typeof v !== 'string')
    if (wrong) return { invalid: `X-Registry-Auth field ${JSON.stringify(wrong[0])} is not a string` }
  }
  return authConfigFrom(json, 'X-Registry-Auth')
}

/** Reads a decoded AuthConfig JSON value (an `X-Registry-Auth` header's, or the body of `POST /auth`). */
export function authConfigFrom(json: unknown, what = 'The AuthConfig'): AuthConfig | { invalid: string } {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return { invalid: `${what} is not a JSON object` }
  const out: AuthConfig = {}
  const obj = json as Record<string, unknown>
  // The daemon decodes with Go's encoding/json, which matches keys case-insensitively ("Username" works).
  const folded = new Map(Object.keys(obj).map((k) => [k.toLowerCase(), obj[k]]))
  for (const f of FIELDS) {
    const v = Object.hasOwn(obj, f) ? obj[f] : folded.get(f)
    if (typeof v === 'string' && v !== '') out[f] = v
  }
  // `auth` is base64("user:pass"), as in a docker config file.
  if (out.auth && !out.username) {
    const pair = decodeBase64(out.auth)
    const colon = pair?.indexOf(':') ?? -1
    if (pair && colon > 0) {
      out.username = pair.slice(0, colon)
      out.password = pair.slice(colon + 1)
    }
  }
  return out
}

/**
 * True when `auth` satisfies what the registry requires: the one rule for a login (`POST /auth`) and a push, as a
 * daemon authenticates both the same way. An open registry takes anything; a basic one its username and password; a
 * token one its token as the password (what a daemon exchanges, with any username, at the registry's token endpoint),
 * or as the `identitytoken` a login answered or a `registrytoken`. A wrong password is refused by both.
 */
export function authorize(required: RegistryAuth, auth: AuthConfig | undefined): boolean {
  if (required.kind === 'open') return true
  if (!auth) return false
  if (required.kind === 'basic') return auth.username === required.username && auth.password === required.password
  return auth.password === required.token || auth.registrytoken === required.token || auth.identitytoken === required.token
}

/** The AuthConfig with its secrets masked, for the journal and logs. */
export function maskAuth(auth: AuthConfig | { invalid: string } | undefined): Record<string, string> | undefined {
  if (!auth) return undefined
  if ('invalid' in auth) return { invalid: auth.invalid }
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(auth)) {
    if (v === undefined) continue
    out[k] = k === 'username' || k === 'email' || k === 'serveraddress' ? v : '***'
  }
  return out
}
