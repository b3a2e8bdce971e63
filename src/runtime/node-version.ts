// Imported first by every entry: on a Node older than dockside needs, importing fails at once with the version to
// install, instead of later inside a hooked fetch (Promise.withResolvers is not a function on Node 20).

/** The oldest Node major version dockside runs on (package.json `engines`). */
export const MIN_NODE_MAJOR = 22

/** Throws when running on Node older than {@link MIN_NODE_MAJOR}; does nothing outside Node (a browser). */
export function checkNodeVersion(version = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node): void {
  if (version === undefined) return
  const major = Number.parseInt(version, 10)
  if (major < MIN_NODE_MAJOR) {
    throw new Error(`dockside needs Node ${MIN_NODE_MAJOR} or newer (it relies on Promise.withResolvers and Node ${MIN_NODE_MAJOR}'s fetch); this is Node ${version}. Install Node ${MIN_NODE_MAJOR} or later (for example with nvm install ${MIN_NODE_MAJOR}).`)
  }
}

checkNodeVersion()
