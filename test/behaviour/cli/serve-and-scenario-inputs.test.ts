import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { selfSignedCertificate } from '../../../src/transports/server/tls'
import { cliEntry, ensureBuilt, root } from '../../support/cli'
import { killRunning, watchChild } from '../../support/cli-run'

// A new user's first runs of the CLI (a fresh-eyes hunt): each bad input gets one line on stderr naming what was wrong
// and what is allowed, with the documented exit code, never a stack trace.
// Found by the CLI hunt (was test/regressions/cli-hunt-inputs.test.ts).

let dir: string
beforeAll(async () => {
  ensureBuilt()
  dir = await mkdtemp(join(tmpdir(), 'dockside-cli-hunt-'))
}, 120_000)
afterAll(() => rm(dir, { recursive: true, force: true }))
afterEach(killRunning)

const cli = (...args: string[]) => watchChild(spawn(process.execPath, [cliEntry, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }))

/** A scenario file in the scratch folder. */
async function file(name: string, text: string) {
  const path = join(dir, name)
  await writeFile(path, text)
  return path
}

describe('dockside serve --host', () => {
  it('bug: an address in brackets, as URLs write it, was looked up as a host name (ENOTFOUND); now it binds the address', async () => {
    const run = cli('serve', '--port', '0', '--quiet', '--host', '[127.0.0.1]')
    const [, url] = await run.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/)
    expect(await (await fetch(`${url}/_ping`)).text()).toBe('OK')
    run.child.kill('SIGTERM')
    expect(await run.exit).toEqual({ code: 0, signal: null })
    expect(run.stderr()).toBe('')
  })

  it('bug: --tls with an address that is no IP ("1.2.3") crashed making the certificate, with a stack trace; now listen refuses it in one line', async () => {
    const run = cli('serve', '--port', '0', '--tls', '--host', '1.2.3')
    expect((await run.exit).code).toBe(1)
    const lines = run.stderr().trim().split('\n').filter((l) => !l.includes('warning:'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^dockside: cannot listen on 1\.2\.3:0: /)
    expect(run.stderr()).not.toMatch(/\n\s+at /)
  })
})

describe('dockside serve --cert/--key', () => {
  it('bug: a key of another certificate was "cannot listen on ...: key values mismatch", exit 1 as for a taken port; now exit 2 naming both files', async () => {
    const [one, other] = await Promise.all([selfSignedCertificate(), selfSignedCertificate()])
    const cert = await file('one.crt', one.cert)
    const key = await file('other.key', other.key)
    const run = cli('serve', '--port', '0', '--cert', cert, '--key', key)
    expect((await run.exit).code).toBe(2)
    expect(run.stderr()).toBe(`dockside: --key ${key} is not the private key of --cert ${cert}: pass the key the certificate was made with, or --tls alone for a self-signed certificate\n`)
    expect(run.stdout()).not.toMatch(/listening/)
  })

  it('bug: a damaged PEM body was found only by listen (exit 1); now exit 2 naming the files and what is expected', async () => {
    const { key } = await selfSignedCertificate()
    const cert = await file('damaged.crt', '-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n')
    const run = cli('serve', '--port', '0', '--cert', cert, '--key', await file('good.key', key))
    expect((await run.exit).code).toBe(2)
    expect(run.stderr()).toMatch(new RegExp(`^dockside: cannot use --cert ${cert.replace(/[.\\]/g, '\\$&')} with --key .*good\\.key: .*; pass a PEM certificate and its private key, or --tls alone`))
  })
})

describe('scenario files', () => {
  it('bug: a second YAML document was refused with the library\'s advice "please use YAML.parseAllDocuments()"; now the message says what to do', async () => {
    const path = await file('two-docs.yaml', 'seed: 1\n---\nseed: 2\n')
    const run = cli('validate', path)
    expect((await run.exit).code).toBe(2)
    expect(run.stderr()).toBe(
      `dockside: invalid scenario ${path}: at line 2, column 1: expected one YAML document (a scenario file holds one scenario): a second one starts here, after a "---" or "..." line; remove the separator, or split the file\n`,
    )
  })

  it.each([
    ['seed: 99999999999999999999999\n', 'seed'],
    ['seed: -99999999999999999999999\n', 'seed'],
    ['retainEvents: .inf\n', 'retainEvents'],
  ])('bug: %j was refused "at (root)", with "expected an integer" for an integer; now at the field, naming the range', async (text, field) => {
    const path = await file(`${field}.yaml`, text)
    const run = cli('validate', path)
    expect((await run.exit).code).toBe(2)
    expect(run.stderr()).toMatch(new RegExp(`^dockside: invalid scenario .*: at ${field}: must be [<>]= -?9007199254740991\\n$`))
  })

  it('bug: --seed 99999999999999999999 said "expected an integer" of an integer; now it names the range', async () => {
    const run = cli('serve', '--port', '0', '--seed', '99999999999999999999')
    expect((await run.exit).code).toBe(2)
    expect(run.stderr()).toBe('dockside: invalid --seed 99999999999999999999: expected an integer from -9007199254740991 to 9007199254740991\n')
  })
})
