// createService's own checks of its options (src/core/service.ts): the core refuses what it cannot run, with
// the option's name, even when a caller skips the schema check that createDockside does first.
import { expect, it } from 'vitest'
import { createService } from '../../../src/core/service'

const refusal = (options: Parameters<typeof createService>[0]) => {
  try {
    createService(options)
    return 'ok'
  } catch (error) {
    return (error as Error).message
  }
}

it('refuses a push bandwidth that is not above 0 and an unknown time format, by name', () => {
  expect(refusal({ pushBandwidth: 0 })).toBe('Invalid pushBandwidth 0: expected bytes per second above 0.')
  expect(refusal({ pushBandwidth: Number.NaN })).toBe('Invalid pushBandwidth NaN: expected bytes per second above 0.')
  expect(refusal({ pushBandwidth: 1 })).toBe('ok')
  expect(refusal({ timeFormat: 'iso' as never })).toBe('Invalid timeFormat "iso": expected "integer" or "float".')
  expect(refusal({ timeFormat: 'float' })).toBe('ok')
})

it('defaults: seed 1, virtual clock, 24h connection age, 20 MB/s, integer times, 10,000 events kept', () => {
  const s = createService()
  expect(s.options).toMatchObject({ seed: 1, maxConnectionAge: '24h', maxConnectionAgeMs: 86_400_000, pushBandwidth: 20_000_000, timeFormat: 'integer', retainEvents: 10_000 })
  expect(s.clock.mode).toBe('virtual')
  expect(createService({ retainEvents: 5 }).options.retainEvents).toBe(5)
})

it('names the duration option it cannot read', () => {
  expect(refusal({ maxConnectionAge: 'soon' })).toMatch(/^Invalid maxConnectionAge /)
  expect(refusal({ retainEventsFor: 'soon' })).toMatch(/^Invalid retainEventsFor /)
})
