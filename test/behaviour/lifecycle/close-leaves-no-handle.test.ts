import { afterEach, describe, expect, it, vi } from 'vitest'
import WebSocket from 'ws'
import { createDockside, demoScenario, type ClockMode } from '../../../src/index'
import { hostTimers } from '../../../src/runtime/host-timers'

/**
 * The clock's host timers are unref'd, so they never show in getActiveResourcesInfo(): track them directly.
 * Returns the set of host timers armed and neither fired nor cancelled.
 */
function trackHostTimers() {
  const live = new Set<unknown>()
  const after = hostTimers.after
  const cancel = hostTimers.cancel
  vi.spyOn(hostTimers, 'after').mockImplementation((ms, fn) => {
    const handle: unknown = after(ms, () => {
      live.delete(handle)
      fn()
    })
    live.add(handle)
    return handle
  })
  vi.spyOn(hostTimers, 'cancel').mockImplementation((handle) => {
    live.delete(handle)
    cancel(handle)
  })
  return live
}
afterEach(() => {
  vi.restoreAllMocks()
})

/** Handles that keep the process alive, by type (vitest's own are there before and after alike). */
const handles = () => {
  const counts: Record<string, number> = {}
  for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1
  return counts
}
/**
 * No handle type has more open handles than before. (Fewer is fine: a timer left by an earlier test in
 * this file, e.g. undici's keep-alive timer of a previous fetch, may expire meanwhile.)
 */
const expectNoNewHandles = (before: Record<string, number>) => {
  const after = handles()
  const grown = Object.entries(after).filter(([type, n]) => n > (before[type] ?? 0))
  expect(grown, `handles before: ${JSON.stringify(before)}, after: ${JSON.stringify(after)}`).toEqual([])
}
const settle = async () => {
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r))
}

describe('close() leaves no open handle', () => {
  it.each<ClockMode>(['virtual', 'auto', 'real'])('with a live events socket and a push in flight (%s clock)', async (mode) => {
    await settle()
    const before = handles()
    const liveHostTimers = trackHostTimers()

    const fake = createDockside({ scenario: demoScenario, clock: mode, pushBandwidth: 1000 })
    // A background timer far away (maximum age), a timeline, and a slow push keep timers pending.
    const server = await fake.listen({ port: 0 })
    const ws = new WebSocket(`${server.wsUrl}/events/ws`)
    await new Promise((r, j) => ws.once('open', r).once('error', j))
    const wsClosed = new Promise<number>((r) => ws.once('close', (code) => r(code)))
    const res = await fetch(`${server.url}/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST' })
    const reader = res.body!.getReader()
    const first = await reader.read()
    expect(new TextDecoder().decode(first.value)).toContain('The push refers to repository')
    const bodyEnded = (async () => {
      try {
        while (!(await reader.read()).done);
        return 'ended'
      } catch {
        return 'reset'
      }
    })()
    expect(fake.clock.pending).toBeGreaterThan(0)
    if (mode !== 'virtual') expect(liveHostTimers.size).toBeGreaterThan(0)
    expect(handles().TCPServerWrap ?? 0).toBeGreaterThan(before.TCPServerWrap ?? 0)

    await fake.close()
    expect(await wsClosed).toBe(1001)
    expect(await bodyEnded).toMatch(/ended|reset/)
    await settle()
    expect(fake.clock.pending).toBe(0)
    expect(liveHostTimers.size).toBe(0)
    expect(fake.journal.ofType('push.cancelled')).toHaveLength(1)
    expectNoNewHandles(before)
  })

  it('close() is idempotent and listen() after close() is refused', async () => {
    const fake = createDockside()
    await fake.listen({ port: 0 })
    await fake.close()
    await fake.close()
    await expect(fake.listen({ port: 0 })).rejects.toThrow(/closed; create a new one/)
  })

  it('`await using` closes the fake and its servers at the end of the block', async () => {
    await settle()
    const before = handles()
    let url: string
    {
      await using fake = createDockside({ clock: 'real' })
      await using server = await fake.listen({ port: 0 })
      url = server.url
      expect((await fetch(`${url}/_ping`)).status).toBe(200)
    }
    await expect(fetch(`${url}/_ping`)).rejects.toThrow()
    await settle()
    expectNoNewHandles(before)
  })
})
