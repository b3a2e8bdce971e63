import type { faker as baseFaker } from '@faker-js/faker/locale/base'
import { fakerBase } from './faker-base'
import { EN_SUBSET } from './faker-en'

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

/** faker's `Randomizer`: a float in [0, 1) per call, and a reseed (which dockside never asks for, see `delegate`). */
interface Randomizer {
  next(): number
  seed(seed: number | number[]): void
}

// faker's default randomizer (generateMersenne53Randomizer, @faker-js/faker 10, MIT), which the locale entry point
// does not export: MT19937 seeded with init_genrand, 53-bit floats. The same numbers as `faker.seed(seed)` gives
// (test/unit/service/random.test.ts checks them against a seeded Faker).
const MATRIX_A = 0x9908b0df
const UPPER = 2 ** 31
const LOWER = 2 ** 31 - 1
const { imul, trunc } = Math

// The state as 32-bit integers: every use of a word goes through a bitwise operator, which takes it modulo 2^32 anyway.
function initGenrand(seed: number): Int32Array {
  const s = new Int32Array(624)
  s[0] = seed
  for (let i = 1; i !== 624; ++i) {
    const p = s[i - 1] ^ (s[i - 1] >>> 30)
    s[i] = trunc(imul(1812433253, p) + i)
  }
  return s
}

function twist(s: Int32Array): Int32Array {
  for (let i = 0; i !== 227; ++i) {
    const y = (s[i] & UPPER) + (s[i + 1] & LOWER)
    s[i] = s[i + 397] ^ (y >>> 1) ^ (-(y & 1) & MATRIX_A)
  }
  for (let i = 227; i !== 623; ++i) {
    const y = (s[i] & UPPER) + (s[i + 1] & LOWER)
    s[i] = s[i + 397 - 624] ^ (y >>> 1) ^ (-(y & 1) & MATRIX_A)
  }
  const y = (s[623] & UPPER) + (s[0] & LOWER)
  s[623] = s[396] ^ (y >>> 1) ^ (-(y & 1) & MATRIX_A)
  return s
}

/** The generator's `next`: a float in [0, 1) per call. */
function mersenne53(seed: number): () => number {
  let states = twist(initGenrand(seed))
  let index = 0
  const u32 = () => {
    let y = states[index]
    y ^= states[index] >>> 11
    y ^= (y << 7) & 0x9d2c5680
    y ^= (y << 15) & 0xefc60000
    y ^= y >>> 18
    if (++index >= 624) {
      states = twist(states)
      index = 0
    }
    return y >>> 0
  }
  return () => ((u32() >>> 5) * 67108864 + (u32() >>> 6)) * 11102230246251565e-32
}

/**
 * One private Faker for the whole process (never the shared `faker`, whose state other code may move), drawing from
 * whichever fake's randomizer is current: building a Faker costs ~0.2 ms (it binds every method of every module),
 * a fake's own seeded generator a few µs. Faker's methods are synchronous, so setting the current randomizer before
 * each call gives every fake its own sequence, exactly as its own seeded Faker would.
 */
let shared: typeof baseFaker | undefined
let current: (() => number) | undefined
const delegate: Randomizer = {
  next: () => current!(),
  // Never called: the shared Faker is private and nothing reseeds it; each fake's generator is seeded once, by createRandom.
  seed: () => {
    throw new Error('dockside: the shared Faker is never reseeded')
  },
}
function fakerFor(randomizer: () => number): typeof baseFaker {
  // faker's base locale plus the English definitions dockside draws from (src/service/faker-en.ts, generated): the
  // same draws as the whole English locale gives, without loading it (~290 KB, most of faker's start-up cost).
  if (shared === undefined) {
    const base = fakerBase()
    shared = new (base.constructor as new (o: { locale: unknown; randomizer: Randomizer }) => typeof baseFaker)({ locale: [EN_SUBSET, base.rawDefinitions], randomizer: delegate })
  }
  current = randomizer
  return shared
}

/**
 * faker's `string.hexadecimal({ casing: 'lower' })` draws each character from 22 (`0-9a-fA-F`) and lower-cases the
 * result: the same draw, without faker's per-character array, closure and join (an id of 64 characters was 7% of a
 * test's cost in process). test/unit/service/random.test.ts checks it against a seeded Faker.
 */
const HEX_DRAW = '0123456789abcdefabcdef'
function hexOf(next: () => number, length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += HEX_DRAW[Math.floor(next() * 22)]
  return out
}

/**
 * Creates a seeded random source; the same seed gives the same sequence every run. `stream` picks another sequence of
 * the same seed (0, the default, is `faker.seed(seed)`'s): the fault plan draws from its own, so how many draws the
 * faults make (one per connection, per event, per socket open) never moves the ids, names and digests.
 */
export function createRandom(seed: number, stream = 0): RandomSource {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`Invalid seed ${seed}: expected an integer.`)
  // MT19937 keeps the low 32 bits of its seed: stream n starts from the seed plus n times the golden-ratio constant.
  const start = stream === 0 ? seed : (seed + stream * 0x9e3779b9) | 0
  // Seeded on the first draw (the same sequence): many tests never draw.
  let randomizer: (() => number) | undefined
  const f = () => fakerFor((randomizer ??= mersenne53(start)))
  return {
    seed,
    hex: (length) => hexOf((randomizer ??= mersenne53(start)), length),
    containerName: () => `${f().word.adjective().toLowerCase().replace(/[^a-z]/g, '')}_${f().person.lastName().toLowerCase().replace(/[^a-z]/g, '')}`,
    float: () => f().number.float({ min: 0, max: 1, fractionDigits: 8 }) % 1,
    int: (min, max) => f().number.int({ min, max }),
  }
}
