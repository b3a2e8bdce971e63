// Regression (issue 8, point 7): the auto and real clocks lost their loop limit. Throwing from a host timer callback
// ended the process, so fireDueSync stopped counting; a timer that rescheduled itself with no delay then ran forever,
// silently. Now such a chain is stopped after `loopLimit` timers and journaled (`clock.loop`), and the fake serves on.
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../src/index'
import type { JournalEntryOf, JournalEntryType } from '../../../src/service/journal'

const fakes: Dockside[] = []
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close()
})

const nextEntry = <T extends JournalEntryType>(fake: Dockside, type: T) =>
  new Promise<JournalEntryOf<T>>((resolve) => {
    const off = fake.on('journal', (e) => {
      if (e.type !== type) return
      off()
      resolve(e as JournalEntryOf<T>)
    })
  })

describe('a timer chain that reschedules itself with no delay is stopped under the host-driven clocks', () => {
  for (const [mode, kind] of [['auto', 'background'], ['auto', 'wait'], ['real', 'background']] as const) {
    it(`${mode} clock, ${kind} timers: stopped after loopLimit, journaled as clock.loop, GET /_ping still served`, async () => {
      const fake = createDockside({ seed: 1, clock: { mode, loopLimit: 50 } })
      fakes.push(fake)
      const { url } = await fake.listen({ port: 0 })
      let calls = 0
      const again = () => {
        calls++
        fake.clock.schedule(0, again, kind)
      }
      const loop = nextEntry(fake, 'clock.loop')
      const started = new Date(fake.clock.now()).toISOString()
      fake.clock.schedule(0, again, kind)
      const entry = await loop
      // The first timer and the 50 it chained to fired; the 51st was dropped, so nothing reschedules.
      expect(entry).toMatchObject({ type: 'clock.loop', fired: 50 })
      expect(Date.parse(entry.at as string)).toBeGreaterThanOrEqual(Date.parse(started))
      expect(calls).toBe(51)
      expect(fake.clock.pending).toBe(0)
      expect((await fetch(`${url}/_ping`)).status).toBe(200)
      expect(calls).toBe(51)
      expect(fake.journal.ofType('clock.loop')).toHaveLength(1)
    })
  }

  it('timers scheduled with a delay are no chain: a 1 ms repeating timer keeps running past loopLimit', async () => {
    const fake = createDockside({ seed: 1, clock: { mode: 'auto', loopLimit: 5 } })
    fakes.push(fake)
    let calls = 0
    const done = new Promise<void>((resolve) => {
      const tick = () => {
        if (++calls === 20) resolve()
        else fake.clock.schedule(1, tick, 'wait')
      }
      fake.clock.schedule(1, tick, 'wait')
    })
    await done
    expect(fake.journal.ofType('clock.loop')).toEqual([])
  })
})
