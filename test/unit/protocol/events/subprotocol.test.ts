// docs/in-process.md, "Sub-protocols": the fake answers the first sub-protocol the client offers, on both ways in;
// none offered, none answered (`protocol` stays ''). The in-process WebSocket here; the server hands the same
// choice to `ws` (handleProtocols).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'
import { chooseSubprotocol } from '../../../../src/protocol/events/subprotocol'

describe('chooseSubprotocol', () => {
  it('is the first offered, in the client order; undefined when none', () => {
    expect(chooseSubprotocol(['b', 'a'])).toBe('b')
    expect(chooseSubprotocol(new Set(['x']))).toBe('x')
    expect(chooseSubprotocol([])).toBeUndefined()
  })
})

describe('the in-process WebSocket answers the first offered sub-protocol', () => {
  let fake: Dockside
  let restore: () => void
  beforeAll(async () => {
    fake = createDockside({ seed: 1 })
    const hooks = await fake.intercept({ region: 'us-west-1' })
    restore = () => hooks.restore()
  })
  afterAll(async () => {
    restore()
    await fake.close()
  })

  const open = (protocols?: string[]) =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket('wss://us-west-1.hyper.test:443/events/ws', protocols)
      ws.addEventListener('open', () => resolve(ws))
      ws.addEventListener('error', () => reject(new Error('refused')))
    })

  it.each([
    [['events.v2', 'events.v1'], 'events.v2'],
    [['solo'], 'solo'],
    [undefined, ''],
  ])('offered %j: protocol %j', async (offered, chosen) => {
    const ws = await open(offered)
    expect(ws.protocol).toBe(chosen)
    const handshake = (ws as unknown as { handshake: { headers: Record<string, string> } }).handshake
    expect(handshake.headers['sec-websocket-protocol']).toBe(chosen || undefined)
    const closed = new Promise((r) => ws.addEventListener('close', r))
    ws.close()
    await closed
  })
})
