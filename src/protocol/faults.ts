import type { FaultAction, FaultDecision } from '../faults/plan'
import type { Service } from '../core/service'
import { jsonError } from './http'
import type { ProtoResponse } from './types'

/** The decision of `kind` among a request's fault decisions, typed by its action. */
export const findAction = <K extends FaultAction['kind']>(ds: readonly FaultDecision[], kind: K) => {
  // A loop, not `find` with a callback: no closure per call on the connect path, which asks for several kinds.
  for (let i = 0; i < ds.length; i++) if (ds[i]!.action.kind === kind) return ds[i] as FaultDecision & { action: Extract<FaultAction, { kind: K }> }
  return undefined
}

/** A refusal (rate limit or fault reply): JSON `{"message"}` plus `Retry-After` when there is one. */
export function refusalResponse(status: number, message: string, retryAfter?: number): ProtoResponse & { body: string } {
  return jsonError(status, message, retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : {})
}

/** Waits for the client to go away (a stall): headers or a handshake, then silence. */
export { untilAborted } from '../service/abort'

/**
 * Applies a `latency` decision's connect delay (plus its seeded jitter) on the clock.
 * Resolves true to go on, false when the client went away meanwhile. With no connect delay, nothing waits.
 */
export function connectLatency(svc: Service, ds: readonly FaultDecision[], signal: AbortSignal): boolean | Promise<boolean> {
  const lat = findAction(ds, 'latency')
  // At once when there is nothing to wait for: the caller awaits only a promise.
  if (!lat || lat.action.connectMs === 0) return true
  const ms = lat.action.connectMs + svc.faults.jitter(lat.rule.id, lat.action.jitterMs, 'connect')
  return svc.clock.sleep(ms, signal, 'wait')
}
