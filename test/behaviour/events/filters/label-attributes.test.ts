import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'
import { enc } from '../../../support/helpers'

// Docker's `label` event filter matches the event's Actor.Attributes (the daemon's matchLabels(ev.Actor.Attributes)):
// the labels with the built-in attributes written over them. So `name=clash` matches the container named clash, and
// its label `name=evil`, which the frame does not show, matches nothing: the filter agrees with the frame it selects.

const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

const FILTERS = [['name=evil'], ['name=clash'], ['image=nginx:1.27'], ['exitCode=0'], ['sh_hyper_instancetype'], ['app=web', 'name=clash'], ['app=web', 'name=evil']]

it('a label filter matches the attributes the frame shows, built-ins over labels, on the websocket and GET /events', async () => {
  const fake = createDockside({ seed: 2 })
  open.push(fake)
  await using server = await fake.listen({ port: 0 })
  const sockets = await Promise.all(
    FILTERS.map(async (label) => {
      const ws = new WebSocket(`${server.wsUrl}/events/ws?filters=${enc({ label })}`)
      const frames: string[] = []
      ws.onmessage = (m) => frames.push(String(m.data))
      await new Promise((resolve) => (ws.onopen = resolve))
      return { label, ws, frames }
    }),
  )
  fake.containers.create({ name: 'clash', image: 'nginx:1.27', labels: { name: 'evil', app: 'web' } }).start()
  fake.containers.create({ name: 'last', image: 'busybox', labels: { app: 'web' } }).start()
  // A restart closes every socket after the frames sent before it: each close says that socket has all it will get.
  const closed = sockets.map((s) => new Promise((resolve) => (s.ws.onclose = resolve)))
  fake.restart()
  await Promise.all(closed)
  // GET /events replays from since to until, both in the past: it ends once the matching events are out.
  const until = Math.floor(fake.clock.now() / 1000) + 1
  await fake.clock.advance('2s')
  const names = (lines: string[]) => lines.map((l) => (JSON.parse(l) as { Actor: { Attributes: { name: string } } }).Actor.Attributes.name)
  const got: Record<string, string[]> = {}
  for (const s of sockets) {
    const key = s.label.join(' ')
    got[key] = names(s.frames)
    const res = await fetch(`${server.url}/events?since=0&until=${until}&filters=${enc({ label: s.label })}`)
    got[`GET /events ${key}`] = names((await res.text()).split('\n').filter(Boolean))
  }
  expect(got).toEqual({
    'name=evil': [],
    'GET /events name=evil': [],
    'name=clash': ['clash'],
    'GET /events name=clash': ['clash'],
    'image=nginx:1.27': ['clash'],
    'GET /events image=nginx:1.27': ['clash'],
    'exitCode=0': ['clash', 'last'],
    'GET /events exitCode=0': ['clash', 'last'],
    sh_hyper_instancetype: ['clash', 'last'],
    'GET /events sh_hyper_instancetype': ['clash', 'last'],
    'app=web name=clash': ['clash'],
    'GET /events app=web name=clash': ['clash'],
    'app=web name=evil': [],
    'GET /events app=web name=evil': [],
  })
})
