// The seeded source (src/service/random.ts) and untilAborted (src/service/abort.ts).
import { expect, it } from 'vitest'
import { createRandom } from '../../../src/service/random'
import { untilAborted } from '../../../src/service/abort'

it('the same seed gives the same sequence; values have their documented shapes and ranges', () => {
  const draw = (seed: number) => {
    const r = createRandom(seed)
    return { seed: r.seed, hex: r.hex(64), name: r.containerName(), floats: [1, 2, 3, 4, 5].map(() => r.float()), ints: [1, 2, 3, 4, 5].map(() => r.int(3, 5)) }
  }
  const a = draw(7)
  expect(draw(7)).toEqual(a)
  expect(draw(8).hex).not.toBe(a.hex)
  expect(a.seed).toBe(7)
  expect(a.hex).toMatch(/^[0-9a-f]{64}$/)
  expect(a.name).toMatch(/^[a-z]+_[a-z]+$/)
  for (const f of a.floats) expect(f >= 0 && f < 1).toBe(true)
  for (const i of a.ints) expect([3, 4, 5]).toContain(i)
  expect(createRandom(1).hex(12)).toHaveLength(12)
  for (const bad of [1.5, Number.NaN, 2 ** 60]) expect(() => createRandom(bad)).toThrow(`Invalid seed ${bad}: expected an integer.`)
})

it('untilAborted resolves on the first abort (or at once), and leaves no listener behind', async () => {
  const a = new AbortController()
  const b = new AbortController()
  // The listeners each signal really holds: a removal only counts when its type and function match one added.
  const listeners = new Map<AbortSignal, Set<string>>()
  const ids = new Map<unknown, number>()
  const key = (type: string, fn: unknown) => `${type}#${ids.get(fn) ?? ids.set(fn, ids.size).get(fn)}`
  for (const s of [a.signal, b.signal]) {
    listeners.set(s, new Set())
    const add = s.addEventListener.bind(s)
    const remove = s.removeEventListener.bind(s)
    s.addEventListener = ((...args: Parameters<typeof add>) => (listeners.get(s)!.add(key(args[0], args[1])), add(...args))) as typeof add
    s.removeEventListener = ((...args: Parameters<typeof remove>) => (listeners.get(s)!.delete(key(args[0], args[1])), remove(...args))) as typeof remove
  }
  let done = false
  const p = untilAborted(a.signal, b.signal).then(() => (done = true))
  await Promise.resolve()
  expect(done).toBe(false)
  expect([...listeners.values()].map((l) => [...l])).toEqual([['abort#0'], ['abort#0']])
  b.abort()
  await p
  expect(done).toBe(true)
  // `a` lives on (the fake's lifetime): the listener on it is gone, not left to fire later.
  expect([...listeners.values()].map((l) => l.size)).toEqual([0, 0])
  // Already aborted: at once, no listener added.
  await untilAborted(new AbortController().signal, AbortSignal.abort())
})
