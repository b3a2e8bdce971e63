// dockside loads faker's base locale plus the English definitions it draws from (src/service/faker-en.ts, generated
// by scripts/faker-subset.mjs), not the whole English locale. The names and ids it draws must stay those the whole
// locale gives: this fails when the installed faker's data differs from the generated subset.
import { faker as enFaker } from '@faker-js/faker/locale/en'
import { expect, test } from 'vitest'
import { EN_SUBSET } from '../../../src/service/faker-en'
import { createRandom } from '../../../src/service/random'

test('the generated subset is the installed faker English data (rerun scripts/faker-subset.mjs if not)', () => {
  const d = enFaker.rawDefinitions
  expect(EN_SUBSET).toEqual({ person: { last_name: d.person!.last_name, last_name_pattern: d.person!.last_name_pattern }, word: { adjective: d.word!.adjective } })
})

test('seed 1 draws the names and ids it drew with the whole English locale', () => {
  const r = createRandom(1)
  // Literal values from a run with the whole locale (`@faker-js/faker/locale/en`, before the subset).
  expect([r.containerName(), r.containerName(), r.hex(12), r.containerName()]).toEqual(EXPECTED)
})

const EXPECTED = ['inferior_gutmann', 'crafty_hegmann', '8b9f4d0e9c34', 'sticky_pouros']
