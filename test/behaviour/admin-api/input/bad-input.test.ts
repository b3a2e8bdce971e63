// Regressions found by the fidelity audit: bad input to the admin API and the clock.
import { afterEach, describe, expect, it } from 'vitest'
import { createDockside, demoScenario } from '../../../../src/index'
import { createClock } from '../../../../src/time/clock'

const fakes: { close(): Promise<void> }[] = []
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.close()
})

async function started() {
  const fake = createDockside({ scenario: demoScenario })
  fakes.push(fake)
  const server = await fake.listen({ port: 0 })
  return { fake, url: server.url }
}

describe('admin API bad input (audit)', () => {
  it('bug: a malformed percent-encoded container ref answered 500 "URI malformed"; now 400 naming the part', async () => {
    const { url } = await started()
    const res = await fetch(`${url}/_dockside/containers/%E0%A4%A/start`, { method: 'POST' })
    expect(res.status).toBe(400)
    expect((await res.json()).message).toMatch(/Invalid percent-encoding in "%E0%A4%A"/)
  })

  it('bug: GET /_dockside/journal?after=abc answered 200 [] instead of refusing', async () => {
    const { url } = await started()
    const res = await fetch(`${url}/_dockside/journal?after=abc`)
    expect(res.status).toBe(400)
    expect((await res.json()).message).toMatch(/Invalid "after" "abc".*integer >= 0/)
    expect((await fetch(`${url}/_dockside/journal?after=1`)).status).toBe(200)
  })

  it('bug: a fault rule with a misspelt field was stored and silently ignored; now 400 with the allowed fields', async () => {
    const { url } = await started()
    const res = await fetch(`${url}/_dockside/faults`, { method: 'POST', body: JSON.stringify({ on: 'push', error: 'boom', afterLayers: 2 }) })
    expect(res.status).toBe(400)
    expect((await res.json()).message).toMatch(/^fault rule: unknown field "afterLayers"; allowed: .*afterLayer/)
    expect(await (await fetch(`${url}/_dockside/faults`)).json()).toEqual([])
  })

  it('bug: advancing the demo by a day answered 500 (loop limit counted every timer of a bounded advance)', async () => {
    const { fake, url } = await started()
    const res = await fetch(`${url}/_dockside/clock/advance`, { method: 'POST', body: JSON.stringify({ by: '1d' }) })
    expect(res.status).toBe(200)
    expect(fake.clock.elapsed()).toBe(86_400_000)
  })

  it('an absurd advance over a repeating timeline fails with a 400 saying where the clock stopped, not a hang or a 500', async () => {
    const { url } = await started()
    // Since issue 8 an advance is bounded up front: 100 years at most, refused before any timer fires.
    const res = await fetch(`${url}/_dockside/clock/advance`, { method: 'POST', body: JSON.stringify({ by: 1e300 }) })
    expect(res.status).toBe(400)
    expect((await res.json()).message).toMatch(/Invalid clock advance 1e\+300: longer than the 100-year maximum; expected from 0 to 3153600000000 ms/)
  })

  it('the clock still catches work that reschedules itself with no delay', async () => {
    const clock = createClock({ loopLimit: 5 })
    const again = () => void clock.schedule(0, again)
    clock.schedule(0, again)
    await expect(clock.advance('1s')).rejects.toThrow(/more than 5 timers fired during advance\(\) at one instant/i)
  })
})

// Regression: admin bodies for containers, images, registries, sockets and the clock ignored unknown
// fields, so a typo ("lables", "exitcode") was silently dropped.
it('admin bodies refuse unknown fields and list the allowed ones', async () => {
  await using fake = createDockside()
  const server = await fake.listen({ port: 0 })
  const cases: [string, object, RegExp][] = [
    ['/_dockside/containers', { name: 'web', image: 'nginx', lables: { app: 'web' } }, /^request body: unknown field "lables"; allowed: id, name, image, labels, instanceType, networkMode, start, running$/],
    ['/_dockside/images', { name: 'app', tag: '1' }, /^request body: unknown field "tag"; allowed: name, tags, layers, id, manifest$/],
    ['/_dockside/registries', { host: 'localhost:5000', user: 'a' }, /unknown field "user"; allowed: host, username, password, token/],
    ['/_dockside/sockets/close', { code: 1000, why: 'x' }, /unknown field "why"; allowed: code, reason/],
    ['/_dockside/clock/advance', { by: '1s', unit: 's' }, /unknown field "unit"; allowed: by/],
  ]
  for (const [path, body, message] of cases) {
    const res = await fetch(server.url + path, { method: 'POST', body: JSON.stringify(body) })
    expect(res.status, path).toBe(400)
    expect((await res.json()).message).toMatch(message)
  }
  expect(fake.containers.list()).toEqual([])
  fake.containers.create({ name: 'web', image: 'nginx' }).start()
  const stop = await fetch(`${server.url}/_dockside/containers/web/stop`, { method: 'POST', body: JSON.stringify({ exitcode: 1 }) })
  expect(stop.status).toBe(400)
  expect(fake.containers.get('web').state).toBe('running')
})
