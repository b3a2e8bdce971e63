import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { Socket } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'
import { parseTarget } from '../protocol/http'
import { compileFilters, parseFilters, type CompiledFilter } from '../service/filters'
import { upstreamRequest, upstreamSocket, type Upstream } from './upstream'
import { lifecycleReader, serviceEventOf, type Lifecycle } from './lifecycle'
import type { Recording } from './recording'
import { tapFor, type InspectImage } from './taps'

const http = process.getBuiltinModule('node:http')

/** Headers of one hop only: never passed on. */
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade'])

/** The path the recorder answers itself to stop: it writes the file and exits. */
export const STOP_PATH = '/_dockside/record/stop'

export interface ProxyOptions {
  upstream: Upstream
  recording: Recording
  log: (line: string) => void
  /** Called once for `POST /_dockside/record/stop`; its answer is what the request gets. */
  onStop: () => Promise<{ status: number; body: unknown }>
  /** Called once the answer to the stop request went out. */
  afterStop: () => void
}

export interface Proxy {
  listen(host: string, port: number): Promise<number>
  /** Closes every socket: clients, the upstream's streams, the event follower. */
  close(): Promise<void>
}

/** A Docker error line, the shape the docker CLI prints from a stream (PROTOCOL.md). */
const errorLine = (message: string) => `${JSON.stringify({ errorDetail: { message }, error: message })}\r\n`

/**
 * The recorder's server: every request goes to the upstream and its answer comes back unchanged (status, headers in
 * order, body as it streams); upgraded requests (attach, exec) are spliced byte for byte. Taps read what the recording
 * needs on the way. `GET /events/ws`, when the upstream has no such route (a Docker daemon), is served here from the
 * upstream's container events, shaped as the service's frames.
 */
export function createProxy(options: ProxyOptions): Proxy {
  const { upstream, recording: rec, log } = options
  const sockets = new Set<Socket | Duplex>()
  const live = new Set<{ ws: WebSocket; filter: CompiledFilter }>()
  const wss = new WebSocketServer({ noServer: true })
  let closing = false

  const inspect: InspectImage = (ref) =>
    new Promise((resolve) => {
      const req = upstreamRequest(upstream, { method: 'GET', path: `/images/${encodeURIComponent(ref)}/json` }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          try {
            resolve(res.statusCode === 200 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined)
          } catch {
            resolve(undefined)
          }
        })
        res.on('error', () => resolve(undefined))
      })
      req.on('error', () => resolve(undefined))
      req.end()
    })

  const server = http.createServer((req, res) => void handle(req, res))
  server.on('connection', (s) => {
    sockets.add(s)
    s.once('close', () => sockets.delete(s))
  })
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => void upgrade(req, socket, head))

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const target = parseTarget(req.url ?? '/')
    if (target.path === STOP_PATH && req.method === 'POST') {
      const answer = await options.onStop()
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(`${JSON.stringify(answer.body)}\n`, () => options.afterStop())
      return
    }
    const tap = tapFor(req.method ?? 'GET', target, req.headers, rec, inspect)
    const headers: Record<string, string | string[]> = {}
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP.has(k)) headers[k] = v
    const kept: Buffer[] = []
    let keptBytes = 0
    const up = upstreamRequest(upstream, { method: req.method, path: req.url, headers }, (answer) => {
      const status = answer.statusCode ?? 502
      const raw: string[] = []
      for (let i = 0; i < answer.rawHeaders.length; i += 2) if (!HOP.has(answer.rawHeaders[i].toLowerCase())) raw.push(answer.rawHeaders[i], answer.rawHeaders[i + 1])
      res.writeHead(status, answer.statusMessage, raw)
      // At once, as the daemon flushes them: a client of GET /events waits on the headers before any event.
      res.flushHeaders()
      const body: Buffer[] = []
      let bodyBytes = 0
      let partial = ''
      answer.on('data', (chunk: Buffer) => {
        if (!tap) return
        if (tap.answerBody && bodyBytes < tap.answerBody) {
          body.push(chunk)
          bodyBytes += chunk.length
        }
        if (tap.line) {
          // Lines only: a line longer than 1 MiB is not one the recording needs (its start is dropped).
          partial += chunk.toString('utf8')
          let nl
          while ((nl = partial.indexOf('\n')) >= 0) {
            const line = partial.slice(0, nl).trim()
            partial = partial.slice(nl + 1)
            if (line) tap.line(line)
          }
          if (partial.length > 1 << 20) partial = ''
        }
      })
      answer.pipe(res)
      let ended = false
      /** The client left first (a docker CLI's wait it cancels, Ctrl-C on docker events): no fault of the upstream. */
      let clientGone = false
      const finish = (cut: boolean, why?: string) => {
        if (ended) return
        ended = true
        if (clientGone) cut = false
        if (cut && !closing) {
          log(`error   the upstream cut ${req.method} ${req.url} short${why ? `: ${why}` : ''}; the client was told (a reset, or an error line in a push)`)
          if (tap?.line && target.path.endsWith('/push') && !res.writableEnded) res.end(errorLine(`dockside record: the upstream ${upstream.text} closed the connection mid-stream${why ? ` (${why})` : ''}`))
          else res.destroy()
        }
        if (tap) void Promise.resolve(tap.end(status, kept.length ? Buffer.concat(kept) : undefined, body.length ? Buffer.concat(body) : undefined, cut)).catch((e: Error) => log(`error   recording ${req.method} ${req.url}: ${e.message}`))
        if (!closing) log(`request ${req.method} ${req.url} -> ${status}`)
      }
      answer.on('end', () => finish(false))
      answer.on('aborted', () => finish(true, 'aborted'))
      answer.on('error', (e) => finish(true, e.message))
      answer.on('close', () => finish(!answer.complete, answer.complete ? undefined : 'connection closed'))
      // The client left (Ctrl-C on docker events): the upstream's stream goes too.
      res.on('close', () => {
        if (res.writableFinished) return
        clientGone = true
        up.destroy()
      })
    })
    up.on('error', (e) => {
      if (res.headersSent) return
      const message = `dockside record: cannot reach the upstream ${upstream.text}: ${e.message}`
      log(`error   ${req.method} ${req.url}: ${message}`)
      const body = `${JSON.stringify({ message })}\n`
      res.writeHead(502, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }).end(body)
      if (tap) void tap.end(502, undefined, Buffer.from(body), true)
    })
    req.on('data', (chunk: Buffer) => {
      if (tap && keptBytes < tap.requestBody) {
        kept.push(chunk)
        keptBytes += chunk.length
      }
    })
    req.pipe(up)
  }

  /** Whether the upstream serves `GET /events/ws` itself (a dockside fake does; a Docker daemon answers 404). */
  let upstreamHasWs: Promise<boolean> | undefined
  const probeWs = () =>
    (upstreamHasWs ??= new Promise<boolean>((resolve) => {
      const req = upstreamRequest(upstream, { method: 'GET', path: '/events/ws' }, (res) => {
        res.resume()
        resolve(res.statusCode !== 404)
      })
      req.on('error', () => resolve(false))
      req.end()
    }))

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    const target = parseTarget(req.url ?? '/')
    if (target.path === '/events/ws' && !(await probeWs())) return serveEventsWs(req, socket, head, target.query.get('filters'))
    // Spliced: the request head as it came, then bytes both ways.
    const up = upstreamSocket(upstream)
    sockets.add(up)
    up.once('close', () => sockets.delete(up))
    const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`]
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`)
    up.write(`${lines.join('\r\n')}\r\n\r\n`)
    if (head.length) up.write(head)
    up.on('error', (e) => {
      log(`error   upgrade ${req.method} ${req.url}: the upstream ${upstream.text}: ${e.message}`)
      const body = `${JSON.stringify({ message: `dockside record: cannot reach the upstream ${upstream.text}: ${e.message}` })}\n`
      if (socket.writable) socket.end(`HTTP/1.1 502 Bad Gateway\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
    })
    up.pipe(socket)
    socket.pipe(up)
    socket.once('close', () => up.destroy())
    up.once('close', () => socket.destroy())
    log(`upgrade ${req.method} ${req.url}`)
  }

  function refuse(socket: Duplex, status: number, message: string) {
    const body = JSON.stringify({ message })
    socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
  }

  function serveEventsWs(req: IncomingMessage, socket: Duplex, head: Buffer, filtersText: string | undefined) {
    let filter: CompiledFilter
    try {
      filter = compileFilters(parseFilters(filtersText))
    } catch (error) {
      return refuse(socket, 400, (error as Error).message)
    }
    if (!follower.up) return refuse(socket, 500, `dockside record: the upstream's event stream (${upstream.text} GET /events) is not available: ${follower.why ?? 'not connected yet'}; retry`)
    wss.handleUpgrade(req, socket, head, (ws) => {
      const client = { ws, filter }
      live.add(client)
      ws.once('close', () => live.delete(client))
      log(`ws      open filters=${JSON.stringify(filter.filters)}`)
    })
  }

  /** Gives a start or stop to the recording and to every events websocket whose filter takes it. */
  const onLifecycle = (step: Lifecycle) => {
    rec.event(step)
    if (step.action === 'remove' || live.size === 0) return
    const event = serviceEventOf(step)
    for (const c of live) if (c.filter.matches(event)) c.ws.send(event.frame('integer'))
  }

  /**
   * The recorder's own follower of the upstream's `GET /events` (container events), from start to stop: the timeline
   * of the recording and the source of `/events/ws`. A stream that drops is followed again from the last event's
   * time (a second later), and the websockets it fed are closed with 1011, as the service closes on error.
   */
  const follower = {
    up: false,
    why: undefined as string | undefined,
    req: undefined as ReturnType<typeof upstreamRequest> | undefined,
    timer: undefined as ReturnType<typeof setTimeout> | undefined,
    lastNano: undefined as bigint | undefined,
    read: lifecycleReader(),
  }
  const followEvents = (ready?: () => void) => {
    const next = follower.lastNano === undefined ? undefined : follower.lastNano + 1n
    const since = next === undefined ? '' : `&since=${next / 1_000_000_000n}.${String(next % 1_000_000_000n).padStart(9, '0')}`
    const path = `/events?filters=${encodeURIComponent(JSON.stringify({ type: ['container'] }))}${since}`
    const down = (why: string) => {
      if (closing) return
      const was = follower.up
      follower.up = false
      follower.why = why
      if (was) log(`error   the upstream's event stream ended: ${why}; following it again`)
      for (const c of live) c.ws.close(1011, `dockside record: the upstream's event stream ended (${why}); reconnect`.slice(0, 120))
      ready?.()
      ready = undefined
      follower.timer = setTimeout(() => followEvents(), 1000)
      follower.timer.unref?.()
    }
    const req = upstreamRequest(upstream, { method: 'GET', path }, (res) => {
      if (res.statusCode !== 200) {
        res.resume()
        return down(`GET /events answered ${res.statusCode}`)
      }
      follower.up = true
      follower.why = undefined
      ready?.()
      ready = undefined
      let partial = ''
      res.on('data', (chunk: Buffer) => {
        partial += chunk.toString('utf8')
        let nl
        while ((nl = partial.indexOf('\n')) >= 0) {
          const line = partial.slice(0, nl).trim()
          partial = partial.slice(nl + 1)
          if (!line) continue
          const step = follower.read(line)
          if (!step) continue
          if (follower.lastNano !== undefined && step.timeNano <= follower.lastNano) continue
          follower.lastNano = step.timeNano
          onLifecycle(step)
        }
      })
      res.on('close', () => down('the connection closed'))
      res.on('error', (e) => down(e.message))
    })
    follower.req = req
    req.on('error', (e) => down(`cannot reach ${upstream.text}: ${e.message}`))
    req.end()
  }

  return {
    async listen(host, port) {
      // The follower first, so that what a client does once the server answers is in the timeline.
      await new Promise<void>((r) => followEvents(r))
      if (!follower.up) log(`error   cannot follow the upstream's events (${follower.why}): the timeline stays empty until it answers`)
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(port, host, () => resolve())
      })
      return (server.address() as { port: number }).port
    },
    async close() {
      closing = true
      clearTimeout(follower.timer)
      follower.req?.destroy()
      for (const c of live) c.ws.close(1001, 'dockside record stopped')
      const closed = new Promise<void>((r) => server.close(() => r()))
      for (const s of sockets) s.destroy()
      server.closeAllConnections?.()
      await closed
      wss.close()
    },
  }
}
