import { readFile } from 'node:fs/promises'
import { loadOptional } from '../../runtime/optional-peer'

/** A PEM key and certificate for `listen({ tls })` / `serve({ tls })`. */
export interface TlsMaterial {
  key: string
  cert: string
  /** SHA-1 fingerprint of the certificate, for clients that pin it. */
  fingerprint?: string
}

/**
 * Generates a self-signed certificate (EC P-256, SHA-256, valid for a year) for `localhost`, `127.0.0.1`,
 * `::1` and any extra host names. Real clients of the service hard-code `wss://` and skip certificate
 * checks; others can trust the returned `cert`. Needs the optional package `selfsigned` (`npm install --save-dev
 * selfsigned`); without it, a MissingPackageError says so. Certificates of your own (`loadCertificate`) need nothing.
 * @example
 * const server = await fake.listen({ port: 0, tls: await selfSignedCertificate() })
 */
export async function selfSignedCertificate(options: { hosts?: string[]; commonName?: string } = {}): Promise<TlsMaterial> {
  // Loaded on demand, and an optional peer dependency: plain HTTP never pays for the X.509 library, nor does an install.
  const { generate } = await loadOptional('selfsigned', 'A self-signed certificate (--tls, selfSignedCertificate())', () => import('selfsigned'))
  const hosts = ['localhost', '127.0.0.1', '::1', ...(options.hosts ?? [])]
  const isIp = (h: string) => /^[\d.]+$/.test(h) || h.includes(':')
  const pems = await generate([{ name: 'commonName', value: options.commonName ?? 'dockside' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [...new Set(hosts)].map((h) => (isIp(h) ? { type: 7 as const, ip: h } : { type: 2 as const, value: h })) },
    ],
  })
  return { key: pems.private, cert: pems.cert, fingerprint: pems.fingerprint }
}

/** Reads a PEM key and certificate from files, with a message naming the file that failed. */
export async function loadCertificate(keyFile: string, certFile: string): Promise<TlsMaterial> {
  const read = async (file: string, what: string) => {
    try {
      return await readFile(file, 'utf8')
    } catch (error) {
      throw new Error(`Cannot read the TLS ${what} ${file}: ${(error as Error).message}. Pass a PEM file, or use --tls alone for a self-signed certificate.`)
    }
  }
  const [key, cert] = await Promise.all([read(keyFile, 'key'), read(certFile, 'certificate')])
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key)) throw new Error(`${keyFile} is not a PEM private key (no "-----BEGIN ... PRIVATE KEY-----" line).`)
  if (!cert.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`${certFile} is not a PEM certificate (no "-----BEGIN CERTIFICATE-----" line).`)
  return { key, cert }
}
