import type { Service } from '../../src/core/service'
import { readPushTarget, startPush, type PushRequest, type PushStart } from '../../src/service/push'

/** A push request as a test writes it: the route's `{name}` and `tag` instead of the target read from them. */
export type NamedPush = Omit<PushRequest, 'signal' | 'target'> & { name: string; tag?: string; signal?: AbortSignal }

/** A push as the route starts one: its name and `tag` read once (readPushTarget), then the model's stream. */
export function startNamedPush(svc: Service, { name, tag, ...req }: NamedPush): PushStart | { kind: 'invalid'; message: string } {
  const target = readPushTarget(name, tag)
  if ('problem' in target) return { kind: 'invalid', message: target.problem }
  return startPush(
    { images: svc.images, registries: svc.registries, clock: svc.clock, journal: svc.journal, bandwidth: svc.options.pushBandwidth, board: svc.pushes },
    { signal: new AbortController().signal, ...req, target },
  )
}
