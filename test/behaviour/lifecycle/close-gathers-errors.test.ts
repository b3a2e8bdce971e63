import { expect, it, vi } from 'vitest'
import { createDockside } from '../../../src/index'

// Regression: close() let an exception from restoring in-process hooks escape before the sockets and the
// clock were closed, and lost the errors of the steps before it. Every step now runs and failures are gathered.
it('close() runs every teardown step and reports each failure in one AggregateError', async () => {
  const fake = createDockside()
  const server = await fake.listen({ port: 0 })
  const hooks = await fake.intercept()
  const restore = hooks.restore.bind(hooks)
  vi.spyOn(hooks, 'restore').mockImplementation(() => {
    restore()
    throw new Error('restore failed')
  })
  fake.containers.create({ name: 'web', image: 'nginx' }).start()
  fake.clock.schedule('1h', () => {})

  const error = await fake.close().then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(AggregateError)
  expect((error as AggregateError).errors.map((e: Error) => e.message)).toEqual(['restore failed'])
  // The steps after the failing one still ran: the clock is disposed and the server no longer answers.
  expect(fake.clock.pending).toBe(0)
  await expect(fetch(`${server.url}/_ping`)).rejects.toThrow()
  // And close() stays idempotent.
  await expect(fake.close()).resolves.toBeUndefined()
})
