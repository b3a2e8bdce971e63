// Runs second in the same worker: its streamed push must not see anything the first file left behind
// (it failed with `TypeError: terminated`).
import { test, expect } from '@jest/globals'
import { createDockside, drainWithClock } from 'dockside'

test('the next file streams a push', async () => {
  const fake = createDockside({ seed: 2 })
  const hooks = await fake.intercept()
  fake.images.add('localhost:5000/app', { tags: ['1'], layers: 2 })
  const res = await fetch('https://us-west-1.hyper.test/images/localhost:5000/app/push?tag=1', { method: 'POST' })
  expect(await drainWithClock(res, fake)).toContain('"aux"')
  hooks.restore()
  await fake.close()
})
