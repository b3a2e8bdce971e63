import type { Server, Socket } from 'node:net'

const net = process.getBuiltinModule('node:net')

/** A loopback port where nothing listens (bound, read, closed): a registry that is down. */
export async function closedPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as { port: number }
  await new Promise((r) => server.close(r))
  return port
}

/**
 * A registry that dies mid-upload: a loopback TCP proxy to `target` (HOST:PORT) that passes everything until a client
 * has sent `afterBytes` of a blob upload (a `PATCH` or `PUT` to `/blobs/uploads/`), then resets every connection and
 * stops listening, as a registry process that died. It stays down.
 */
export async function dyingProxy(target: string, afterBytes = 0): Promise<{ host: string; close(): Promise<void> }> {
  const colon = target.lastIndexOf(':')
  const [host, port] = [target.slice(0, colon).replace(/^\[|\]$/g, ''), Number(target.slice(colon + 1))]
  const sockets = new Set<Socket>()
  let dead = false
  const server: Server = net.createServer((client) => {
    if (dead) return client.destroy()
    const upstream = net.connect(port, host)
    sockets.add(client).add(upstream)
    let uploading = 0
    let head = ''
    client.on('data', (chunk: Buffer) => {
      if (dead) return
      if (uploading === 0 && head.length < 4096) head += chunk.toString('latin1')
      if (/^(PATCH|PUT) \S*\/blobs\/uploads\//m.test(head)) uploading += chunk.length
      if (uploading > afterBytes) return die()
      upstream.write(chunk)
    })
    upstream.on('data', (chunk) => client.write(chunk))
    const end = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on('close', end).on('error', end)
    upstream.on('close', end).on('error', end)
  })
  const die = () => {
    dead = true
    server.close()
    for (const s of sockets) s.resetAndDestroy()
  }
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port: own } = server.address() as { port: number }
  return {
    host: `127.0.0.1:${own}`,
    close: () =>
      new Promise<void>((r) => {
        die()
        r()
      }),
  }
}
