// Regression: with allowedOrigins set, the events websocket took the fake's "own" origin from the request's Host, so
// a page that reached the fake through DNS rebinding (Host: evil.example:PORT, Origin: http://evil.example:PORT)
// opened it. The own origin now counts only when the Host names the fake, as the admin API's Host check says.
import net from 'node:net'
import { randomBytes } from 'node:crypto'
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

/** The status line of an events websocket upgrade sent with these Host and Origin headers. */
function upgrade(port: number, host: string, origin: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    let text = ''
    socket.on('data', (c: Buffer) => {
      text += c.toString()
      if (text.includes('\r\n')) {
        resolve(text.slice(0, text.indexOf('\r\n')))
        socket.destroy()
      }
    })
    socket.on('error', reject)
    socket.write(`GET /events/ws HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${origin}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`)
  })
}

it('with allowedOrigins, a rebinding page (its own name as Host and Origin) is refused; the fake own origin and a listed one open', async () => {
  const fake = createDockside({ allowedOrigins: ['https://app.example'] })
  open.push(fake)
  const { port } = await fake.listen({ host: '127.0.0.1', port: 0 })
  expect(await upgrade(port, `evil.example:${port}`, `http://evil.example:${port}`)).toBe('HTTP/1.1 403 Forbidden')
  expect(await upgrade(port, `127.0.0.1:${port}`, `http://127.0.0.1:${port}`)).toBe('HTTP/1.1 101 Switching Protocols')
  expect(await upgrade(port, `localhost:${port}`, `http://localhost:${port}`)).toBe('HTTP/1.1 101 Switching Protocols')
  expect(await upgrade(port, `evil.example:${port}`, 'https://app.example')).toBe('HTTP/1.1 101 Switching Protocols')
})
