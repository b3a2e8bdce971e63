import { run, tempDir, type RunResult } from './clients'

/** Runs the real `docker` CLI against a fake: `DOCKER_HOST` set, a private `DOCKER_CONFIG` (optionally with `auths`). */
export function dockerCli(url: string, options: { auths?: Record<string, { username: string; password: string }> } = {}) {
  const config = tempDir('dockside-docker-config-')
  const auths: Record<string, { auth: string }> = {}
  for (const [host, c] of Object.entries(options.auths ?? {})) auths[host] = { auth: Buffer.from(`${c.username}:${c.password}`).toString('base64') }
  config.write('config.json', JSON.stringify({ auths }))
  const env = {
    PATH: process.env.PATH,
    HOME: config.path,
    DOCKER_HOST: url.replace(/^http:/, 'tcp:'),
    DOCKER_CONFIG: config.path,
    DOCKER_CLI_HINTS: 'false',
    NO_COLOR: '1',
  }
  return {
    env,
    /** `docker ...args`, resolving with exit code and output. */
    docker: (args: string[], opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<RunResult> => run('docker', args, { env, ...opts }),
    [Symbol.dispose]: () => config[Symbol.dispose](),
  }
}
