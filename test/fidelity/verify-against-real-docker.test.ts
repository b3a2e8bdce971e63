import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { VerifyReport } from '../../src/verify/run'
import { DELIBERATE } from '../../src/verify/deliberate'
import { skipUnless } from '../clients/support/clients'
import { realDockerMissing, startRealDocker, type RealDocker } from '../support/real-docker'

/**
 * Differences verify finds today that are neither fixed nor deliberate: each is a gap in the fake, listed in
 * docs/docker-compat.md#known-gaps. The test fails on any other difference, and on a gap that has closed (take it
 * off this list and the page).
 */
const KNOWN_GAPS: string[] = []

const missing = realDockerMissing()
const skip = skipUnless(missing === undefined, 'a real Docker daemon and registry', missing ?? '')

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/dockside.js', ...args], { timeout: 170_000, maxBuffer: 32 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? null), stdout, stderr })
    })
  })
}

describe.skipIf(skip)('dockside verify against a real Docker daemon and registries (dockerd 20.10, distribution 2.8)', () => {
  let real: RealDocker
  beforeAll(async () => {
    real = await startRealDocker()
  }, 120_000)
  afterAll(() => real?.stop(), 60_000)

  it('finds no difference that is not deliberate or a known gap, with the docker CLI, every credential case and the dying registry', async () => {
    const passwordFile = `${process.env.TMPDIR ?? '/tmp'}/dockside-verify-password-${process.pid}`
    await import('node:fs').then((fs) => fs.writeFileSync(passwordFile, real.authRegistry.password))
    const started = Date.now()
    const r = await cli(['verify', '--against', real.host, '--registry', real.registry, '--auth-registry', real.authRegistry.host, '--auth-user', real.authRegistry.username, '--auth-password-file', passwordFile, '--image', real.image, '--json'])
    const seconds = (Date.now() - started) / 1000
    const report = JSON.parse(r.stdout) as VerifyReport
    const differs = report.results.filter((c) => c.verdict === 'differs')
    // What a failure shows: each unexplained difference with both sides.
    const unexplained = differs.filter((c) => !KNOWN_GAPS.includes(c.id)).map((c) => ({ id: c.id, note: c.note, real: c.real, fake: c.fake }))
    expect(unexplained).toEqual([])
    expect(differs.map((c) => c.id).sort()).toEqual([...KNOWN_GAPS].sort())
    expect(report.results.filter((c) => c.verdict === 'not run')).toEqual([])
    expect(report.leftBehind).toEqual([])
    // Nothing of the run is left on the daemon: no container, no tag (a case's own tags included).
    const leftOn = (args: string[]) => new Promise<string>((resolve) => execFile('docker', ['-H', real.host, ...args], (_e, out) => resolve(out)))
    expect(await leftOn(['ps', '-aq', '--filter', 'label=dockside.verify'])).toBe('')
    expect((await leftOn(['images', '--format', '{{.Repository}}:{{.Tag}}'])).split('\n').filter((t) => t.includes('dockside-verify-'))).toEqual([])
    expect(report.daemon.apiVersion).toBe('1.41')
    // Exit 1 while a case differs (a user's CI fails on it), 0 when every case is alike or deliberate.
    expect(r.code).toBe(KNOWN_GAPS.length > 0 ? 1 : 0)
    expect(report.summary.alike).toBeGreaterThanOrEqual(20)
    expect(report.results.length).toBeGreaterThanOrEqual(80)
    // The dying registry's retry countdown (about 50 s of the daemon's wall time) runs beside the other cases.
    expect(seconds).toBeLessThan(120)
    // Every deliberate difference a case used is listed, with its reason, on the compatibility page.
    const page = readFileSync('docs/docker-compat.md', 'utf8')
    for (const id of new Set(report.results.flatMap((c) => c.deliberate.map((d) => d.id)))) expect(page).toContain(`\`${id}\``)
    for (const id of KNOWN_GAPS) expect(page).toContain(`\`${id}\``)
  }, 180_000)

  it('--dry-run lists what it would do and touches nothing', async () => {
    const r = await cli(['verify', '--against', real.host, '--registry', real.registry, '--dry-run'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('POST /containers/create')
    expect(r.stdout).toContain('DELETE /containers/{id}?force=1')
    const list = await new Promise<string>((resolve) => execFile('docker', ['-H', real.host, 'ps', '-aq', '--filter', 'label=dockside.verify'], (_e, out) => resolve(out)))
    expect(list.trim()).toBe('')
  })

  it('refuses a host that is not local without --yes, naming the flag', async () => {
    const r = await cli(['verify', '--against', 'tcp://192.0.2.1:2375', '--registry', real.registry])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('pass --yes')
  })

  it('lists each deliberate difference with a kind and a reason', () => {
    for (const d of DELIBERATE) {
      expect(['spec', 'protocol', 'version']).toContain(d.kind)
      expect(d.reason.length).toBeGreaterThan(20)
    }
  })
})
