// dockside/vitest is ESM only, because vitest is (`require('vitest')` throws "Vitest cannot be imported in a CommonJS
// module"): its CommonJS build could never load, so package.json `exports` gives it no `require` condition, and a
// CommonJS consumer's require() reaches the ESM file (Node 22+ loads it) instead of a build that always fails. The
// runner-neutral matchers stay CommonJS too (dockside/matchers). And the matchers type jest's `expect`: a consumer
// using @jest/globals' expect type-checks with `import 'dockside/matchers'` (with the CommonJS and the ESM typings).
// @types/jest (the global `expect` of jest) is not installed here, so that flavour is not type-checked.
import { execFile } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { beforeAll, expect, it } from 'vitest'
import { ensureBuilt, root } from '../support/cli'

const run = promisify(execFile)
const consumer = join(root, '.tmp/typings-consumer')

beforeAll(async () => {
  // Rebuilt when missing or older than src/ (a stale dist/ would test yesterday's code).
  ensureBuilt()
  // A project with dockside in its node_modules (this checkout, through its package.json `exports`).
  rmSync(consumer, { recursive: true, force: true })
  mkdirSync(join(consumer, 'node_modules'), { recursive: true })
  symlinkSync('../../..', join(consumer, 'node_modules/dockside'))
}, 120_000)

it('dockside/vitest has no CommonJS condition: vitest itself cannot be required', () => {
  const exports = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, Record<string, unknown>> }).exports
  expect(exports['./vitest']).toEqual({ types: './dist/vitest.d.ts', default: './dist/vitest.js' })
  const requireFromConsumer = createRequire(join(consumer, 'index.cjs'))
  expect(() => requireFromConsumer('vitest')).toThrow(/Vitest cannot be imported in a CommonJS module/)
  expect(requireFromConsumer.resolve('dockside/vitest')).toBe(join(root, 'dist/vitest.js'))
})

it("a CommonJS consumer inside vitest require()s dockside/vitest (the ESM build) and gets the fixture and the matchers; dockside/matchers' CommonJS export has the same shape", () => {
  const requireFromConsumer = createRequire(join(consumer, 'index.cjs'))
  const viaVitest = requireFromConsumer('dockside/vitest') as { test: unknown; matchers: Record<string, unknown> }
  const viaMatchers = requireFromConsumer('dockside/matchers') as { matchers: Record<string, unknown> }
  expect(typeof viaVitest.test).toBe('function')
  const names = ['toHaveDeliveredAllEventsTo', 'toHaveDeliveredEachEventOnceTo', 'toHaveMissedEvents', 'toHavePushed', 'toHaveReceivedRequest', 'toHaveReceivedRequestTimes', 'toHaveReconnected']
  expect(Object.keys(viaVitest.matchers).sort()).toEqual(names)
  expect(Object.keys(viaMatchers.matchers).sort()).toEqual(names)
  expect(Object.values(viaMatchers.matchers).every((m) => typeof m === 'function')).toBe(true)
})

it("jest's expect from @jest/globals is typed with the matchers, in an ESM and a CommonJS consumer", { timeout: 120_000 }, async () => {
  const body = (importMatchers: string) => `${importMatchers}
const fake = createDockside({ seed: 1 })
expect(fake).toHavePushed('localhost:5000/app:1', { user: 'alice' })
expect(fake).not.toHaveDeliveredAllEventsTo('app')
expect(fake).toHaveReceivedRequestTimes({ method: 'POST', path: '/containers/create' }, 1)
// @ts-expect-error: a misspelt matcher is a type error
expect(fake).toHavePushd('localhost:5000/app:1')
// @ts-expect-error: toHaveReconnected takes a number of times
expect(fake).toHaveReconnected('twice')
`
  writeFileSync(join(consumer, 'esm.mts'), body(`import { expect } from '@jest/globals'\nimport { createDockside } from 'dockside'\nimport 'dockside/matchers'`))
  writeFileSync(join(consumer, 'cjs.cts'), body(`import { expect } from '@jest/globals'\nimport { createDockside } from 'dockside'\nimport m = require('dockside/matchers')\nexport const all = m.matchers`))
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2023', lib: ['es2023', 'esnext.disposable', 'dom'], types: ['node'], noEmit: true, skipLibCheck: true }, files: ['esm.mts', 'cjs.cts'] }),
  )
  const tsc = join(root, 'node_modules/typescript/bin/tsc')
  const out = await run(process.execPath, [tsc, '-p', consumer]).then(
    () => '',
    (e: { stdout: string }) => e.stdout,
  )
  expect(out).toBe('')
  // And it can fail: a consumer that does not import the matchers does not know them.
  writeFileSync(join(consumer, 'esm.mts'), body(`import { expect } from '@jest/globals'\nimport { createDockside } from 'dockside'`))
  writeFileSync(join(consumer, 'cjs.cts'), 'export {}\n')
  const without = await run(process.execPath, [tsc, '-p', consumer]).then(
    () => '',
    (e: { stdout: string }) => e.stdout,
  )
  expect(without).toMatch(/esm\.mts.*Property 'toHavePushed' does not exist/)
})
