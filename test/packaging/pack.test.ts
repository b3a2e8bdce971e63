import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, expect, it } from 'vitest'

const run = promisify(execFile)
const repo = new URL('../..', import.meta.url).pathname
const work = mkdtempSync(join(tmpdir(), 'dockside-pack-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

// What a user writes: the vitest fixture, the in-process hooks, a matcher, on the real service's addresses.
const userTest = `import { expect } from 'vitest'
import { test } from 'dockside/vitest'
import { createDockside } from 'dockside'

test('push and events in process', async ({ dockside }) => {
  dockside.registries.add('localhost:5000', { username: 'alice', password: 's3cret' })
  dockside.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 2 })
  const ws = new WebSocket('wss://us-west-1.hyper.test:443/events/ws?filters={"event":["start"]}')
  const frame = new Promise((resolve) => ws.addEventListener('message', (m) => resolve(JSON.parse(m.data))))
  await new Promise((resolve) => ws.addEventListener('open', resolve))
  dockside.containers.create({ name: 'web', image: 'nginx' }).start()
  expect(await frame).toMatchObject({ Action: 'start' })
  const auth = Buffer.from(JSON.stringify({ username: 'alice', password: 's3cret' })).toString('base64')
  const res = await fetch('https://us-west-1.hyper.test/v1.47/images/localhost:5000/team/app/push?tag=1.0', { method: 'POST', headers: { 'X-Registry-Auth': auth } })
  const reader = res.body.getReader()
  for (let r = await reader.read(); !r.done; r = await reader.read()) await dockside.clock.advance('1s')
  expect(dockside).toHavePushed('localhost:5000/team/app:1.0', { user: 'alice' })
  ws.close()
  expect(typeof createDockside).toBe('function')
})
`

const typesCheck = `import { createDockside, type Dockside, type FaultRule, type Scenario } from 'dockside'
import { serve, selfSignedCertificate } from 'dockside/server'
import { intercept } from 'dockside/intercept'
import { test } from 'dockside/vitest'
const fake: Dockside = createDockside({ seed: 1, clock: 'virtual', maxConnectionAge: '1h' })
const rule: FaultRule = { on: 'events', reply: 429, retryAfter: 5 }
fake.faults.add(rule).times(2)
const scenario: Scenario = { seed: 2, containers: [{ name: 'web', image: 'nginx', running: true }] }
void scenario
void serve
void selfSignedCertificate
void intercept
void test
const web = fake.containers.create({ name: 'web', image: 'nginx' })
web.stop({ exitCode: 137 })
export const n: number = fake.clock.pending
`

it('the packed tarball installs into a fresh project and its vitest fixture and hooks work there', async () => {
  // Stage the package with a fresh build of the current source; the repo's own dist/ is not touched.
  const stage = join(work, 'stage')
  mkdirSync(join(stage, 'docs'), { recursive: true })
  cpSync(join(repo, 'package.json'), join(stage, 'package.json'))
  cpSync(join(repo, 'bin'), join(stage, 'bin'), { recursive: true })
  cpSync(join(repo, 'docs/scenario.schema.json'), join(stage, 'docs/scenario.schema.json'))
  await run('npx', ['tsup', '--out-dir', join(stage, 'dist')], { cwd: repo })
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: stage })
  const [{ filename, files }] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }]
  const paths = files.map((f) => f.path)
  expect(paths).toEqual(expect.arrayContaining(['dist/index.js', 'dist/intercept.js', 'dist/vitest.js', 'dist/vitest.d.ts', 'bin/dockside.js']))
  expect(paths.some((p) => p.startsWith('src/') || p.startsWith('test/'))).toBe(false)

  const project = join(work, 'project')
  mkdirSync(join(project, 'test'), { recursive: true })
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }))
  const vitestVersion = (JSON.parse(readFileSync(join(repo, 'node_modules/vitest/package.json'), 'utf8')) as { version: string }).version
  const tsVersion = (JSON.parse(readFileSync(join(repo, 'node_modules/typescript/package.json'), 'utf8')) as { version: string }).version
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, filename), `vitest@${vitestVersion}`, `typescript@${tsVersion}`, '@types/node@22'], { cwd: project })

  // The emitted .d.ts files type-check a consumer of every entry point (and reject a misuse).
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2023', lib: ['es2023', 'esnext.disposable', 'dom'], types: ['node'], noEmit: true, skipLibCheck: false }, include: ['types.ts'] }))
  writeFileSync(join(project, 'types.ts'), typesCheck)
  const typed = await run('npx', ['tsc', '-p', '.'], { cwd: project }).then(() => '', (e: { stdout: string }) => e.stdout)
  expect(typed).toBe('')
  writeFileSync(join(project, 'types.ts'), `${typesCheck}\nfake.containers.create({ name: 'x' })\n`)
  const misuse = await run('npx', ['tsc', '-p', '.'], { cwd: project }).then(() => 'compiled', (e: { stdout: string }) => e.stdout)
  expect(misuse).toMatch(/Property 'image' is missing/)
  writeFileSync(join(project, 'test/user.test.js'), userTest)
  const result = await run('npx', ['vitest', 'run', '--reporter=verbose'], { cwd: project, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } }).catch((e: { stdout: string; stderr: string }) => e)
  expect(result.stdout + result.stderr).toMatch(/✓ .*push and events in process/)
  expect(result.stdout).toMatch(/1 passed/)
  // Importing the root entry does not load nock (fetch stays the platform's); the first intercept() does.
  const script = "const f = globalThis.fetch; const { createDockside } = await import('dockside'); const a = globalThis.fetch === f; const h = await createDockside().intercept(); console.log(a, globalThis.fetch === f); h.restore()"
  const lean = await run('node', ['--input-type=module', '-e', script], { cwd: project })
  expect(lean.stdout.trim()).toBe('true false')
}, 240_000)
