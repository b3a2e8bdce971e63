import { defineConfig } from 'tsup'

// One entry per way in; shared code is split into chunks so one copy of the core is loaded.
const entries = {
  index: 'src/index.ts',
  server: 'src/transports/server/index.ts',
  intercept: 'src/transports/intercept/index.ts',
  vitest: 'src/vitest/index.ts',
}

export default defineConfig([{
  entry: { ...entries, cli: 'src/cli/main.ts' },
  format: ['esm'],
  dts: { entry: entries },
  target: 'node22',
  platform: 'node',
  // dist/ui is the dashboard's block below: not cleaned from here (both blocks build at once).
  clean: ['!ui/**'],
  splitting: true,
  sourcemap: false,
  external: ['vitest', 'nock', 'mock-socket'],
},
// The dashboard (src/ui, preact + htm): one minified browser bundle, ui/app.js, and its stylesheet, ui/app.css,
// beside the other entries (so --out-dir moves it too); served at /_dockside/ui. Users need no build step, and the
// page loads nothing from a CDN. Not cleaned here: the block above cleans the folder, ui/ excepted.
{
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
}])
