// Secrets for `dockside serve` from the environment or files, so that they stay out of argv (visible in `ps`).
// Error messages name the source and the entry, never the secret. See docs/security.md.

/** A bad secret source; the message never holds the secret. */
export class SecretError extends Error {}

/** Where each secret may come from; later sources win (env, then file, then flags). */
export interface SecretSources {
  env: Record<string, string | undefined>
  accessKeyFlags?: string[]
  accessKeysFile?: string
  adminTokenFlag?: string
  adminTokenFile?: string
}

const HIDDEN = '(the value is not shown: it holds a secret)'

async function read(flag: string, file: string): Promise<string> {
  const { readFile } = await import('node:fs/promises')
  try {
    return await readFile(file, 'utf8')
  } catch (error) {
    throw new SecretError(`cannot read ${flag} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
}

/** `ID:SECRET`: the id is everything before the first colon. */
function pair(text: string, where: string): [string, string] {
  const colon = text.indexOf(':')
  if (colon < 1 || colon === text.length - 1 || /\s/.test(text.slice(0, colon))) throw new SecretError(`invalid ${where}: expected ACCESS_KEY_ID:SECRET_KEY ${HIDDEN}`)
  return [text.slice(0, colon), text.slice(colon + 1)]
}

/** One `ID:SECRET` per line (blank lines and `#` comments skipped), or a JSON object `{"ID": "SECRET"}`. */
function parseKeysFile(file: string, text: string): Record<string, string> {
  const keys: Record<string, string> = {}
  if (text.trimStart().startsWith('{')) {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      throw new SecretError(`invalid --access-keys-file ${file}: not valid JSON (expected {"ACCESS_KEY_ID": "SECRET_KEY", ...} or one ID:SECRET per line)`)
    }
    for (const [id, secret] of Object.entries(value as Record<string, unknown>)) {
      if (typeof secret !== 'string' || secret === '' || id === '') throw new SecretError(`invalid --access-keys-file ${file}: the secret of ${JSON.stringify(id)} must be a non-empty string`)
      keys[id] = secret
    }
    return keys
  }
  text.split(/\r?\n/).forEach((line, i) => {
    const t = line.trim()
    if (t === '' || t.startsWith('#')) return
    const [id, secret] = pair(t, `--access-keys-file ${file} line ${i + 1}`)
    keys[id] = secret
  })
  return keys
}

/** Gathers access keys and the admin token from DOCKSIDE_ACCESS_KEYS / DOCKSIDE_ADMIN_TOKEN, files and flags. */
export async function readSecrets(s: SecretSources): Promise<{ accessKeys: Record<string, string> | undefined; adminToken: string | undefined }> {
  let accessKeys: Record<string, string> | undefined
  const add = (id: string, secret: string) => (accessKeys = { ...accessKeys, [id]: secret })
  const envKeys = s.env.DOCKSIDE_ACCESS_KEYS
  if (envKeys !== undefined && envKeys.trim() !== '') {
    envKeys.split(',').forEach((entry, i) => add(...pair(entry.trim(), `DOCKSIDE_ACCESS_KEYS entry ${i + 1} (comma-separated)`)))
  }
  if (s.accessKeysFile !== undefined) for (const [id, secret] of Object.entries(parseKeysFile(s.accessKeysFile, await read('--access-keys-file', s.accessKeysFile)))) add(id, secret)
  ;(s.accessKeyFlags ?? []).forEach((flag, i) => add(...pair(flag, `--access-key (occurrence ${i + 1})`)))

  if (s.adminTokenFlag !== undefined && s.adminTokenFile !== undefined) throw new SecretError('--admin-token and --admin-token-file go separately: give one of them')
  let adminToken = s.env.DOCKSIDE_ADMIN_TOKEN === '' ? undefined : s.env.DOCKSIDE_ADMIN_TOKEN
  let from = 'DOCKSIDE_ADMIN_TOKEN'
  if (s.adminTokenFile !== undefined) {
    adminToken = (await read('--admin-token-file', s.adminTokenFile)).trim()
    from = `--admin-token-file ${s.adminTokenFile}`
  } else if (s.adminTokenFlag !== undefined) {
    adminToken = s.adminTokenFlag
    from = '--admin-token'
  }
  if (adminToken !== undefined && !/^[\x21-\x7e]+$/.test(adminToken)) throw new SecretError(`invalid ${from}: expected a non-empty token of visible ASCII characters with no spaces ${HIDDEN}`)
  return { accessKeys, adminToken }
}
