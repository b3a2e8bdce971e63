// The Node ESM build (dist/*.js, what `dockside serve` and `import` run) loads faker on the first name or number a fake
// draws, not at import (src/runtime/faker-lazy.ts, swapped in by tsup.config.ts, require()s dist/faker-base.cjs):
// ~11 ms of a cold start. The draws must be the ones the statically imported faker gives (the tests' source build and
// the CommonJS build), and no top-level await may creep in (CommonJS code require()s the ESM entries).
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { beforeAll, expect, it } from 'vitest'
import { createDockside } from '../../src/index'
import { ensureBuilt, root } from '../support/cli'

const run = promisify(execFile)

// Records every resolution of a faker specifier or of dist/faker-base.cjs (module.registerHooks sees ESM imports and
// require() alike), then reports how many happened at each step and the names a seeded fake drew.
const probe = (entry: string, how: 'import' | 'require') => `
import module from 'node:module'
const faker = []
module.registerHooks({ resolve(specifier, context, next) { if (/faker/.test(specifier)) faker.push(specifier); return next(specifier, context) } })
const { createDockside } = ${how === 'require' ? `module.createRequire(import.meta.url)(${JSON.stringify(entry)})` : `await import(${JSON.stringify(pathToFileURL(entry).href)})`}
const atImport = faker.length
const fake = createDockside({ seed: 7 })
const atCreate = faker.length
const names = [fake.containers.create({ image: 'nginx' }).name, fake.containers.create({ image: 'redis' }).name]
console.log(JSON.stringify({ atImport, atCreate, afterDraw: faker.length, names }))
await fake.close()
`

async function probeBuild(entry: string, how: 'import' | 'require') {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', probe(entry, how)], { cwd: root })
  return JSON.parse(stdout) as { atImport: number; atCreate: number; afterDraw: number; names: string[] }
}

beforeAll(() => ensureBuilt(), 60_000)

it('the ESM build resolves faker on the first name drawn, not on import or createDockside, and draws the same names', async () => {
  const fake = createDockside({ seed: 7 })
  const expected = [fake.containers.create({ image: 'nginx' }).name, fake.containers.create({ image: 'redis' }).name]
  await fake.close()
  const esm = await probeBuild(join(root, 'dist/index.js'), 'import')
  expect(esm).toEqual({ atImport: 0, atCreate: 0, afterDraw: 1, names: expected })
  // require() of the ESM entry works (a top-level await anywhere in its graph would refuse it).
  const required = await probeBuild(join(root, 'dist/index.js'), 'require')
  expect(required).toEqual({ atImport: 0, atCreate: 0, afterDraw: 1, names: expected })
})

it('the CommonJS build keeps faker in its bundle (jest cannot require an ES module) and draws the same names', async () => {
  const cjs = await probeBuild(join(root, 'dist/index.cjs'), 'require')
  expect(cjs).toEqual({ atImport: 0, atCreate: 0, afterDraw: 0, names: expect.any(Array) })
  const fake = createDockside({ seed: 7 })
  expect(cjs.names).toEqual([fake.containers.create({ image: 'nginx' }).name, fake.containers.create({ image: 'redis' }).name])
  await fake.close()
})
