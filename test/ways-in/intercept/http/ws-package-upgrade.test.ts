// Issue 30, §5: a client built on the `ws` package, used in process, got `GET /events/ws is a websocket endpoint:
// send an Upgrade: websocket request.` although it sent one. The in-process hooks cannot upgrade a node:http socket;
// the message now names that limit, the two ways that work, and the section of docs/in-process.md about such clients.
import https from 'node:https'
import WS from 'ws'
import { expect, test } from 'vitest'
import { createDockside } from '../../../../src/index'

const LIMIT = /the in-process hooks cannot upgrade a node:http socket.*globalThis\.WebSocket.*hooks\.WebSocket.*fake\.listen\(\).*docs\/in-process\.md#clients-built-on-the-ws-package/s

test('a ws-package client in process fails with an error that names the limit and the docs section', async () => {
  await using fake = createDockside()
  await using _hooks = await fake.intercept()
  const ws = new WS('wss://us-west-1.hyper.test/events/ws')
  const error = await new Promise<Error>((resolve) => ws.on('error', resolve))
  expect(error.message).toMatch(/^dockside: GET https:\/\/us-west-1\.hyper\.test\/events\/ws asks to upgrade to a websocket \(Upgrade: websocket\), and /)
  expect(error.message).toMatch(LIMIT)
  expect(error.message).not.toMatch(/send an Upgrade: websocket request/)
  // The fake never saw it as a request: nothing to mislead in the journal either.
  expect(fake.journal.ofType('request')).toEqual([])
})

test('node:http with Upgrade: websocket to any path of a hooked host gets the same error; without it, the route answers', async () => {
  await using fake = createDockside()
  await using _hooks = await fake.intercept()
  const upgrade = await new Promise<Error>((resolve, reject) => {
    const req = https.get('https://us-west-1.hyper.test/events/ws', { headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' } })
    req.on('error', resolve)
    req.on('response', (res) => reject(new Error(`answered ${res.statusCode}`)))
  })
  expect(upgrade.message).toMatch(LIMIT)
  const plain = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    https.get('https://us-west-1.hyper.test/events/ws', (res) => {
      let body = ''
      res.on('data', (d: Buffer) => (body += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    }).on('error', reject)
  })
  // A plain GET, no upgrade asked: the server's own answer, as before.
  expect(plain).toEqual({ status: 400, body: JSON.stringify({ message: 'GET /events/ws is a websocket endpoint: send an Upgrade: websocket request.' }) })
})
