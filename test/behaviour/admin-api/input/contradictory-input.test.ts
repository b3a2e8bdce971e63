// Admin routes given contradictory input, over real HTTP. Found by the admin hunt: `POST /_dockside/containers` takes
// "start" and its other name "running" (docs/scenario.schema.json: "Same as start"); when they disagreed, either true
// won and the container started, whatever the other said.
// Found by the admin API hunt (was test/unit/admin-hunt-routes.test.ts).
import { expect, it } from 'vitest'
import { createDockside } from '../../../../src/index'
import { jsonCaller } from '../../../support/helpers'

it('POST /_dockside/containers refuses "start" and "running" that disagree, and creates nothing', async () => {
  await using fake = createDockside({ clock: { mode: 'virtual' } })
  await using server = await fake.listen({ port: 0 })
  const call = jsonCaller(server.url)
  for (const [start, running] of [[false, true], [true, false]]) {
    expect(await call('POST', '/_dockside/containers', JSON.stringify({ name: 'web', image: 'nginx', start, running }))).toMatchObject({
      status: 400,
      body: { message: `running: is the same field as "start" (the name scenario files use), and the two disagree (start: ${start}, running: ${running}); give one` },
    })
  }
  expect(fake.containers.list()).toEqual([])
  // Agreeing, either name alone, or both: as documented.
  expect(await call('POST', '/_dockside/containers', JSON.stringify({ name: 'a', image: 'nginx', start: true, running: true }))).toMatchObject({ status: 201, body: { state: 'running' } })
  expect(await call('POST', '/_dockside/containers', JSON.stringify({ name: 'b', image: 'nginx', running: true }))).toMatchObject({ status: 201, body: { state: 'running' } })
  expect(await call('POST', '/_dockside/containers', JSON.stringify({ name: 'c', image: 'nginx', start: false, running: false }))).toMatchObject({ status: 201, body: { state: 'created' } })
})

// Found by the same hunt: a scenario file in JSON refuses a key given twice (docs/scenarios.md), but the same text sent
// to POST /_dockside/scenario was applied as JSON.parse read it, the last "containers" alone, and answered 200.
it('POST /_dockside/scenario refuses a key given twice, as a .json scenario file does, and applies nothing', async () => {
  await using fake = createDockside({ clock: { mode: 'virtual' } })
  await using server = await fake.listen({ port: 0 })
  const call = jsonCaller(server.url)
  const body = '{\n  "containers": [{"name": "web", "image": "nginx"}],\n  "containers": [{"name": "db", "image": "postgres"}]\n}'
  expect(await call('POST', '/_dockside/scenario', body)).toMatchObject({
    status: 400,
    body: { message: '(scenario): at line 3, column 3: expected valid JSON with each key once in an object: "containers" is given twice (JSON.parse would keep only the last)' },
  })
  expect(fake.containers.list()).toEqual([])
  expect(await call('POST', '/_dockside/scenario', '{"containers": [{"name": "web", "image": "nginx"}]}')).toMatchObject({ status: 200 })
  expect(fake.containers.list().map((c) => c.name)).toEqual(['web'])
})
