import { defineConfig, type Options } from 'tsup'

// One entry per way in; shared code is split into chunks so one copy of the core is loaded.
const entries = {
  index: 'src/index.ts',
  server: 'src/transports/server/index.ts',
  intercept: 'src/transports/intercept/index.ts',
  vitest: 'src/vitest/index.ts',
  msw: 'src/transports/msw/index.ts',
}

const node: Options = {
  entry: { ...entries, cli: 'src/cli/main.ts' },
  format: ['esm'],
  dts: { entry: entries },
  target: 'node22',
  platform: 'node',
  // dist/ui is the dashboard's block below: not cleaned from here (both blocks build at once).
  clean: ['!ui/**'],
  splitting: true,
  sourcemap: false,
  external: ['vitest', 'nock', 'mock-socket', 'msw'],
}

// dockside/browser: the fake and its MSW handlers in one file for browsers (docs/msw.md). The Node built-ins and
// Node-only transports on the fake's lazy paths resolve to src/browser/node-shims.ts, so a page bundle never pulls
// node:http, ws or nock; its dependencies (msw, faker, ajv, ...) stay imports for the page's bundler.
const shims = new URL('./src/browser/node-shims.ts', import.meta.url).pathname
const browser: Options = {
  entry: { browser: 'src/browser/index.ts' },
  format: ['esm'],
  dts: { entry: { browser: 'src/browser/index.ts' } },
  target: 'es2023',
  platform: 'browser',
  // Keep the node: prefix, so that the shims below see node:module and node:fs/promises.
  removeNodeProtocol: false,
  clean: false,
  splitting: false,
  sourcemap: false,
  external: ['msw', '@faker-js/faker', 'ajv', 're2js', 'yaml'],
  esbuildPlugins: [
    {
      name: 'dockside-browser-shims',
      setup(build) {
        build.onResolve({ filter: /^(node:)?(module|fs\/promises)$|\/transports\/(server\/serve|intercept\/index)$/ }, () => ({ path: shims }))
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
