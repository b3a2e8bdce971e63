import { defineConfig } from 'tsup'

// One entry per way in; shared code is split into chunks so one copy of the core is loaded.
const entries = {
  index: 'src/index.ts',
  server: 'src/transports/server/index.ts',
  intercept: 'src/transports/intercept/index.ts',
  vitest: 'src/vitest/index.ts',
  msw: 'src/transports/msw/index.ts',
}

export default defineConfig({
  entry: { ...entries, cli: 'src/cli/main.ts' },
  format: ['esm'],
  dts: { entry: entries },
  target: 'node22',
  platform: 'node',
  clean: true,
  splitting: true,
  sourcemap: false,
  external: ['vitest', 'nock', 'mock-socket', 'msw'],
})
