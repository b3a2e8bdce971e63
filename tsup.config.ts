import { defineConfig, type Options } from 'tsup'
import type { Plugin } from 'esbuild'
import { copyFileSync, mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { schemaStandalone } from './scripts/schema-standalone'

// Dependencies published as ESM only. jest without --experimental-vm-modules cannot require() them, so the CommonJS
// build bundles them; the ESM build imports them (one nock per process, shared with the user's own). The CommonJS
// build, too, uses the process's own nock wherever require() can load it (see the plugin below).
const esmOnly = ['nock', '@mswjs/interceptors', '@faker-js/faker']

/** Keeps {@link esmOnly} external in the ESM build (tsup's `noExternal` applies to both formats). */
const esmOnlyExternalInEsm: Plugin = {
  name: 'esm-only-external-in-esm',
  setup(build) {
    // tsup runs a split CommonJS build through esbuild as ESM; its TSUP_FORMAT tells the two apart.
    if (build.initialOptions.define?.TSUP_FORMAT !== '"esm"') {
      // The process's own nock first (nock-loader-cjs.ts require()s it; one copy per process, as in the ESM build),
      // the bundled one (nock-bundled.ts) where require() cannot load it.
      const loaderCjs = new URL('./src/transports/intercept/nock-loader-cjs.ts', import.meta.url).pathname
      build.onResolve({ filter: /^\.\/nock-loader$/ }, (args) => (args.importer.endsWith('/src/transports/intercept/index.ts') ? { path: loaderCjs } : undefined))
      build.onResolve({ filter: /^nock$/ }, (args) => (args.importer === loaderCjs ? { path: 'nock', external: true } : undefined))
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

/**
 * In the Node ESM build (dist/*.js: `dockside serve` and `import`), faker loads on the first draw, not at import:
 * src/runtime/faker-lazy.ts replaces src/service/faker-base.ts there, and require()s dist/faker-base.cjs (the entry
 * below) on first use. The CommonJS build (jest) and the browser bundle keep the static import.
 */
const fakerOnFirstDraw: Plugin = {
  name: 'faker-on-first-draw',
  setup(build) {
    if (build.initialOptions.define?.TSUP_FORMAT !== '"esm"') return
    const lazy = new URL('./src/runtime/faker-lazy.ts', import.meta.url).pathname
    build.onResolve({ filter: /^\.\/faker-base$/ }, (args) => (args.importer.endsWith('/src/service/random.ts') ? { path: lazy } : undefined))
  },
}

// The library's entries, one per public subpath (package.json `exports`; test/packaging checks that they match).
const libraryEntries = {
  index: 'src/index.ts',
  server: 'src/transports/server/index.ts',
  intercept: 'src/transports/intercept/index.ts',
  vitest: 'src/vitest/index.ts',
  matchers: 'src/matchers/index.ts',
  msw: 'src/transports/msw/index.ts',
  verify: 'src/verify/index.ts',
  record: 'src/record/index.ts',
}

// One config builds the library and the CLI, so that `clean` cannot race a second config writing into dist/.
// The browser bundles (below) go in configs of their own with `clean: false`, and this one leaves their files alone.
const node: Options = {
  // faker-base: what src/runtime/faker-lazy.ts require()s (only its .cjs is used).
  entry: { ...libraryEntries, cli: 'src/cli/main.ts', 'faker-base': 'src/service/faker-base.ts' },
  // ESM for `import`, CommonJS for `require` (jest's default); shared code is split into chunks so one copy of the
  // core is loaded per module system. dist/cli.cjs is a by-product: bin/dockside.js runs dist/cli.js.
  format: ['esm', 'cjs'],
  // Types for both: index.d.ts for `import`, index.d.cts for `require`. dockside/browser's types are types/browser.d.ts,
  // written by hand over these: as an entry here, browser.d.ts (which imports msw, an optional peer) became the module
  // the shared chunks were imported through, and dockside/matchers and dockside/server needed msw to type-check.
  dts: { entry: libraryEntries },
  // Gives the CommonJS build an `import.meta.url` (the scenario schema's lazy createRequire).
  shims: true,
  target: 'node22',
  platform: 'node',
  // dist/ui and dist/browser.* are the browser blocks below: not cleaned from here (the blocks build at once).
  clean: ['!ui/**', '!browser.*'],
  splitting: true,
  sourcemap: false,
  // msw is a peer (the user's own instance) and ESM only: always imported, never bundled.
  external: ['vitest', 'mock-socket', 'msw'],
  noExternal: esmOnly,
  // ajv's standalone validators in place of src/scenario/schema-validators.ts: the package does not depend on ajv.
  esbuildPlugins: [esmOnlyExternalInEsm, fakerOnFirstDraw, schemaStandalone],
}

// dockside/browser: the fake and its MSW handlers in one file for browsers (docs/msw.md). The Node built-ins and
// Node-only transports on the fake's lazy paths resolve to src/browser/node-shims.ts, so a page bundle never pulls
// node:http, ws or nock, nor the dashboard's files on disk (src/ui/assets); its dependencies (msw, faker, re2js, yaml) stay imports for the page's bundler.
const shims = new URL('./src/browser/node-shims.ts', import.meta.url).pathname
const browser: Options = {
  entry: { browser: 'src/browser/index.ts' },
  format: ['esm'],
  dts: false, // made by the node config (see there)
  target: 'es2023',
  platform: 'browser',
  // Keep the node: prefix, so that the shims below see node:module and node:fs/promises.
  removeNodeProtocol: false,
  clean: false,
  splitting: false,
  sourcemap: false,
  external: ['msw', '@faker-js/faker', 're2js', 'yaml'],
  esbuildPlugins: [
    schemaStandalone,
    {
      name: 'dockside-browser-shims',
      setup(build) {
        build.onResolve({ filter: /^(node:)?(module|fs\/promises)$|\/transports\/(server\/serve|intercept\/index)$|\/ui\/assets$/ }, () => ({ path: shims }))
      },
    },
  ],
}

// The dashboard (src/ui, preact + htm): one minified browser bundle, ui/app.js, and its stylesheet, ui/app.css,
// beside the other entries (so --out-dir moves it too); served at /_dockside/ui. Users need no build step, and the
// page loads nothing from a CDN. Not cleaned here: the node block cleans the folder, ui/ excepted.
const ui: Options = {
  entry: { 'ui/app': 'src/ui/app.ts' },
  format: ['esm'],
  platform: 'browser',
  target: 'es2022',
  clean: false,
  minify: true,
  splitting: false,
  sourcemap: false,
  dts: false,
  noExternal: [/.*/],
}

export default defineConfig([node, browser, ui])
