// More edges mutation testing found open (docs/contributing/testing-internals.md): the live feed's sockets, a client back from a gap, a
// caption that wakes the feed, a speed past the clock's maximum given as ?speed=, an override's delay on the auto clock,
// and an allowed origin with a scheme that is not http(s).
import { describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'
import type { SocketSink } from '../../../../src/protocol/types'
import { freshFakes, manualHostTimers, parseLiveChunk as parse } from '../../../support/fresh-fakes'

const fresh = freshFakes()

const served = { scheme: 'http' as const, host: '127.0.0.1', port: 2375 }
const request = (url: string, method = 'GET', body = '') => ({ method, url, headers: { host: '127.0.0.1:2375' }, signal: new AbortController().signal, body: async () => body, served })
const immediately = () => new Promise<'later'>((resolve) => setImmediate(() => resolve('later')))

async function connect(fake: Dockside, client: string) {
  const result = await fake.protocol.upgrade({ ...request(`/events/ws?client=${client}`), headers: {} })
  if (result.kind !== 'accept') throw new Error('refused')
  // As a transport does: a close the server sends ends the connection, which the protocol then hears of.
  const session = result.open({ send: () => {}, close: (code, reason) => session.clientClosed(code, reason), drop: () => session.clientClosed(1006, '') } satisfies SocketSink)
}

async function live(fake: Dockside) {
  const it = ((await fake.protocol.handle(request('/_dockside/live'))).body as AsyncIterable<string>)[Symbol.asyncIterator]()
  await it.next()
  return it
}

describe('the live feed', () => {
  it('shows the events sockets (id, client, filters, frames sent) and a client back from a gap as not away', async () => {
    const fake = fresh()
    await connect(fake, 'back')
    fake.restart()
    fake.containers.create({ name: 'web', image: 'nginx' }).start()
    await connect(fake, 'back')
    const it = await live(fake)
    const [state] = parse((await it.next()).value as string)
    expect(state.data.sockets).toEqual([{ id: 2, client: 'back', filters: {}, sent: 0 }])
    expect(state.data.deliveries.map((d: { client: string; gaps: number; away: boolean }) => [d.client, d.gaps, d.away])).toEqual([['back', 1, false]])
    await it.return?.()
  })

  it('a caption said while the feed waits wakes it at once', async () => {
    const timers = manualHostTimers()
    const fake = fresh({ scenario: { timeline: [{ at: '1s', say: 'now' }] }, clock: { mode: 'virtual', host: timers.host } })
    const it = await live(fake)
    await it.next()
    const next = it.next()
    // The feed's 100 ms coalescing pace (on the host's timers) passes; it then waits for a change, or a second.
    expect(timers.elapse(100)).toBe(1)
    await timers.waiting(1000)
    await fake.clock.advance('1s')
    const woke = await Promise.race([next, immediately()])
    if (woke === 'later') throw new Error('the caption did not wake the feed')
    expect(parse(woke.value as string)[0].data.captions.map((c: { text: string }) => c.text)).toEqual(['now'])
    await it.return?.()
  })
})

describe('override waits', () => {
  it('on the auto clock an override\'s delay is a wait the clock skips to: answered at once, an hour later', async () => {
    const fake = fresh({ clock: 'auto' })
    fake.use('GET /_ping', { delay: '1h', body: 'late' })
    const res = await fake.protocol.handle(request('/_ping'))
    expect(res.body).toBe('late')
    expect(fake.clock.elapsed()).toBeGreaterThanOrEqual(3_600_000)
  })
})

it('an allowed origin with another scheme is refused even with a path of "/"', () => {
  expect(() => createDockside({ allowedOrigins: ['xhttp://a.example/'] })).toThrow('Invalid allowedOrigins entry "xhttp://a.example/": expected an origin (scheme, host and port, no path), e.g. "http://localhost:5173".')
})
