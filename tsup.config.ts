import { defineConfig } from 'tsup'

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    server: 'src/transports/server/index.ts',
    cli: 'src/cli/main.ts',
  },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts', server: 'src/transports/server/index.ts' } },
  target: 'node22',
  platform: 'node',
  clean: true,
  splitting: true,
  sourcemap: false,
})
