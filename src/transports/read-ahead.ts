// The pump shared by the transports that hand a protocol body to a consumer that pulls (nock's playback in
// intercept/http.ts, MSW's ReadableStream in msw/index.ts). No Node built-ins: the MSW transport runs in browsers.

/** Chunks read ahead of the client, standing in for a socket's buffer (backpressure beyond that). */
export const READ_AHEAD = 64

/**
 * Reads the protocol's async-iterable body ahead of its consumer, like the server's write loop: the next chunk is
 * asked for as soon as the previous one is queued (up to {@link READ_AHEAD} chunks, which is backpressure), not when
 * the client gets around to reading. A push paced by the clock thus moves as far per `clock.advance()` as on the
 * server, whatever the hops between here and the client. A failure (a TransportReset) reaches the client after the
 * chunks queued before it, as on the server. Empty chunks are skipped; `first` (an empty chunk) goes out at once so
 * the headers are written before the first line, as the server's flushHeaders() does.
 */
export class ReadAhead<T> {
  readonly #iterator: AsyncIterator<string>
  readonly #queue: T[]
  #ended = false
  #stopped = false
  #failure: unknown
  #wake: (() => void) | undefined
  #space: (() => void) | undefined

  constructor(body: AsyncIterable<string>, encode: (text: string) => T, first: T) {
    this.#iterator = body[Symbol.asyncIterator]()
    this.#queue = [first]
    void this.#pump(encode)
  }

  /** Whether the consumer went away ({@link stop}). */
  get stopped(): boolean {
    return this.#stopped
  }

  /**
   * The next chunk, or `undefined` when the body ended or the consumer stopped (see {@link stopped}). After the last
   * queued chunk of a body that failed, it throws that failure.
   */
  async take(): Promise<T | undefined> {
    for (;;) {
      if (this.#stopped) return undefined
      if (this.#queue.length) {
        const chunk = this.#queue.shift()!
        this.#release()
        return chunk
      }
      if (this.#ended) {
        if (this.#failure !== undefined) throw this.#failure
        return undefined
      }
      await new Promise<void>((resolve) => (this.#wake = resolve))
    }
  }

  /** The consumer went away (cancel, abort) or is done: end the protocol's body as the server does (a push is cancelled). */
  stop(): void {
    if (this.#stopped) return
    this.#stopped = true
    this.#release()
    this.#notify()
    if (!this.#ended) void Promise.resolve(this.#iterator.return?.()).catch(() => {})
  }

  async #pump(encode: (text: string) => T) {
    try {
      while (!this.#stopped) {
        const { value, done } = await this.#iterator.next()
        if (done || this.#stopped) break
        if (value === '') continue
        this.#queue.push(encode(value))
        this.#notify()
        if (this.#queue.length >= READ_AHEAD) await new Promise<void>((resolve) => (this.#space = resolve))
      }
    } catch (error) {
      this.#failure = error
    }
    this.#ended = true
    this.#notify()
  }

  #notify() {
    this.#wake?.()
    this.#wake = undefined
  }

  #release() {
    this.#space?.()
    this.#space = undefined
  }
}
