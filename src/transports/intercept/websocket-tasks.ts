// The in-process WebSocket's tasks (see websocket.ts): when what the "network" does reaches the client. A module of
// its own, below the WebSocket class: the class hands it the socket a frame is for (`Target`) and how a frame is
// received (setReceiver), so the queue names no type of the class.
import type * as WorkerThreads from 'node:worker_threads'
import { globalTimers } from '../../runtime/global-timers'
import { hostTimers } from '../../runtime/host-timers'

/** A socket a task is for: opaque here. */
export type Target = object

/** How a text frame (a string job) is received by its socket: the WebSocket class's `receive`. */
let receiver: (target: Target, text: string) => void = () => {}
export const setReceiver = (receive: (target: never, text: string) => void) => void (receiver = receive as (target: Target, text: string) => void)

const workerThreads = process.getBuiltinModule('node:worker_threads') as typeof WorkerThreads

// ---------------------------------------------------------------------------------------------------------------
// Tasks. Everything the "network" does (open, each frame, closes) reaches the client in a later task, never on a
// microtask, and never on the global timers that a user's fake timers replace. Frames sent in one turn are dispatched
// in one task, in order, as Node dispatches frames that arrive in one read.
//
// The default queue is a wire: a hop (one way between client and fake) lands in the event loop's next poll phase,
// where a socket's data lands (a MessageChannel: its message is I/O, as a read is). So a frame the fake sends while
// the client runs in an I/O callback (an event of this socket, say) comes after the client's own setImmediate queued
// in that turn (the check phase comes first), and one sent from a setImmediate or a timer callback comes before it
// (the next poll phase comes first), as over a socket to 127.0.0.1. A hop sent while a delivery is being read (or in
// its microtasks) lands in the next poll phase, as a reply over a socket does: Node reads a MessagePort's messages
// posted meanwhile in the same go, so such hops are held until the check phase. Each step takes the hops it takes on
// Node against the real server on 127.0.0.1 (WIRE_HOPS, measured there). A connection's end (the `close` event) lands
// in the close phase before its last hop's poll phase, where a socket's close callback runs (see atClosePhase).
// ---------------------------------------------------------------------------------------------------------------

export type Job = (() => void) | string

/** How many hops each step takes before the client sees it. */
export interface Hops {
  /** From the constructor to `open`. */
  open: number
  /** From the constructor to `error` and `close` of a refused handshake. */
  refused: number
  /** From the fake's close frame to `close` (the frame itself, CLOSING, takes one). */
  serverClosed: number
  /** From `close()` to `close` (the fake reads the frame after one). */
  clientClosed: number
  /** From `close()` to `close` when the fake's own close frame crossed the client's (it ends the connection on reading it). */
  crossedClosed: number
  /** From a drop (no close frame) to `error` and `close` 1006. */
  dropped: number
  /**
   * From the fake's close frame to `close` when the fake closed on a frame it would not read (1009): the real server
   * ends the connection with its close frame then, without waiting for the client's echo.
   */
  unreadClosed: number
}

/** One task queue: frames and state changes of its sockets, dispatched in order, one task per hop. */
export interface TaskQueue {
  targets: (Target | undefined)[]
  jobs: Job[]
  scheduled: boolean
  readonly schedule: () => void
  readonly hops: Hops
  /** A wire (the default queue): `bufferedAmount` drains on the next tick, as Node's socket takes a frame. */
  readonly wire: boolean
}

/** Node 24 against the real server on 127.0.0.1: the first poll phase where each step is seen (test/ways-in/intercept/websocket/parity-closes-order-and-names.test.ts). */
export const WIRE_HOPS: Hops = { open: 3, refused: 3, serverClosed: 4, clientClosed: 4, crossedClosed: 3, dropped: 2, unreadClosed: 3 }

/** The default: a wire (see above). */
export const REAL_TASKS: TaskQueue = { targets: [], jobs: [], scheduled: false, schedule: () => wireSend(), hops: WIRE_HOPS, wire: true }

/**
 * For a fake that follows the global timers (`followGlobalTimers()`): its user asked one clock to drive both the client
 * and the fake, so its sockets' tasks run on the global (possibly faked) setImmediate, one per step (two for a close
 * from the fake: CLOSING, then CLOSED), and `vi.advanceTimersByTime` delivers them in step with the client's own timers.
 */
export const FOLLOWED_TASKS: TaskQueue = {
  targets: [],
  jobs: [],
  scheduled: false,
  schedule: () => void globalTimers.immediate(() => flush(FOLLOWED_TASKS)),
  hops: { open: 1, refused: 1, serverClosed: 2, clientClosed: 1, crossedClosed: 1, dropped: 1, unreadClosed: 2 },
  wire: false,
}

let wire: WorkerThreads.MessageChannel | undefined
/**
 * A delivery ran in this poll phase and the check phase after it has not come yet: what is sent now is read in the
 * next poll phase, and a step's hops can be counted from here (see {@link later}).
 */
let reading = false
/** A hop was sent while `reading`: it goes out in the check phase. */
let held = false
/** Steps due some poll phases ahead, each with the check phases left before it goes out on the wire. */
let waiting: { target: Target; job: () => void; skip: number }[] = []
/** {@link atCheck} is queued (at most once: it runs once per check phase while it has work). */
let checking = false

function wireSend() {
  if (reading) return void (held = true)
  if (!wire) {
    wire = new workerThreads.MessageChannel()
    wire.port2.on('message', wireRead)
  }
  // Ref'd while a hop is under way, as a socket with data to read keeps the process alive; unref'd when idle.
  wire.port2.ref()
  wire.port1.postMessage(null)
}

function wireRead() {
  wire!.port2.unref()
  reading = true
  if (!checking) {
    checking = true
    hostTimers.immediate(atCheck)
  }
  flush(REAL_TASKS)
}

/**
 * The check phase after a delivery (and each one while steps wait): the hops sent meanwhile go out, steps with no
 * check phase left go out with them (to the next poll phase), the others wait one more.
 */
function atCheck() {
  checking = false
  reading = false
  if (waiting.length > 0) {
    const left: typeof waiting = []
    for (const w of waiting) {
      if (w.skip === 0) enqueue(REAL_TASKS, w.target, w.job)
      else {
        w.skip--
        left.push(w)
      }
    }
    waiting = left
    if (left.length > 0) {
      checking = true
      hostTimers.immediate(atCheck)
    }
  }
  if (held) {
    held = false
    wireSend()
  }
}

/** Connection ends waiting for the close phase (see {@link atClosePhase}). */
let ends: (() => void)[] = []

/**
 * Runs `end` in the event loop's close phase (after the check phase), where a handle's close callback runs: a
 * MessagePort's own 'close' event is one. One port per phase, for every end due in it, in order.
 */
export function atClosePhase(end: () => void) {
  ends.push(end)
  if (ends.length > 1) return
  const { port1 } = new workerThreads.MessageChannel()
  port1.once('close', () => {
    const due = ends
    ends = []
    for (let i = 0; i < due.length; i++) {
      try {
        due[i]()
      } catch (error) {
        // As in flush: listener errors never get here; anything else must not stop the others.
        for (let k = i + 1; k < due.length; k++) atClosePhase(due[k])
        throw error
      }
    }
  })
  port1.close()
}

/** How many host turns {@link wireSettled} waits at most: a wire busy longer than this is left to run on. */
const SETTLE_TURNS_MAX = 64

/**
 * Resolves once no step of an in-process socket is on its way on the wire (queued, waiting its hops, or due in a
 * close phase), at most {@link SETTLE_TURNS_MAX} host turns: the clock awaits it before it moves, so a close the fake
 * sent (a restart's 1001, four hops) reaches the client at the clock time it was sent, as on a real port.
 */
export async function wireSettled(): Promise<void> {
  const busy = () => REAL_TASKS.jobs.length > 0 || REAL_TASKS.scheduled || waiting.length > 0 || ends.length > 0 || checking || held
  for (let turn = 0; turn < SETTLE_TURNS_MAX && busy(); turn++) await new Promise<void>((resolve) => hostTimers.immediate(resolve))
}

export function enqueue(queue: TaskQueue, target: Target | undefined, job: Job) {
  queue.targets.push(target)
  queue.jobs.push(job)
  if (!queue.scheduled) {
    queue.scheduled = true
    queue.schedule()
  }
}

/**
 * Runs `job` `hops` hops from now (0: at once). From an unknown phase a step's first hop goes on the wire (it lands in
 * the next poll phase whatever phase it is sent in). While `reading` (in a delivery's poll phase, or in its check
 * phase before {@link atCheck}), the next check phase is known to be the one `atCheck` runs in: the hops are counted
 * there, one check phase each (each followed by a poll phase), and only the last goes on the wire. The same poll
 * phase, fewer messages.
 */
export function later(queue: TaskQueue, target: Target, hops: number, job: () => void) {
  if (hops <= 0) job()
  else if (hops === 1) enqueue(queue, target, job)
  else if (queue === REAL_TASKS && reading) waiting.push({ target, job, skip: hops - 1 })
  else enqueue(queue, target, () => later(queue, target, hops - 1, job))
}

export function flush(queue: TaskQueue) {
  queue.scheduled = false
  const t = queue.targets
  const j = queue.jobs
  queue.targets = []
  queue.jobs = []
  for (let i = 0; i < j.length; i++) {
    const job = j[i]
    try {
      if (typeof job === 'string') receiver(t[i]!, job)
      else job()
    } catch (error) {
      // Listener errors never get here (EventTarget reports them itself); anything else must not stop the others.
      for (let k = i + 1; k < j.length; k++) enqueue(queue, t[k], j[k])
      throw error
    }
  }
}
