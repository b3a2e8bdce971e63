import { defineConfig } from 'tsup'
import type { Plugin } from 'esbuild'
import { copyFileSync, mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

// Dependencies published as ESM only. jest without --experimental-vm-modules cannot require() them, so the CommonJS
// build bundles them; the ESM build imports them (one nock per process, shared with the user's own).
const esmOnly = ['nock', '@mswjs/interceptors', '@faker-js/faker']

/** Keeps {@link esmOnly} external in the ESM build (tsup's `noExternal` applies to both formats). */
const esmOnlyExternalInEsm: Plugin = {
  name: 'esm-only-external-in-esm',
  setup(build) {
    // tsup runs a split CommonJS build through esbuild as ESM; its TSUP_FORMAT tells the two apart.
    if (build.initialOptions.define?.TSUP_FORMAT !== '"esm"') {
      // The bundled @mswjs/interceptors (under nock) reads its HTTP parser from ./llhttp/llhttp.wasm next to the chunk.
      build.onEnd(() => {
        const outdir = build.initialOptions.outdir ?? 'dist'
        mkdirSync(join(outdir, 'llhttp'), { recursive: true })
        copyFileSync(createRequire(import.meta.url).resolve('@mswjs/interceptors').replace(/index\.js$/, 'llhttp/llhttp.wasm'), join(outdir, 'llhttp/llhttp.wasm'))
      })
      return
    }
    const filter = new RegExp(`^(${esmOnly.map((n) => n.replace(/[/.]/g, '\\$&')).join('|')})(/|$)`)
    build.onResolve({ filter }, (args) => ({ path: args.path, external: true }))
  },
}

// The library's entries, one per public subpath (package.json `exports`; test/packaging checks that they match).
const libraryEntries = {
  index: 'src/index.ts',
  server: 'src/transports/server/index.ts',
  intercept: 'src/transports/intercept/index.ts',
  vitest: 'src/vitest/index.ts',
  matchers: 'src/matchers/index.ts',
}

// One config builds the library and the CLI, so that `clean` cannot race a second config writing into dist/.
// Another bundle (for another platform) goes in its own config with `clean: false` and its own subfolder of dist/.
export default defineConfig({
  entry: { ...libraryEntries, cli: 'src/cli/main.ts' },
  // ESM for `import`, CommonJS for `require` (jest's default); shared code is split into chunks so one copy of the
  // core is loaded per module system. dist/cli.cjs is a by-product: bin/dockside.js runs dist/cli.js.
  format: ['esm', 'cjs'],
  // Types for both: index.d.ts for `import`, index.d.cts for `require`.
  dts: { entry: libraryEntries },
  // Gives the CommonJS build an `import.meta.url` (the scenario schema's lazy createRequire).
  shims: true,
  target: 'node22',
  platform: 'node',
  clean: true,
  splitting: true,
  sourcemap: false,
  external: ['vitest', 'mock-socket'],
  noExternal: esmOnly,
  esbuildPlugins: [esmOnlyExternalInEsm],
})
