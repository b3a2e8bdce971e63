// What a clock may be given, checked: its start (a date a JavaScript Date holds, named in a zone that reads the same on
// every machine) and its speed, with the messages the library, scenario files and the admin API share (clock.ts
// creates the clock from them).

/** The latest time a JavaScript Date can hold (epoch milliseconds). */
export const MAX_TIME = 8.64e15

/** The fastest a `real` clock may run, in clock ms per wall ms (the admin API's `POST /_dockside/clock/speed` cap too). */
export const MAX_CLOCK_SPEED = 1_000_000

export const START_RANGE = `epoch milliseconds or an ISO date from ${new Date(-MAX_TIME).toISOString()} to ${new Date(MAX_TIME).toISOString()} (${-MAX_TIME} to ${MAX_TIME} ms, the dates a JavaScript Date holds)`
export const SPEED_RANGE = `a number above 0 and at most ${MAX_CLOCK_SPEED} (clock milliseconds per wall millisecond)`

/** A value as a message shows it: at most 60 characters of a string. */
export const shown = (value: unknown) => (typeof value === 'string' ? JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value) : String(value))

/** An ISO date Date.parse reads the same everywhere: a date alone (UTC), or a date and time with "Z" or an offset. */
const ISO_START = /^([+-]\d{6}|\d{4})(?:-(\d\d)(?:-(\d\d))?)?(?:T\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:\d\d))?$/

/** A date string that names its zone at the end (`Z`, `GMT`, `UTC`, `+09:00`, `+0900`): read the same everywhere. */
const ZONED = /(?:[zZ]|\b(?:GMT|UTC)|[+-]\d\d:?\d\d)$/

/**
 * Why a readable `clock.start` string would not give the same clock on every machine, or the day it names: Date.parse
 * reads a time without a zone ("2024-01-01T00:00:00", "Jan 1 2024") in the machine's own time zone (a seeded scenario
 * ran hours apart from one CI host to the next), and rolls a day past its month's end ("2024-02-30") into the next
 * month. An ISO date alone is UTC; other forms that name their zone ("Mon, 01 Jan 2024 00:00:00 GMT") are taken.
 */
function startProblem(start: string): string | undefined {
  const text = start.trim()
  if (!ISO_START.test(text) && !ZONED.test(text)) {
    const local = /^[+-]?\d{4,6}-\d\d-\d\d[Tt ][\d:.]+$/.test(text)
    return `${JSON.stringify(start)} is ${local ? 'a time without a time zone' : 'a date without a time zone'}, which JavaScript reads in the time zone of the machine it runs on, so the clock would start at another time on each; write an ISO date with "Z" or an offset, like "2024-01-01T00:00:00Z" or "2024-01-01T09:00:00+09:00" (or a date alone, "2024-01-01", read as UTC), or epoch milliseconds`
  }
  const ymd = /^([+-]\d{6}|\d{4})-(\d\d)-(\d\d)/.exec(text)
  if (!ymd) return undefined
  const [, year, month, day] = ymd
  const y = Number(year)
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
  if (Number(day) > [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][Number(month) - 1]!) {
    return `${JSON.stringify(start)} names day ${Number(day)} of a month that has fewer (JavaScript would start the clock in the next month); write a day that exists`
  }
  return undefined
}

/**
 * What is wrong with a clock's `start` or `speed` as a user gives them (the library's `clock` option, a scenario's
 * `clock`, a fleet member's scenario): the field and what was wrong and what is allowed, or undefined when both are
 * fine. The one check of every way in: a start the fake can represent (a date a JavaScript Date holds: every time the
 * fake shows is one; beyond it every answer failed with "Invalid time value"), a speed within the admin API's cap.
 */
export function clockProblem(clock: { mode?: unknown; start?: unknown; speed?: unknown }): { path: 'start' | 'speed'; expected: string } | undefined {
  const { mode, start, speed } = clock
  if (start !== undefined) {
    const ms = typeof start === 'number' ? start : typeof start === 'string' ? Date.parse(start) : NaN
    if (typeof start !== 'number' && typeof start !== 'string') return { path: 'start', expected: `must be ${START_RANGE}` }
    if (Number.isNaN(ms)) return { path: 'start', expected: `${shown(start)} is not a date JavaScript can read; expected ${START_RANGE}` }
    if (!(Math.abs(ms) <= MAX_TIME)) return { path: 'start', expected: `${shown(start)} is out of range; expected ${START_RANGE}` }
    const local = typeof start === 'string' ? startProblem(start) : undefined
    if (local) return { path: 'start', expected: local }
  }
  if (speed !== undefined) {
    if (typeof speed !== 'number' || Number.isNaN(speed)) return { path: 'speed', expected: `must be ${SPEED_RANGE}` }
    if (!(speed > 0 && speed <= MAX_CLOCK_SPEED)) return { path: 'speed', expected: `${shown(speed)} is out of range; expected ${SPEED_RANGE}` }
    if (mode === 'virtual' || mode === 'auto') return { path: 'speed', expected: speedWithout(mode) }
  }
  return undefined
}

/**
 * Why a speed given with a clock that is not `real` is refused: only the real clock has a pace, and a speed the fake
 * would silently ignore gives a test a clock that does not run as it asked.
 */
export function speedWithout(mode: 'virtual' | 'auto'): string {
  const why = mode === 'virtual' ? 'moves only when advanced' : 'runs at wall pace and skips ahead to what someone waits on'
  return `sets the pace of the "real" clock, and the ${mode} clock ${why}; use mode "real", or leave speed out`
}
