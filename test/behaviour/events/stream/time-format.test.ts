import { afterEach, expect, it } from 'vitest'
import { createDockside, type Dockside } from '../../../../src/index'
import { hasCommand, skipUnless } from '../../../clients/support/clients'
import { dockerCli } from '../../../clients/support/docker-cli'

// `timeFormat: 'float'` writes the spec sample's notation on the events websocket. Docker's `GET /events` is Docker's
// own endpoint: its clients decode `time` and `timeNano` as int64, so it always writes integers (a float there made
// `docker events` fail with "cannot unmarshal number 1.7672256e+09 into Go struct field ... of type int64").

const open: Dockside[] = []
afterEach(async () => {
  for (const f of open.splice(0)) await f.close()
})

async function floatFake() {
  const fake = createDockside({ seed: 5, timeFormat: 'float' })
  open.push(fake)
  const server = await fake.listen({ port: 0 })
  const web = fake.containers.create({ name: 'web', image: 'nginx' })
  web.start()
  await fake.clock.advance('1s')
  web.stop()
  return { fake, server, web }
}

it('GET /events writes integer time and timeNano under timeFormat float; the websocket frame keeps the float', async () => {
  const { fake, server } = await floatFake()
  const start = Date.parse('2026-01-01T00:00:00Z') / 1000
  const res = await fetch(`${server.url}/events?since=0&until=${start + 1}`)
  // The text, not the parsed numbers: JSON.parse reads 1.7672256e+09 as the same number.
  const tails = (await res.text()).trim().split('\n').map((l) => l.slice(l.indexOf('"time"')))
  expect(tails).toEqual([`"time":${start},"timeNano":${start}000000000}`, `"time":${start + 1},"timeNano":${start + 1}000000000}`])
  expect(fake.events.lastSeq).toBe(2)
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/events/ws?since=0`)
  const frame = await new Promise<string>((resolve, reject) => {
    ws.onmessage = (m) => resolve(String(m.data))
    ws.onerror = () => reject(new Error('websocket error'))
  })
  ws.close()
  expect(frame).toMatch(/"time":1\.7672256e\+09,"timeNano":1\.7672256e\+18}$/)
})

it.skipIf(skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli'))('docker events prints the events of a timeFormat float fake', async () => {
  const { server, web } = await floatFake()
  using cli = dockerCli(server.url)
  const start = Date.parse('2026-01-01T00:00:00Z') / 1000
  const r = await cli.docker(['events', '--since', '0', '--until', String(start + 1), '--format', '{{.Action}} {{.Time}} {{.TimeNano}}'])
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  expect(r.stdout.trim().split('\n')).toEqual([`start ${start} ${start}000000000`, `stop ${start + 1} ${start + 1}000000000`])
  expect(web.id).toMatch(/^[0-9a-f]{64}$/)
})
