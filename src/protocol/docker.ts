import type { Service } from '../service/service'
import { handleContainers } from './docker-containers'
import { handleImages } from './docker-images'
import { json, text, type Target } from './http'
import type { ProtoRequest, ProtoResponse } from './types'

/** The API version the fake announces. */
export const API_VERSION = '1.47'

const versionHeaders = { 'api-version': API_VERSION, ostype: 'linux', 'docker-experimental': 'false' }

/**
 * Docker-compatible routes the `docker` CLI and dockerode call: ping, version, info, images, containers.
 * Returns undefined for paths it does not serve. See docs/docker-compat.md.
 */
export async function handleDocker(svc: Service, req: ProtoRequest, target: Target): Promise<ProtoResponse | undefined> {
  const { path } = target
  if (path === '/_ping' && (req.method === 'GET' || req.method === 'HEAD')) {
    const res = text(200, 'OK', { ...versionHeaders, 'cache-control': 'no-cache, no-store, must-revalidate', pragma: 'no-cache' })
    return req.method === 'HEAD' ? { ...res, body: undefined } : res
  }
  if (path === '/version' && req.method === 'GET') {
    return json(200, {
      Platform: { Name: 'dockside' },
      Version: '28.2.2',
      ApiVersion: API_VERSION,
      MinAPIVersion: '1.24',
      Os: 'linux',
      Arch: 'amd64',
      KernelVersion: 'dockside',
      GoVersion: 'go1.24',
      GitCommit: 'dockside',
      BuildTime: new Date(svc.clock.startedAt).toISOString(),
    }, versionHeaders)
  }
  if (path === '/info' && req.method === 'GET') {
    const containers = svc.containers.list()
    return json(200, {
      ID: 'dockside',
      Name: 'dockside',
      Containers: containers.length,
      ContainersRunning: containers.filter((c) => c.state === 'running').length,
      ContainersPaused: 0,
      ContainersStopped: containers.filter((c) => c.state !== 'running').length,
      // Docker counts images, not tags: two tags of one image are one.
      Images: new Set(svc.images.list().map((e) => e.image)).size,
      ServerVersion: '28.2.2',
      OperatingSystem: 'dockside (fake)',
      OSType: 'linux',
      Architecture: 'x86_64',
      NCPU: 2,
      MemTotal: 0,
      Driver: 'dockside',
      SystemTime: new Date(svc.clock.now()).toISOString(),
    }, versionHeaders)
  }
  if (path.startsWith('/images/')) return handleImages(svc, req, target)
  if (path.startsWith('/containers/')) return handleContainers(svc, req, target)
  return undefined
}
