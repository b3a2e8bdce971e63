// Regression (issue 8, point 7): a close reason built from input could exceed the 123 bytes a close frame holds
// (`maxConnectionAge: '1s'.repeat(70)`): `ws.close` threw inside the maximum-age timer. Under the virtual clock
// `POST /_dockside/clock/advance` answered 400 with ws's own wording and stopped halfway, the journal said the socket
// was closed but it stayed open; under the auto and real clocks the throw escaped from a host timer callback.
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideOptions } from '../../../../src/index'
import { clampCloseReason } from '../../../../src/protocol/events/socket-hub'
import { interceptWay } from '../../../support/intercept-way'
import type { WayIn } from '../../../support/way-in'
import { probeWithWs } from '../../../support/ws-probe'

const fakes: Dockside[] = []
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close()
})

const serverWay: WayIn = {
  name: 'server',
  async start(fake) {
    const s = await fake.listen({ port: 0 })
    return { baseUrl: s.url, wsBaseUrl: s.wsUrl, fetch: (path, init) => fetch(s.url + path, init), connect: (path) => probeWithWs(s.wsUrl + path), close: () => s.close() }
  },
}

const bytes = (s: string) => new TextEncoder().encode(s).length
const age = '1s'.repeat(70)
const fullReason = `maximum connection age of ${age} reached; reconnect to continue`

describe('clampCloseReason', () => {
  it('keeps a reason that fits, cuts a longer one on a character boundary with an ellipsis', () => {
    expect(clampCloseReason('x'.repeat(123))).toBe('x'.repeat(123))
    expect(clampCloseReason('x'.repeat(124))).toBe(`${'x'.repeat(120)}…`)
    // 2-, 3- and 4-byte characters: never split, never over 123 bytes.
    for (const ch of ['é', '€', '🐳']) {
      const cut = clampCloseReason(`a${ch.repeat(100)}`)
      expect(bytes(cut)).toBeLessThanOrEqual(123)
      expect(cut).toMatch(/^a.*…$/u)
      expect(cut.includes('\uFFFD')).toBe(false)
      expect(Array.from(cut.slice(1, -1)).every((c) => c === ch)).toBe(true)
    }
  })
})

for (const way of [serverWay, interceptWay]) {
  describe(`${way.name}: a maximum-age close whose reason is over 123 bytes`, () => {
    const open = async (options: DocksideOptions) => {
      const fake = createDockside({ seed: 1, maxConnectionAge: age, ...options })
      fakes.push(fake)
      const h = await way.start(fake)
      const ws = await h.connect('/events/ws?client=long')
      expect(ws.status).toBe(101)
      return { fake, h, ws }
    }
    const expectClosed = async (fake: Dockside, ws: Awaited<ReturnType<typeof open>>['ws']) => {
      const closed = await ws.closed
      expect(closed.code).toBe(1000)
      expect(bytes(closed.reason)).toBeLessThanOrEqual(123)
      expect(closed.reason).toMatch(/^maximum connection age of (1s)+.*…$/)
      // The journal keeps the whole reason.
      expect(fake.journal.ofType('ws.close').map((e) => e.reason)).toEqual([fullReason])
    }

    it('virtual clock: POST /_dockside/clock/advance answers 200 and the socket closes', async () => {
      const { fake, h, ws } = await open({ clock: 'virtual' })
      const res = await h.fetch('/_dockside/clock/advance', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"by":"2m"}' })
      expect(res.status, await res.clone().text()).toBe(200)
      await expectClosed(fake, ws)
    })

    it('auto clock: the host timer closes the socket, nothing is thrown', async () => {
      const errors: unknown[] = []
      const onError = (e: unknown) => errors.push(e)
      process.on('uncaughtException', onError)
      try {
        // Under the auto clock the maximum age is a background timer, run at wall pace: a 1 ms age.
        const { fake, ws } = await open({ clock: 'auto', maxConnectionAge: `${'0s'.repeat(60)}1ms` })
        const closed = await ws.closed
        expect(closed.code).toBe(1000)
        expect(bytes(closed.reason)).toBeLessThanOrEqual(123)
        expect(fake.journal.ofType('ws.close').map((e) => e.reason)).toEqual([`maximum connection age of ${'0s'.repeat(60)}1ms reached; reconnect to continue`])
      } finally {
        process.off('uncaughtException', onError)
      }
      expect(errors).toEqual([])
    })
  })
}
