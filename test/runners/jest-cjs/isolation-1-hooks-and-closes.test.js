// Runs first in the worker (jest --runInBand --testSequencer test/runners/sequencer.cjs: files run by name): hooks, then restores and closes without one request (enough to leave nock active, before the fix).
const { createDockside } = require('dockside')

test('a file that hooks and closes', async () => {
  const fake = createDockside({ seed: 1 })
  const hooks = await fake.intercept()
  hooks.restore()
  await fake.close()
})
