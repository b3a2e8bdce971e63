import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const src = (p: string) => fileURLToPath(new URL(`./src/${p}`, import.meta.url))

export default defineConfig({
  resolve: {
    // Tests and doc examples import the package by its public names, as users do.
    alias: [
      { find: /^dockside$/, replacement: src('index.ts') },
      { find: /^dockside\/server$/, replacement: src('transports/server/index.ts') },
      { find: /^dockside\/intercept$/, replacement: src('transports/intercept/index.ts') },
      { find: /^dockside\/vitest$/, replacement: src('vitest/index.ts') },
      { find: /^dockside\/msw$/, replacement: src('transports/msw/index.ts') },
      { find: /^dockside\/browser$/, replacement: src('browser/index.ts') },
      { find: /^dockside\/matchers$/, replacement: src('matchers/index.ts') },
      { find: /^dockside\/verify$/, replacement: src('verify/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
})
