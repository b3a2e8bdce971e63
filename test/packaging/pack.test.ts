import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, expect, it } from 'vitest'
import { brokenLinks } from '../support/doc-links'

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
  mkdirSync(stage, { recursive: true })
  for (const f of ['package.json', 'README.md', 'bin', 'docs', 'examples', 'types']) cpSync(join(repo, f), join(stage, f), { recursive: true })
  await run('npx', ['tsup', '--out-dir', join(stage, 'dist')], { cwd: repo })
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: stage })
  const [{ filename, files }] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }]
  const paths = files.map((f) => f.path)
  expect(paths).toEqual(expect.arrayContaining(['dist/index.js', 'dist/intercept.js', 'dist/vitest.js', 'dist/vitest.d.ts', 'bin/dockside.js']))
  expect(paths.some((p) => p.startsWith('src/') || p.startsWith('test/'))).toBe(false)
  // Every target of package.json `exports` (ESM, CommonJS, both kinds of types) is in the tarball.
  for (const target of exportTargets()) expect(paths, `exports target ${target}`).toContain(target)
  expect(paths).toEqual(expect.arrayContaining(['dist/llhttp/llhttp.wasm', 'examples/basic.yaml', 'docs/jest.md']))
  // Every relative link of the shipped Markdown resolves in the tarball (doc-links.test.ts checks the same list cheaply).
  const pages = new Map(paths.filter((p) => p.endsWith('.md')).map((p) => [p, readFileSync(join(stage, p), 'utf8')]))
  expect(brokenLinks(pages, new Set(paths))).toEqual([])

  const project = join(work, 'project')
  mkdirSync(join(project, 'test'), { recursive: true })
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }))
  const vitestVersion = (JSON.parse(readFileSync(join(repo, 'node_modules/vitest/package.json'), 'utf8')) as { version: string }).version
  const tsVersion = (JSON.parse(readFileSync(join(repo, 'node_modules/typescript/package.json'), 'utf8')) as { version: string }).version
  const mswVersion = (JSON.parse(readFileSync(join(repo, 'node_modules/msw/package.json'), 'utf8')) as { version: string }).version
  // msw too: dockside/msw and dockside/browser are typed against it (an optional peer: their users have it).
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, filename), `vitest@${vitestVersion}`, `typescript@${tsVersion}`, '@types/node@22', `msw@${mswVersion}`], { cwd: project })

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
  // Each entry by require() (CommonJS, the .cjs build) and by import (ESM), as the package's name.
  const entries = ['dockside', 'dockside/server', 'dockside/intercept', 'dockside/matchers']
  const probe = `const entries = ${JSON.stringify(entries)}; const out = []
    for (const e of entries) out.push(e + ' cjs ' + Object.keys(require(e)).length + ' esm ' + Object.keys(await import(e)).length)
    const { createDockside, drainWithClock } = require('dockside'); const { matchers } = require('dockside/matchers')
    const fake = createDockside({ seed: 1 }); const hooks = await fake.intercept()
    fake.images.add('localhost:5000/app', { tags: ['1'], layers: 2 })
    const res = await fetch('https://us-west-1.hyper.test/images/localhost:5000/app/push?tag=1', { method: 'POST' })
    const text = await drainWithClock(res, fake)
    out.push(String(text.includes('"aux"')), String(matchers.toHavePushed(fake, 'localhost:5000/app:1').pass))
    hooks.restore(); await fake.close(); console.log(out.join('\\n'))`
  writeFileSync(join(project, 'probe.cjs'), `(async () => { ${probe} })().catch((e) => { console.error(e); process.exit(1) })`)
  const probed = (await run('node', ['probe.cjs'], { cwd: project })).stdout.trim().split('\n')
  expect(probed.slice(0, 4).map((l) => l.replace(/\d+/g, 'N'))).toEqual(entries.map((e) => `${e} cjs N esm N`))
  expect(probed.slice(4)).toEqual(['true', 'true'])
  // The CommonJS typings (.d.cts) type-check a CommonJS consumer.
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2023', lib: ['es2023', 'esnext.disposable', 'dom'], types: ['node'], noEmit: true, skipLibCheck: false }, include: ['types.cts'] }))
  writeFileSync(join(project, 'types.cts'), `import dockside = require('dockside')\nimport m = require('dockside/matchers')\nconst fake: dockside.Dockside = dockside.createDockside({ seed: 1 })\nconst r: { pass: boolean } = m.matchers.toHavePushed(fake, 'a:1')\nexport = r\n`)
  expect(await run('npx', ['tsc', '-p', '.'], { cwd: project }).then(() => '', (e: { stdout: string }) => e.stdout)).toBe('')
  // The classic ts-jest setup, `module: commonjs` (node10 resolution, which reads no `exports`): the subpaths resolve
  // through `typesVersions`.
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'commonjs', target: 'es2023', lib: ['es2023', 'esnext.disposable', 'dom'], types: ['node'], noEmit: true, skipLibCheck: true }, include: ['node10.ts'] }))
  writeFileSync(join(project, 'node10.ts'), `import { createDockside } from 'dockside'\nimport { serve } from 'dockside/server'\nimport { intercept } from 'dockside/intercept'\nimport { matchers } from 'dockside/matchers'\nexport const all = [createDockside, serve, intercept, matchers]\n`)
  expect(await run('npx', ['tsc', '-p', '.'], { cwd: project }).then(() => '', (e: { stdout: string }) => e.stdout)).toBe('')
  // Without msw (an optional peer: a jest user need not have it) and without the DOM lib (a Node-only project such as
  // @tsconfig/node22's) every entry but dockside/msw and dockside/browser type-checks with skipLibCheck off: no other
  // declaration imports msw or names a DOM-only type. `paths` points msw at an empty module, wherever an installed one
  // is (a path that does not resolve falls back to node_modules).
  writeFileSync(join(project, 'no-msw.d.ts'), 'export {}\n')
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2023', lib: ['es2023', 'esnext.disposable'], types: ['node'], noEmit: true, skipLibCheck: false, baseUrl: '.', paths: { msw: ['./no-msw.d.ts'], 'msw/*': ['./no-msw.d.ts'] } }, include: ['nomsw.ts'] }))
  writeFileSync(join(project, 'nomsw.ts'), `import { createDockside } from 'dockside'\nimport { serve } from 'dockside/server'\nimport { intercept } from 'dockside/intercept'\nimport { matchers } from 'dockside/matchers'\nexport const all = [createDockside, serve, intercept, matchers]\n`)
  expect(await run('npx', ['tsc', '-p', '.'], { cwd: project }).then(() => '', (e: { stdout: string }) => e.stdout)).toBe('')
  writeFileSync(join(project, 'nomsw.ts'), `import { docksideHandlers } from 'dockside/msw'\nexport const all = [docksideHandlers]\n`)
  expect(await run('npx', ['tsc', '-p', '.'], { cwd: project }).then(() => '', (e: { stdout: string }) => e.stdout)).toMatch(/Module '"msw"' has no exported member/)
  // A page's project: the DOM lib, no Node types, no esnext.disposable, skipLibCheck off. dockside/browser names no
  // Node type (Buffer) and brings the disposable lib that `await using` needs itself.
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'esnext', moduleResolution: 'bundler', target: 'es2022', lib: ['es2022', 'dom'], types: [], noEmit: true, skipLibCheck: false }, include: ['page.ts'] }))
  writeFileSync(join(project, 'page.ts'), `import { createDockside, docksideHandlers } from 'dockside/browser'\nexport async function page() {\n  await using fake = createDockside({ seed: 1 })\n  return docksideHandlers(fake).length\n}\n`)
  expect(await run('npx', ['tsc', '-p', '.'], { cwd: project }).then(() => '', (e: { stdout: string }) => e.stdout)).toBe('')
  // Importing the root entry does not load nock (fetch stays the platform's); the first intercept() does.
  const script = "const f = globalThis.fetch; const { createDockside } = await import('dockside'); const a = globalThis.fetch === f; const h = await createDockside().intercept(); console.log(a, globalThis.fetch === f); h.restore()"
  const lean = await run('node', ['--input-type=module', '-e', script], { cwd: project })
  expect(lean.stdout.trim()).toBe('true false')
}, 400_000)

/** Every file path named in package.json `exports` (patterns like `./examples/*` excluded). */
function exportTargets(): string[] {
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }
  const out: string[] = []
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      if (!v.includes('*')) out.push(v.replace(/^\.\//, ''))
    } else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x)
  }
  walk(pkg.exports)
  return [...new Set(out)]
}
