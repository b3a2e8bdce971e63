import type { Dockside } from '../../src/index'

/** The result of opening an events websocket through some way in. */
export interface WsProbe {
  /** 101 when the upgrade succeeded, else the refusal's HTTP status (0 when the way in cannot see it). */
  readonly status: number
  /** The refusal's body (JSON text), when the way in can see it. */
  readonly body: string | undefined
  /** The refusal's headers (lower-case names), when the way in can see them. */
  readonly headers: Record<string, string>
  /** Frames received so far. */
  readonly messages: string[]
  /** Resolves with the next frame not yet taken by nextMessage(). */
  nextMessage(): Promise<string>
  /** Resolves when the socket closes. */
  readonly closed: Promise<{ code: number; reason: string }>
  /** Closes from the client side. */
  close(code?: number, reason?: string): void
}

/** One way into the fake: the conformance suite runs every case through each. */
export interface Harness {
  /** The base URL the client uses for HTTP (`http://127.0.0.1:PORT` or `https://us-west-1.hyper.test`). */
  readonly baseUrl: string
  /** The websocket base URL. */
  readonly wsBaseUrl: string
  fetch(path: string, init?: RequestInit): Promise<Response>
  /** Opens `GET {wsBaseUrl}{path}`; resolves once open or refused. `rawPath` is sent unencoded where the way in allows. */
  connect(path: string): Promise<WsProbe>
  close(): Promise<void>
}

export interface WayIn {
  readonly name: string
  start(fake: Dockside): Promise<Harness>
  /** Cases this way in cannot run, with the reason. */
  readonly unsupported?: Record<string, string>
}

/** A conformance case: written once, run on every way in. */
export interface Case {
  name: string
  run(ctx: { fake: Dockside; h: Harness }): Promise<void>
  /** Options for createDockside. */
  options?: Parameters<typeof import('../../src/index').createDockside>[0]
}

/**
 * A refused handshake's headers and JSON body. Every way in shows them (a way in that cannot must list the
 * case in `unsupported`, which the suite reports as skipped), so a missing body fails the case.
 */
export function refusal(p: WsProbe): { message: string; headers: Record<string, string>; body: string } {
  if (p.body === undefined) throw new Error(`the refusal (status ${p.status}) came without its body: this way in cannot show it`)
  return { message: JSON.parse(p.body).message, headers: p.headers, body: p.body }
}
