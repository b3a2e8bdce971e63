// `docker ps` STATUS durations: Docker's units.HumanDuration (github.com/docker/go-units, duration.go). The table is
// go-units' own TestHumanDuration, value for value.
import { describe, expect, it } from 'vitest'
import { humanDuration } from '../../../src/protocol/docker/containers'

const second = 1000
const minute = 60 * second
const hour = 60 * minute
const day = 24 * hour
const week = 7 * day
const month = 30 * day
const year = 365 * day

describe("humanDuration is go-units' HumanDuration", () => {
  it.each([
    ['Less than a second', 450],
    ['1 second', 1 * second],
    ['45 seconds', 45 * second],
    ['46 seconds', 46 * second],
    ['59 seconds', 59 * second],
    ['About a minute', 60 * second],
    ['About a minute', 1 * minute],
    ['3 minutes', 3 * minute],
    ['35 minutes', 35 * minute],
    ['35 minutes', 35 * minute + 40 * second],
    ['45 minutes', 45 * minute],
    ['45 minutes', 45 * minute + 40 * second],
    ['46 minutes', 46 * minute],
    ['59 minutes', 59 * minute],
    ['About an hour', 1 * hour],
    ['About an hour', 1 * hour + 29 * minute],
    ['2 hours', 1 * hour + 31 * minute],
    ['2 hours', 1 * hour + 59 * minute],
    ['3 hours', 3 * hour],
    ['3 hours', 3 * hour + 29 * minute],
    ['4 hours', 3 * hour + 31 * minute],
    ['4 hours', 3 * hour + 59 * minute],
    ['4 hours', 3 * hour + 60 * minute],
    ['24 hours', 24 * hour],
    ['36 hours', 1 * day + 12 * hour],
    ['2 days', 2 * day],
    ['7 days', 7 * day],
    ['13 days', 13 * day + 5 * hour],
    ['2 weeks', 2 * week],
    ['2 weeks', 2 * week + 4 * day],
    ['3 weeks', 3 * week],
    ['4 weeks', 4 * week],
    ['4 weeks', 4 * week + 3 * day],
    ['4 weeks', 1 * month],
    ['6 weeks', 1 * month + 2 * week],
    ['2 months', 2 * month],
    ['2 months', 2 * month + 2 * week],
    ['3 months', 3 * month],
    ['3 months', 3 * month + 1 * week],
    ['5 months', 5 * month + 2 * week],
    ['13 months', 13 * month],
    ['23 months', 23 * month],
    ['24 months', 24 * month],
    ['2 years', 24 * month + 2 * week],
    ['3 years', 3 * year + 2 * month],
  ])('%s for %i ms', (text, ms) => {
    expect(humanDuration(ms)).toBe(text)
  })

  it('counts years from the whole hours, not the rounded ones (2 years less 20 minutes is "1 years" in Go)', () => {
    // Go: hours := int(d.Hours() + 0.5) is 17520, not below 24*365*2, so years are int(d.Hours())/24/365 = 17519/24/365 = 1.
    expect(humanDuration(2 * year - 20 * minute)).toBe('1 years')
    expect(humanDuration(2 * year)).toBe('2 years')
  })
})
