import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A real Docker daemon (Debian's docker.io: dockerd 20.10 with its own containerd) and real registries (distribution
 * 2.8: one open, one with basic auth) started in a private folder, for the side-by-side tests. No network set-up and
 * no pulls: the base image is busybox-static imported as `busybox:local`. `stop()` ends every process it started, by pid.
 */
export interface RealDocker {
  /** `unix://DIR/docker.sock` */
  readonly host: string
  /** `127.0.0.1:PORT`, open. */
  readonly registry: string
  /** `127.0.0.1:PORT`, basic auth. */
  readonly authRegistry: { host: string; username: string; password: string }
  readonly image: 'busybox:local'
  stop(): Promise<void>
}

const NEEDED = ['/usr/sbin/dockerd', '/usr/bin/docker-registry', '/bin/busybox', '/usr/bin/htpasswd']

/** Why the real daemon cannot start here, or undefined (CI installs it all: .ci/run). */
export function realDockerMissing(): string | undefined {
  const missing = NEEDED.filter((f) => !existsSync(f))
  if (missing.length) return `missing ${missing.join(', ')}: apt-get install docker.io docker-registry busybox-static apache2-utils`
  if (process.getuid?.() !== 0) return 'dockerd needs root'
  return undefined
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as { port: number }
  await new Promise((r) => server.close(r))
  return port
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 30_000) {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url)
    return true
  } catch {
    return false
  }
}

export async function startRealDocker(): Promise<RealDocker> {
  // A short path: a unix socket path has a 108-byte limit.
  const dir = mkdtempSync(join(tmpdir(), 'dsd-'))
  const children: ChildProcess[] = []
  const stop = async () => {
    for (const child of children.reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue
      const gone = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await gone
      clearTimeout(timer)
    }
    // dockerd leaves containerd's state and mounts under exec-root: best effort.
    try {
      execFileSync('umount', ['-R', join(dir, 'exec')], { stdio: 'ignore' })
    } catch {}
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 })
  }
  try {
    const sock = join(dir, 'docker.sock')
    const dockerd = spawn(
      '/usr/sbin/dockerd',
      ['--data-root', join(dir, 'data'), '--exec-root', join(dir, 'exec'), '--host', `unix://${sock}`, '--pidfile', join(dir, 'docker.pid'), '--iptables=false', '--ip6tables=false', '--bridge=none', '--storage-driver=vfs'],
      { stdio: ['ignore', 'ignore', 'ignore'] },
    )
    children.push(dockerd)
    const registry = async (name: string, auth: string) => {
      const port = await freePort()
      const config = join(dir, `${name}.yml`)
      writeFileSync(config, `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${join(dir, name)}\nhttp:\n  addr: 127.0.0.1:${port}\n${auth}`)
      const child = spawn('/usr/bin/docker-registry', ['serve', config], { stdio: ['ignore', 'ignore', 'ignore'] })
      children.push(child)
      await until(`registry ${name}`, () => answers(`http://127.0.0.1:${port}/v2/`))
      return `127.0.0.1:${port}`
    }
    const htpasswd = join(dir, 'htpasswd')
    writeFileSync(htpasswd, execFileSync('/usr/bin/htpasswd', ['-Bbn', 'ci', 's3cret']))
    const open = await registry('open', '')
    const authed = await registry('auth', `auth:\n  htpasswd:\n    realm: dockside\n    path: ${htpasswd}\n`)
    const docker = (args: string[], input?: Buffer) => execFileSync('docker', ['-H', `unix://${sock}`, ...args], { input, env: { ...process.env, DOCKER_CONFIG: dir } })
    await until('dockerd to answer', () => {
      try {
        docker(['version', '--format', '{{.Server.Version}}'])
        return true
      } catch {
        return false
      }
    })
    const rootfs = join(dir, 'rootfs')
    mkdirSync(join(rootfs, 'bin'), { recursive: true })
    execFileSync('cp', ['/bin/busybox', join(rootfs, 'bin/busybox')])
    for (const link of ['sh', 'sleep', 'true']) symlinkSync('busybox', join(rootfs, 'bin', link))
    docker(['import', '-', 'busybox:local'], execFileSync('tar', ['-C', rootfs, '-c', '.'], { maxBuffer: 64 << 20 }))
    return { host: `unix://${sock}`, registry: open, authRegistry: { host: authed, username: 'ci', password: 's3cret' }, image: 'busybox:local', stop }
  } catch (error) {
    await stop()
    throw error
  }
}
