// Regressions from a stress review:
// - a handshake held by a `stall` fault when `fake.reset()` ran was answered (503) after the reset and then recorded
//   in the fresh request log and journal: a shared fake reset in afterEach saw the previous test's request;
// - `await fake.close()` resolved while its server still counted connections (40 right after, 0 a moment later),
//   so a test checking `connections()` after close read a false leak.
import http from 'node:http'
import net from 'node:net'
import { expect, it } from 'vitest'
import { createDockside } from '../../../src/index'

it('a request that began before a reset is not recorded in the fresh request log or journal', async () => {
  const fake = createDockside({ seed: 1 })
  try {
    fake.faults.add({ on: 'events', stall: true, times: 'always' })
    const server = await fake.listen({ port: 0 })
    const socket = net.connect(server.port, '127.0.0.1')
    let answer = ''
    socket.on('data', (d) => (answer += d))
    const ended = new Promise((resolve) => socket.on('close', resolve))
    const stalled = new Promise((resolve) => fake.on('journal', (e) => e.type === 'fault' && resolve(e)))
    socket.write(`GET /events/ws?client=staller HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`)
    await stalled
    await fake.reset()
    // The reset ends the stall: the old client gets its answer, and the new history stays empty.
    await ended
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 503 Service Unavailable')
    expect(fake.requests.list()).toEqual([])
    expect(fake.journal.ofType('request')).toEqual([])
  } finally {
    await fake.close()
  }
})

it('once close() has resolved, the server counts no connection: idle sockets and open streams included', async () => {
  const fake = createDockside({ seed: 1, clock: 'real' })
  const server = await fake.listen({ port: 0 })
  const idle = Array.from({ length: 10 }, () => net.connect(server.port, '127.0.0.1').on('error', () => {}))
  await Promise.all(idle.map((s) => new Promise((resolve) => s.on('connect', resolve))))
  const streams = await Promise.all(
    Array.from({ length: 10 }, () => new Promise<http.IncomingMessage>((resolve) => http.get({ host: '127.0.0.1', port: server.port, agent: false, path: '/events?client=s' }, resolve).on('error', () => {}))),
  )
  for (const res of streams) res.on('error', () => {}).resume()
  expect(server.connections()).toBe(20)
  await fake.close()
  expect(server.connections()).toBe(0)
  for (const s of idle) s.destroy()
})
