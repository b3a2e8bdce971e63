// One process, one dockside and one copy of the interceptors under nock (docs/decisions/0024-one-nock-per-process.md).
// Two copies of @mswjs/interceptors each patch net.Socket.prototype.connect, and a request then goes round between
// them forever at full CPU: before, `import` and `require()` of dockside in one process, or the CommonJS build beside
// the user's own nock, hung the first node:https request. Each case runs in a child process, killed after 15 s (a busy
// loop never lets the child's own deadline fire).
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { beforeAll, expect, it } from 'vitest'
import { ensureBuilt, root } from '../support/cli'

const run = promisify(execFile)

/** Runs `body` as an ES module in the checkout (so `dockside` names the package itself); its lines of output. */
async function probe(body: string): Promise<string[]> {
  const script = `
import { createRequire } from 'node:module'
import https from 'node:https'
const require = createRequire(import.meta.url)
const get = (url) => new Promise((resolve) => https.get(url, (res) => { let text = ''; res.on('data', (c) => (text += c)); res.on('end', () => resolve(res.statusCode + ' ' + text)) }).on('error', (e) => resolve(e.code)))
setTimeout(() => { console.log('hung'); process.exit(3) }, 8000).unref()
${body}
`
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: root, timeout: 15_000 })
  return stdout.trim().split('\n')
}

beforeAll(() => ensureBuilt(), 60_000)

it('import and require() of dockside in one process are one module: one intercept state, no second nock', async () => {
  const lines = await probe(`
const esm = await import('dockside')
const cjs = require('dockside')
console.log(esm.createDockside === cjs.createDockside)
const a = await esm.createDockside({ seed: 1 }).intercept({ region: 'a' })
const b = await cjs.createDockside({ seed: 2 }).intercept({ region: 'b' })
console.log(await cjs.createDockside({ seed: 3 }).intercept({ region: 'a' }).then(() => 'hooked twice', (e) => e.message.slice(0, 61)))
a.restore()
console.log(await get('https://b.hyper.test/_ping'))
console.log(await get('https://a.hyper.test/_ping'))
b.restore()
`)
  expect(lines).toEqual(['true', 'dockside: https://a.hyper.test is already hooked by another i', '200 OK', 'ENOTFOUND'])
}, 30_000)

it("the CommonJS build drives the process's own nock: the user's nock mocks and the hooked host both answer", async () => {
  const lines = await probe(`
const { createDockside } = require(${JSON.stringify(join(root, 'dist/index.cjs'))})
const nock = require('nock').default
nock('https://other.test').get('/x').reply(200, 'mine')
const hooks = await createDockside({ seed: 1 }).intercept()
console.log(await get('https://us-west-1.hyper.test/_ping'))
console.log(await get('https://other.test/x'))
hooks.restore()
`)
  expect(lines).toEqual(['200 OK', '200 mine'])
}, 30_000)

it('beside an active MSW with another copy of the interceptors, intercept() refuses with a message instead of hanging', async () => {
  // Where require() cannot load nock's ES modules (jest, Node 22.3 to 22.11), the CommonJS build falls back on its own
  // bundled copy; the user's MSW (ESM) has another. Simulated here by refusing dockside's require('nock').
  const lines = await probe(`
import Module from 'node:module'
const original = Module.prototype.require
Module.prototype.require = function (id) {
  if (id === 'nock' && this.filename.startsWith(${JSON.stringify(join(root, 'dist'))})) throw new Error('as under jest')
  return original.apply(this, arguments)
}
const { createDockside } = require(${JSON.stringify(join(root, 'dist/index.cjs'))})
const { setupServer } = await import('msw/node')
const { http, HttpResponse } = await import('msw')
const server = setupServer(http.get('https://other.test/x', () => HttpResponse.text('msw')))
server.listen({ onUnhandledRequest: 'bypass' })
for (let i = 0; i < 2; i++) console.log(await createDockside({ seed: 1 }).intercept().then(() => 'hooked', (e) => e.message.slice(0, 64) + ' / bundled named: ' + e.message.includes('used because require() cannot load') + ', dedupe advised: ' + e.message.includes('npm dedupe')))
console.log(await get('https://other.test/x'))
server.close()
`)
  // The second copy is dockside's own bundle: the message says so, and does not advise a dedupe that cannot merge it.
  expect(lines).toEqual(Array(2).fill('dockside: another copy of @mswjs/interceptors (the library under / bundled named: true, dedupe advised: false').concat(['200 msw']))
}, 30_000)

it("beside MSW's setupServer (one copy of the interceptors, both patching fetch), intercept() refuses naming the way that works", async () => {
  // nock and MSW each patch globalThis.fetch through @mswjs/interceptors, which refuses a second patch: the import of
  // nock failed with "Invariant Violation: Failed to replace a global value at "fetch": already replaced".
  const lines = await probe(`
const { createDockside } = await import('dockside')
const { setupServer } = await import('msw/node')
const { http, HttpResponse } = await import('msw')
const server = setupServer(http.get('https://other.test/x', () => HttpResponse.text('msw')))
server.listen({ onUnhandledRequest: 'bypass' })
for (let i = 0; i < 2; i++) console.log(await createDockside({ seed: 1 }).intercept().then(() => 'hooked', (e) => e.message.slice(0, 58)))
console.log(await get('https://other.test/x'))
console.log(await (await fetch('https://other.test/x')).text())
server.close()
`)
  expect(lines).toEqual([...Array(2).fill("dockside: intercept() cannot hook beside MSW's setupServer"), '200 msw', 'msw'])
}, 30_000)
