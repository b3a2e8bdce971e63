/**
 * Two reconnecting events clients, written the way users write them. docs/chaos.md quotes this file.
 * Both keep the last event's `timeNano` and, when `resume` is on, reconnect with `since` = that + 1 ns.
 */
import WebSocket from 'ws'
import ReconnectingWebSocket from 'partysocket/ws'

export interface EventsClient {
  /** Raw frames received, in order. */
  readonly frames: string[]
  stop(): void
}

export interface ClientOptions {
  /** Base websocket URL, e.g. ws://127.0.0.1:PORT */
  url: string
  /** Sent as the `client` query parameter, so the fake knows us across reconnects. */
  id: string
  /** Resume with `since` after a reconnect (else: only live events). */
  resume: boolean
  /** `exclusive`: since = last timeNano + 1 ns (exact); `inclusive`: since = last timeNano (the last event comes twice). */
  since?: 'exclusive' | 'inclusive'
  /**
   * Awaited before each reconnect. The storyboard runner holds a client the fake has just refused until its clock
   * moves, as a client honouring Retry-After would not retry at the same instant: with real-time backoffs alone, a
   * loaded machine let a retry land before the next step, and the extra refused attempt moved `every: 2` by one.
   */
  gate?: () => Promise<void>
}

/** `timeNano` exceeds 2^53: JSON.parse would round it, so read it from the frame's text. */
const timeNanoOf = (frame: string) => BigInt(/"timeNano":(\d+)/.exec(frame)![1])
/** Docker's `since` format: seconds.nanoseconds. */
const dockerTime = (nano: bigint) => `${nano / 1_000_000_000n}.${String(nano % 1_000_000_000n).padStart(9, '0')}`

function urlFor(o: ClientOptions, last: bigint | undefined) {
  const next = last === undefined ? undefined : o.since === 'inclusive' ? last : last + 1n
  return `${o.url}/events/ws?client=${encodeURIComponent(o.id)}${o.resume && next !== undefined ? `&since=${dockerTime(next)}` : ''}`
}

/**
 * A hand-written client: `ws`, exponential backoff, resumes with `since`. It does not wait out a refusal's Retry-After
 * in real time: Retry-After counts seconds of the fake's clock, which a test on the virtual clock moves itself (its
 * `gate` holds the retry until it has). A client of yours that waits on timers can be handed the fake's
 * `clock.sleep` instead (docs/api.md).
 */
export function handwrittenClient(o: ClientOptions): EventsClient {
  const frames: string[] = []
  let last: bigint | undefined
  let stopped = false
  let failures = 0
  let ws: WebSocket | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  const retry = () => {
    if (stopped) return
    // Real-time backoff, kept tiny for tests: 1, 2, 4 ... 16 ms (a real client would use seconds).
    const backoff = Math.min(16, 2 ** failures++)
    const go = () => {
      if (!stopped) timer = setTimeout(open, backoff)
    }
    if (o.gate) void o.gate().then(go)
    else go()
  }
  const open = () => {
    if (stopped) return
    ws = new WebSocket(urlFor(o, last))
    ws.on('open', () => (failures = 0))
    ws.on('message', (data) => {
      const frame = data.toString()
      frames.push(frame)
      last = timeNanoOf(frame)
    })
    ws.on('unexpected-response', (_req, res) => {
      // A refused handshake (429/503): try again, after the gate (Retry-After is the test's to honour, see above).
      res.resume()
      ws!.terminate() // 'close' follows, and retries
    })
    ws.on('error', () => {})
    ws.on('close', (code) => {
      if (code === 4410) last = undefined // since is older than retention: start over live (and know it)
      retry()
    })
  }
  open()
  return {
    frames,
    stop() {
      stopped = true
      clearTimeout(timer)
      ws?.close(1000, 'client done')
    },
  }
}

/** A client built on partysocket's ReconnectingWebSocket, with a URL provider that adds `since`. */
export function partysocketClient(o: ClientOptions): EventsClient {
  const frames: string[] = []
  let last: bigint | undefined
  const rws = new ReconnectingWebSocket(async () => (await o.gate?.(), urlFor(o, last)), [], {
    WebSocket,
    minReconnectionDelay: 1,
    maxReconnectionDelay: 16,
    reconnectionDelayGrowFactor: 2,
    minUptime: 1,
    connectionTimeout: 2000,
  })
  rws.addEventListener('message', (e) => {
    const frame = String(e.data)
    frames.push(frame)
    last = timeNanoOf(frame)
  })
  rws.addEventListener('close', (e) => {
    if (e.code === 4410) last = undefined
  })
  rws.addEventListener('error', () => {})
  return {
    frames,
    stop: () => rws.close(1000, 'client done'),
  }
}
