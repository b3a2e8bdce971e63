import WebSocket from 'ws'
import type { WsProbe } from './way-in'

/** Opens a `ws` client (a real socket) and records the handshake, frames and close. */
export function probeWithWs(url: string, headers: Record<string, string> = {}): Promise<WsProbe> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers })
    const messages: string[] = []
    let taken = 0
    const waiters: ((m: string) => void)[] = []
    let closeResolve!: (v: { code: number; reason: string }) => void
    const closed = new Promise<{ code: number; reason: string }>((r) => (closeResolve = r))
    ws.on('message', (data) => {
      const text = data.toString()
      messages.push(text)
      const w = waiters.shift()
      if (w) {
        taken++
        w(text)
      }
    })
    ws.on('close', (code, reason) => closeResolve({ code, reason: reason.toString() }))
    ws.on('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const headersOut: Record<string, string> = {}
        for (const [k, v] of Object.entries(res.headers)) headersOut[k] = String(v)
        closeResolve({ code: 1006, reason: '' })
        resolve(makeProbe(res.statusCode ?? 0, Buffer.concat(chunks).toString(), headersOut))
      })
    })
    ws.on('error', (e) => {
      if (ws.readyState === WebSocket.CONNECTING) return
      void e
    })
    ws.on('open', () => resolve(makeProbe(101, undefined, {})))
    const makeProbe = (status: number, body: string | undefined, h: Record<string, string>): WsProbe => ({
      status,
      body,
      headers: h,
      messages,
      nextMessage: () =>
        taken < messages.length
          ? Promise.resolve(messages[taken++])
          : new Promise<string>((r) => waiters.push(r)),
      closed,
      close: (code, reason) => ws.close(code, reason),
    })
    void reject
  })
}
