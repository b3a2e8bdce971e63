import { faker as enFaker } from '@faker-js/faker/locale/en'

/** The seeded source of every id, name, digest and random draw in dockside. */
export interface RandomSource {
  readonly seed: number
  /** Lower-case hex string of `length` characters. */
  hex(length: number): string
  /** A Docker-style container name, e.g. `brave_lovelace`. */
  containerName(): string
  /** A float in [0, 1). */
  float(): number
  /** An integer in [min, max]. */
  int(min: number, max: number): number
}

/** Creates a seeded random source; the same seed gives the same sequence every run. */
export function createRandom(seed: number): RandomSource {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`Invalid seed ${seed}: expected an integer.`)
  // One Faker per fake: never the shared instance, whose state other code may move. Built and seeded on the first
  // draw (the same sequence): building one costs ~0.4 ms, more than the rest of a fake, and many tests never draw.
  let faker: typeof enFaker | undefined
  const f = () => {
    if (!faker) {
      faker = new (enFaker.constructor as new (o: { locale: unknown }) => typeof enFaker)({ locale: enFaker.rawDefinitions })
      faker.seed(seed)
    }
    return faker
  }
  return {
    seed,
    hex: (length) => f().string.hexadecimal({ length, casing: 'lower', prefix: '' }),
    containerName: () => `${f().word.adjective().toLowerCase().replace(/[^a-z]/g, '')}_${f().person.lastName().toLowerCase().replace(/[^a-z]/g, '')}`,
    float: () => f().number.float({ min: 0, max: 1, fractionDigits: 8 }) % 1,
    int: (min, max) => f().number.int({ min, max }),
  }
}
