import { WebSocket as NodeWs } from 'ws'
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../src/index'

// docs/chaos.md, "Telling the fake who the client is": an anonymous client's key is its address and its filters in
// canonical form, ` #2` for a second one open at once; the address differs by way in.

const FILTERS = encodeURIComponent(JSON.stringify({ event: ['stop', 'start'], container: { web: true } }))
let fake: Dockside | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

/** Opens the three anonymous clients of the doc's example through `open`; answers the keys the fake reports. */
async function keys(base: string, open: (url: string) => { addEventListener(type: 'open', f: () => void): void; close(): void }) {
  const sockets = [`${base}/events/ws?filters=${FILTERS}`, `${base}/events/ws`, `${base}/events/ws`].map(open)
  await Promise.all(sockets.map((s) => new Promise<void>((resolve) => s.addEventListener('open', () => resolve()))))
  const seen = fake!.deliveries.clients()
  for (const s of sockets) s.close()
  return seen
}

it('on the server, the key is the peer address and the canonical filters', async () => {
  fake = createDockside()
  const server = await fake.listen({ port: 0 })
  expect(await keys(server.wsUrl, (url) => new NodeWs(url))).toEqual(['127.0.0.1 {"container":["web"],"event":["start","stop"]}', '127.0.0.1 {}', '127.0.0.1 {} #2'])
})

it('in process, the address is `in-process`', async () => {
  fake = createDockside()
  const hooks = await fake.intercept()
  expect(await keys(hooks.wsBaseUrl, (url) => new hooks.WebSocket(url))).toEqual(['in-process {"container":["web"],"event":["start","stop"]}', 'in-process {}', 'in-process {} #2'])
})
