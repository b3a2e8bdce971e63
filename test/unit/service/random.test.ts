import { faker as enFaker } from '@faker-js/faker/locale/en'
import { describe, expect, it } from 'vitest'
import { createRandom } from '../../../src/service/random'

/** What every fake drew before one Faker was shared: its own Faker, seeded with its seed. */
function ownFaker(seed: number) {
  const faker = new (enFaker.constructor as new (o: { locale: unknown }) => typeof enFaker)({ locale: enFaker.rawDefinitions })
  faker.seed(seed)
  return {
    hex: (length: number) => faker.string.hexadecimal({ length, casing: 'lower', prefix: '' }),
    containerName: () => `${faker.word.adjective().toLowerCase().replace(/[^a-z]/g, '')}_${faker.person.lastName().toLowerCase().replace(/[^a-z]/g, '')}`,
    float: () => faker.number.float({ min: 0, max: 1, fractionDigits: 8 }) % 1,
    int: (min: number, max: number) => faker.number.int({ min, max }),
  }
}

const draws = (r: ReturnType<typeof ownFaker>) => {
  const out: unknown[] = []
  // Past 624 words, so the generator twists its state again.
  for (let i = 0; i < 40; i++) out.push(r.hex(64), r.containerName(), r.float(), r.int(0, 1000), r.hex(12), r.hex(1), r.hex(0))
  return out
}

describe('seeded random source', () => {
  it.each([0, 1, 7, 42, -5, 2 ** 31, 2 ** 40 + 3, Number.MAX_SAFE_INTEGER])('seed %d draws what a Faker seeded with it draws', (seed) => {
    expect(draws(createRandom(seed))).toEqual(draws(ownFaker(seed)))
  })

  it('fakes drawing in turn each keep their own sequence', () => {
    const a = createRandom(1)
    const b = createRandom(2)
    const fa = ownFaker(1)
    const fb = ownFaker(2)
    for (let i = 0; i < 50; i++) {
      expect(a.hex(64)).toBe(fa.hex(64))
      expect(b.containerName()).toBe(fb.containerName())
      expect(a.float()).toBe(fa.float())
      expect(b.int(1, 6)).toBe(fb.int(1, 6))
    }
  })
})
