import type { Container } from '../service/containers'
import type { Service } from '../service/service'
import { familiarName } from './docker-images'
import { json, type Target } from './http'
import type { ProtoRequest, ProtoResponse } from './types'

const ZERO_TIME = '0001-01-01T00:00:00Z'
const iso = (ms: number | undefined) => (ms === undefined ? ZERO_TIME : new Date(ms).toISOString())

/** Docker's units.HumanDuration, as `docker ps` prints it in STATUS. */
export function humanDuration(ms: number): string {
  const s = Math.floor(ms / 1000)
  if (s < 1) return 'Less than a second'
  if (s === 1) return '1 second'
  if (s < 60) return `${s} seconds`
  const m = Math.floor(s / 60)
  if (m === 1) return 'About a minute'
  if (m < 60) return `${m} minutes`
  const h = Math.round(s / 3600)
  if (h === 1) return 'About an hour'
  if (h < 48) return `${h} hours`
  if (h < 24 * 7 * 2) return `${Math.floor(h / 24)} days`
  if (h < 24 * 30 * 2) return `${Math.floor(h / 24 / 7)} weeks`
  if (h < 24 * 365 * 2) return `${Math.floor(h / 24 / 30)} months`
  return `${Math.floor(h / 24 / 365)} years`
}

function status(c: Container, now: number): string {
  if (c.state === 'running') return `Up ${humanDuration(now - (c.startedAt ?? now))}`
  if (c.state === 'exited') return `Exited (${c.exitCode}) ${humanDuration(now - (c.finishedAt ?? now))} ago`
  return 'Created'
}

const imageId = (svc: Service, c: Container) => svc.images.resolve(familiarName(c.image))?.id ?? ''

function summary(svc: Service, c: Container) {
  // Field set of Docker's container Summary (API 1.47); `docker ps` reads Names, Image, Command, Created, Status, Ports.
  return {
    Id: c.id,
    Names: [`/${c.name}`],
    Image: c.image,
    ImageID: imageId(svc, c),
    Command: 'sh',
    Created: Math.floor(c.created / 1000),
    Ports: [],
    Labels: c.labels,
    State: c.state,
    Status: status(c, svc.clock.now()),
    HostConfig: { NetworkMode: 'default' },
    NetworkSettings: { Networks: {} },
    Mounts: [],
  }
}

function inspect(svc: Service, c: Container) {
  return {
    Id: c.id,
    Created: iso(c.created),
    Path: 'sh',
    Args: [],
    State: {
      Status: c.state,
      Running: c.state === 'running',
      Paused: false,
      Restarting: false,
      OOMKilled: false,
      Dead: false,
      Pid: 0,
      ExitCode: c.exitCode,
      Error: '',
      StartedAt: iso(c.startedAt),
      FinishedAt: iso(c.finishedAt),
    },
    Image: imageId(svc, c),
    Name: `/${c.name}`,
    RestartCount: 0,
    Driver: 'overlay2',
    Platform: 'linux',
    HostConfig: { NetworkMode: 'default' },
    Config: { Hostname: c.id.slice(0, 12), Image: c.image, Labels: { ...c.labels, sh_hyper_instancetype: c.instanceType }, Env: [], Cmd: ['sh'] },
    NetworkSettings: { Networks: {} },
    Mounts: [],
  }
}

const CONTAINER = /^\/containers\/([^/]+)\/(json|start|stop)$/

/** `GET /containers/json`, `GET /containers/{id}/json`, `POST /containers/{id}/start|stop`. Undefined for other paths. */
export function handleContainers(svc: Service, req: ProtoRequest, target: Target): ProtoResponse | undefined {
  if (target.path === '/containers/json' && req.method === 'GET') {
    const all = ['1', 'true', 'True'].includes(target.query.get('all') ?? '')
    const list = svc.containers.list().filter((c) => all || c.state === 'running')
    return json(200, list.sort((a, b) => b.created - a.created).map((c) => summary(svc, c)))
  }
  const m = CONTAINER.exec(target.path)
  if (!m) return undefined
  let ref = m[1]
  try {
    ref = decodeURIComponent(ref)
  } catch {
    // keep the raw reference; the lookup fails with a clear message
  }
  const [, , action] = m
  if (action === 'json' && req.method === 'GET') return json(200, inspect(svc, svc.containers.get(ref)))
  if (req.method !== 'POST' || action === 'json') return undefined
  const c = svc.containers.get(ref)
  // Docker answers 304 when the container is already in the wanted state; the CLI treats it as success.
  if (action === 'start') {
    if (c.state === 'running') return { status: 304, headers: {} }
    c.start()
  } else {
    if (c.state !== 'running') return { status: 304, headers: {} }
    c.stop({ exitCode: 0 })
  }
  svc.journal.record(`container.${action}`, { id: c.id, name: c.name, via: 'docker-api' })
  return { status: 204, headers: {} }
}
