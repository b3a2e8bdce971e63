import type { Clock } from '../time/clock'
import { toMs, type Duration } from '../time/duration'
import { hostSetImmediate } from './host-timers'

/** Options of {@link drainWithClock}. */
export interface DrainOptions {
  /** Clock time to advance between reads. @default '100ms' */
  step?: Duration
  /** Give up (throw) after this many steps without the body ending. @default 100000 */
  maxSteps?: number
}

/**
 * Reads a streamed response body (a push's progress, an events stream) to its end while advancing the fake's
 * virtual clock by `step` between reads, so output paced by the clock arrives; returns the body as text.
 * Yields with the host's real `setImmediate`, so it works under jest's, vitest's or sinon's fake timers.
 * @example
 * const res = await fetch(`${base}/images/localhost:5000/app/push?tag=1`, { method: 'POST', headers })
 * const text = await drainWithClock(res, fake)          // or drainWithClock(res, () => fake.clock.advance('1s'))
 * expect(text).toContain('"aux"')
 */
export async function drainWithClock(res: Response, clock: { readonly clock: Pick<Clock, 'advance'> } | (() => unknown), options: DrainOptions = {}): Promise<string> {
  if (!res?.body || typeof res.body.getReader !== 'function') throw new TypeError('drainWithClock(res, fake) needs a fetch Response with a body.')
  const step = toMs(options.step ?? 100, 'drainWithClock step')
  const advance = typeof clock === 'function' ? clock : () => clock.clock.advance(step)
  const maxSteps = options.maxSteps ?? 100_000
  const reader = res.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let done = false
  let failure: unknown
  const read = (async () => {
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value, { stream: true })
      text += decoder.decode()
    } catch (error) {
      failure = error
    }
    done = true
  })()
  for (let i = 0; !done; i++) {
    if (i >= maxSteps) {
      await reader.cancel().catch(() => {})
      throw new Error(`drainWithClock: the body did not end after ${maxSteps} steps of the clock; read so far:\n${text.slice(-2000)}`)
    }
    await advance()
    await new Promise<void>((resolve) => hostSetImmediate(resolve))
  }
  await read
  if (failure !== undefined) throw failure
  return text
}
