// Regression: a container's labels differed between the list and inspect. `docker inspect -f '{{json .Config.Labels}}'
// web` showed `"sh_hyper_instancetype":"s4"`, `GET /containers/json` did not, and `docker ps -a --filter
// label=sh_hyper_instancetype=s4` listed nothing. In Docker the list, inspect and the label filter all read the one
// Config.Labels. On Hyper.sh the instance type is that label: hypercli's `run --size` adds
// `sh_hyper_instancetype=<size>` to the labels, Docker SDK users set it as a label, and that is why events carry it in
// Actor.Attributes (the daemon copies Config.Labels there). So the list shows it, the filter finds it, and a container
// created with the label (and no instanceType) has that instance type.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDockside, type Dockside, type DocksideServer } from '../../../../src/index'
import { hasCommand, skipUnless } from '../../../clients/support/clients'
import { dockerCli } from '../../../clients/support/docker-cli'

const skip = skipUnless(hasCommand('docker'), 'the docker CLI', 'apt-get install docker-cli (Debian trixie+) or docker.io (bookworm)')

let fake: Dockside
let server: DocksideServer
beforeEach(async () => {
  fake = createDockside({ clock: 'auto', seed: 21 })
  fake.images.add('nginx', { layers: 1 })
  fake.containers.create({ name: 'web', image: 'nginx', labels: { app: 'web', tier: '', eq: 'a=b' } }).start()
  fake.containers.create({ name: 'db', image: 'nginx' })
  fake.containers.create({ name: 'api', image: 'nginx', labels: { app: 'api' }, instanceType: 'm1' })
  server = await fake.listen({ port: 0 })
})
afterEach(() => fake.close())

const ids = (...names: string[]) => names.map((n) => fake.containers.get(n).id).sort()
const lines = (stdout: string) => stdout.trim().split('\n').filter(Boolean).sort()

describe.skipIf(skip)('docker CLI: the instance type is a label in ps, its filter and inspect alike', () => {
  it('bug: `docker ps -a --filter label=sh_hyper_instancetype=s4` listed nothing', async () => {
    using cli = dockerCli(server.url)
    const s4 = await cli.docker(['ps', '-a', '-q', '--no-trunc', '--filter', 'label=sh_hyper_instancetype=s4'])
    expect([s4.code, s4.stderr]).toEqual([0, ''])
    expect(lines(s4.stdout)).toEqual(ids('web', 'db'))
    expect(lines((await cli.docker(['ps', '-a', '-q', '--no-trunc', '--filter', 'label=sh_hyper_instancetype'])).stdout)).toEqual(ids('web', 'db', 'api'))
    expect(lines((await cli.docker(['ps', '-a', '-q', '--no-trunc', '--filter', 'label=sh_hyper_instancetype=m1', '--filter', 'label=app=api'])).stdout)).toEqual(ids('api'))
  })

  it('bug: `docker ps --format {{.Labels}}` lacked the label `docker inspect` shows', async () => {
    using cli = dockerCli(server.url)
    const ps = await cli.docker(['ps', '-a', '--filter', 'name=^web$', '--format', '{{.Labels}}'])
    expect(ps.code).toBe(0)
    // The CLI joins a Go map: its order varies from run to run.
    expect(ps.stdout.trim().split(',').sort()).toEqual(['app=web', 'eq=a=b', 'sh_hyper_instancetype=s4', 'tier='])
    const inspect = await cli.docker(['inspect', '-f', '{{json .Config.Labels}}', 'web'])
    expect(JSON.parse(inspect.stdout)).toEqual({ app: 'web', eq: 'a=b', sh_hyper_instancetype: 's4', tier: '' })
  })
})

describe('GET /containers/json and GET /containers/{id}/json give the same labels', () => {
  it('bug: the list\'s Labels lacked sh_hyper_instancetype; now each is the inspect\'s Config.Labels, keys sorted as Go writes a map', async () => {
    const list = (await (await fetch(`${server.url}/v1.47/containers/json?all=1`)).json()) as { Names: string[]; Labels: Record<string, string> }[]
    expect(list).toHaveLength(3)
    for (const c of list) {
      const inspect = (await (await fetch(`${server.url}/v1.47/containers${c.Names[0]}/json`)).json()) as { Config: { Labels: Record<string, string> } }
      expect(JSON.stringify(c.Labels), c.Names[0]).toBe(JSON.stringify(inspect.Config.Labels))
    }
    expect(JSON.stringify(list.find((c) => c.Names[0] === '/web')!.Labels)).toBe('{"app":"web","eq":"a=b","sh_hyper_instancetype":"s4","tier":""}')
    expect(list.find((c) => c.Names[0] === '/api')!.Labels).toEqual({ app: 'api', sh_hyper_instancetype: 'm1' })
    const filtered = await fetch(`${server.url}/containers/json?all=1&filters=${encodeURIComponent('{"label":["sh_hyper_instancetype=m1"]}')}`)
    expect(((await filtered.json()) as { Names: string[] }[]).map((c) => c.Names)).toEqual([['/api']])
  })

  it('a container created with the label has that instance type (as hypercli and SDK users set it); a contradicting instanceType is refused', async () => {
    const c = fake.containers.create({ name: 'sdk', image: 'nginx', labels: { sh_hyper_instancetype: 'l2' } })
    expect(c.instanceType).toBe('l2')
    c.start()
    expect(fake.events.events.at(-1)).toMatchObject({ instanceType: 'l2' })
    const inspect = (await (await fetch(`${server.url}/containers/sdk/json`)).json()) as { Config: { Labels: Record<string, string> } }
    expect(inspect.Config.Labels).toEqual({ sh_hyper_instancetype: 'l2' })
    expect(fake.containers.create({ name: 'same', image: 'nginx', labels: { sh_hyper_instancetype: 'm1' }, instanceType: 'm1' }).instanceType).toBe('m1')
    expect(() => fake.containers.create({ name: 'both', image: 'nginx', labels: { sh_hyper_instancetype: 'm1' }, instanceType: 's4' })).toThrow(
      'Label "sh_hyper_instancetype" is "m1" but instanceType is "s4": the instance type is that label (hypercli sets it from --size); give one of them, or the same value in both.',
    )
    expect(fake.containers.find('both')).toBeUndefined()
  })
})
