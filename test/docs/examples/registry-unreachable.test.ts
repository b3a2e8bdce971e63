import { expect, test } from 'vitest'
import { createDockside } from 'dockside'

test('a registry that dies mid-push: the daemon’s retries, on the clock', async () => {
  await using fake = createDockside({ clock: 'auto' })
  fake.images.add('localhost:5000/team/app:1.0', { layers: 2 })
  fake.faults.add({ on: 'push', unreachable: true, afterBytes: 0 })
  const { url } = await fake.listen({ port: 0 })
  const res = await fetch(`${url}/images/localhost:5000/team/app/push?tag=1.0`, { method: 'POST' })
  const lines = (await res.text()).trim().split('\r\n').map((l) => JSON.parse(l))
  // 5 + 10 + 15 + 20 countdown lines for each of the two layers, 50 s of clock time and none of the wall.
  expect(lines.filter((l) => l.status?.startsWith('Retrying in'))).toHaveLength(100)
  expect(lines.at(-1).error).toBe('dial tcp 127.0.0.1:5000: connect: connection refused')
})
