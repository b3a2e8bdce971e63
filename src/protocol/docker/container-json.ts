// A container as Docker's routes show it: `GET /containers/{id}/json` (InspectResponse) and an entry of
// `GET /containers/json` (Summary), every key the daemon writes, in its order, with the zero values a container
// created by a minimal API body (`{"Image": ...}`) has. Two layouts: the 20.10 daemon's for API 1.41 and older (seen
// side by side by `dockside verify`), and Engine 28's (moby v28.2.2's types as encoding/json writes them) above.
import type { Container, NetworkMode } from '../../service/containers'
import { apiAtLeast } from '../api-version'

const ZERO_TIME = '0001-01-01T00:00:00Z'
export const iso = (ms: number | undefined) => (ms === undefined ? ZERO_TIME : new Date(ms).toISOString())

/** The fake's networks, as a daemon's are: one id each, fixed. */
export const NETWORK_IDS: Record<NetworkMode, string> = {
  bridge: 'cf86f8bc60891e632c09da254c8522f4d60bb9eff3aa0da616536222e632ef50',
  host: '492bca6c944637de358c58ed2cd59b22b6a26cbf0f8dbe91ca034b7651548c57',
  none: '245654a271da7e95e99a9772086e9968287ee80e42811273d81b890a44c777af',
}

/** The paths a non-privileged container cannot read (oci.DefaultSpec), on each daemon. */
const MASKED_PATHS_20 = ['/proc/asound', '/proc/acpi', '/proc/kcore', '/proc/keys', '/proc/latency_stats', '/proc/timer_list', '/proc/timer_stats', '/proc/sched_debug', '/proc/scsi', '/sys/firmware']
const MASKED_PATHS_28 = ['/proc/asound', '/proc/acpi', '/proc/interrupts', '/proc/kcore', '/proc/keys', '/proc/latency_stats', '/proc/timer_list', '/proc/timer_stats', '/proc/sched_debug', '/proc/scsi', '/sys/firmware', '/sys/devices/virtual/powercap']
const READONLY_PATHS = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger']

/** The network mode as the daemon stored it: the 20.10 daemon kept `default` for the default bridge; Engine 28 writes `bridge`. */
const networkModeOf = (c: Container, old: boolean) => (c.networkMode === 'bridge' && old ? 'default' : c.networkMode)

/** One network's EndpointSettings: a stopped container's, or a running one's (no address: the fake has no IP stack). */
function endpoint(c: Container, old: boolean) {
  const networkId = NETWORK_IDS[c.networkMode]
  const addressing = { EndpointID: '', Gateway: '', IPAddress: '', IPPrefixLen: 0, IPv6Gateway: '', GlobalIPv6Address: '', GlobalIPv6PrefixLen: 0 }
  if (old) return { IPAMConfig: null, Links: null, Aliases: null, NetworkID: networkId, ...addressing, MacAddress: '', DriverOpts: null }
  return { IPAMConfig: null, Links: null, Aliases: null, MacAddress: '', DriverOpts: null, GwPriority: 0, NetworkID: networkId, ...addressing, DNSNames: null }
}

/** Networks by name: the container's one network (the default bridge is `bridge` on both daemons). */
const networks = (c: Container, old: boolean) => ({ [c.networkMode]: endpoint(c, old) })

/** The PATH every image the fake holds sets, as a pulled image's config does. */
export const IMAGE_ENV = ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin']

/**
 * A container.Config as encoding/json writes it, every field in its order with the zero values a minimal create leaves:
 * a container's `Config`, and an image's `Config` and `ContainerConfig` (images.ts).
 */
export function goContainerConfig(set: { Hostname?: string; Env: string[] | null; Cmd: string[] | null; Image?: string; Labels: Record<string, string> | null }) {
  return {
    Hostname: set.Hostname ?? '',
    Domainname: '',
    User: '',
    AttachStdin: false,
    AttachStdout: false,
    AttachStderr: false,
    Tty: false,
    OpenStdin: false,
    StdinOnce: false,
    Env: set.Env,
    Cmd: set.Cmd,
    Image: set.Image ?? '',
    Volumes: null,
    WorkingDir: '',
    Entrypoint: null,
    OnBuild: null,
    Labels: set.Labels,
  }
}

export interface ContainerView {
  /** Config.Labels: the labels and the instance type, keys sorted. */
  labels: Record<string, string>
  imageId: string
  /** Docker's STATUS text (`Up 5 seconds`). */
  status: string
  /** SizeRw and SizeRootFs, with `?size=1`. */
  sizes?: { SizeRw: number; SizeRootFs: number }
}

/** An entry of `GET /containers/json`. `docker ps` reads Names, Image, Command, Created, Status, Ports. */
export function containerSummary(c: Container, view: ContainerView, version: string | undefined) {
  const old = !apiAtLeast(version, '1.42')
  return {
    Id: c.id,
    Names: [`/${c.name}`],
    Image: c.image,
    ImageID: view.imageId,
    Command: 'sh',
    Created: Math.floor(c.created / 1000),
    Ports: [],
    ...view.sizes,
    Labels: view.labels,
    State: c.state,
    Status: view.status,
    HostConfig: { NetworkMode: networkModeOf(c, old) },
    NetworkSettings: { Networks: networks(c, old) },
    Mounts: [],
  }
}

/** `GET /containers/{id}/json`. */
export function containerInspect(c: Container, view: ContainerView, version: string | undefined) {
  const old = !apiAtLeast(version, '1.42')
  const started = c.startedAt !== undefined
  // Files the daemon makes when it first starts a container.
  const file = (name: string) => (started ? `/var/lib/docker/containers/${c.id}/${name}` : '')
  const consoleSize = { ConsoleSize: [0, 0] }
  const hostConfig = {
    Binds: null,
    ContainerIDFile: '',
    LogConfig: { Type: 'json-file', Config: {} },
    NetworkMode: networkModeOf(c, old),
    PortBindings: null,
    RestartPolicy: { Name: old ? '' : 'no', MaximumRetryCount: 0 },
    AutoRemove: false,
    VolumeDriver: '',
    VolumesFrom: null,
    ...(old ? {} : consoleSize),
    CapAdd: null,
    CapDrop: null,
    CgroupnsMode: old ? 'host' : 'private',
    Dns: null,
    DnsOptions: null,
    DnsSearch: null,
    ExtraHosts: null,
    GroupAdd: null,
    IpcMode: 'private',
    Cgroup: '',
    Links: null,
    OomScoreAdj: 0,
    PidMode: '',
    Privileged: false,
    PublishAllPorts: false,
    ReadonlyRootfs: false,
    SecurityOpt: null,
    UTSMode: '',
    UsernsMode: '',
    ShmSize: 67108864,
    Runtime: 'runc',
    ...(old ? consoleSize : {}),
    Isolation: '',
    CpuShares: 0,
    Memory: 0,
    NanoCpus: 0,
    CgroupParent: '',
    BlkioWeight: 0,
    BlkioWeightDevice: null,
    BlkioDeviceReadBps: null,
    BlkioDeviceWriteBps: null,
    BlkioDeviceReadIOps: null,
    BlkioDeviceWriteIOps: null,
    CpuPeriod: 0,
    CpuQuota: 0,
    CpuRealtimePeriod: 0,
    CpuRealtimeRuntime: 0,
    CpusetCpus: '',
    CpusetMems: '',
    Devices: null,
    DeviceCgroupRules: null,
    DeviceRequests: null,
    // Written by the 20.10 daemon; omitempty (and zeroed at create from API 1.42) on Engine 28.
    ...(old ? { KernelMemory: 0, KernelMemoryTCP: 0 } : {}),
    MemoryReservation: 0,
    MemorySwap: 0,
    MemorySwappiness: null,
    OomKillDisable: false,
    PidsLimit: null,
    Ulimits: null,
    CpuCount: 0,
    CpuPercent: 0,
    IOMaximumIOps: 0,
    IOMaximumBandwidth: 0,
    MaskedPaths: old ? MASKED_PATHS_20 : MASKED_PATHS_28,
    ReadonlyPaths: READONLY_PATHS,
  }
  const sandbox = { SandboxID: '', SandboxKey: '' }
  const base = old
    ? { Bridge: '', SandboxID: '', HairpinMode: false, LinkLocalIPv6Address: '', LinkLocalIPv6PrefixLen: 0, Ports: {}, SandboxKey: '', SecondaryIPAddresses: null, SecondaryIPv6Addresses: null }
    : { Bridge: '', ...sandbox, Ports: {}, HairpinMode: false, LinkLocalIPv6Address: '', LinkLocalIPv6PrefixLen: 0, SecondaryIPAddresses: null, SecondaryIPv6Addresses: null }
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
    Image: view.imageId,
    ResolvConfPath: file('resolv.conf'),
    HostnamePath: file('hostname'),
    HostsPath: file('hosts'),
    LogPath: started ? `/var/lib/docker/containers/${c.id}/${c.id}-json.log` : '',
    Name: `/${c.name}`,
    RestartCount: 0,
    Driver: 'overlay2',
    Platform: 'linux',
    MountLabel: '',
    ProcessLabel: '',
    AppArmorProfile: '',
    ExecIDs: null,
    HostConfig: hostConfig,
    GraphDriver: { Data: null, Name: 'overlay2' },
    ...view.sizes,
    Mounts: [],
    Config: goContainerConfig({ Hostname: c.id.slice(0, 12), Env: IMAGE_ENV, Cmd: ['sh'], Image: c.image, Labels: view.labels }),
    NetworkSettings: {
      ...base,
      EndpointID: '',
      Gateway: '',
      GlobalIPv6Address: '',
      GlobalIPv6PrefixLen: 0,
      IPAddress: '',
      IPPrefixLen: 0,
      IPv6Gateway: '',
      MacAddress: '',
      Networks: networks(c, old),
    },
  }
}
