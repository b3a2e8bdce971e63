// The live feed as the page reads it: GET /_dockside/live (server-sent events, read with fetch so the page sees every
// refusal's status and message), reopened with backoff, watched for silence, each state acknowledged.
import { useEffect, useRef, useState } from 'preact/hooks'
import { answerOf, refusal, type Clock, type EventLine, type Link, type State } from './shared'
import type { EventFrame } from '../service/events'

const EVENTS_KEPT = 300
/** No message for this long (the feed sends one a second) means the feed is stuck: it is reopened. */
const SILENT_MS = 5000
/** The feed's reconnects back off from 250 ms to this. */
const RETRY_MAX_MS = 5000

/** The clock as the page sees it between two snapshots: a running real or auto clock moves on with the page's time while the feed is live. */
export function useNow(clock: Clock | undefined, received: number, live: boolean): number {
  const [, tick] = useState(0)
  useEffect(() => {
    const t = setInterval(() => tick((n) => n + 1), 500)
    return () => clearInterval(t)
  }, [])
  if (!clock) return 0
  // Not live: the last reading, frozen (a page cut off from the fake must not look as if time went on there).
  if (!live || clock.mode === 'virtual' || clock.paused) return clock.nowMs
  return clock.nowMs + (performance.now() - received) * (clock.mode === 'real' ? clock.speed : 1)
}

/** Reads a server-sent-events body: each message's event name and data. */
export async function* sseMessages(res: Response): AsyncGenerator<{ event: string; data: string }> {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      buffer += decoder.decode(value, { stream: true })
      let end
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        let event = 'message'
        const data: string[] = []
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) event = line.slice(6).trim()
          else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5))
        }
        if (data.length) yield { event, data: data.join('\n') }
      }
    }
  } finally {
    reader.cancel().catch(() => {})
  }
}

const feedUrl = (filter: string) => `/_dockside/live?ack=1${filter ? `&filters=${encodeURIComponent(filter)}` : ''}`

/** The live feed: opened, reopened with backoff, watched for silence; a filter is tried before it replaces the feed. */
export function useFeed() {
  const [state, setState] = useState<State | undefined>()
  const [received, setReceived] = useState(0)
  const [events, setEvents] = useState<EventLine[]>([])
  const [filter, setFilter] = useState(new URLSearchParams(location.search).get('filters') ?? '')
  const [filterError, setFilterError] = useState('')
  const [link, setLink] = useState<Link>({ kind: 'connecting', since: performance.now() })
  const apply = useRef<(f: string) => void>(() => {})

  useEffect(() => {
    let stopped = false
    let current: AbortController | undefined
    let currentFilter = filter
    let failures = 0
    let timer: ReturnType<typeof setTimeout> | undefined
    let lastMessage = performance.now()
    let live = false

    const down = (reason: string, retryMs: number) => {
      live = false
      setLink((l) => ({ kind: 'down', reason, since: l.kind === 'live' ? performance.now() : l.since, retryAt: performance.now() + retryMs }))
      clearTimeout(timer)
      timer = setTimeout(() => void connect(), retryMs)
    }
    // 250 ms, 500 ms, 1 s, 2 s, 4 s, then every 5 s: a fake that is down is not asked every second.
    const backoff = () => Math.min(RETRY_MAX_MS, 250 * 2 ** failures++)

    /** Opens the feed for `f`: the response, or why it could not be opened (`status` when the fake answered). */
    async function open(f: string): Promise<{ res: Response; ac: AbortController } | { error: string; status?: number }> {
      const ac = new AbortController()
      try {
        const res = await fetch(feedUrl(f), { signal: ac.signal, cache: 'no-store', headers: { accept: 'text/event-stream' } })
        if (res.ok && res.body) return { res, ac }
        const { message } = await answerOf(res)
        return { error: res.status === 400 ? message : refusal(res.status, message), status: res.status }
      } catch (error) {
        return { error: `the fake does not answer (${(error as Error).message})` }
      }
    }

    /** Acknowledges state `seq` of the feed `ac` reads; when that fails, the feed is reopened (after the backoff). */
    async function ack(feed: string, seq: number, ac: AbortController) {
      let problem: string | undefined
      try {
        const res = await fetch('/_dockside/live/ack', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ feed, seq }) })
        if (res.ok) failures = 0
        else problem = `${res.status}: ${(await answerOf(res)).message}`
      } catch (error) {
        problem = (error as Error).message
      }
      if (problem === undefined || ac.signal.aborted || stopped) return
      ac.abort()
      down(`the fake did not get this page's acknowledgement (${problem}); reconnecting`, backoff())
    }

    async function run(res: Response, ac: AbortController, f: string) {
      current?.abort()
      current = ac
      currentFilter = f
      lastMessage = performance.now()
      setEvents([])
      let states = 0
      let ended = false
      try {
        for await (const m of sseMessages(res)) {
          if (ac.signal.aborted) return
          lastMessage = performance.now()
          if (m.event === 'state') {
            states++
            const s = JSON.parse(m.data) as State
            setState(s)
            setReceived(performance.now())
            if (!live) setLink({ kind: 'live', since: performance.now() })
            live = true
            // The fake sends the next state once this one is acknowledged: never more than one behind. An
            // acknowledgement that did not get through leaves the feed silent: reopened at once, not left to say
            // `live` over a picture that stopped moving until the watchdog notices. Retries back off until one does.
            if (s.feed === undefined) failures = 0
            else void ack(s.feed, s.seq, ac)
          } else if (m.event === 'events') {
            const fresh = (JSON.parse(m.data) as EventFrame[]).reverse()
            setEvents((old) => [...fresh, ...old].slice(0, EVENTS_KEPT))
          } else if (m.event === 'skipped') {
            const n = (JSON.parse(m.data) as { events: number }).events
            setEvents((old) => [{ skipped: n }, ...old].slice(0, EVENTS_KEPT))
          }
        }
        ended = true
      } catch {
        // The connection broke (or was replaced: checked below).
      }
      if (ac.signal.aborted || stopped) return
      // The fake ends the feed cleanly only when it is reset (or closed): the new fake is asked at once. A broken
      // connection, or a feed that ended before its first state, backs off.
      if (ended && states > 0) down('the fake was reset or closed; reconnecting', 0)
      else down('the connection to the fake was lost', backoff())
    }

    async function connect() {
      const f = currentFilter
      const opened = await open(f)
      if (stopped) return 'ac' in opened && opened.ac.abort()
      if ('error' in opened) {
        // A filter the fake refuses (one from the address, or one the fake no longer takes): said, and dropped.
        if (opened.status === 400 && f) {
          setFilterError(opened.error)
          setFilter((currentFilter = ''))
          return void connect()
        }
        return down(opened.error, backoff())
      }
      void run(opened.res, opened.ac, f)
    }

    // A new filter is tried first: a filter the fake refuses leaves the feed (and its filter) as it was.
    apply.current = (f: string) => {
      void open(f).then((opened) => {
        if (stopped) return 'ac' in opened && opened.ac.abort()
        if ('error' in opened) return setFilterError(opened.error)
        setFilterError('')
        setFilter(f)
        const q = new URLSearchParams(location.search)
        if (f) q.set('filters', f)
        else q.delete('filters')
        history.replaceState(null, '', `${location.pathname}${q.toString() ? `?${q}` : ''}`)
        void run(opened.res, opened.ac, f)
      })
    }

    const watchdog = setInterval(() => {
      if (live && performance.now() - lastMessage > SILENT_MS) {
        current?.abort()
        down(`no data from the fake for ${SILENT_MS / 1000} s`, 0)
      }
    }, 1000)
    void connect()
    // Leaving the page ends the feed at once (the server sees the client go, the browser logs no cut stream).
    const leave = () => {
      stopped = true
      current?.abort()
      clearTimeout(timer)
    }
    addEventListener('pagehide', leave)
    return () => (leave(), clearInterval(watchdog), removeEventListener('pagehide', leave))
  }, [])

  return { state, received, events, filter, filterError, link, applyFilter: (f: string) => apply.current(f) }
}
