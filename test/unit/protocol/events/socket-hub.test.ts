// The hub of live events sockets (src/protocol/events/socket-hub.ts): a close frame's reason cut to RFC 6455's 123 bytes at
// every UTF-8 width, closes and drops that reach every socket and say how many, and the maintenance restart (1001,
// PROTOCOL.md "Closing").
import { describe, expect, it } from 'vitest'
import { createDockside } from '../../../../src/index'
import { clampCloseReason, createHub, MAX_CLOSE_REASON_BYTES, type LiveSocket } from '../../../../src/protocol/events/socket-hub'

const utf8 = (s: string) => new TextEncoder().encode(s).length

describe('clampCloseReason', () => {
  it.each([
    // [character, its UTF-8 bytes]: the first and last code point of each width.
    ['a', 1],
    ['\u007f', 1],
    ['\u0080', 2],
    ['\u07ff', 2],
    ['\u0800', 3],
    ['\uffff', 3],
    ['\u{10000}', 4],
    ['\u{10ffff}', 4],
  ])('%j (%i bytes): kept whole up to 123 bytes, cut on a character boundary with "…" past it', (ch, width) => {
    const fitting = ch.repeat(Math.floor(123 / width))
    expect(clampCloseReason(fitting)).toBe(fitting)
    const over = ch.repeat(Math.floor(123 / width) + 1)
    // Room is left for the 3-byte ellipsis: as many whole characters as fit in 120 bytes.
    expect(clampCloseReason(over)).toBe(`${ch.repeat(Math.floor(120 / width))}…`)
    expect(utf8(clampCloseReason(over))).toBeLessThanOrEqual(MAX_CLOSE_REASON_BYTES)
  })
  it('cuts a mixed reason where the 120th byte ends', () => {
    expect(clampCloseReason(`${'a'.repeat(119)}é${'b'.repeat(10)}`)).toBe(`${'a'.repeat(119)}…`)
    expect(clampCloseReason(`${'a'.repeat(118)}é${'b'.repeat(10)}`)).toBe(`${'a'.repeat(118)}é…`)
    expect(clampCloseReason('')).toBe('')
  })
})

function socket(id: number, log: string[]): LiveSocket {
  return { id, client: undefined, filters: {} as LiveSocket['filters'], sent: 0, close: (code, reason) => void log.push(`${id} close ${code} ${reason}`), drop: () => void log.push(`${id} drop`) }
}

describe('createHub', () => {
  it('closes and drops every live socket, returning how many; a removed socket gets nothing', () => {
    const log: string[] = []
    const hub = createHub()
    const [a, b, c] = [socket(1, log), socket(2, log), socket(3, log)]
    hub.add(a)
    hub.add(b)
    hub.add(c)
    hub.delete(b)
    expect([...hub.sockets]).toEqual([a, c])
    expect(hub.closeAll(4000, 'bye')).toBe(2)
    expect(hub.dropAll()).toBe(2)
    expect(log).toEqual(['1 close 4000 bye', '3 close 4000 bye', '1 drop', '3 drop'])
    expect(createHub().closeAll(1000, 'x')).toBe(0)
    expect(createHub().dropAll()).toBe(0)
  })
  it('a socket that leaves the hub while being closed does not stop the others', () => {
    const log: string[] = []
    const hub = createHub()
    const leaving = (id: number): LiveSocket => ({ ...socket(id, log), close: (code) => void (log.push(`${id} close ${code}`), hub.delete(hub.sockets.values().next().value!)), drop: () => void (log.push(`${id} drop`), hub.delete(hub.sockets.values().next().value!)) })
    hub.add(leaving(1))
    hub.add(leaving(2))
    expect(hub.closeAll(1000, '')).toBe(2)
    expect(log).toEqual(['1 close 1000', '2 close 1000'])
    hub.add(leaving(3))
    hub.add(leaving(4))
    expect(hub.dropAll()).toBe(2)
    expect(log.slice(2)).toEqual(['3 drop', '4 drop'])
  })
  it('refuses a close code or reason a server may not send, before closing any socket', () => {
    const log: string[] = []
    const hub = createHub()
    hub.add(socket(1, log))
    expect(() => hub.closeAll(1005, 'x')).toThrow('Invalid close code 1005: expected 1000-1003, 1007-1014 or 3000-4999.')
    expect(() => hub.closeAll(1000, 'x'.repeat(124))).toThrow('Invalid close reason: expected a string of at most 123 bytes.')
    expect(log).toEqual([])
  })
})

describe('maintenanceRestart', () => {
  it('closes every events socket with 1001 and a reason that says to reconnect, and journals how many', async () => {
    await using fake = createDockside({ seed: 1 })
    const log: string[] = []
    for (const client of ['a', 'b']) {
      const r = await fake.protocol.upgrade({ method: 'GET', url: `/events/ws?client=${client}`, headers: {}, signal: new AbortController().signal, body: async () => '' })
      if (r.kind !== 'accept') throw new Error(r.kind)
      r.open({ send: () => {}, close: (code, reason) => void log.push(`${client} ${code} ${reason}`), drop: () => void log.push(`${client} drop`) })
    }
    expect(fake.restart()).toBe(2)
    expect(log).toEqual(['a 1001 server restarting for maintenance; reconnect to continue', 'b 1001 server restarting for maintenance; reconnect to continue'])
    expect(fake.journal.ofType('maintenance.restart').map((e) => e.closed)).toEqual([2])
    expect(fake.restart()).toBe(0)
    expect(fake.journal.ofType('maintenance.restart').map((e) => e.closed)).toEqual([2, 0])
  })
})
