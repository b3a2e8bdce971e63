// The server corks each events websocket for the turn that sends to it and writes the turn's frames in one system
// call (decision 0016). A turn that sends far more than that, such as a script emitting thousands of events in one
// synchronous loop, must still go out as it is written (uncorked past 64 KiB): held back, the frames would count as
// the reading client's backlog and close it with 1013 although it reads everything.
import WebSocket from 'ws'
import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'

let fake: Dockside | undefined
afterEach(async () => {
  await fake?.close()
  fake = undefined
})

it('1,200 events emitted in one synchronous loop reach a reading client whole, under a 256 KiB maxBacklog', async () => {
  fake = createDockside({ seed: 1, maxBacklog: '256KiB' })
  const server = await fake.listen({ port: 0 })
  const ws = new WebSocket(`${server.wsUrl}/events/ws?client=reader`)
  const frames: string[] = []
  ws.on('message', (d) => frames.push(d.toString()))
  const closed = new Promise<number>((resolve) => ws.on('close', resolve))
  await new Promise((resolve) => ws.on('open', resolve))
  const web = fake.containers.create({ name: 'web', image: 'nginx', labels: { app: 'web' } })
  // ~380 KB of frames in one turn: half as much again as maxBacklog, six times the uncork size.
  for (let i = 0; i < 600; i++) {
    web.start()
    web.stop()
  }
  await expect.poll(() => frames.length, { timeout: 10_000 }).toBe(1200)
  expect(fake.journal.ofType('ws.backlog')).toEqual([])
  expect(JSON.parse(frames[1199]).status).toBe('stop')
  ws.close(1000)
  expect(await closed).toBe(1000)
  expect(fake.deliveries.report('reader')).toMatchObject({ expected: 1200, delivered: 1200, missed: [] })
})
