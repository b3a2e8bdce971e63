import type { WsProbe } from './way-in'

/** What the in-process WebSocket exposes beyond the WHATWG API. */
interface WithHandshake {
  handshake?: { status: number; headers: Record<string, string>; body: string | undefined }
}

/**
 * Opens `url` with the global `WebSocket` (whatever is installed: undici's, or the in-process hook's) and records
 * the handshake, frames and close, resolving once open or refused.
 */
export function probeWithGlobalWs(url: string): Promise<WsProbe & { socket: WebSocket; events: string[] }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url)
    const messages: string[] = []
    const events: string[] = []
    let taken = 0
    const waiters: ((m: string) => void)[] = []
    let closeResolve!: (v: { code: number; reason: string }) => void
    const closed = new Promise<{ code: number; reason: string }>((r) => (closeResolve = r))
    const probe = (status: number) => {
      const hs = (ws as WithHandshake).handshake
      return Object.assign(
        {
          status: hs?.status ?? status,
          body: hs?.body,
          headers: hs?.headers ?? {},
          messages,
          nextMessage: () => (taken < messages.length ? Promise.resolve(messages[taken++]) : new Promise<string>((r) => waiters.push(r))),
          closed,
          close: (code?: number, reason?: string) => ws.close(code, reason),
        },
        { socket: ws, events },
      )
    }
    ws.addEventListener('open', () => {
      events.push('open')
      resolve(probe(101))
    })
    ws.addEventListener('message', (e) => {
      const text = String(e.data)
      events.push('message')
      messages.push(text)
      const w = waiters.shift()
      if (w) {
        taken++
        w(text)
      }
    })
    ws.addEventListener('error', () => events.push('error'))
    ws.addEventListener('close', (e) => {
      events.push(`close ${e.code} ${e.wasClean}`)
      closeResolve({ code: e.code, reason: e.reason })
      resolve(probe(0))
    })
  })
}
