// node:http through getBuiltinModule, as the CLI loads its built-ins (docs/performance.md: `dockside serve` start-up).
const http = process.getBuiltinModule('node:http')

/** Where a Docker-compatible host answers: a unix socket, or a TCP host and port. */
export type HostAddress = { kind: 'unix'; path: string } | { kind: 'tcp'; host: string; port: number }

/**
 * Parses `unix:///var/run/docker.sock`, `tcp://HOST:PORT` or `http://HOST:PORT` (as `DOCKER_HOST` takes them).
 * Throws a RangeError naming the forms it takes.
 */
export function parseHost(text: string): HostAddress {
  const expected = 'expected unix:///path/to/docker.sock, tcp://HOST:PORT or http://HOST:PORT'
  if (text.startsWith('unix://')) {
    const path = text.slice('unix://'.length)
    if (!path.startsWith('/')) throw new RangeError(`Invalid host "${text}": a unix socket needs an absolute path; ${expected}.`)
    return { kind: 'unix', path }
  }
  const m = /^(?:tcp|http):\/\/(\[[0-9a-fA-F:.]+\]|[^:/\s]+):(\d{1,5})\/?$/.exec(text)
  if (m === null || Number(m[2]) < 1 || Number(m[2]) > 65535) throw new RangeError(`Invalid host "${text}": ${expected}.`)
  return { kind: 'tcp', host: m[1].replace(/^\[|\]$/g, ''), port: Number(m[2]) }
}

/** Whether a host is this machine by construction: a unix socket, or a TCP host on 127.0.0.0/8, ::1 or `localhost`. */
export function isLocalHost(address: HostAddress): boolean {
  if (address.kind === 'unix') return true
  const h = address.host.toLowerCase()
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
}

export function formatHost(address: HostAddress): string {
  return address.kind === 'unix' ? `unix://${address.path}` : `tcp://${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`
}

/** One HTTP answer as the client read it: status, headers in wire order, and the body. */
export interface Answer {
  status: number
  /** `[name, value]` in the order the host sent them (rawHeaders). */
  headers: [string, string][]
  body: Buffer
}

export interface RequestOptions {
  headers?: Record<string, string>
  body?: string | Buffer
  /** Stop reading once this returns true for the body so far (for streams such as `GET /events`); the answer is what was read. */
  until?: (body: Buffer) => boolean
  /** Give up after this many ms of wall time: the answer is what was read (a stream), or a TimeoutError (no answer). @default 30000 */
  timeoutMs?: number
  signal?: AbortSignal
}

export class TimeoutError extends Error {
  override name = 'TimeoutError'
}

/** A client of one host, over a fresh connection per request (a stream may end only by closing it). */
export interface HostClient {
  readonly address: HostAddress
  request(method: string, path: string, options?: RequestOptions): Promise<Answer>
}

export function hostClient(address: HostAddress): HostClient {
  return {
    address,
    request(method, path, options = {}) {
      const { headers = {}, body, until, timeoutMs = 30_000, signal } = options
      const target = address.kind === 'unix' ? { socketPath: address.path, host: 'localhost' } : { host: address.host, port: address.port }
      return new Promise<Answer>((resolve, reject) => {
        const req = http.request({ ...target, method, path, agent: false, headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) } })
        let answer: Answer | undefined
        const chunks: Buffer[] = []
        const finish = () => {
          clearTimeout(timer)
          signal?.removeEventListener('abort', onAbort)
          if (answer === undefined) return
          answer.body = Buffer.concat(chunks)
          resolve(answer)
          req.destroy()
        }
        const timer = setTimeout(() => {
          if (answer === undefined) {
            req.destroy()
            reject(new TimeoutError(`${method} ${path}: no answer within ${timeoutMs} ms`))
          } else finish()
        }, timeoutMs)
        const onAbort = () => {
          clearTimeout(timer)
          req.destroy()
          reject(signal!.reason)
        }
        signal?.addEventListener('abort', onAbort, { once: true })
        req.on('response', (res) => {
          const raw = res.rawHeaders
          const pairs: [string, string][] = []
          for (let i = 0; i < raw.length; i += 2) pairs.push([raw[i], raw[i + 1]])
          answer = { status: res.statusCode ?? 0, headers: pairs, body: Buffer.alloc(0) }
          res.on('data', (chunk: Buffer) => {
            chunks.push(chunk)
            if (until?.(Buffer.concat(chunks))) finish()
          })
          res.on('end', finish)
          res.on('error', finish)
          res.on('close', finish)
        })
        req.on('error', (error) => {
          clearTimeout(timer)
          if (answer === undefined) reject(error)
          else finish()
        })
        req.end(body)
      })
    },
  }
}

/** A header's value (case-insensitive), or undefined. */
export function header(answer: Answer, name: string): string | undefined {
  const lower = name.toLowerCase()
  return answer.headers.find(([n]) => n.toLowerCase() === lower)?.[1]
}

