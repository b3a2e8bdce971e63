// Issue 30, §5: a client sending 8 MB to the admin API on a real port got EPIPE or a reset and never read the 413 the
// server wrote: the server closed with the body unread. It now reads and drops the rest of the body, up to a bound
// (16 MiB, 5 s), before it closes, as Go's net/http and nginx's lingering close do; past the bound it closes.
import http from 'node:http'
import net from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside } from '../../../src/index'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

async function listen() {
  const fake = createDockside()
  closers.push(() => fake.close())
  return { fake, server: await fake.listen({ port: 0 }) }
}

const EIGHT_MB = Buffer.alloc(8 * 1024 * 1024, 0x20)

/**
 * node:http, the whole body written at once: resolves when the request is closed, with the status, the body read and
 * every error the client saw (the bug: EPIPE or ECONNRESET, as the server closed with the upload unread).
 */
function post(port: number, path: string, body: Buffer, chunked = false) {
  return new Promise<{ status: number; body: string; errors: string[] }>((resolve) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (!chunked) headers['content-length'] = String(body.length)
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path, headers })
    const errors: string[] = []
    let status = 0
    let text = ''
    let ended = false
    req.on('response', (res) => {
      status = res.statusCode ?? 0
      res.on('data', (d: Buffer) => (text += d.toString()))
      res.on('end', () => (ended = true))
      res.on('error', (e: NodeJS.ErrnoException) => errors.push(`response: ${e.code ?? e.message}`))
    })
    req.on('error', (e: NodeJS.ErrnoException) => errors.push(`request: ${e.code ?? e.message}`))
    // 'close' comes after any error of the socket; the body's end must have come too.
    req.on('close', () => setImmediate(() => resolve({ status, body: ended ? text : `(body not read to its end) ${text}`, errors })))
    req.end(body)
  })
}

/** A raw socket that writes the head and 8 MB, then reads: what it read and the error it got, if any. */
function raw(port: number, body: Buffer) {
  return new Promise<{ out: string; error?: string }>((resolve) => {
    const s = net.connect(port, '127.0.0.1')
    let out = ''
    let error: string | undefined
    s.on('data', (d) => (out += d.toString('latin1')))
    s.on('error', (e: NodeJS.ErrnoException) => (error = e.code))
    s.on('close', () => resolve({ out, error }))
    s.write(`POST /_dockside/faults HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${body.length}\r\n\r\n`)
    s.end(body)
  })
}

describe('an oversized body on a real port: the client reads the 413 and its message', () => {
  it('fetch, 8 MB to POST /_dockside/faults', async () => {
    const { server, fake } = await listen()
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.url}/_dockside/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: EIGHT_MB })
      expect(res.status).toBe(413)
      expect(((await res.json()) as { message: string }).message).toMatch(/^The request body is over the 1 MiB \(1048576 bytes\) limit\./)
    }
    expect(fake.faults.list()).toHaveLength(0)
  })

  it('node:http, 8 MB with a Content-Length to POST /_dockside/scenario, and chunked: no EPIPE, no reset', async () => {
    const { server } = await listen()
    for (let i = 0; i < 5; i++) {
      for (const chunked of [false, true]) {
        const answer = await post(server.port, '/_dockside/scenario', EIGHT_MB, chunked)
        expect(answer.errors).toEqual([])
        expect(answer.status).toBe(413)
        expect(JSON.parse(answer.body).message).toMatch(/over the 1 MiB/)
      }
    }
  })

  it('a raw socket that writes the whole 8 MB before it reads gets the 413, then the server closes cleanly', async () => {
    const { server } = await listen()
    for (let i = 0; i < 5; i++) {
      const { out, error } = await raw(server.port, EIGHT_MB)
      expect(error).toBeUndefined()
      expect(out).toMatch(/^HTTP\/1.1 413 Payload Too Large\r\n/)
      expect(out.toLowerCase()).toContain('connection: close')
      expect(out).toMatch(/"message":"The request body is over the 1 MiB/)
    }
    expect(server.connections()).toBe(0)
  })

  it('past the bound (a declared 600 MB) the server does not wait for the body: it answers and closes', async () => {
    const { server } = await listen()
    const started = performance.now()
    const answer = await new Promise<string>((resolve, reject) => {
      const s = net.connect(server.port, '127.0.0.1')
      let out = ''
      s.on('data', (d) => (out += d.toString('latin1')))
      s.on('close', () => resolve(out))
      s.on('error', reject)
      s.write('POST /_dockside/faults HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 600000000\r\n\r\n{"on":')
    })
    expect(answer).toMatch(/^HTTP\/1.1 413 Payload Too Large\r\n/)
    expect(performance.now() - started).toBeLessThan(3000)
  })

  it('a client that stops sending mid-body is closed once the linger ends; its connection is not kept', async () => {
    const { server } = await listen()
    const answer = await new Promise<string>((resolve, reject) => {
      const s = net.connect(server.port, '127.0.0.1')
      let out = ''
      s.on('data', (d) => (out += d.toString('latin1')))
      s.on('close', () => resolve(out))
      s.on('error', reject)
      // 2 MB declared, 1.5 MB sent, then silence: the server reads what came, answers, and closes after its bound.
      s.write(`POST /_dockside/faults HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`)
      s.write(Buffer.alloc(1.5 * 1024 * 1024, 0x20))
    })
    expect(answer).toMatch(/^HTTP\/1.1 413 Payload Too Large\r\n/)
    expect(answer).toMatch(/"message":"The request body is over the 1 MiB/)
    expect(server.connections()).toBe(0)
  }, 15_000)
})
