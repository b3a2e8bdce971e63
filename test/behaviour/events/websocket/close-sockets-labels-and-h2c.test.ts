// Regressions from a review against the spec and PROTOCOL.md with real clients:
// - `fake.closeSockets(4000)` without a reason threw "reason is not iterable" after each socket had already left the
//   fake's books: the client got no close frame and stayed open with no more events. The reason now defaults.
// - A label named `__proto__` was dropped from the event's Actor.Attributes (an assignment set the prototype), while
//   inspect showed it and a label filter matched it. The spec: labels are copied as they are.
// - Attribute keys were sorted by UTF-16 code units; Go sorts map keys by their UTF-8 bytes (code points).
// - Go's encoder (the real service's) writes `<`, `>`, `&`, U+2028 and U+2029 as \u escapes; the frame now has the
//   same bytes.
// - `Upgrade: h2c` (curl --http2) got a 400 on every route: a server may ignore an upgrade it does not support.
// Found by a review of events against the spec and PROTOCOL.md (was test/regressions/events-review-edges.test.ts).
import { execFile } from 'node:child_process'
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'
import { openEvents } from '../../../support/helpers'

const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

async function serve() {
  const fake = createDockside({ seed: 9 })
  open.push(fake)
  return { fake, server: await fake.listen({ host: '127.0.0.1', port: 0 }) }
}

it('closeSockets(code) without a reason closes every socket with a default reason', async () => {
  const { fake, server } = await serve()
  const a = await openEvents(`${server.wsUrl}/events/ws?client=a`)
  const b = await openEvents(`${server.wsUrl}/events/ws?client=b`)
  expect(fake.closeSockets(4000)).toBe(2)
  for (const c of [a, b]) {
    const e = await c.closed
    expect([e.code, e.reason]).toEqual([4000, 'closed by the test (fake.closeSockets)'])
  }
  expect(fake.deliveries.report('a').connections.map((c) => [c.closedBy, c.code, c.reason])).toEqual([['server', 4000, 'closed by the test (fake.closeSockets)']])
})

it('a reason that is not a string is refused before any socket changes', async () => {
  const { fake, server } = await serve()
  const a = await openEvents(`${server.wsUrl}/events/ws?client=a`)
  expect(() => fake.closeSockets(4000, 42 as unknown as string)).toThrow('Invalid close reason: expected a string of at most 123 bytes.')
  fake.containers.create({ name: 'web', image: 'nginx' }).start()
  await expect.poll(() => a.messages.length).toBe(1)
  expect(a.ws.readyState).toBe(WebSocket.OPEN)
})

it('a __proto__ label is in the frame like any other, keys in Go order, HTML characters escaped as Go writes them', async () => {
  const { fake, server } = await serve()
  const c = await openEvents(`${server.wsUrl}/events/ws`)
  const labels = JSON.parse('{"__proto__":"yes","k😀":"1","k！":"2","note":"a<b && c>d \u2028"}') as Record<string, string>
  fake.containers.create({ name: 'pp', image: 'busybox', labels }).start()
  await expect.poll(() => c.messages.length).toBe(1)
  const frame = c.messages[0]!
  expect(frame).toContain(String.raw`"Attributes":{"__proto__":"yes","exitCode":"0","image":"busybox","k！":"2","k😀":"1","name":"pp","note":"a\u003cb \u0026\u0026 c\u003ed \u2028","sh_hyper_instancetype":"s4"}`)
  const attributes = (JSON.parse(frame) as { Actor: { Attributes: Record<string, string> } }).Actor.Attributes
  expect(Object.keys(attributes)).toEqual(['__proto__', 'exitCode', 'image', 'k！', 'k😀', 'name', 'note', 'sh_hyper_instancetype'])
  expect(attributes.note).toBe('a<b && c>d \u2028')
  const line = await (await fetch(`${server.url}/events?since=0&until=${Math.floor(fake.clock.now() / 1000)}`)).text()
  expect(line).toContain(String.raw`"__proto__":"yes","exitCode":"0"`)
  expect(line).toContain(String.raw`a\u003cb`)
})

it('Upgrade: h2c (curl --http2) is served as the plain request it also is', async () => {
  const { server } = await serve()
  const out = await new Promise<string>((resolve, reject) =>
    execFile('curl', ['-si', '--http2', `${server.url}/_ping`], { timeout: 10_000 }, (error, stdout) => (error ? reject(error) : resolve(stdout))),
  )
  expect(out.split('\r\n')[0]).toBe('HTTP/1.1 200 OK')
  expect(out.endsWith('\r\n\r\nOK')).toBe(true)
})
