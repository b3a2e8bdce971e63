import { spawn, type ChildProcess } from 'node:child_process'
import { X509Certificate } from 'node:crypto'
import * as https from 'node:https'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { signHyperRequest } from '../../src/protocol/signing'
import { selfSignedCertificate } from '../../src/transports/server/tls'
import { tempDir } from './support/clients'
import { ensureBuilt } from '../support/cli'

const bin = fileURLToPath(new URL('../../bin/dockside.js', import.meta.url))
// Rebuilds dist/ when src/ is newer: the CLI under test is always the current source.
ensureBuilt()

/** Starts `dockside serve` on port 0 and resolves with its https URL once it prints it. */
function serve(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--quiet', '--clock', 'virtual', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()))
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`dockside serve exited ${code}: ${stderr}`)))
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /listening on (\S+)/.exec(line)
      if (m) resolve({ child, url: m[1] })
    })
  })
}

/** GET over https without certificate checks, as the real service's clients do; returns status, body and the served certificate. */
function get(url: string): Promise<{ status: number; body: string; cert: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { rejectUnauthorized: false }, (res) => {
        const cert = (res.socket as import('node:tls').TLSSocket).getPeerX509Certificate()?.fingerprint256 ?? ''
        let body = ''
        res.on('data', (c: Buffer) => (body += c.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, cert }))
      })
      .on('error', reject)
  })
}

function upgrade(url: string, headers: Record<string, string>): Promise<{ opened: true } | { status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { rejectUnauthorized: false, headers })
    ws.on('open', () => {
      ws.close()
      resolve({ opened: true })
    })
    ws.on('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (c: Buffer) => (body += c.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    ws.on('error', reject)
  })
}

describe('dockside serve --tls, --cert/--key and --access-key', () => {
  let child: ChildProcess | undefined
  afterEach(() => {
    child?.kill('SIGTERM')
    child = undefined
  })

  it('--tls serves https:// and wss:// with a self-signed certificate; --access-key verifies signed upgrades', async () => {
    const s = await serve(['--tls', '--access-key', 'AKCLI:cli-secret'])
    child = s.child
    expect(s.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
    const ping = await get(`${s.url}/_ping`)
    expect(ping).toMatchObject({ status: 200, body: 'OK' })
    const wsUrl = `${s.url.replace(/^https/, 'wss')}/events/ws`
    const host = new URL(s.url).host
    // The virtual clock starts at 2026-01-01T00:00:00Z.
    const good = await signHyperRequest({ method: 'GET', url: '/events/ws', headers: { host } }, { accessKey: 'AKCLI', secretKey: 'cli-secret', date: Date.UTC(2026, 0, 1) })
    expect(await upgrade(wsUrl, good)).toEqual({ opened: true })
    const bad = await signHyperRequest({ method: 'GET', url: '/events/ws', headers: { host } }, { accessKey: 'AKCLI', secretKey: 'nope', date: Date.UTC(2026, 0, 1) })
    const refused = await upgrade(wsUrl, bad)
    expect(refused).toMatchObject({ status: 403 })
    expect(JSON.parse((refused as { body: string }).body).message).toMatch(/^Wrong signature for access key "AKCLI"/)
  })

  it('--cert/--key serve the given certificate', async () => {
    using dir = tempDir('dockside-tls-')
    const pem = await selfSignedCertificate({ commonName: 'mine.test' })
    const s = await serve(['--cert', dir.write('cert.pem', pem.cert), '--key', dir.write('key.pem', pem.key)])
    child = s.child
    const r = await get(`${s.url}/version`)
    expect(r.status).toBe(200)
    expect(r.cert).toBe(new X509Certificate(pem.cert).fingerprint256)
  })
})
