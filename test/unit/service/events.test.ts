// The event log (src/service/events.ts) through its exported API: the frame and Docker line as PROTOCOL.md shows a
// real one, the sample's float notation, unique increasing nanosecond times, retention by count and by time, replay
// bounds (Docker's inclusive since/until), and subscribers coming and going.
import { describe, expect, it } from 'vitest'
import { compileFilters, parseFilters } from '../../../src/index'
import { createEventLog, msToNano, type EventInput, type ServiceEvent } from '../../../src/service/events'
import { createClock } from '../../../src/time/clock'

// The real frame of ../shared/PROTOCOL.md ("A real frame"), at whole milliseconds.
const REAL_ID = 'f29698ca1b2c3d4e5f60718293a4b5c6d7e8f9011223344556677889900aabbcc'
const real: EventInput = {
  action: 'start',
  id: REAL_ID,
  name: 'test4',
  image: 'xjimmyshcn/busybox',
  labels: { test3: 'test3=test3', test1: '', test2: 'test2' },
  instanceType: 's4',
  exitCode: 0,
}
const REAL_HEAD = `{"status":"start","id":"${REAL_ID}","from":"xjimmyshcn/busybox","Type":"container","Action":"start","Actor":{"ID":"${REAL_ID}","Attributes":{"exitCode":"0","image":"xjimmyshcn/busybox","name":"test4","sh_hyper_instancetype":"s4","test1":"","test2":"test2","test3":"test3=test3"}}`
const input = (over: Partial<EventInput> = {}): EventInput => ({ action: 'start', id: 'a1', name: 'web', image: 'nginx', labels: {}, instanceType: 's4', exitCode: 0, ...over })
const filter = (json: string) => compileFilters(parseFilters(json, { docker: true }))

describe('frames', () => {
  it('a frame is the real wire frame: field order, attributes sorted as Go writes a map, integer times', () => {
    const log = createEventLog(createClock({ start: 1476375774255 }))
    const e = log.append(real)
    expect(e.frame('integer')).toBe(`${REAL_HEAD},"time":1476375774,"timeNano":1476375774255000000}`)
    expect(e.dockerLine()).toBe(`${REAL_HEAD},"scope":"local","time":1476375774,"timeNano":1476375774255000000}\n`)
    expect(e.attributes).toEqual({ exitCode: '0', image: 'xjimmyshcn/busybox', name: 'test4', sh_hyper_instancetype: 's4', test1: '', test2: 'test2', test3: 'test3=test3' })
    expect(Object.keys(e.attributes)).toEqual(['exitCode', 'image', 'name', 'sh_hyper_instancetype', 'test1', 'test2', 'test3'])
    expect([e.seq, e.action, e.id, e.name, e.image, e.labels, e.timeMs, e.timeNano]).toEqual([1, 'start', REAL_ID, 'test4', 'xjimmyshcn/busybox', real.labels, 1476375774255, 1476375774255000000n])
    // Cached per format: the same string object each time, and the other format is its own.
    expect(e.frame('integer')).toBe(e.frame('integer'))
    expect(e.dockerLine()).toBe(e.dockerLine())
  })

  it("the float option prints the spec sample's notation (1.476375852e+09) in the frame; the Docker line stays integer", () => {
    const log = createEventLog(createClock({ start: 1476375852000 }))
    const e = log.append(real)
    expect(e.frame('float')).toBe(`${REAL_HEAD},"time":1.476375852e+09,"timeNano":1.476375852e+18}`)
    // Docker clients decode time and timeNano as int64: the line has no float form.
    expect(e.dockerLine()).toBe(`${REAL_HEAD},"scope":"local","time":1476375852,"timeNano":1476375852000000000}\n`)
    // The integer form is kept apart from the float one.
    expect(e.frame('integer')).toBe(`${REAL_HEAD},"time":1476375852,"timeNano":1476375852000000000}`)
    expect(e.dockerLine()).toBe(`${REAL_HEAD},"scope":"local","time":1476375852,"timeNano":1476375852000000000}\n`)
    expect(e.frame('float')).toBe(`${REAL_HEAD},"time":1.476375852e+09,"timeNano":1.476375852e+18}`)
  })

  it('a stop carries its exit code; each action and container has its own head', () => {
    const log = createEventLog(createClock({ start: 1000_000 }))
    const labels = { app: 'web' }
    const a = log.append(input({ labels }))
    const b = log.append(input({ labels, action: 'stop', exitCode: 137 }))
    const c = log.append(input({ labels, name: 'api', id: 'b2', image: 'redis' }))
    expect(a.frame('integer')).toBe('{"status":"start","id":"a1","from":"nginx","Type":"container","Action":"start","Actor":{"ID":"a1","Attributes":{"app":"web","exitCode":"0","image":"nginx","name":"web","sh_hyper_instancetype":"s4"}},"time":1000,"timeNano":1000000000000}')
    expect(b.frame('integer')).toBe('{"status":"stop","id":"a1","from":"nginx","Type":"container","Action":"stop","Actor":{"ID":"a1","Attributes":{"app":"web","exitCode":"137","image":"nginx","name":"web","sh_hyper_instancetype":"s4"}},"time":1000,"timeNano":1000000000001}')
    expect(c.frame('integer')).toBe('{"status":"start","id":"b2","from":"redis","Type":"container","Action":"start","Actor":{"ID":"b2","Attributes":{"app":"web","exitCode":"0","image":"redis","name":"api","sh_hyper_instancetype":"s4"}},"time":1000,"timeNano":1000000000002}')
  })

  it('a container with more than 64 distinct heads on one labels object still frames each event right', () => {
    const log = createEventLog(createClock({ start: 5000 }))
    const labels = {}
    const frames: string[] = []
    for (let i = 0; i < 70; i++) frames.push(log.append(input({ labels, exitCode: i })).frame('integer'))
    // The first again, after the per-labels cache was cleared.
    frames.push(log.append(input({ labels, exitCode: 0 })).frame('integer'))
    frames.forEach((f, i) => expect(f).toContain(`"exitCode":"${i % 70}"`))
    expect(frames[70]).toMatch(/"time":5,"timeNano":5000000070}$/)
  })

  it('at and before the epoch the times are exact (no digits invented): 0 and -1.5 s', () => {
    const zero = createEventLog(createClock({ start: 0 })).append(input())
    expect(zero.frame('integer')).toMatch(/,"time":0,"timeNano":0}$/)
    expect(zero.dockerLine()).toMatch(/,"time":0,"timeNano":0}\n$/)
    const before = createEventLog(createClock({ start: -1500 })).append(input())
    expect(before.timeNano).toBe(-1_500_000_000n)
    expect(before.frame('integer')).toMatch(/,"time":-1,"timeNano":-1500000000}$/)
    expect(before.frame('float')).toMatch(/,"time":-1e\+00,"timeNano":-1.5e\+09}$/)
  })

  it('a time with nanoseconds pads them to 6 digits after the milliseconds', () => {
    const clock = createClock({ start: 2000 })
    const log = createEventLog(clock)
    log.append(input())
    const e = log.append(input())
    expect(e.frame('integer')).toMatch(/,"time":2,"timeNano":2000000001}$/)
    expect(e.timeNano).toBe(2_000_000_001n)
  })
})

describe('times are unique and increasing', () => {
  it('events in one millisecond are 1 ns apart; a later millisecond starts on it', async () => {
    const clock = createClock({ start: 10_000 })
    const log = createEventLog(clock)
    const t = () => log.append(input()).timeNano
    expect([t(), t(), t()]).toEqual([10_000_000_000n, 10_000_000_001n, 10_000_000_002n])
    await clock.advance(1)
    expect(t()).toBe(10_001_000_000n)
  })

  it('fractional clock times keep their nanoseconds; the 1 ns step carries into the next millisecond', async () => {
    const clock = createClock({ start: 10_000 })
    const log = createEventLog(clock)
    await clock.advance(0.999999)
    const a = log.append(input())
    const b = log.append(input())
    const c = log.append(input())
    expect([a.timeNano, b.timeNano, c.timeNano]).toEqual([10_000_999_999n, 10_001_000_000n, 10_001_000_001n])
    expect(b.frame('integer')).toMatch(/,"time":10,"timeNano":10001000000}$/)
    expect(c.frame('integer')).toMatch(/,"time":10,"timeNano":10001000001}$/)
    // A clock reading behind the last event's time (here: the next millisecond) continues 1 ns after it.
    await clock.advance(0.5)
    expect(log.append(input()).timeNano).toBe(10_001_499_999n)
    expect(log.append(input()).timeNano).toBe(10_001_500_000n)
  })

  it('msToNano converts fractional epoch milliseconds exactly', () => {
    expect(msToNano(1767225600000)).toBe(1767225600000000000n)
    expect(msToNano(1767225600000.5)).toBe(1767225600000500000n)
    expect(msToNano(1.25)).toBe(1250000n)
    expect(msToNano(-1.5)).toBe(-1500000n)
  })
})

describe('retention', () => {
  it('retainEvents must be an integer >= 0', () => {
    const clock = createClock()
    expect(() => createEventLog(clock, { retain: -1 })).toThrow(new RangeError('Invalid retainEvents -1: expected an integer >= 0.'))
    expect(() => createEventLog(clock, { retain: 1.5 })).toThrow('Invalid retainEvents 1.5: expected an integer >= 0.')
    expect(createEventLog(clock, { retain: 0 }).events).toEqual([])
  })

  it('by count: the last `retain` events, oldest first; what was dropped is named by its timeNano', async () => {
    const clock = createClock({ start: 1000 })
    const log = createEventLog(clock, { retain: 3 })
    expect([log.lastSeq, log.oldestSeq, log.oldestMs, log.evictedThroughNano, log.events]).toEqual([0, 1, undefined, 0n, []])
    for (let i = 0; i < 5; i++) {
      log.append(input())
      await clock.advance(1000)
    }
    // Nothing evicted by the count below 1.5 x retain... but every read applies it.
    expect(log.oldestSeq).toBe(3)
    expect(log.events.map((e) => e.seq)).toEqual([3, 4, 5])
    expect([log.lastSeq, log.oldestMs, log.evictedThroughNano]).toEqual([5, 3000, 2_000_000_000n])
  })

  it('oldestSeq reads what would be kept without evicting, and retain 0 keeps nothing', () => {
    const log = createEventLog(createClock(), { retain: 0 })
    log.append(input())
    log.append(input())
    expect([log.oldestSeq, log.lastSeq]).toEqual([3, 2])
    expect(log.events).toEqual([])
    expect(log.between(0)).toEqual([])
  })

  it('sends beyond the count are dropped in batches, never more than retain + 64 kept (or 1.5 x retain)', () => {
    const clock = createClock()
    const log = createEventLog(clock, { retain: 2 })
    const appended: ServiceEvent[] = []
    for (let i = 0; i < 100; i++) appended.push(log.append(input()))
    expect(log.oldestSeq).toBe(99)
    expect(log.events.map((e) => e.seq)).toEqual([99, 100])
    expect(log.evictedThroughNano).toBe(appended[97].timeNano)
  })

  it('evictedThroughNano, a replay and oldestMs, each read on its own, apply the count retention', async () => {
    const clock = createClock({ start: 1000 })
    const log = createEventLog(clock, { retain: 2 })
    const append = async () => {
      log.append(input())
      await clock.advance(1)
    }
    for (let i = 0; i < 3; i++) await append()
    expect(log.evictedThroughNano).toBe(1_000_000_000n)
    await append()
    expect(log.betweenNano(0n).map((e) => e.seq)).toEqual([3, 4])
    await append()
    expect(log.between(0).map((e) => e.seq)).toEqual([4, 5])
    await append()
    expect(log.oldestMs).toBe(1004)
    expect(log.events.map((e) => e.seq)).toEqual([5, 6])
  })

  it('by time: events older than retainEventsFor drop out, also without a new append', async () => {
    const clock = createClock({ start: 0 })
    const log = createEventLog(clock, { retainForMs: 10_000 })
    log.append(input()) // at 0
    await clock.advance(5_000)
    log.append(input()) // at 5 s
    await clock.advance(5_000)
    // At 10 s the first is exactly at the horizon: kept.
    expect(log.oldestSeq).toBe(1)
    expect(log.events.map((e) => e.seq)).toEqual([1, 2])
    await clock.advance(1)
    expect(log.oldestSeq).toBe(2)
    expect(log.evictedThroughNano).toBe(0n)
    expect([log.oldestMs, log.events.length]).toEqual([5_000, 1])
    await clock.advance(5_000)
    expect(log.oldestMs).toBe(undefined)
    expect(log.oldestSeq).toBe(3)
    expect(log.evictedThroughNano).toBe(5_000_000_000n)
  })

  it('by time, read through oldestSeq first: the expired events are evicted then', async () => {
    const clock = createClock({ start: 100_000 })
    const log = createEventLog(clock, { retain: 5, retainForMs: 1_000 })
    for (let i = 0; i < 3; i++) log.append(input())
    await clock.advance(500)
    log.append(input())
    await clock.advance(600)
    expect(log.oldestSeq).toBe(4)
    expect(log.evictedThroughNano).toBe(100_000_000_002n)
    await clock.advance(1_000)
    expect(log.oldestSeq).toBe(5)
  })

  it('clear() empties the log and remembers the newest time it dropped; seq numbers go on', () => {
    const clock = createClock({ start: 7000 })
    const log = createEventLog(clock)
    log.clear()
    expect(log.evictedThroughNano).toBe(0n)
    log.append(input())
    log.append(input())
    log.clear()
    expect([log.events, log.evictedThroughNano, log.lastSeq, log.oldestSeq]).toEqual([[], 7_000_000_001n, 2, 3])
    expect(log.append(input()).seq).toBe(3)
  })
})

describe('replay bounds', () => {
  it('between(since, until) and betweenNano are inclusive at both ends, as Docker is', async () => {
    const clock = createClock({ start: 0 })
    const log = createEventLog(clock)
    for (let i = 0; i < 4; i++) {
      await clock.advance(1000)
      log.append(input())
    }
    const seqs = (es: ServiceEvent[]) => es.map((e) => e.seq)
    expect(seqs(log.between(2000))).toEqual([2, 3, 4])
    expect(seqs(log.between(2000, 3000))).toEqual([2, 3])
    expect(seqs(log.between(2001, 3999))).toEqual([3])
    expect(seqs(log.between(0, 0))).toEqual([])
    expect(seqs(log.betweenNano(2_000_000_000n))).toEqual([2, 3, 4])
    expect(seqs(log.betweenNano(2_000_000_000n, 3_000_000_000n))).toEqual([2, 3])
    expect(seqs(log.betweenNano(2_000_000_001n, 3_999_999_999n))).toEqual([3])
    expect(seqs(log.betweenNano(4_000_000_001n))).toEqual([])
  })

  it('a replay applies the time retention first', async () => {
    const clock = createClock({ start: 0 })
    const log = createEventLog(clock, { retainForMs: 1000 })
    log.append(input())
    await clock.advance(2000)
    expect(log.between(0)).toEqual([])
    expect(log.betweenNano(0n)).toEqual([])
  })
})

describe('subscribers', () => {
  it('counted; an unsubscribe is idempotent; a filter selects what it gets, by kind and by container', () => {
    const log = createEventLog(createClock())
    const got: string[] = []
    const sub = (name: string, json: string) => log.subscribe({ filter: filter(json), deliver: (e) => got.push(`${name}:${e.seq}`) })
    const all = sub('all', '{}')
    const stops = sub('stops', '{"event":["stop"]}')
    const web = sub('web', '{"container":["web"]}')
    const webStops = sub('webStops', '{"container":["web"],"event":["stop"]}')
    const none = sub('none', '{"type":["network"],"container":["web"]}')
    expect(log.subscriberCount).toBe(5)
    log.append(input()) // 1: web start
    log.append(input({ action: 'stop' })) // 2: web stop
    log.append(input({ name: 'db', id: 'c3', action: 'stop' })) // 3: db stop
    expect(got).toEqual(['all:1', 'web:1', 'all:2', 'web:2', 'stops:2', 'webStops:2', 'all:3', 'stops:3'])
    got.length = 0
    web()
    web()
    stops()
    stops()
    expect(log.subscriberCount).toBe(3)
    log.append(input({ action: 'stop' })) // 4
    expect(got).toEqual(['all:4', 'webStops:4'])
    got.length = 0
    webStops()
    all()
    none()
    none()
    expect(log.subscriberCount).toBe(0)
    log.append(input({ action: 'stop' }))
    expect(got).toEqual([])
  })

  it('only container subscribers: each gets the events of its containers (a prefix of the name or id)', () => {
    const log = createEventLog(createClock())
    const got: string[] = []
    const sub = (name: string, json: string) => log.subscribe({ filter: filter(json), deliver: (e) => got.push(`${name}:${e.name}`) })
    const a = sub('we', '{"container":["we"]}')
    sub('db', '{"container":["/db","db"]}')
    sub('id', '{"container":["c3"]}')
    sub('db-stops', '{"container":["db"],"event":["stop"]}')
    sub('db-labelled', '{"container":["db"],"label":["tier"]}')
    log.append(input()) // web
    log.append(input({ name: 'db', id: 'c3' }))
    log.append(input({ name: 'x', id: 'zz' }))
    expect(got).toEqual(['we:web', 'db:db', 'id:db'])
    got.length = 0
    a()
    log.append(input())
    expect(got).toEqual([])
  })

  it('container values are looked up by the lengths indexed: one of two values of a length leaving keeps the other; a full id is found', () => {
    const log = createEventLog(createClock())
    const got: string[] = []
    const sub = (name: string, json: string) => log.subscribe({ filter: filter(json), deliver: (e) => got.push(`${name}:${e.name}`) })
    const id = 'a1'.repeat(32)
    const ab = sub('ab', '{"container":["ab"]}')
    sub('cd', '{"container":["cd"]}')
    sub('full', `{"container":["${id}"]}`)
    ab()
    log.append(input({ name: 'cd', id: 'x1' }))
    log.append(input({ name: 'zz', id }))
    log.append(input({ name: 'ab', id: 'x2' }))
    log.append(input({ name: 'cdx', id: id.slice(0, 63) }))
    expect(got).toEqual(['cd:cd', 'full:zz', 'cd:cdx'])
  })

  it('container subscribers get an event in subscription order, those of any kind before those of one kind (as a scan)', () => {
    const log = createEventLog(createClock())
    const got: string[] = []
    const sub = (name: string, json: string) => log.subscribe({ filter: filter(json), deliver: () => got.push(name) })
    sub('starts-by-id', '{"container":["c3"],"event":["start"]}')
    sub('by-id', '{"container":["c3"]}')
    sub('by-name', '{"container":["db"]}')
    sub('starts-by-name', '{"container":["db"],"event":["start"]}')
    log.append(input({ name: 'db', id: 'c3' }))
    expect(got).toEqual(['by-id', 'by-name', 'starts-by-id', 'starts-by-name'])
  })

  it('one subscriber object subscribed twice is one subscriber; an old unsubscribe never removes a later subscription; unsubscribe(subscriber)', () => {
    for (const json of ['{}', '{"event":["start"]}', '{"container":["web"]}']) {
      const log = createEventLog(createClock())
      const got: number[] = []
      const subscriber = { filter: filter(json), deliver: (e: ServiceEvent) => got.push(e.seq) }
      const first = log.subscribe(subscriber)
      const again = log.subscribe(subscriber)
      expect(log.subscriberCount).toBe(1)
      log.append(input()) // 1: delivered once
      // Either function ends it, once.
      again()
      first()
      expect(log.subscriberCount).toBe(0)
      log.append(input()) // 2: not delivered
      const later = log.subscribe(subscriber)
      first()
      again()
      expect(log.subscriberCount).toBe(1)
      log.append(input()) // 3: delivered
      later()
      log.append(input()) // 4: not delivered
      // unsubscribe(subscriber) ends it as the returned function does; for one not subscribed it does nothing.
      log.subscribe(subscriber)
      log.append(input()) // 5: delivered
      log.unsubscribe(subscriber)
      log.unsubscribe(subscriber)
      log.unsubscribe({ filter: filter(json), deliver: () => {} })
      log.append(input()) // 6: not delivered
      expect(got, json).toEqual([1, 3, 5])
      expect(log.subscriberCount).toBe(0)
    }
  })

  it('a subscriber that unsubscribes another during delivery does not disturb this event', () => {
    const log = createEventLog(createClock())
    const got: string[] = []
    let offB = () => {}
    log.subscribe({ filter: filter('{}'), deliver: (e) => { got.push(`a:${e.seq}`); offB() } })
    offB = log.subscribe({ filter: filter('{}'), deliver: (e) => got.push(`b:${e.seq}`) })
    log.append(input())
    log.append(input())
    expect(got).toEqual(['a:1', 'b:1', 'a:2'])
  })
})
