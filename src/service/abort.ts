/**
 * Resolves once any of `signals` aborts (the client went away, or the fake's clock was disposed by a
 * reset or close), and removes its listeners then, so nothing is left on a long-lived signal.
 */
export function untilAborted(...signals: AbortSignal[]): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signals.some((s) => s.aborted)) return resolve()
    const done = () => {
      for (const s of signals) s.removeEventListener('abort', done)
      resolve()
    }
    // No `once`: `done` removes itself from every signal, the one that fired included.
    for (const s of signals) s.addEventListener('abort', done)
  })
}
