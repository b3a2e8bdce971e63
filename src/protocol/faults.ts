import type { FaultAction, FaultDecision } from '../faults/plan'
import type { Service } from '../service/service'
import { jsonError } from './http'
import type { ProtoResponse } from './types'

/** The decision of `kind` among a request's fault decisions, typed by its action. */
export const findAction = <K extends FaultAction['kind']>(ds: readonly FaultDecision[], kind: K) =>
  ds.find((d) => d.action.kind === kind) as (FaultDecision & { action: Extract<FaultAction, { kind: K }> }) | undefined

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
export async function connectLatency(svc: Service, ds: readonly FaultDecision[], signal: AbortSignal): Promise<boolean> {
  const lat = findAction(ds, 'latency')
  if (!lat || lat.action.connectMs === 0) return true
  const ms = lat.action.connectMs + svc.faults.jitter(lat.rule.id, lat.action.jitterMs, 'connect')
  return svc.clock.sleep(ms, signal, 'wait')
}
