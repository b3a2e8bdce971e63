// The events websocket's sub-protocol choice, shared by both ways in so that a client sees the same `protocol`.

/**
 * The sub-protocol the fake answers in `Sec-WebSocket-Protocol`, given the ones the client offered in its order:
 * the first, as the `ws` server does by default (the real service names none of its own). Undefined when none was
 * offered: the answer then carries no `Sec-WebSocket-Protocol` and the client's `protocol` stays `''`.
 */
export function chooseSubprotocol(offered: Iterable<string>): string | undefined {
  for (const p of offered) return p
  return undefined
}

