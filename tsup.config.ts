import { defineConfig } from 'tsup'

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
  external: ['vitest', 'nock', 'mock-socket'],
})
