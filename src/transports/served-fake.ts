import type { Protocol } from '../protocol/router'
import type { Clock } from '../time/clock'

/**
 * What a way in needs of the fake it serves: its protocol, its seed (to name it in a message) and its clock's timers.
 * A fake from createDockside() is one; a transport never imports the facade, so the facade may import transports.
 */
export interface ServedFake {
  readonly protocol: Protocol
  readonly seed: number
  readonly clock: Pick<Clock, 'host'>
}
