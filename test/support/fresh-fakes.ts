import { afterEach } from 'vitest'
import { createDockside, type Dockside } from '../../src/index'

/**
 * A `fresh(options)` that makes a fake with seed 42 (options over it) and closes every fake it made after each test.
 * Call once at the top of a test file.
 */
export function freshFakes(): (options?: Parameters<typeof createDockside>[0]) => Dockside {
  const fakes: Dockside[] = []
  afterEach(async () => {
    for (const f of fakes.splice(0)) await f.close()
  })
  return (options = {}) => {
    const fake = createDockside({ seed: 42, ...options })
    fakes.push(fake)
    return fake
  }
}

/** The messages of one chunk of the admin live feed (`event: name` / `data: json` pairs). */
export const parseLiveChunk = (chunk: string): { event: string; data: any }[] =>
  chunk
    .trim()
    .split('\n\n')
    .map((m) => {
      const [event, data] = m.split('\n')
      return { event: event.replace(/^event: /, ''), data: JSON.parse(data.replace(/^data: /, '')) }
    })
