import { describe, expect, it } from 'vitest'
import type { Dockside } from '../../../src/index'
import { createDocksideTest, docksideMatchers, test } from '../../../src/vitest/index'
import { drainWithClock, registryAuth } from '../../support/helpers'

const WEST = 'https://us-west-1.hyper.test'
const before = globalThis.WebSocket

// The fixture's life cycle, test by test (vitest runs a file's tests in order).
describe('the dockside fixture', () => {
  const seen: { fake?: Dockside; failed?: Dockside; closes: number[] } = { closes: [] }

  test('a fresh fake (seed 1) hooked on us-west-1, fetch and the global WebSocket', async ({ dockside, docksideHooks }) => {
    expect([dockside.seed, docksideHooks.baseUrl, docksideHooks.wsBaseUrl]).toEqual([1, WEST, 'wss://us-west-1.hyper.test'])
    expect(globalThis.WebSocket).toBe(docksideHooks.WebSocket)
    expect(await (await fetch(`${WEST}/_ping`)).text()).toBe('OK')
    dockside.containers.create({ name: 'web', image: 'nginx' })
    seen.fake = dockside
  })

  test.fails('a failing test (expected to fail here) still gets its fake closed and unhooked', async ({ dockside }) => {
    seen.failed = dockside
    const ws = new WebSocket('wss://us-west-1.hyper.test/events/ws')
    ws.onclose = (e) => void seen.closes.push(e.code)
    await expect.poll(() => dockside.protocol.hub.sockets.size).toBe(1)
    expect('the test body').toBe('failing')
  })

  it('after each test the fake is closed (its socket too) and the hooks are restored', async () => {
    await expect(seen.fake!.intercept()).rejects.toThrow(/This fake is closed/)
    await expect(seen.failed!.intercept()).rejects.toThrow(/This fake is closed/)
    await expect.poll(() => seen.closes).toHaveLength(1)
    expect(globalThis.WebSocket).toBe(before)
    await expect(fetch(`${WEST}/_ping`)).rejects.toThrow(/fetch failed/)
  })

  test('the next test gets a new fake with fresh state', ({ dockside }) => {
    expect(dockside).not.toBe(seen.fake)
    expect(dockside.containers.list()).toHaveLength(0)
  })

  const east = createDocksideTest({ dockside: { seed: 42 }, intercept: { region: 'eu-central-1' } })
  east('createDocksideTest() takes the fake and hook options', async ({ dockside, docksideHooks }) => {
    expect([dockside.seed, docksideHooks.baseUrl]).toEqual([42, 'https://eu-central-1.hyper.test'])
    expect(await (await fetch('https://eu-central-1.hyper.test/_ping')).text()).toBe('OK')
    await expect(fetch(`${WEST}/_ping`)).rejects.toThrow(/fetch failed/)
  })
})

describe('matchers', () => {
  test('toHavePushed: the tag was committed, as the given user', async ({ dockside }) => {
    dockside.registries.add('localhost:5000', { username: 'alice', password: 's3cret' })
    dockside.images.add('localhost:5000/team/app', { tags: ['1.0'], layers: 1 })
    const res = await fetch(`${WEST}/images/localhost:5000/team/app/push?tag=1.0`, {
      method: 'POST',
      headers: { 'X-Registry-Auth': registryAuth({ username: 'alice', password: 's3cret' }) },
    })
    await drainWithClock(res, () => dockside.clock.advance('1s'))
    expect(dockside).toHavePushed('localhost:5000/team/app:1.0', { user: 'alice' })
    expect(dockside).toHavePushed('localhost:5000/team/app')
    expect(dockside).not.toHavePushed('localhost:5000/team/app:2.0')
    const wrongUser = docksideMatchers.toHavePushed(dockside, 'localhost:5000/team/app:1.0', { user: 'bob' })
    expect(wrongUser.pass).toBe(false)
    expect(wrongUser.message()).toBe(
      'expected the fake to have pushed localhost:5000/team/app:1.0 by bob; pushed: localhost:5000/team/app:1.0 by alice (failed pushes: 0)',
    )
  })

  test('toHaveReconnected: counts events sockets opened after the first, per client when asked', async ({ dockside }) => {
    const open = async (url: string) => {
      const ws = new WebSocket(url)
      await new Promise((resolve) => ws.addEventListener('open', resolve))
      ws.close()
      await new Promise((resolve) => ws.addEventListener('close', resolve))
    }
    for (const client of ['a', 'a', 'a', 'b']) await open(`wss://us-west-1.hyper.test/events/ws?client=${client}`)
    expect(dockside).toHaveReconnected(3)
    expect(dockside).toHaveReconnected(2, { client: 'a' })
    expect(dockside).toHaveReconnected(0, { client: 'b' })
    const miss = docksideMatchers.toHaveReconnected(dockside, 5, { client: 'a' })
    expect(miss.pass).toBe(false)
    expect(miss.message()).toMatch(/^expected 5 reconnect\(s\) \(client a\), saw 2: 3 events socket\(s\) opened at clock times 2026-/)
  })
})
