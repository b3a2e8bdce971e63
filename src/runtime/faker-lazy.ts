import type { faker as Faker } from '@faker-js/faker/locale/base'
import { createRequire } from 'node:module'

// The Node ESM build's src/service/faker-base.ts (tsup.config.ts swaps it in): faker's base locale is loaded on the
// first name or number a fake draws, not when dockside is imported. Evaluating faker is ~11 ms of `dockside serve`'s
// cold start (docs/performance.md), and a server that is never asked for a new container never draws a name.
// It loads the CommonJS build of faker-base.ts (dist/faker-base.cjs, faker bundled as in the CommonJS build) with
// require(): synchronous on every Node, where require() of faker's own ES modules needs Node 20.19 or 22.12, and a
// top-level await would stop CommonJS code from require()ing dockside's ESM entries. node:module is imported (not
// taken with getBuiltinModule, Node 22.3+): the scenario schema's loader imports it in the same chunk anyway.
let base: typeof Faker | undefined

export function fakerBase(): typeof Faker {
  return (base ??= (createRequire(import.meta.url)('./faker-base.cjs') as { fakerBase: () => typeof Faker }).fakerBase())
}
