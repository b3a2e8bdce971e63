import type * as Http from 'node:http'
import type * as Https from 'node:https'
import type { Duplex } from 'node:stream'
import type * as Ws from 'ws'
import type { WebSocket } from 'ws'
import type { AccessOptions, Served } from '../../protocol/guard'
import { errorResponse, jsonError } from '../../protocol/http'
import { EVENTS_MAX_MESSAGE, HEADER_OVERFLOW_MESSAGE, PROTOCOL_ERROR_REASONS } from '../../protocol/limits'
import { SHUTDOWN_REASON } from '../../service/close-code'
import type { Protocol } from '../../protocol/router'
import { chooseSubprotocol } from '../../protocol/events/subprotocol'
import { answerRefusedBody, handshakeProblem, missingHost, toProtoRequest } from './request'
import { Arrivals } from './arrivals'
import { invalidMethodAnswer, methodOfPacket, parserErrorMessage } from '../methods'
import { hostClearTimeout, hostNextTick, hostSetImmediate, hostSetTimeout, hostTimers } from '../../runtime/host-timers'
import { SERVER_SHUTDOWN, type ProtoResponse, type SocketSession, type SocketSink, type UpgradeResult } from '../../protocol/types'

// getBuiltinModule avoids the cost of a static ESM import of a built-in at start-up (the import reads every export).
const http = process.getBuiltinModule('node:http') as typeof Http
const { getEventListeners } = process.getBuiltinModule('node:events')
// ws loads on the first websocket upgrade, not with the server: it is ~25 ms of a cold start (its own modules and the
// tls, crypto, https and zlib built-ins it requires), which a server asked only for HTTP never needs; the first
// upgrade pays it once (bench/startup.mjs measures both). ws is CommonJS: require() loads it ~5 ms sooner than an
// ESM import through its wrapper.mjs (the ESM loader's CommonJS translation and export scan), the same instance.
let loadedWs: typeof Ws | undefined
const wsModule = (): typeof Ws => (loadedWs ??= process.getBuiltinModule('node:module').createRequire(import.meta.url)('ws') as typeof Ws)
// The host's timers as dockside's main module captured them at import: this module loads lazily, on the first
// listen(), when a user's fake timers (jest's fake process.nextTick, say) may already be installed, and a faked
// nextTick would hold every corked frame until the test advances its timers.
const realSetTimeout = hostSetTimeout
const realClearTimeout = hostClearTimeout
const realSetImmediate = hostSetImmediate
const realNextTick = hostNextTick

/** Bytes of a streamed body gathered before they are written without waiting for the end of the turn. */
const COALESCE_BYTES = 64 * 1024

// The protocol hands every subscriber of an event the same string; encode it to bytes once, not once per socket.
let lastText: string | undefined
let lastBytes: Buffer | undefined
const encodeOnce = (text: string): Buffer => {
  if (text !== lastText) {
    lastText = text
    lastBytes = Buffer.from(text)
  }
  return lastBytes!
}

/**
 * The reason every request signal is aborted with when its client goes away: one shared value, because
 * `abort()` without one builds a DOMException with a stack trace per closed connection (6% of a churn's CPU).
 */
const CLIENT_GONE = Object.freeze({ name: 'AbortError', message: 'the client went away' })

/**
 * The signal of an upgrade request, aborted when its socket closes: the server's one socket 'close' listener finds it
 * in `deciding` (a listener of its own per socket grew the socket's listener list past what V8 gives two). A class out
 * here so that what lives as long as the connection keeps only this alive, not the upgrade request and its early bytes.
 */
class ClientGone {
  readonly controller = new AbortController()
  constructor(
    private readonly socket: Duplex,
    private readonly deciding: Map<Duplex, ClientGone>,
  ) {
    deciding.set(socket, this)
  }
  fire() {
    this.controller.abort(CLIENT_GONE)
  }
  /**
   * Once the websocket is open, nothing listens to the request's signal any more (the protocol listens only while it
   * decides): the server stops holding the controller, its signal and their listener table (about 400 bytes per idle
   * connection). Kept while anything still listens, for the socket's close to fire it.
   */
  releaseIfUnheard() {
    if (getEventListeners(this.controller.signal, 'abort').length === 0) this.deciding.delete(this.socket)
  }
}

/** A socket's error listener that closes over nothing (a closure made in onUpgrade would keep its request alive). */
function destroyOnError(this: Duplex) {
  this.destroy()
}

/** `ws.send` options for a text frame: one object for all, not one per frame. */
const TEXT_FRAME = { binary: false }

/** Sinks whose socket is corked in this turn: their frames leave in one write when the turn's synchronous work ends. */
const corked: WsSink[] = []
let uncorkQueued = false
const uncorkAll = () => {
  uncorkQueued = false
  for (let i = 0; i < corked.length; i++) corked[i].release()
  corked.length = 0
}

/**
 * The protocol's side of one server websocket. A class rather than an object of closures: an idle socket costs one
 * small object, not four closures and their scope.
 *
 * Frames sent in one turn (an event loop task and the microtasks it queues) are corked and leave in one `writev` at
 * its end, or at once past COALESCE_BYTES: the same frames and bytes, one system call instead of one per frame (a
 * server sending an event to one subscriber spent most of its time in those calls). Anything that ends the socket
 * without a close frame releases the cork first, so that frames sent before a drop still reach the client.
 */
class WsSink implements SocketSink {
  #corked = false
  /** The protocol's session of this socket, once open (for the server's websocket listeners, not the protocol). */
  session: SocketSession | undefined
  constructor(
    private readonly ws: WebSocket,
    readonly socket: Duplex,
    /** Where the server notes a close on its way out (settled() waits for it before the clock moves). */
    private readonly arrivals: Arrivals,
  ) {}
  send(text: string) {
    const ws = this.ws
    // CLOSING: ws writes nothing more (see goodbye()).
    if (ws.readyState !== ws.OPEN) return false
    const socket = this.socket
    if (!this.#corked) {
      this.#corked = true
      socket.cork()
      corked.push(this)
      if (!uncorkQueued) {
        uncorkQueued = true
        realNextTick(uncorkAll)
      }
    }
    ws.send(encodeOnce(text), TEXT_FRAME)
    if (socket.writableLength >= COALESCE_BYTES) this.release()
  }
  /**
   * The client's close frame, once ws has read it: ws's 'close' waits for the TCP end, and has no event for the frame
   * (these are its own fields), so the protocol asks when a send finds the socket closing.
   */
  goodbye() {
    const ws = this.ws as unknown as { _closeFrameReceived?: boolean; _closeCode?: number; _closeMessage?: Buffer }
    return ws._closeFrameReceived ? { code: ws._closeCode ?? 1005, reason: ws._closeMessage?.toString() ?? '' } : undefined
  }
  /** Writes what was corked in this turn. */
  release() {
    if (!this.#corked) return
    this.#corked = false
    this.socket.uncork()
  }
  close(code: number, reason: string) {
    const ws = this.ws
    if (ws.readyState !== ws.OPEN && ws.readyState !== ws.CONNECTING) return
    ws.close(code, reason)
    this.arrivals.closing(ws)
    // A client that is not reading cannot take the close frame either: end its TCP connection after a grace period.
    if (ws.bufferedAmount > 0) {
      const timer = realSetTimeout(() => ws.terminate(), CLOSE_GRACE_MS)
      ws.once('close', () => realClearTimeout(timer))
    }
  }
  drop() {
    this.release()
    this.ws.terminate()
  }
  backlog() {
    return this.ws.bufferedAmount
  }
  flush() {
    this.release()
  }
}

/** A server's listeners for all its websockets: each finds its socket's sink in the server's `live` map. */
interface WsListeners {
  close(this: WebSocket, code: number, reason: Buffer): void
  error(this: WebSocket, error: Error & { code?: string }): void
  /** The server's socket 'close' listener, which leaves an upgraded socket (the websocket's 'close' takes over). */
  socketClose(this: Duplex): void
}

/**
 * Wires an upgraded websocket to its protocol session. Out here, and with the server's shared listeners rather than
 * closures per socket, so that what lives as long as the connection is the sink in `live`, not the upgrade request.
 */
function attach(ws: WebSocket, socket: Duplex, live: Map<WebSocket, WsSink>, listeners: WsListeners, gone: ClientGone | undefined, open: (sink: SocketSink) => SocketSession, arrivals: Arrivals) {
  const sink = new WsSink(ws, socket, arrivals)
  live.set(ws, sink)
  ws.on('close', listeners.close)
  ws.on('error', listeners.error)
  // ws now has its own 'close' and 'error' listeners on the socket, and the websocket's 'close' (above) comes after the
  // socket's: the server's own two leave, so that the socket's lists go back to one function each (a second listener
  // makes node keep an array: ~200 bytes per idle connection). The websocket's 'close' does their work from here on.
  socket.off('error', destroyOnError)
  socket.off('close', listeners.socketClose)
  try {
    sink.session = open(sink)
    gone?.releaseIfUnheard()
  } catch {
    // The protocol never throws here; if it did, the socket is already a websocket: close it as an error.
    ws.close(1011, 'internal error')
  }
}

export interface ServeOptions {
  host?: string
  port?: number
  /** Serve https/wss with this key and certificate (PEM). */
  tls?: { key: string | Uint8Array; cert: string | Uint8Array }
  /** This server's admin token, allowed origins and hosts (over the fake's), for the protocol's guard. */
  access?: AccessOptions
}

export interface RunningServer {
  readonly url: string
  readonly wsUrl: string
  readonly port: number
  readonly host: string
  /** TCP connections open now (HTTP, streams and websockets). */
  connections(): number
  /**
   * Resolves once no request is on its way in: no connection waits for its first request, no request body is still
   * arriving (each counts for at most 500 ms of wall time). See arrivals.ts.
   */
  settled(): Promise<void>
  close(): Promise<void>
}


/**
 * node:http options of both servers. An `Upgrade` other than websocket (`curl --http2` sends `Upgrade: h2c`) is served
 * as the plain request it also is (RFC 9110, section 7.8: a server may ignore an upgrade it does not support), as the
 * Engine does; it was a 400 on every route. `shouldUpgradeCallback` is Node 24.9's: older Node answers such a request
 * with handshakeProblem's 400.
 */
const serverOptions = {
  requireHostHeader: false,
  shouldUpgradeCallback: (req: Http.IncomingMessage) => (req.headers.upgrade ?? '').toLowerCase() === 'websocket',
}

/** How long a client that is not reading gets to take a close frame before its TCP connection is ended. */
const CLOSE_GRACE_MS = 1000

/**
 * A header value past ASCII (an override's `café`): node:http writes the head as Latin-1 bytes (what clients read it
 * as) only before a Buffer body; before a string body it writes head and body as one UTF-8 string, so a client read
 * `cafÃ©` where the in-process ways in show `café`. Only string bodies carry such headers (an override's reply).
 */
const NON_ASCII = /[\u0080-\uffff]/
const hasNonAscii = (headers: Record<string, string>) => {
  for (const name in headers) if (NON_ASCII.test(headers[name]!)) return true
  return false
}

async function writeResponse(res: Http.ServerResponse, answer: ProtoResponse, head: boolean) {
  res.writeHead(answer.status, answer.headers)
  const body = answer.body
  if (body === undefined || head) return void res.end()
  if (typeof body === 'string') {
    return void res.end(hasNonAscii(answer.headers) ? Buffer.from(body) : body)
  }
  res.flushHeaders()
  const iterator = body[Symbol.asyncIterator]()
  // The protocol ends a stream at once when the client is too far behind, even while we wait for it to read.
  const onAbort = () => res.destroy()
  if (answer.abort?.aborted) onAbort()
  answer.abort?.addEventListener('abort', onAbort, { once: true })
  // Chunks that arrive within one turn (a push's pacing ticks that the clock fires together) leave as one write at the
  // end of the turn, or at once past COALESCE_BYTES: one write call and one syscall, not one per chunk.
  let pending = ''
  let flushQueued = false
  const flush = () => {
    flushQueued = false
    if (pending === '' || res.destroyed) return
    const text = pending
    pending = ''
    res.write(text)
  }
  try {
    while (!res.destroyed) {
      let step: IteratorResult<string>
      try {
        step = await iterator.next()
      } catch (error) {
        // A TransportReset (or any failure mid-body) ends the connection abruptly, as a real reset does,
        // once the chunks written before it left (http corks writes until the next tick).
        flush()
        await new Promise<void>((resolve) => realSetImmediate(resolve))
        res.destroy()
        if ((error as { code?: string }).code !== 'DOCKSIDE_RESET') throw error
        return
      }
      const { value, done } = step
      if (done) break
      if (value === '' || res.destroyed) continue
      pending += value
      if (pending.length >= COALESCE_BYTES) flush()
      else if (!flushQueued) {
        flushQueued = true
        realNextTick(flush)
      }
      // Respect backpressure: wait for drain (or the client going away) before the next chunk.
      if (res.writableNeedDrain) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done)
            res.off('close', done)
            resolve()
          }
          res.on('drain', done)
          res.on('close', done)
        })
      }
    }
  } finally {
    answer.abort?.removeEventListener('abort', onAbort)
    if (res.destroyed) await iterator.return?.()
    else {
      flush()
      res.end()
    }
  }
}

/** Writes a plain HTTP answer on a socket that asked to upgrade. */
function writeRaw(socket: Duplex, answer: ProtoResponse & { body?: string }) {
  const body = answer.body ?? ''
  const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' }
  const lines = [`HTTP/1.1 ${answer.status} ${http.STATUS_CODES[answer.status] ?? 'Error'}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)]
  // The head as Latin-1 bytes, as node:http writes headers (see hasNonAscii); the body as UTF-8.
  // One write: end() uncorks.
  socket.cork()
  socket.write(`${lines.join('\r\n')}\r\n\r\n`, 'latin1')
  socket.end(body)
}

/** Serves the protocol on node:http (or https) plus ws, bound to 127.0.0.1 unless told otherwise. */
export async function serve(protocol: Pick<Protocol, 'handle' | 'upgrade'> & Partial<Pick<Protocol, 'decideUpgrade'>>, options: ServeOptions = {}): Promise<RunningServer> {
  // A JavaScript caller may hand over the fake itself: refused here, not by a TypeError in the first request's handler.
  if (typeof protocol?.handle !== 'function' || typeof protocol.upgrade !== 'function') {
    throw new TypeError('serve() takes a fake\'s protocol: serve(fake.protocol, options), or fake.listen(options) to serve a fake.')
  }
  const host = options.host ?? '127.0.0.1'
  // The events websocket takes no client messages: a frame over EVENTS_MAX_MESSAGE bytes closes it with 1009.
  // The sub-protocol answered is the one the in-process WebSocket answers too (the protocol's choice).
  const handleProtocols = (offered: Set<string>) => chooseSubprotocol(offered) ?? false
  // Made on the first upgrade (see `wsModule` above). clientTracking off: `live` below tracks the open websockets (ws would
  // keep a second set and a listener per socket).
  let wss: Ws.WebSocketServer | undefined
  const websockets = (): Ws.WebSocketServer => {
    if (wss) return wss
    const { WebSocketServer, WebSocket: Base } = wsModule()
    // ws closes on a client's protocol error with the code alone (before any listener of ours runs): the reason is
    // added here, on the one call ws makes then.
    class EventsWebSocket extends Base {
      override close(code?: number, data?: string | Buffer) {
        super.close(code, data === undefined && (code === 1002 || code === 1007 || code === 1008) ? PROTOCOL_ERROR_REASONS[code] : data)
      }
    }
    wss = new WebSocketServer({ noServer: true, clientTracking: false, perMessageDeflate: false, maxPayload: EVENTS_MAX_MESSAGE, handleProtocols, WebSocket: EventsWebSocket })
    // Handshake failures ws finds itself (a malformed Sec-WebSocket-Protocol...) get a JSON body too.
    wss.on('wsClientError', (error: Error, socket: Duplex) => {
      writeRaw(socket, jsonError(400, `Bad websocket handshake: ${error.message}.`))
    })
    return wss
  }
  const sockets = new Set<Duplex>()
  const arrivals = new Arrivals(hostTimers.now, () => new Promise<void>((resolve) => realSetImmediate(resolve)))
  // Upgrades whose request signal may still be heard, by socket (see ClientGone).
  const deciding = new Map<Duplex, ClientGone>()
  // One 'close' listener for every socket of this server (a closure per socket is ~100 bytes per idle connection).
  const onSocketClose = function (this: Duplex) {
    sockets.delete(this)
    const gone = deciding.get(this)
    if (gone === undefined) return
    deciding.delete(this)
    gone.fire()
  }
  // The open websockets and their sinks.
  const live = new Map<WebSocket, WsSink>()
  const wsListeners: WsListeners = {
    close(code, reason) {
      arrivals.closed(this)
      const sink = live.get(this)
      live.delete(this)
      if (sink === undefined) return
      // What the socket's 'close' listener did before it left the upgraded socket (see attach): the upgrade's signal
      // too, if anything still listens to it.
      onSocketClose.call(sink.socket)
      sink.session?.clientClosed(code, reason.toString())
    },
    error(error) {
      // ws has already sent close 1009 for an oversized frame, or 1002/1007/1008 for a protocol error; the protocol
      // journals it. After a protocol error, and anything else, the socket ends.
      const session = live.get(this)?.session
      const code = (error as { code?: string }).code
      if ((code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' || code === 'WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH') && session) return session.tooBig()
      if (code?.startsWith('WS_ERR_')) session?.protocolError(code === 'WS_ERR_INVALID_UTF8' ? 1007 : code === 'WS_ERR_TOO_MANY_BUFFERED_PARTS' ? 1008 : 1002)
      this.terminate()
    },
    socketClose: onSocketClose,
  }
  // The address this server serves, for the protocol's admin guard; known once listening.
  let served: Served | undefined
  const upgraded = new WeakSet<Duplex>()
  /** The signals of requests being answered: aborted with SERVER_SHUTDOWN when the server closes. */
  const inflight = new Set<AbortController>()

  const onRequest = (req: Http.IncomingMessage, res: Http.ServerResponse) => {
    arrivals.received(req)
    const noHost = missingHost(req)
    if (noHost) return void res.writeHead(noHost.status, noHost.headers).end(noHost.body)
    const controller = new AbortController()
    inflight.add(controller)
    // The client has left as soon as its socket ends or fails, not only when the response closes (a loop turn or
    // more later): a push cancelled then wins over a clock advance that arrives right after the disconnect.
    const socket = req.socket
    const gone = () => {
      if (!res.writableFinished) controller.abort(CLIENT_GONE)
    }
    const detach = () => {
      socket.off('end', gone)
      socket.off('error', gone)
      socket.off('close', gone)
    }
    socket.once('end', gone)
    socket.once('error', gone)
    socket.once('close', gone)
    res.once('finish', detach)
    res.once('close', () => {
      inflight.delete(controller)
      detach()
      gone()
    })
    const proto = toProtoRequest(req, controller.signal, served)
    protocol
      .handle(proto)
      .then((answer) => {
        // A body refused for its size is left unread: the answer goes out at once, and the connection ends once the
        // rest of the body is read and dropped (up to a bound), so the client reads the 413 rather than a reset.
        if (answer.status === 413 && !req.complete && typeof answer.body === 'string') return answerRefusedBody(req, res, answer.status, answer.headers, answer.body, CLOSE_GRACE_MS)
        return writeResponse(res, answer, req.method === 'HEAD')
      })
      .catch((error: unknown) => {
        if (!res.headersSent) {
          const answer = errorResponse(error)
          res.writeHead(answer.status, answer.headers).end(answer.body)
        } else res.destroy()
      })
      .finally(() => req.resume())
  }

  const onUpgrade = (req: Http.IncomingMessage, socket: Duplex, head: Buffer) => {
    arrivals.received(req)
    socket.on('error', destroyOnError)
    const problem = missingHost(req) ?? handshakeProblem(req)
    if (problem) return writeRaw(socket, problem)
    const gone = new ClientGone(socket, deciding)
    // Over TLS the upgrade's socket is the TLS one, not the TCP socket 'connection' saw: it needs the listener too.
    if (!sockets.has(socket)) socket.on('close', onSocketClose)
    const controller = gone.controller
    // Decided at once (nothing waits: the connect of nearly every client), it is answered at once.
    let decided: UpgradeResult | Promise<UpgradeResult>
    try {
      const request = toProtoRequest(req, controller.signal, served)
      decided = protocol.decideUpgrade ? protocol.decideUpgrade(request) : protocol.upgrade(request)
      if (!(decided instanceof Promise)) return finishUpgrade(req, socket, head, decided, gone)
    } catch (error) {
      return upgradeFailed(socket, error)
    }
    // While the protocol decides (an injected stall or latency can take long), read the socket: a paused socket never
    // sees the client leave. A client sends nothing before the 101; whatever comes early is kept for ws.
    const early: Buffer[] = [head]
    const keep = (chunk: Buffer) => void early.push(chunk)
    const left = () => controller.abort(CLIENT_GONE)
    socket.on('data', keep)
    socket.on('end', left)
    socket.resume()
    decided
      .then((result) => {
        // ws takes the socket over synchronously in finishUpgrade (still flowing: it adds its own 'data' listener).
        socket.off('data', keep)
        socket.off('end', left)
        return finishUpgrade(req, socket, early.length === 1 ? head : Buffer.concat(early), result, gone)
      })
      .catch((error: unknown) => upgradeFailed(socket, error))
  }

  const upgradeFailed = (socket: Duplex, error: unknown) => {
    // Once upgraded, the socket speaks websocket: never write HTTP text into it.
    if (!upgraded.has(socket)) writeRaw(socket, errorResponse(error))
    else socket.destroy()
  }

  const finishUpgrade = (req: Http.IncomingMessage, socket: Duplex, head: Buffer, result: UpgradeResult, gone: ClientGone) => {
    if (socket.destroyed) return
    if (result.kind !== 'accept') return writeRaw(socket, result.response)
    upgraded.add(socket)
    const open = result.open
    websockets().handleUpgrade(req, socket, head, (ws) => attach(ws, socket, live, wsListeners, gone, open, arrivals))
  }

  let server: Http.Server | Https.Server
  if (options.tls) {
    const https = process.getBuiltinModule('node:https') as typeof Https
    // node's TLS takes any ArrayBufferView (its types say Buffer).
    server = https.createServer({ key: options.tls.key as string | Buffer, cert: options.tls.cert as string | Buffer, ...serverOptions }, onRequest)
  } else server = http.createServer(serverOptions, onRequest)
  server.on('upgrade', onUpgrade)
  // node:http hands CONNECT to this event and, with no listener, drops the socket without an answer.
  server.on('connect', (req: Http.IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy())
    writeRaw(socket, jsonError(405, `Method CONNECT is not allowed: this fake is not a proxy. It serves GET, HEAD, POST and DELETE (GET /_ping, GET /events/ws, GET /_dockside/state...).`, { allow: 'GET, HEAD, POST, DELETE' }))
  })
  server.on('connection', (s: Duplex) => {
    sockets.add(s)
    s.on('close', onSocketClose)
    if (!options.tls) arrivals.connected(s)
  })
  // Over TLS a request is on its way once the handshake is done (the handshake itself is not counted).
  if (options.tls) server.on('secureConnection', (s: Duplex) => arrivals.connected(s))
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number }, socket: Duplex) => {
    if (!socket.writable) return socket.destroy()
    if (err.code === 'HPE_INVALID_METHOD') {
      // The answer the in-process ways in give too (methods.ts): the method as sent, and what to send instead.
      const answer = invalidMethodAnswer(methodOfPacket(err.rawPacket, err.bytesParsed), http.METHODS)
      return void socket.end(`HTTP/1.1 400 Bad Request\r\n${answer.headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${answer.body}`)
    }
    const overflow = err.code === 'HPE_HEADER_OVERFLOW'
    const body = JSON.stringify({ message: overflow ? HEADER_OVERFLOW_MESSAGE : parserErrorMessage(err.code ?? err.message) })
    socket.end(`HTTP/1.1 ${overflow ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`)
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as { port: number; address: string }
  const shownHost = host.includes(':') ? `[${host}]` : host
  const scheme = options.tls ? 'https' : 'http'
  served = { scheme, host, port: address.port, access: options.access }
  let closing: Promise<void> | undefined

  return {
    url: `${scheme}://${shownHost}:${address.port}`,
    wsUrl: `${options.tls ? 'wss' : 'ws'}://${shownHost}:${address.port}`,
    port: address.port,
    host,
    // A destroyed socket is gone for its client at once; its 'close' (which takes it out of the set) can come a turn or
    // more later, after close() has resolved.
    connections: () => {
      let open = 0
      for (const s of sockets) if (!s.destroyed) open++
      return open
    },
    settled: () => arrivals.settled(),
    close: () =>
      (closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()))
        // Closed by the server, in the journal and the delivery report too (a close of the socket alone came back as the
        // client's echo, reported as the client leaving).
        for (const [ws, sink] of live) {
          if (sink.session) sink.session.serverClosed(1001, SHUTDOWN_REASON)
          else ws.close(1001, SHUTDOWN_REASON)
        }
        // Streams being answered (Docker's GET /events) end as the server's close, before their sockets are destroyed.
        for (const controller of inflight) controller.abort(SERVER_SHUTDOWN)
        // Give clients a moment to answer the close frame, then end whatever is left.
        await new Promise<void>((resolve) => {
          const timer = realSetTimeout(resolve, live.size ? 250 : 0)
          const check = () => {
            if (live.size === 0) {
              realClearTimeout(timer)
              resolve()
            }
          }
          for (const ws of live.keys()) ws.once('close', check)
        })
        for (const ws of live.keys()) ws.terminate()
        for (const s of sockets) s.destroy()
        wss?.close()
        await stopped
      })()),
  }
}
