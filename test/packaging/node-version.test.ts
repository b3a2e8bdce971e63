// On a Node older than 22, importing or requiring any entry fails at once, naming the version needed (it used to
// import fine, intercept() too, and every hooked fetch then failed with "Promise.withResolvers is not a function").
import { execFile, execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import { checkNodeVersion } from '../../src/runtime/node-version'
import { ensureBuilt, root } from '../support/cli'

const run = promisify(execFile)

/** A Node older than 22 on this machine (Debian's /usr/bin/node is 20 here and on CI), or undefined. */
function oldNode(): string | undefined {
  for (const bin of ['/usr/bin/node', '/usr/local/bin/node', '/usr/bin/nodejs']) {
    if (!existsSync(bin)) continue
    const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()
    if (Number.parseInt(version.slice(1), 10) < 22) return bin
  }
  return undefined
}

describe('Node older than 22', () => {
  it('checkNodeVersion names the version needed and the one running; newer Node and browsers pass', () => {
    expect(() => checkNodeVersion('20.20.2')).toThrow('dockside needs Node 22.3 or newer (it relies on Promise.withResolvers, process.getBuiltinModule and Node 22\'s fetch); this is Node 20.20.2. Install Node 22.3 or later')
    expect(() => checkNodeVersion('18.0.0')).toThrow(/this is Node 18\.0\.0/)
    // 22.0-22.2 have no process.getBuiltinModule, which the server and the fetch hook use when they load.
    for (const old of ['22.0.0', '22.2.0']) expect(() => checkNodeVersion(old)).toThrow(`this is Node ${old}. Install Node 22.3 or later`)
    for (const ok of ['22.3.0', '22.12.0', '23.0.0', '24.21.0', '30.1.0', undefined]) expect(() => checkNodeVersion(ok)).not.toThrow()
  })

  it('the CLI on a Node without process.getBuiltinModule (20.0-20.15, 22.0-22.2) names the versions it needs and exits 1', async () => {
    ensureBuilt()
    // This Node with getBuiltinModule taken away stands in for those releases.
    const script = `delete process.getBuiltinModule; process.argv = [process.argv[0], 'dockside', '--help']; import(${JSON.stringify(join(root, 'bin/dockside.js'))})`
    const failed = await run(process.execPath, ['-e', script], { cwd: root }).then(() => undefined, (e: { code: number; stdout: string; stderr: string }) => e)
    expect(failed?.code).toBe(1)
    expect(failed?.stderr).toBe(`dockside needs Node 20.16 or newer on Node 20, or 22.3 or newer (process.getBuiltinModule); this is Node ${process.versions.node}.\n`)
    expect(failed?.stdout).toBe('')
  })

  const node = oldNode()
  it('CI has an old Node to run them with', () => {
    if (process.env.CI) expect(node, 'no Node < 22 at /usr/bin/node on CI').toBeDefined()
    else if (!node) process.stderr.write('[test/packaging] no Node < 22 on this machine: the old-Node runs below did not run\n')
  })
  // The machine's own old Node, where there is one (the CI image has Debian's Node 20 beside the Node 24 it installs).
  describe.runIf(node)(`the built entries under ${node ?? 'an old Node'}`, () => {
    beforeAll(async () => {
      // Rebuilt when missing or older than src/ (a stale dist/ would test yesterday's code).
      ensureBuilt()
    }, 60_000)

    const entries = ['index', 'server', 'intercept', 'matchers']
    it.each(entries)('import of dist/%s.js (ESM) and require of dist/%s.cjs (CommonJS) throw at once', async (entry) => {
      const esm = `import(${JSON.stringify(join(root, `dist/${entry}.js`))}).then(() => console.log('imported'), (e) => console.log(e.message))`
      const cjs = `try { require(${JSON.stringify(join(root, `dist/${entry}.cjs`))}); console.log('required') } catch (e) { console.log(e.message) }`
      for (const script of [esm, cjs]) {
        const { stdout } = await run(node!, ['-e', script], { cwd: root })
        expect(stdout).toMatch(/^dockside needs Node 22\.3 or newer .*; this is Node 20\.|^dockside needs Node 22\.3 or newer .*; this is Node 1\d\./)
      }
    })

    it('so intercept() is never reached: the first hooked fetch cannot fail later with "Promise.withResolvers is not a function"', async () => {
      const script = `import(${JSON.stringify(join(root, 'dist/index.js'))}).then(async ({ createDockside }) => { const h = await createDockside().intercept(); console.log('hooked'); h.restore() }, (e) => console.log(e.message))`
      const { stdout } = await run(node!, ['-e', script], { cwd: root })
      expect(stdout).not.toMatch(/hooked|withResolvers is not a function/)
      expect(stdout).toMatch(/^dockside needs Node 22\.3 or newer/)
    })
  })
})
