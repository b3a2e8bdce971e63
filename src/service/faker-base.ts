import { faker } from '@faker-js/faker/locale/base'

/**
 * faker's base locale, which src/service/random.ts builds its one private Faker from. This file imports it with the
 * module: the CommonJS and browser builds and the tests use it. The Node ESM build (what `dockside serve` and `import`
 * run) replaces it with src/runtime/faker-lazy.ts, which loads faker on the first draw (tsup.config.ts).
 */
export function fakerBase(): typeof faker {
  return faker
}
