import { findPushStreamFault, type FaultAction } from '../faults/plan'
import { splitReference } from '../service/images'
import { pushedByIdProblem, readPushTarget, startPush } from '../service/push'
import { registryHost } from '../service/registries'
import type { Service } from '../core/service'

/** The client name a timeline push is rate-limited, matched and journaled as. */
export const SCENARIO_CLIENT = 'scenario'

/** Why a timeline step's `push` could not start (an invalid reference), or undefined. */
export const pushStepProblem = (ref: string): string | undefined => {
  const target = readPushTarget(ref, undefined)
  return 'problem' in target ? target.problem : undefined
}

/**
 * A timeline step's `push`: the image is pushed from inside the fake, as `POST /images/{name}/push` would push it
 * for a client named "scenario": rate limits and push fault rules apply, progress shows on the dashboard
 * (`svc.pushes`), and the tag is committed to its registry at the end. Runs in the background, on the clock.
 * The name is read as the route reads `{name}`: `docker.io/library/nginx`, as the docker CLI names it, is `nginx`.
 */
export function pushStep(svc: Service, ref: string): void {
  const target = readPushTarget(ref, undefined)
  // Checked when the scenario was (pushStepProblem).
  if ('problem' in target) throw new Error(target.problem)
  // As the route refuses it first: a push takes a tag, never an image id.
  const byId = pushedByIdProblem(svc.images, target)
  if (byId) throw new Error(byId)
  const { repository } = target
  const refused = (message: string) => {
    svc.journal.record('push.refused', { repository, client: SCENARIO_CLIENT, message })
    svc.pushes.begin(repository, [], registryHost(repository), svc.clock.now()).end('failed', message)
  }
  const verdict = svc.rateLimit.check('push', SCENARIO_CLIENT)
  if (!verdict.allowed) return refused(`429 ${verdict.message}`)
  // The route is the path a client pushing the name as written would send (the route's rules match paths as sent);
  // the image is the name as the fake stores it, as the route matches it.
  const decisions = svc.faults.decideAll('push', { route: `/images/${splitReference(ref).repository}/push`, image: target.ref, client: SCENARIO_CLIENT })
  const reply = decisions.find((d) => d.action.kind === 'reply')?.action as Extract<FaultAction, { kind: 'reply' }> | undefined
  if (reply) return refused(`${reply.status} ${reply.message}`)
  const fault = findPushStreamFault(decisions)?.action
  const start = startPush(
    { images: svc.images, registries: svc.registries, clock: svc.clock, journal: svc.journal, bandwidth: svc.options.pushBandwidth, board: svc.pushes },
    { target, signal: svc.clock.lifetime, fault },
  )
  if (start.kind !== 'stream') throw new Error(start.message)
  void (async () => {
    try {
      for await (const _ of start.lines) void _
    } catch {
      // A reset or truncation fault: the push journaled it (push.failed) and the board shows it failed.
    }
  })()
}
