// Bug: `POST /_dockside/clock/speed?speed=1e7` set the real clock to 10,000,000 times real time, though the documented
// maximum is 1,000,000 (docs/admin-api.md: "a number above 0, at most 1000000") and `{"speed": 1e7}` in the body was a
// 400: the query form skipped the schema's bounds. Now both forms are checked alike.
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'

let fake: Dockside | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

async function speed(f: Dockside, url: string, body = '') {
  const res = await f.protocol.handle({ method: 'POST', url, headers: { host: '127.0.0.1' }, signal: new AbortController().signal, body: async () => body })
  return { status: res.status, json: JSON.parse(res.body as string) }
}

it('?speed= over 1,000,000 is the same 400 as the body\'s; the clock keeps its speed; 1,000,000 itself is fine', async () => {
  fake = createDockside({ clock: 'real' })
  const byBody = await speed(fake, '/_dockside/clock/speed', JSON.stringify({ speed: 1e7 }))
  const byQuery = await speed(fake, '/_dockside/clock/speed?speed=1e7')
  expect(byBody).toEqual({ status: 400, json: { message: 'speed: must be <= 1000000' } })
  expect(byQuery).toEqual(byBody)
  expect(fake.clock.speed).toBe(1)
  expect((await speed(fake, '/_dockside/clock/speed?speed=1000000')).json.speed).toBe(1_000_000)
})

it('?speed= takes a decimal number only: 0x10, 0b11, Infinity and a blank value are 400s naming it; 0.5, 2.5e1 and +3 are fine', async () => {
  fake = createDockside({ clock: 'real' })
  for (const bad of ['0x10', '0b11', '0o7', 'Infinity', '', ' ', '1_000']) {
    const res = await speed(fake, `/_dockside/clock/speed?speed=${encodeURIComponent(bad)}`)
    expect(res).toEqual({ status: 400, json: { message: `Invalid "speed" ${JSON.stringify(bad)}: expected a number above 0, like 2 or 0.5.` } })
  }
  expect(fake.clock.speed).toBe(1)
  for (const [good, value] of [['0.5', 0.5], ['2.5e1', 25], ['+3', 3], ['.25', 0.25]] as const) {
    expect((await speed(fake, `/_dockside/clock/speed?speed=${encodeURIComponent(good)}`)).json.speed).toBe(value)
  }
})
