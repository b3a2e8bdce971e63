// fetch in process goes through Node's own undici dispatcher (docs/decisions/0009-fetch-dispatcher.md): what a user
// relies on around it. The conformance suite runs every case through it (test/conformance/intercept.test.ts).
import nock from 'nock'
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1')
type WithDispatcher = typeof globalThis & { [GLOBAL_DISPATCHER]?: { dispatch: (...args: never[]) => boolean } }
const g = globalThis as WithDispatcher
const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
  nock.cleanAll()
})
const fresh = () => {
  const fake = createDockside({ seed: 1 })
  open.push(fake)
  return fake
}

describe('the global dispatcher', () => {
  it('restore() puts back the dispatcher that was global before; nested installs restore it once the last is gone', async () => {
    void globalThis.fetch
    const before = g[GLOBAL_DISPATCHER]
    const west = await fresh().intercept()
    const east = await fresh().intercept({ region: 'eu-central-1' })
    expect(g[GLOBAL_DISPATCHER]).not.toBe(before)
    west.restore()
    expect(g[GLOBAL_DISPATCHER]).not.toBe(before)
    expect(await (await fetch(`${east.baseUrl}/_ping`)).text()).toBe('OK')
    east.restore()
    expect(g[GLOBAL_DISPATCHER]).toBe(before)
    await expect(fetch(`${east.baseUrl}/_ping`)).rejects.toThrow(/fetch failed/)
  })

  it('a dispatcher the user sets while hooked is left in place by restore()', async () => {
    void globalThis.fetch
    const before = g[GLOBAL_DISPATCHER]!
    const hooks = await fresh().intercept()
    const theirs = { dispatch: (...args: never[]) => before.dispatch(...args) }
    g[GLOBAL_DISPATCHER] = theirs
    try {
      hooks.restore()
      expect(g[GLOBAL_DISPATCHER]).toBe(theirs)
    } finally {
      g[GLOBAL_DISPATCHER] = before
    }
  })

  it("a user's own nock mocks for other hosts keep answering fetch beside the hooks", async () => {
    await using hooks = await fresh().intercept()
    nock('https://api.other.test').get('/thing').reply(200, { from: 'nock' })
    expect(await (await fetch('https://api.other.test/thing')).json()).toEqual({ from: 'nock' })
    expect(await (await fetch(`${hooks.baseUrl}/_ping`)).text()).toBe('OK')
  })

  it('the request the fake sees carries the Host a socket would (HYPER-HMAC signing covers it) and the client\'s headers', async () => {
    const fake = fresh()
    await using hooks = await fake.intercept({ baseUrl: 'https://api.example.test:8443' })
    const seen: Record<string, string | undefined>[] = []
    const handle = fake.protocol.handle
    fake.protocol.handle = (req) => (seen.push(req.headers), handle(req))
    const res = await fetch(`${hooks.baseUrl}/_ping`, { headers: { 'x-dockside-client': 'ci-7' } })
    expect(await res.text()).toBe('OK')
    expect(seen[0]).toMatchObject({ host: 'api.example.test:8443', 'x-dockside-client': 'ci-7', connection: 'keep-alive' })
  })
})
