import { toMs, type Duration } from './duration'
import { MAX_CLOCK_SPEED, MAX_TIME, shown, SPEED_RANGE, START_RANGE } from './clock-options'

/** How the fake's clock moves. */
export type ClockMode = 'virtual' | 'auto' | 'real'

/**
 * Host timers, injected so the core never touches global timers.
 * The runtime passes references captured at import, so a user's fake timers cannot stall the fake.
 */
export interface HostTimers {
  /** Milliseconds from a monotonic host source. */
  now(): number
  /** Runs `fn` after `ms` of host time. */
  after(ms: number, fn: () => void): unknown
  cancel(handle: unknown): void
  /** Runs `fn` once pending I/O callbacks have run (node's `setImmediate`). */
  immediate(fn: () => void): unknown
  /**
   * The wall-clock epoch milliseconds at which `now()` read 0, when `now()` runs with the wall clock: `now() +
   * wallOrigin` is the wall time. A `real` clock without a `start` starts there (the same reading as its host base).
   */
  readonly wallOrigin?: number
}

export interface ClockOptions {
  /** @default 'virtual' */
  mode?: ClockMode
  /**
   * Epoch milliseconds or an ISO date the clock starts at: a date a JavaScript Date holds (see {@link clockProblem}).
   * @default Date.UTC(2026, 0, 1) (the wall time for `real`)
   */
  start?: number | string
  /** Speed factor for `real` mode: clock ms per wall ms, above 0 and at most 1000000. @default 1 */
  speed?: number
  /**
   * How many timers scheduled during one `runAll()` (or at one instant of an `advance()`) may fire before it fails
   * loudly: work that reschedules itself with no delay. Timers already pending when the call began do not count.
   * The `auto` and `real` clocks, which fire from host callbacks and so cannot throw, stop such a chain instead
   * (see `onLoop`). @default 10000
   */
  loopLimit?: number
  /** Host timers for `real` and `auto` modes. */
  host?: HostTimers
  /**
   * Called once when the `auto` or `real` clock stops a chain of timers that scheduled one another with no delay,
   * after `loopLimit` of them fired: `at` is the clock time the chain began at, `fired` how many fired. The timers
   * of the chain still due are dropped, so the chain ends; other timers and the host's I/O carry on.
   */
  onLoop?: (loop: ClockLoop) => void
  /**
   * Awaited by `advance()`, `next()` and `runAll()` after pending host I/O ran and before any timer fires: the fake's
   * servers let requests already on their way in arrive (a fresh connection, a body still coming), so they are seen at
   * the clock time they were sent, not after the clock moved.
   */
  settle?: () => Promise<void>
}

/** A chain of zero-delay timers the host-driven clock stopped (see {@link ClockOptions.onLoop}). */
export interface ClockLoop {
  /** Clock time (epoch ms) of the timer that began the chain. */
  at: number
  /** Timers of the chain that fired before it was stopped. */
  fired: number
}

/** Options of {@link Clock.advanceUntil}. */
export interface AdvanceUntilOptions {
  /** Clock time to advance by between two looks at the promise. @default '100ms' */
  step?: Duration
  /** Give up (throw) after this many steps with the promise still pending. @default 100000 */
  maxSteps?: number
}

export interface TimerHandle {
  cancel(): void
}

/**
 * A timer's kind. `wait` timers are waits someone is blocked on (push pacing, latency): the `auto`
 * clock skips straight to them. `background` timers (maximum age, timelines) run at the clock's pace.
 */
export type TimerKind = 'wait' | 'background'

/**
 * A scheduled callback, and its own handle: `cancel()` is a method (a thousand open sockets with a maximum-age timer
 * each keep a thousand of these, not a closure and its scope each). Cancelling only marks it: the queue drops it when
 * it reaches the head, or compacts once cancelled timers are most of it, so a cancel costs O(1), not a scan of every
 * pending timer (each closing socket cancels its maximum-age timer).
 */
class Timer implements TimerHandle {
  cancelled = false
  /** In the queue (not yet fired, dropped or compacted away). */
  queued = false
  /** Set on a timer scheduled with no delay while another fired: the chain both belong to. */
  chain?: Chain = undefined
  constructor(
    readonly at: number,
    readonly seq: number,
    readonly kind: TimerKind,
    readonly fn: () => void,
    private readonly owner: { cancel(t: Timer): void },
  ) {}
  cancel() {
    this.owner.cancel(this)
  }
}

/** Timers that scheduled one another with no delay, counted for the host-driven clock's loop limit. */
interface Chain {
  at: number
  fired: number
  stopped: boolean
}

/** The clock every delay in dockside goes through. */
export interface Clock {
  readonly mode: ClockMode
  /** The host timers the clock runs on (undefined for the virtual clock without any). */
  readonly host: HostTimers | undefined
  /** Current time in epoch milliseconds (may be fractional). */
  now(): number
  /** Milliseconds since the clock started. */
  elapsed(): number
  /** Epoch milliseconds the clock started at. */
  readonly startedAt: number
  /** Runs `fn` after `delay` of clock time. */
  schedule(delay: Duration, fn: () => void, kind?: TimerKind): TimerHandle
  /**
   * Runs `fn` at `elapsedMs` of clock time since the start (at once if that has passed). Timers due at one time run in
   * the order they were scheduled: unlike `schedule(due - elapsed())`, no wall time read in between shifts one of them
   * (under the `real` and `auto` clocks each read moves on by microseconds).
   */
  scheduleAt(elapsedMs: number, fn: () => void, kind?: TimerKind): TimerHandle
  /** Resolves after `delay` of clock time; resolves early (with `false`) when `signal` aborts or the clock is disposed. */
  sleep(delay: Duration, signal?: AbortSignal, kind?: TimerKind): Promise<boolean>
  /**
   * A wait of `delay` ms that needs no waiting: true when the `auto` clock, skipping from wait to wait within one host
   * turn, would skip straight to its end (the caller is the only one it woke, and no timer is due before that end),
   * and then time has moved there. False otherwise, and nothing happened: the caller sleeps. A paced stream (a push)
   * calls it for each tick, so the ticks of one turn cost no promise round trip each and go out as one chunk.
   */
  skipWait(delay: number, signal?: AbortSignal): boolean
  /** Aborts when the clock is disposed (the fake was reset or closed): streams that wait on events end then. */
  readonly lifetime: AbortSignal
  /**
   * Moves time forward by `delay` (at most 100 years), firing due timers in order (virtual and auto modes).
   * With host timers it first lets pending host I/O run (a client that left is seen leaving before any timer
   * fires), and it yields to the host loop every ~10 ms of timer work, so other clients are served meanwhile.
   * Calls that overlap (and `runAll()`, `next()`) run one after another, each by its full amount.
   */
  advance(delay: Duration): Promise<void>
  /**
   * Fires timers until none is left (or the loop limit is hit); settles and yields like `advance()`. Timers past the
   * last date a JavaScript Date holds (+275760-09-13) never fire, here or in `next()`.
   */
  runAll(): Promise<void>
  /** Fires the next timer, moving time to it; returns false when none is pending. Lets pending host I/O run first. */
  next(): Promise<boolean>
  /**
   * Advances the clock by `step` at a time until `promise` settles, and answers what it settles with (or throws what it
   * rejects with): the wait every test of a client that sleeps on the clock writes by hand (a retry after
   * `Retry-After`, a backoff, a push paced by the clock). Between steps it lets the host's I/O run, so an answer on a
   * socket is read before time moves on. Throws after `maxSteps` steps, saying where the clock stopped.
   * @example
   * const status = await fake.clock.advanceUntil(client.pushWithRetries('app:1.0'), { step: '1s' })
   */
  advanceUntil<T>(promise: PromiseLike<T>, options?: AdvanceUntilOptions): Promise<T>
  /** Number of pending timers. */
  readonly pending: number
  /** The `real` clock's speed factor (1 elsewhere). */
  readonly speed: number
  /** Whether the clock is paused (see {@link Clock.pause}). */
  readonly paused: boolean
  /**
   * Freezes time: the `real` and `auto` clocks stop following the host's time and fire nothing until `resume()`.
   * An `advance()` (or `runAll()`) during which a timer pauses the clock stops at that timer's time; one started while
   * paused moves time as asked (a presenter stepping a paused demo). Idempotent.
   */
  pause(): void
  /** Lets time flow again from where it was paused. Idempotent. */
  resume(): void
  /** Changes the `real` clock's speed factor from now on (time so far is kept). Throws for other modes or a speed not above 0. */
  setSpeed(speed: number): void
  /** Stops host timers; pending timers never fire. */
  dispose(): void
}

const DEFAULT_START = Date.UTC(2026, 0, 1)

/** Lets promise continuations (streams awaiting a sleep) run before the next timer fires. */
const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve()
}

/** Wall time of timer work after which the clock gives the host loop a turn (I/O, other clients). */
const SLICE_MS = 10

/**
 * Promise hops an auto clock's burst waits for the work a wait woke to schedule its next wait (a push takes a few,
 * through the server or in process: the sleep resolves, the generator builds its chunk, the route's and the
 * transport's loops take it and ask for the next).
 */
const BURST_HOPS = 16

/** Why a clock's `lifetime` ended. */
const DISPOSED = new Error('the clock was disposed: the fake was reset or closed')

export { clockProblem, MAX_CLOCK_SPEED, speedWithout } from './clock-options'

/** Creates a clock. See docs/api.md#clock. */
export function createClock(options: ClockOptions = {}): Clock {
  const mode = options.mode ?? 'virtual'
  if (!['virtual', 'auto', 'real'].includes(mode)) {
    throw new RangeError(`Invalid clock mode "${mode}": expected "virtual", "auto" or "real".`)
  }
  let speed = options.speed ?? 1
  // The same bounds as clockProblem, with which the fakes check the user's values first (naming the field).
  if (!(speed > 0 && speed <= MAX_CLOCK_SPEED)) throw new RangeError(`Invalid clock speed ${speed}: expected ${SPEED_RANGE}.`)
  const loopLimit = options.loopLimit ?? 10_000
  const host = options.host
  if (mode !== 'virtual' && !host) throw new Error(`The "${mode}" clock needs host timers.`)
  // A real clock without a start starts at the wall time of this moment, the very reading of its host base: its times
  // are the wall clock's, not behind it by however long the fake took to build before the clock.
  const hostBase = host ? host.now() : 0
  const startedAt =
    typeof options.start === 'string'
      ? Date.parse(options.start)
      : (options.start ?? (mode === 'real' && host?.wallOrigin !== undefined ? host.wallOrigin + hostBase : DEFAULT_START))
  if (!(Math.abs(startedAt) <= MAX_TIME)) throw new RangeError(`Invalid clock start ${shown(options.start)}: expected ${START_RANGE}.`)

  const queue: Timer[] = []
  let seq = 0
  let current = startedAt
  let skipped = 0
  let hostHandle: unknown
  let hostDue = Infinity
  let immediatePending = false
  /** An auto clock's burst is running: it arms the host when it ends (see `burst`). */
  let bursting = false
  /** Wait timers scheduled, and taken from the queue to fire, so far: a burst goes on once what it woke scheduled its next. */
  let waitsScheduled = 0
  let waitsDue = 0
  /** The running burst: when it started (host time), how many waits its last jump fired, and waits skipped by `skipWait`. */
  let burstStarted = 0
  let burstWoken = 0
  let fastSkips = 0
  let disposed = false
  let waits = 0
  const sleepers = new Set<() => void>()
  /** Sleepers by the signal they end on (see `sleep`). */
  const sleepersOn = new WeakMap<AbortSignal, Set<() => void>>()
  /**
   * Made when something first asks for `lifetime`: aborting a signal builds and dispatches an Event even when nothing
   * listens (3% of a test's cost in process, where most fakes never stream). Asked for after dispose, an aborted one.
   */
  let lifetime: AbortController | undefined
  let paused = false
  /** Bumped by every pause: an advance that sees it change stops where the pause happened. */
  let pauses = 0

  const wallDerived = () => startedAt + (host!.now() - hostBase) * (mode === 'real' ? speed : 1) + skipped

  /** After a jump (advance, next, auto skip), moves the wall-derived time up to `target` so time keeps flowing from there. */
  const alignWall = (target: number) => {
    if (mode === 'virtual' || disposed) return
    const w = wallDerived()
    if (target > w) skipped += target - w
  }

  const syncNow = () => {
    if (mode !== 'virtual' && !disposed && !paused) {
      // Never past the last date a Date holds (a fast real clock left running for months): every time is shown as one.
      const w = Math.min(wallDerived(), MAX_TIME)
      if (w > current) current = w
    }
    return current
  }

  const insert = (t: Timer) => {
    // Binary insertion keeps the queue ordered by (at, seq).
    let lo = 0
    let hi = queue.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      const q = queue[mid]
      if (q.at < t.at || (q.at === t.at && q.seq < t.seq)) lo = mid + 1
      else hi = mid
    }
    queue.splice(lo, 0, t)
    t.queued = true
  }
  /** Cancelled timers still in the queue. */
  let cancelledQueued = 0
  /** Drops cancelled timers from the head of the queue. */
  const dropCancelledHead = () => {
    while (queue.length && queue[0].cancelled) {
      queue.shift()!.queued = false
      cancelledQueued--
    }
  }
  const owner = {
    cancel(t: Timer) {
      if (t.cancelled) return
      t.cancelled = true
      if (!t.queued) return
      if (t.kind === 'wait') waits--
      // Compacted once cancelled timers are most of the queue: O(1) per cancel, amortised.
      if (++cancelledQueued > 64 && cancelledQueued * 2 > queue.length) {
        let k = 0
        for (const x of queue) {
          if (x.cancelled) x.queued = false
          else queue[k++] = x
        }
        queue.length = k
        cancelledQueued = 0
      }
    },
  }

  const popDue = (limit: number): Timer | undefined => {
    dropCancelledHead()
    if (queue.length && queue[0].at <= limit) {
      const t = queue.shift()!
      t.queued = false
      if (t.kind === 'wait') {
        waits--
        waitsDue++
      }
      return t
    }
    return undefined
  }

  /** The timer whose callback is running: what it schedules with no delay joins its chain. */
  let firing: Timer | undefined
  const fire = (t: Timer) => {
    if (t.at > current) current = t.at
    const outer = firing
    firing = t
    try {
      t.fn()
    } finally {
      firing = outer
    }
  }

  /**
   * Host-driven modes: whether `t` may fire. A chain of timers that schedule one another with no delay stops after
   * `loopLimit` of them: its next timer is dropped (so nothing reschedules it) and `onLoop` is told once.
   */
  const chainAllows = (t: Timer): boolean => {
    const c = t.chain
    if (!c) return true
    if (c.fired < loopLimit) {
      c.fired++
      return true
    }
    if (!c.stopped) {
      c.stopped = true
      options.onLoop?.({ at: c.at, fired: c.fired })
    }
    return false
  }

  /**
   * Fires what is due up to `target` from a host callback (host-driven modes), for at most {@link SLICE_MS} of wall
   * time: returns false when it stopped with work left, and the caller continues on the next host turn. It never
   * throws for the number of timers (a host callback that throws would end the process): thousands of timers due at
   * once run in slices while the host keeps serving, and work that reschedules itself with no delay is stopped after
   * `loopLimit` timers and reported through `onLoop`.
   */
  const fireDueSync = (target: number): boolean => {
    const started = host!.now()
    for (let t = popDue(target); t; t = popDue(target)) {
      if (chainAllows(t)) fire(t)
      if (host!.now() - started >= SLICE_MS) return false
    }
    return true
  }

  const armHost = () => {
    if (bursting) return
    if (mode === 'virtual' || disposed || !host || paused) return
    dropCancelledHead()
    const head = queue[0]
    if (mode === 'auto' && waits > 0 && !immediatePending) {
      immediatePending = true
      host.immediate(autoSkip)
    }
    if (!head) return
    if (head.at === hostDue && hostHandle !== undefined) return
    if (hostHandle !== undefined) host.cancel(hostHandle)
    hostDue = head.at
    const wallDelay = Math.max(0, (head.at - syncNow()) / (mode === 'real' ? speed : 1))
    hostHandle = host.after(Math.min(wallDelay, 2 ** 31 - 1), onHost)
  }

  let continuing = false
  const onHost = () => {
    hostHandle = undefined
    hostDue = Infinity
    if (disposed) return
    if (!fireDueSync(syncNow())) {
      // More is due: carry on after the host's pending I/O.
      if (!continuing) {
        continuing = true
        host!.immediate(() => {
          continuing = false
          onHost()
        })
      }
      return
    }
    armHost()
  }

  /** Jumps to the next wait, firing the timers due up to it, each at its own time; false when it stopped with work left. */
  const skipToNextWait = (): boolean | undefined => {
    const now = syncNow()
    let target = Infinity
    for (const t of queue) if (!t.cancelled && t.kind === 'wait') { target = t.at; break }
    if (target === Infinity) return undefined
    if (!fireDueSync(Math.max(now, target))) return false
    alignWall(target)
    if (target > current) current = target
    return true
  }

  // auto mode: while someone waits on a timer and the host loop is idle, jump to the next wait.
  const autoSkip = () => {
    immediatePending = false
    if (disposed || waits === 0) return
    void burst()
  }

  /**
   * One idle host turn of the auto clock: jump to the next wait, and as long as what that wait woke schedules its next
   * wait within a few promise hops (a push building its next chunk, the transport taking it and asking for more), jump
   * again in the same turn, for up to {@link SLICE_MS} of wall time. What is due in one turn is thus written together:
   * a push's pacing ticks are not one host turn (and one write) each. I/O runs between bursts; one that ends because
   * nothing scheduled a wait in time (a client still reading) hands back to the host, and the next wait is skipped to
   * from the next idle turn, as before.
   */
  const burst = async () => {
    const started = (burstStarted = host!.now())
    bursting = true
    let sliced = false
    try {
      // A timer that pauses the clock (a scenario step with `pause`) ends the burst: time stays where it paused.
      while (!disposed && !paused) {
        const dueBefore = waitsDue
        const skipped = skipToNextWait()
        if (skipped === false) sliced = true
        if (!skipped || host!.now() - started >= SLICE_MS) break
        // Each wait fired woke someone: give them all the hops to schedule their next wait before jumping again. One
        // that skips its waits synchronously meanwhile (skipWait) is making progress: it gets its hops again.
        const woken = (burstWoken = waitsDue - dueBefore)
        const before = waitsScheduled
        let skips = fastSkips
        for (let hop = 0; hop < BURST_HOPS && waitsScheduled - before < woken && !disposed; hop++) {
          await Promise.resolve()
          if (fastSkips !== skips) {
            skips = fastSkips
            hop = 0
          }
        }
        if (waitsScheduled === before) break
      }
    } finally {
      bursting = false
    }
    if (sliced && !disposed && !paused) {
      // More was due than one slice may fire: carry on after the host's pending I/O.
      immediatePending = true
      host!.immediate(autoSkip)
    } else armHost()
  }

  const hostTurn = () => new Promise<void>((resolve) => host!.immediate(resolve))

  /**
   * Before an advance fires anything: promise continuations, then two host turns, so I/O that reached the process
   * before the call (a client's FIN or RST, an abort) is handled first. Without host timers, continuations only.
   */
  const settle = async () => {
    await flush()
    if (!host) return
    await hostTurn()
    await hostTurn()
    if (options.settle) {
      await options.settle()
      await flush()
    }
  }

  /** Between two timers of one call: continuations always, and a host turn after every ~10 ms of work. */
  const slicer = () => {
    if (!host) return flush
    let since = host.now()
    return async () => {
      await flush()
      if (host.now() - since >= SLICE_MS) {
        await hostTurn()
        since = host.now()
      }
    }
  }

  /**
   * Nothing is due: before an advance ends, gives the work its timers woke (a stream writing to its reader, waiting
   * for a drain) continuations and up to two host turns to schedule what comes next, then looks again.
   * A 1 GB push advanced in one call thus runs to its end instead of stopping at the first write that waits.
   */
  const quiet = async (limit: number): Promise<Timer | undefined> => {
    await flush()
    let t = popDue(limit)
    for (let turn = 0; !t && host && turn < 2; turn++) {
      await hostTurn()
      t = popDue(limit)
    }
    return t
  }

  /**
   * The end of the advance, runAll or next running now (undefined when none is). Calls that overlap (three concurrent
   * `POST /_dockside/clock/advance`, or `Promise.all` of `advance()` calls) run one after another: each moves time by its
   * full amount from where the one before it stopped. Run together, they all took their target from the same moment
   * and three advances of 1d moved the clock 1d.
   */
  let moving: Promise<void> | undefined
  const oneAtATime = <T>(run: () => Promise<T>): Promise<T> => {
    // Not overlapping (the usual case): it starts at once, as it always did.
    const result = moving ? moving.then(run) : run()
    const done = result.then(
      () => undefined,
      () => undefined,
    )
    moving = done
    void done.then(() => {
      if (moving === done) moving = undefined
    })
    return result
  }

  /** An advance by `ms` (checked), once no other advance, runAll or next is running. */
  const advanceBy = async (ms: number, delay: Duration): Promise<void> => {
    await settle()
    const from = syncNow()
    const target = from + ms
    if (!(target <= MAX_TIME)) throw new RangeError(`Cannot advance the clock by ${ms} ms from ${new Date(from).toISOString()}: it would pass +275760-09-13, the latest date JavaScript can hold.`)
    // Only timers scheduled during this advance count towards the loop limit: those pending before it are bounded.
    const firstNew = seq
    let fired = 0
    let total = 0
    let at = current
    const slice = slicer()
    const pausesBefore = pauses
    for (let t = popDue(target) ?? (await quiet(target)); t; t = popDue(target) ?? (await quiet(target))) {
      // The limit counts timers fired at one instant: a long advance over a repeating timeline is fine,
      // work that reschedules itself with no delay is not.
      if (t.at > at) {
        at = t.at
        fired = 0
      }
      fire(t)
      if (t.seq >= firstNew && ++fired > loopLimit) throw new RangeError(`More than ${loopLimit} timers fired during advance() at one instant: likely an endless loop of work that reschedules itself with no delay. The clock stopped at ${new Date(current).toISOString()}.`)
      if (++total > loopLimit * 100) throw new RangeError(`advance(${JSON.stringify(delay)}) fired more than ${loopLimit * 100} timers (clock.loopLimit x 100); the clock stopped at ${new Date(current).toISOString()}. Advance in smaller steps.`)
      // A timer paused the clock (a scenario step with `pause`): time stays at that step until resumed.
      if (pauses !== pausesBefore) return
      await slice()
    }
    alignWall(target)
    if (target > current) current = target
    armHost()
  }

  const runAll = async (): Promise<void> => {
    const firstNew = seq
    let fired = 0
    await settle()
    const slice = slicer()
    const pausesBefore = pauses
    // Timers past the last date a Date holds never fire: the clock never reaches a time it cannot show.
    for (let t = popDue(MAX_TIME) ?? (await quiet(MAX_TIME)); t; t = popDue(MAX_TIME) ?? (await quiet(MAX_TIME))) {
      syncNow()
      fire(t)
      alignWall(t.at)
      if (t.seq >= firstNew && ++fired > loopLimit) throw new Error(`More than ${loopLimit} timers fired during runAll(): likely an endless loop (a repeating timeline or restart loop). Use advance() instead.`)
      if (pauses !== pausesBefore) return
      await slice()
      armHost()
    }
  }

  const next = async (): Promise<boolean> => {
    await settle()
    const t = popDue(MAX_TIME)
    if (!t) return false
    syncNow()
    fire(t)
    alignWall(t.at)
    await flush()
    armHost()
    return true
  }

  /** A timer due at `at` (epoch ms, not before now); one due now from a timer that is firing joins its chain. */
  const addTimer = (at: number, fn: () => void, kind: TimerKind): TimerHandle => {
    const t = new Timer(at, seq++, kind, fn, owner)
    if (at === current && firing) t.chain = firing.chain ??= { at: firing.at, fired: 0, stopped: false }
    if (kind === 'wait') {
      waits++
      waitsScheduled++
    }
    insert(t)
    armHost()
    return t
  }

  const clock: Clock = {
    mode,
    get lifetime() {
      if (lifetime === undefined) {
        lifetime = new AbortController()
        if (disposed) lifetime.abort(DISPOSED)
      }
      return lifetime.signal
    },
    startedAt,
    now: syncNow,
    elapsed: () => syncNow() - startedAt,
    get pending() {
      let n = 0
      for (const t of queue) if (!t.cancelled) n++
      return n
    },
    schedule(delay, fn, kind = 'background') {
      // A finite number of milliseconds is taken as is (a far `until` may be more than the 100 years a user may type).
      const ms = typeof delay === 'number' && delay >= 0 && delay < Infinity ? delay : toMs(delay)
      return addTimer(syncNow() + ms, fn, kind)
    },
    scheduleAt(elapsedMs, fn, kind = 'background') {
      return addTimer(Math.max(syncNow(), startedAt + elapsedMs), fn, kind)
    },
    sleep(delay, signal, kind = 'wait') {
      return new Promise<boolean>((resolve) => {
        if (signal?.aborted || disposed) return resolve(false)
        // The sleepers of one signal share one listener on it (a push sleeps once per 100 ms tick on its request's
        // signal: adding and removing a listener each time cost more than the tick's own work).
        let mine: Set<() => void> | undefined
        if (signal) {
          mine = sleepersOn.get(signal)
          if (!mine) {
            const set = (mine = new Set())
            sleepersOn.set(signal, set)
            signal.addEventListener('abort', () => {
              for (const wake of set) wake() // each wake removes only itself: safe while iterating
            }, { once: true })
          }
        }
        const onAbort = () => {
          handle.cancel()
          sleepers.delete(onAbort)
          mine?.delete(onAbort)
          resolve(false)
        }
        const handle = clock.schedule(delay, () => {
          mine?.delete(onAbort)
          sleepers.delete(onAbort)
          resolve(true)
        }, kind)
        sleepers.add(onAbort)
        mine?.add(onAbort)
      })
    },
    skipWait(delay, signal) {
      if (!bursting || paused || burstWoken !== 1 || disposed || signal?.aborted || host!.now() - burstStarted >= SLICE_MS) return false
      const target = syncNow() + delay
      // Nothing may be due on the way: another's wait is not jumped over, and no timer fires from inside the caller.
      dropCancelledHead()
      if (queue.length && queue[0].at <= target) return false
      alignWall(target)
      if (target > current) current = target
      fastSkips++
      return true
    },
    async advance(delay) {
      // Checked at the call, before it waits its turn: a bad duration is refused at once and moves nothing.
      const ms = toMs(delay, 'clock advance')
      return oneAtATime(() => advanceBy(ms, delay))
    },
    runAll: () => oneAtATime(runAll),
    next: () => oneAtATime(next),
    async advanceUntil(promise, until = {}) {
      const step = toMs(until.step ?? 100, 'clock.advanceUntil step')
      const maxSteps = until.maxSteps ?? 100_000
      if (!(Number.isInteger(maxSteps) && maxSteps >= 0)) throw new RangeError(`Invalid clock.advanceUntil maxSteps ${String(maxSteps)}: expected a whole number of steps, 0 or more.`)
      let done = false
      const outcome = Promise.resolve(promise).then(
        (value) => ((done = true), value),
        (error: unknown) => {
          done = true
          throw error
        },
      )
      // Rejections are the caller's, from the await below; none is left unhandled while the clock steps.
      outcome.catch(() => {})
      const from = syncNow()
      await flush()
      for (let i = 0; !done; i++) {
        if (i >= maxSteps) {
          throw new Error(`clock.advanceUntil: the promise was still pending after ${maxSteps} steps of ${step} ms (${syncNow() - from} ms of clock time); the clock stopped at ${new Date(current).toISOString()}. Is what it waits for on this fake's clock? Raise maxSteps or step if it needs more time.`)
        }
        await clock.advance(step)
        // What the timers woke may answer over a socket: one host turn reads it before time moves again.
        if (!done && host) await hostTurn()
      }
      return outcome
    },
    get speed() {
      return speed
    },
    get host() {
      return host
    },
    get paused() {
      return paused
    },
    pause() {
      if (paused) return
      syncNow()
      paused = true
      pauses++
      if (hostHandle !== undefined) host?.cancel(hostHandle)
      hostHandle = undefined
      hostDue = Infinity
    },
    resume() {
      if (!paused) return
      paused = false
      // Time flows on from where it stopped: the wall-derived time is moved back to it.
      if (mode !== 'virtual' && !disposed) skipped += current - wallDerived()
      armHost()
    },
    setSpeed(next) {
      if (mode !== 'real') throw new RangeError(`The ${mode} clock has no speed: only the "real" clock runs at a speed factor.`)
      if (!(next > 0 && next <= MAX_CLOCK_SPEED)) throw new RangeError(`Invalid clock speed ${next}: expected ${SPEED_RANGE}.`)
      syncNow()
      speed = next
      if (!paused && !disposed) skipped += current - wallDerived()
      if (hostHandle !== undefined) host?.cancel(hostHandle)
      hostHandle = undefined
      hostDue = Infinity
      armHost()
    },
    dispose() {
      disposed = true
      // A sleep never outlives its clock: it ends as if aborted, so streams waiting on it finish.
      for (const wake of sleepers) wake()
      // With a reason: the default one is a DOMException whose stack trace costs more than the rest of a dispose.
      lifetime?.abort(DISPOSED)
      if (hostHandle !== undefined) host?.cancel(hostHandle)
      hostHandle = undefined
      for (const t of queue) {
        t.cancelled = true
        t.queued = false
      }
      queue.length = 0
      cancelledQueued = 0
      waits = 0
    },
  }
  return clock
}
