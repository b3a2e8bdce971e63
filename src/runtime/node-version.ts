// Imported first by every entry: on a Node older than dockside needs, importing fails at once with the version to
// install, instead of later inside a hooked fetch (Promise.withResolvers is not a function on Node 20).

/** The oldest Node version dockside runs on (package.json `engines`): 22.3, where `process.getBuiltinModule` came. */
export const MIN_NODE = { major: 22, minor: 3 } as const
const MIN = `${MIN_NODE.major}.${MIN_NODE.minor}`

/** Throws when running on Node older than {@link MIN_NODE}; does nothing outside Node (a browser). */
export function checkNodeVersion(version = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node): void {
  if (version === undefined) return
  const [major, minor] = version.split('.').map((n) => Number.parseInt(n, 10))
  if (major < MIN_NODE.major || (major === MIN_NODE.major && minor < MIN_NODE.minor)) {
    throw new Error(`dockside needs Node ${MIN} or newer (it relies on Promise.withResolvers, process.getBuiltinModule and Node 22's fetch); this is Node ${version}. Install Node ${MIN} or later (for example with nvm install 22).`)
  }
}

checkNodeVersion()
