// docs/jest.md ("Your own nock or MSW beside the hooks"): after the last restore(), nock's interceptors leave node:http
// and fetch in the next event-loop turn, so that the next test's intercept() does not patch them again. MSW's own
// setupServer then works from the next turn on; in the same turn it fails. Both pinned, so that the doc changes when
// either does.
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { expect, it } from 'vitest'
import { createDockside } from '../../../src/index'

const turn = () => new Promise((resolve) => setImmediate(resolve))

it("MSW's setupServer after the last restore(): refused in the same turn, answers from the next one", async () => {
  const fake = createDockside()
  const hooks = await fake.intercept()
  expect((await fetch(`${hooks.baseUrl}/_ping`)).status).toBe(200)
  hooks.restore()
  await fake.close()
  const early = setupServer(http.get('http://api.test/x', () => HttpResponse.json({ ok: 1 })))
  expect(() => early.listen()).toThrow(/already replaced/)
  early.close()
  await turn()
  const server = setupServer(http.get('http://api.test/x', () => HttpResponse.json({ ok: 1 })))
  server.listen()
  try {
    expect(await (await fetch('http://api.test/x')).json()).toEqual({ ok: 1 })
  } finally {
    server.close()
  }
  // And the hooks install again after MSW has gone.
  await turn()
  await using again = await createDockside().intercept()
  expect((await fetch(`${again.baseUrl}/_ping`)).status).toBe(200)
})
