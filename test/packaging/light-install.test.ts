// The packed tarball installs light (no ajv, yaml or selfsigned; at most 12 MB with its dependencies) beside msw 2,
// as well as beside msw 3 (pack.test.ts): what needs an optional package says which, and dockside/msw runs on msw 2.
import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, expect, it } from 'vitest'

const run = promisify(execFile)
const repo = new URL('../..', import.meta.url).pathname
const work = mkdtempSync(join(tmpdir(), 'dockside-light-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** Bytes of every file under `dir` (`du -sb`'s apparent size). */
/** The bytes of the files under `dir`, as they are (`du -sb`), or as the disk holds them in blocks (`du -sk` times 1024). */
function bytesUnder(dir: string, on: 'files' | 'disk' = 'files'): number {
  let total = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    const stat = statSync(p)
    if (on === 'disk') total += stat.blocks * 512
    if (e.isDirectory()) total += bytesUnder(p, on)
    else if (e.isFile() && on === 'files') total += stat.size
  }
  return total
}

// What a test on msw 2 writes: its own handler beside dockside's, the events websocket and a push.
const mswProbe = `import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { createDockside } from 'dockside'
import { docksideHandlers } from 'dockside/msw'
const fake = createDockside({ seed: 1 })
const server = setupServer(http.get('https://api.example.test/me', () => HttpResponse.json({ name: 'alice' })), ...docksideHandlers(fake))
server.listen({ onUnhandledRequest: 'error' })
const out = [(await (await fetch('https://api.example.test/me')).json()).name]
const ws = new WebSocket('wss://us-west-1.hyper.test/events/ws')
await new Promise((r) => ws.addEventListener('open', r))
const frame = new Promise((r) => ws.addEventListener('message', (m) => r(JSON.parse(String(m.data)).Action)))
fake.containers.create({ name: 'web', image: 'nginx' }).start()
out.push(await frame)
ws.close()
fake.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 2 })
const res = await fetch('https://us-west-1.hyper.test/v1.47/images/localhost:5000/team/app/push?tag=1.0', { method: 'POST' })
const reader = res.body.getReader()
let text = ''
for (let r = await reader.read(); !r.done; r = await reader.read()) { text += new TextDecoder().decode(r.value); await fake.clock.advance('1s') }
out.push(text.includes('"aux":{"Tag":"1.0"'))
server.close()
await fake.close()
console.log(out.join(' '))
`

it('installs at most 12 MB without the optional packages, names them when needed, and runs dockside/msw on msw 2', async () => {
  const stage = join(work, 'stage')
  mkdirSync(stage, { recursive: true })
  for (const f of ['package.json', 'README.md', 'bin', 'docs', 'examples', 'types']) cpSync(join(repo, f), join(stage, f), { recursive: true })
  await run('npx', ['tsup', '--out-dir', join(stage, 'dist')], { cwd: repo })
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: stage })
  const [{ filename }] = JSON.parse(stdout) as [{ filename: string }]
  const project = join(work, 'project')
  mkdirSync(project)
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }))
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', join(work, filename)], { cwd: project })

  // The weight: dockside and what it brings (docs/decisions, "light install").
  const modules = join(project, 'node_modules')
  for (const name of ['ajv', 'yaml', 'selfsigned', 'pkijs', '@peculiar']) expect(readdirSync(modules), name).not.toContain(name)
  // 12 MB of file contents, and 12 MiB of disk blocks, as `du -sh node_modules` reports the weight (the measure).
  expect(bytesUnder(modules)).toBeLessThanOrEqual(12_000_000)
  expect(bytesUnder(modules, 'disk')).toBeLessThanOrEqual(12 * 1024 * 1024)

  // The schema's checks work with no ajv: its validators are compiled into the package.
  const check = `import { createDockside } from 'dockside'; try { createDockside().faults.add({ on: 'events', replay: 429 }) } catch (e) { console.log(e.message) }`
  expect((await run('node', ['--input-type=module', '-e', check], { cwd: project })).stdout).toMatch(/unknown field "replay"; allowed: id, on, match, reply/)
  // A JSON scenario needs nothing; a YAML one and --tls name their package and exit 2.
  writeFileSync(join(project, 'twice.json'), '{"seed": 1,\n "seed": 2}')
  const cli = (...args: string[]) => run('npx', ['dockside', ...args], { cwd: project }).then((r) => ({ code: 0, ...r }), (e: { code: number; stdout: string; stderr: string }) => e)
  writeFileSync(join(project, 'web.json'), JSON.stringify({ containers: [{ name: 'web', image: 'nginx', running: true }] }))
  expect((await cli('validate', 'web.json')).stdout).toBe('web.json: valid scenario\n')
  expect((await cli('validate', 'twice.json')).stderr).toMatch(/at line 2, column 2: expected valid JSON with each key once in an object: "seed" is given twice/)
  const yaml = await cli('validate', join(stage, 'examples/basic.yaml'))
  expect([yaml.code, yaml.stderr]).toEqual([2, expect.stringContaining('needs the package "yaml", an optional peer dependency of dockside that this project does not have. Install it beside dockside: npm install --save-dev yaml@')])
  // A recording written as YAML says so before it records anything (not at the end, when the session would be lost).
  const rec = await cli('record', '--upstream', 'tcp://127.0.0.1:9', '--out', 'session.yaml')
  expect([rec.code, rec.stderr]).toEqual([2, expect.stringContaining('Writing a recording as YAML (session.yaml; a FILE.json needs no other package) needs the package "yaml"')])
  const tls = await cli('serve', '--tls', '--port', '0')
  expect([tls.code, tls.stderr]).toEqual([2, expect.stringContaining('A self-signed certificate (--tls, selfSignedCertificate()) needs the package "selfsigned"')])

  // msw 2 installs beside it (no ERESOLVE) and dockside/msw runs on it.
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', 'msw@2'], { cwd: project })
  writeFileSync(join(project, 'msw-probe.mjs'), mswProbe)
  expect((await run('node', ['msw-probe.mjs'], { cwd: project })).stdout.trim()).toBe('alice start true')
  // An msw 2 older than the handlers need installs too, and docksideHandlers says which it needs.
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', 'msw@2.12.0'], { cwd: project })
  const old = await run('node', ['msw-probe.mjs'], { cwd: project }).then(() => 'ran', (e: { stderr: string }) => e.stderr)
  expect(old).toContain('dockside/msw needs msw 2.13.6 or newer (msw 2 from 2.13.6, or msw 3)')
}, 400_000)
