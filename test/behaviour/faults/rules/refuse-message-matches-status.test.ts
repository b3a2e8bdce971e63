// Regression: a `refuse` rule with its own status answered that status with the 503's text: `{"on":"events","refuse":1,
// "reply":429}` refused the reconnect with 429 and `{"message":"service unavailable: reconnect refused (injected
// fault)"}`, a body that contradicts its status. The message now names the status it goes with.
// Found by the faults hunt (was test/regressions/faults-hunt-refuse-message.test.ts).
import { expect, it } from 'vitest'
import WebSocket from 'ws'
import { createDockside } from '../../../../src/index'

/** A ws client's attempt: the refusal's status, Retry-After and body, or 'open'. */
function attempt(url: string): Promise<{ status: number; retryAfter?: string; body: string } | 'open'> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url)
    ws.on('open', () => {
      ws.close()
      resolve('open')
    })
    ws.on('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (c: Buffer) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'], body }))
    })
    ws.on('error', () => {})
  })
}

it.each([
  [429, 'too many requests: reconnect refused (injected fault)', '3'],
  [500, 'internal server error: reconnect refused (injected fault)', '3'],
  [503, 'service unavailable: reconnect refused (injected fault)', '3'],
] as const)('a reconnect refused with %i says so in its message', async (status, message, retryAfter) => {
  await using fake = createDockside()
  const server = await fake.listen({ host: '127.0.0.1', port: 0 })
  fake.faults.add({ on: 'events', refuse: 1, reply: status, retryAfter: 3 })
  const url = `${server.wsUrl}/events/ws?client=worker`
  expect(await attempt(url)).toBe('open')
  expect(await attempt(url)).toEqual({ status, retryAfter, body: JSON.stringify({ message }) })
  expect(await attempt(url)).toBe('open')
})
