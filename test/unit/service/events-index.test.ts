import { describe, expect, it } from 'vitest'
import { compileFilters, parseFilters } from '../../../src/index'
import { createEventLog, type EventInput } from '../../../src/service/events'
import { createClock } from '../../../src/time/clock'

const ID = 'f29698ca1b2c3d4e5f60718293a4b5c6d7e8f9011223344556677889900aabbcc'
const input = (over: Partial<EventInput> = {}): EventInput => ({ action: 'start', id: ID, name: 'web', image: 'nginx', labels: { app: 'web' }, instanceType: 's4', exitCode: 0, ...over })

describe('event log: subscribers with a container filter are indexed, delivery is unchanged', () => {
  it('delivers to exactly the subscribers a scan of every filter would, in the same order', () => {
    const log = createEventLog(createClock())
    const got: string[] = []
    const filters: object[] = [
      { container: ['web'] },
      { label: ['app=web'] },
      { container: ['/web'], event: ['start'] },
      { container: ['f2969'] },
      { container: ['we'] },
      { container: ['db', 'f29698ca1b2c3d4e5f60718293a4b5c6d7e8f9011223344556677889900aabbcc'] },
      { container: ['webx'] },
      { container: ['/we'] },
      { container: ['web'], event: ['stop'] },
      { event: ['start'] },
      { container: [''] },
    ]
    const unsubscribe = filters.map((f, i) => log.subscribe({ filter: compileFilters(parseFilters(JSON.stringify(f))), deliver: (e) => got.push(`${i}:${e.action}`) }))
    log.append(input())
    // The scan order: subscribers of any kind first, then those of the event's kind, each in subscription order.
    // `/web` is no prefix of the name `web` (the Engine's events name containers without the slash): 2 gets nothing.
    expect(got).toEqual(['0:start', '1:start', '3:start', '4:start', '5:start', '10:start', '9:start'])
    got.length = 0
    unsubscribe[0]()
    unsubscribe[4]()
    log.append(input({ action: 'stop' }))
    expect(got).toEqual(['1:stop', '3:stop', '5:stop', '10:stop', '8:stop'])
    got.length = 0
    log.append(input({ name: 'db', id: 'ab'.repeat(32) }))
    expect(got).toEqual(['1:start', '5:start', '10:start', '9:start'])
  })
})
