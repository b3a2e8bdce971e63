import { afterAll, beforeAll, expect, test } from 'vitest'
import { createDockside, type Dockside, type FleetMember } from 'dockside'

// CI starts one `dockside serve` for the whole job (a service container, a sidecar) and sets DOCKSIDE_URL.
// Run alone, this file starts one in process, so the example works anywhere.
let sidecar: Dockside | undefined
let base = process.env.DOCKSIDE_URL ?? ''
let mine: FleetMember

beforeAll(async () => {
  if (!base) {
    sidecar = createDockside({ fleet: true, clock: 'auto' })
    base = (await sidecar.listen({ port: 0 })).url
  }
  // One fake per worker, on its own port: vitest numbers its workers in VITEST_POOL_ID, jest in JEST_WORKER_ID.
  const worker = Number(process.env.VITEST_POOL_ID ?? process.env.JEST_WORKER_ID ?? 1)
  const res = await fetch(`${base}/_dockside/fakes`, {
    method: 'POST',
    body: JSON.stringify({ seed: worker, scenario: { images: [{ name: 'localhost:5000/team/app', tags: ['1.0'] }] } }),
  })
  expect(res.status).toBe(201)
  mine = (await res.json()) as FleetMember
})

afterAll(async () => {
  await fetch(`${base}/_dockside/fakes/${mine.id}`, { method: 'DELETE' })
  await sidecar?.close()
})

test('this worker has a fake of its own', async () => {
  // Point the code under test at mine.url / mine.wsUrl (e.g. DOCKER_HOST=tcp://127.0.0.1:PORT for the docker CLI).
  await fetch(`${mine.url}/_dockside/containers`, { method: 'POST', body: JSON.stringify({ name: 'job', image: 'busybox', start: true }) })
  const containers = (await (await fetch(`${mine.url}/containers/json`)).json()) as { Names: string[] }[]
  expect(containers.map((c) => c.Names[0])).toEqual(['/job'])
  const push = await fetch(`${mine.url}/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST' })
  expect((await push.text()).trim().split('\n').at(-1)).toContain('"Tag":"1.0"')
  const { count } = (await (await fetch(`${mine.url}/_dockside/requests?method=POST&path=/images/*/push`)).json()) as { count: number }
  expect(count).toBe(1)
})
